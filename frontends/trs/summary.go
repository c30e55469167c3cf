package trs

import "fmt"

// Note [Summary]
//
// A normal form too large to print is summarised by its size, the number
// of symbols in it written out as a tree, and a structural hash, both
// modulo 2^64. The hash of f(t1, ..., tn), with f the symbol numbered i
// (Note [Symbol numbers]), is
//
//	h = (i + 1) * 0x9E3779B97F4A7C15
//	for each argument t: h = (h ^ hash(t)) * 0x100000001B3; h = h ^ (h >> 32)
//
// Both depend only on the term, not on how it is shared, so the device's
// term store, the CPU rewriter and a term read back from Maude agree. The
// generated program computes them on the host (lower_host.go), once per
// node of the graph.

// Hash constants of Note [Summary].
const (
	hashSeed  = 0x9E3779B97F4A7C15
	hashPrime = 0x100000001B3
)

// Summary is a term's size and hash.
type Summary struct {
	Size, Hash uint64
}

// String is the line the generated program prints for --print=summary.
func (s Summary) String() string {
	return fmt.Sprintf("term size %d, hash %d", s.Size, s.Hash)
}

// Summarize computes the summary of the term at node root of s.
func Summarize(s Store, root int32) Summary {
	memo := make([]Summary, s.Len()) // Size 0: not computed yet
	var walk func(i int32) Summary
	walk = func(i int32) Summary {
		if memo[i].Size != 0 {
			return memo[i]
		}
		h, args := s.Node(i)
		out := Summary{Size: 1, Hash: uint64(h+1) * hashSeed}
		for _, a := range args {
			sub := walk(a)
			out.Size += sub.Size
			out.Hash = (out.Hash ^ sub.Hash) * hashPrime
			out.Hash ^= out.Hash >> 32
		}
		memo[i] = out
		return out
	}
	return walk(root)
}

// Note [Fitted summaries]
//
// A normal form too large for the CPU rewriter, such as tree merge sort's
// at depth 24 (issue 19's capacity runs), can still be checked where the
// workload is a complete tree: where the normal form one level deeper is
// f(t, ..., t) with every t the normal form at the shallower depth (the
// same summary), each further level is f over copies of the last, and
// its summary follows from Note [Summary] level by level. The rewrite
// count of such a workload is affine in 2^depth, so two depths fit it:
// r(d+1+n) = r(d+1) + 2*(r(d+1) - r(d))*(2^n - 1).

// Extrapolate returns the summary of the normal form n levels deeper
// than the one at node deep of s1, and the rewrite count fitted from the
// counts at both depths (Note [Fitted summaries]). The normal form at
// node shallow of s0 is that of the level above; deep's arguments must
// all have its summary.
func Extrapolate(s0 Store, shallow int32, r0 int64, s1 Store, deep int32, r1 int64, n int) (Summary, int64, error) {
	if n < 0 || n > 62 {
		return Summary{}, 0, fmt.Errorf("extrapolate %d levels: want 0 to 62", n)
	}
	below := Summarize(s0, shallow)
	h, args := s1.Node(deep)
	if len(args) == 0 {
		return Summary{}, 0, fmt.Errorf("the deeper normal form is a constant, not a tree over the shallower one")
	}
	for _, a := range args {
		if got := Summarize(s1, a); got != below {
			return Summary{}, 0, fmt.Errorf("the deeper normal form's arguments are not the shallower normal form (%v, want %v)", got, below)
		}
	}
	sum := Summarize(s1, deep)
	for range n {
		next := Summary{Size: 1, Hash: uint64(h+1) * hashSeed}
		for range args {
			next.Size += sum.Size
			next.Hash = (next.Hash ^ sum.Hash) * hashPrime
			next.Hash ^= next.Hash >> 32
		}
		sum = next
	}
	return sum, r1 + 2*(r1-r0)*(int64(1)<<n-1), nil
}
