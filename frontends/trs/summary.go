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
