package fork_test

import (
	"fmt"
	"maps"
	"math/bits"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"gpuc/internal/irtest"
)

// The examples in examples/fork run at the SPMD level, in the interpreter,
// and print what straightforward Go code computes here, independently of
// gpuc. Each example's .out file holds its output for the arguments in its
// .args file, as scripts/gpu-artifacts.sh runs it.

// example is one program of examples/fork with its reference.
type example struct {
	name string
	// defaults are the parameters the reference needs, as in the source.
	defaults map[string]int64
	// want computes the expected output.
	want func(p map[string]int64) string
	// small are parameters for a run with the race checker.
	small map[string]int64
}

var examples = []example{
	{"carve", map[string]int64{"N": 65536, "PROCS": 1024, "SLOTS": 4, "GAP": 1000}, carveWant, map[string]int64{"N": 3000, "PROCS": 37, "GAP": 97}},
	{"prefix", map[string]int64{"N": 1024}, prefixWant, map[string]int64{"N": 100}},
	{"prefix_mpadd", map[string]int64{"N": 1024}, prefixMpaddWant, map[string]int64{"N": 77}},
	{"sieve", map[string]int64{"N": 100000}, sieveWant, map[string]int64{"N": 1000, "PROCS": 37}},
	{"matmul", map[string]int64{"N": 64}, matmulWant, map[string]int64{"N": 10}},
	{"listrank", map[string]int64{"N": 1000, "S": 37}, listrankWant, map[string]int64{"N": 100}},
	{"oddeven", map[string]int64{"N": 1000}, oddevenWant, map[string]int64{"N": 60}},
	{"crcw", nil, crcwWant, map[string]int64{}},
	{"multiprefix", map[string]int64{"N": 12}, multiprefixWant, map[string]int64{"N": 40}},
	{"paper_fig1", map[string]int64{"N": 16}, fig1Want, map[string]int64{"N": 16}},
	{"paper_fig3", map[string]int64{"N": 1000}, fig3Want, map[string]int64{"N": 50}},
	{"paper_fig5", map[string]int64{"N": 100}, fig5Want, map[string]int64{"N": 30}},
	{"quicksort", map[string]int64{"N": 100000}, quicksortWant, map[string]int64{"N": 3000, "P": 24}},
	{"ilog2_rounds", nil, ilog2RoundsWant, map[string]int64{}},
	{"subgroup_sh", map[string]int64{"P": 96}, subgroupShWant, map[string]int64{"P": 29}},
	{"dcsum", map[string]int64{"N": 100000, "P": 256, "CUT": 1000}, dcsumWant, map[string]int64{"N": 5000, "P": 24}},
}

func TestExamples(t *testing.T) {
	files := irtest.Glob(t, "../../examples/fork/*.fork")
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".fork"))
	}
	for _, ex := range examples {
		if !slices.Contains(names, ex.name) {
			t.Errorf("example %s.fork is missing", ex.name)
		}
	}
	if len(names) != len(examples) {
		t.Errorf("examples/fork holds %d programs, the test knows %d", len(names), len(examples))
	}
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) { testExample(t, ex) })
	}
}

func testExample(t *testing.T, ex example) {
	base := "../../examples/fork/" + ex.name
	src := irtest.ReadFile(t, base+".fork")
	args := irtest.ArgsFile(t, base+".args")
	want := ex.want(merge(ex.defaults, args))
	if out := irtest.ReadFile(t, base+".out"); out != want {
		t.Errorf("%s.out differs from the reference:\n%s\nwant\n%s", ex.name, out, want)
	}
	m := mustParse(t, ex.name+".fork", src, defaultOpts)
	if got := mustRun(t, m, args, false); got != want {
		t.Errorf("gpuc run %v:\n%s\nwant\n%s", args, got, want)
	}
	if got, want := mustRun(t, m, ex.small, true), ex.want(merge(ex.defaults, ex.small)); got != want {
		t.Errorf("gpuc run --race %v:\n%s\nwant\n%s", ex.small, got, want)
	}
}

func merge(a, b map[string]int64) map[string]int64 {
	out := map[string]int64{}
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out
}

func prefixWant(p map[string]int64) string {
	var sum int32
	for i := int32(1); i <= int32(p["N"]); i++ {
		sum += i
	}
	return fmt.Sprintf("%d\n", sum)
}

func prefixMpaddWant(p map[string]int64) string {
	n := int(p["N"])
	prefix := make([]int32, n)
	var sum int32
	odd, last := int32(0), int32(-1)
	for i := range n {
		sum += int32(i%10 + 1)
		prefix[i] = sum
		if sum%2 == 1 {
			if i == n-1 {
				last = odd
			}
			odd++
		}
	}
	return fmt.Sprintf("a[N-1] = %d, sum = %d, %d odd prefixes, the last ranked %d\n", prefix[n-1], sum, odd, last)
}

func sieveWant(p map[string]int64) string {
	n := p["N"]
	count, sum := 0, int64(0)
	for i := int64(2); i < n; i++ {
		prime := true
		for d := int64(2); d*d <= i; d++ {
			if i%d == 0 {
				prime = false
				break
			}
		}
		if prime {
			count++
			sum += i
		}
	}
	return fmt.Sprintf("primes below %d: %d\nchecksum (their sum): %d\n", n, count, sum)
}

func matmulWant(p map[string]int64) string {
	n := int(p["N"])
	entry := func(i, j, k int) int32 { return int32((i*k+j*(k+2))%7 - 3) }
	c := make([][]int32, n)
	var check int64
	for i := range n {
		c[i] = make([]int32, n)
		for j := range n {
			var s int32
			for k := range n {
				s += entry(i, k, 1) * entry(k, j, 2)
			}
			c[i][j] = s
			check += int64(s) * int64(i+2*j+1)
		}
	}
	return fmt.Sprintf("C[0][0] = %d, C[%d][%d] = %d\nchecksum %d\n", c[0][0], n-1, n-1, c[n-1][n-1], check)
}

// listRanks ranks a list by walking it: the distance of each node to the
// end.
func listRanks(next []int) []int {
	rank := make([]int, len(next))
	for i := range next {
		for j := i; next[j] >= 0; j = next[j] {
			rank[i]++
		}
	}
	return rank
}

func listrankWant(p map[string]int64) string {
	var b strings.Builder
	b.WriteString("ranks of the 7-node list:")
	for _, r := range listRanks([]int{2, 3, 5, -1, 1, 6, 4}) {
		fmt.Fprintf(&b, " %d", r)
	}
	n, s := int(p["N"]), int(p["S"])
	next := make([]int, n)
	for k := range n {
		next[k*s%n] = (k + 1) * s % n
	}
	next[(n-1)*s%n] = -1
	rank := listRanks(next)
	wrong := 0
	for k := range n {
		if rank[k*s%n] != n-1-k {
			wrong++
		}
	}
	fmt.Fprintf(&b, "\nhead 0 has rank %d; %d wrong ranks\n", rank[0], wrong)
	return b.String()
}

func oddevenWant(p map[string]int64) string {
	n := int(p["N"])
	key := make([]int, n)
	for i := range key {
		key[i] = (i*7919 + 13) % 1009
	}
	sort.Ints(key)
	var check int64
	for i, k := range key {
		check += int64(k) * int64(i+1)
	}
	return fmt.Sprintf("smallest %d, largest %d, 0 pairs out of order, checksum %d\n", key[0], key[n-1], check)
}

// ilog2RoundsWant is ilog2_rounds.fork's output: N is a macro, 1024.
func ilog2RoundsWant(map[string]int64) string {
	const n = 1024
	sum := 0
	for i := 1; i <= n; i++ {
		sum += bits.Len(uint(i)) - 1
	}
	return fmt.Sprintf("sum %d in %d rounds\nsum of ilog2(1..%d) = %d, ilog2(0) = -1\n", n*(n+1)/2, bits.Len(n)-1, n, sum)
}

func crcwWant(map[string]int64) string {
	var b strings.Builder
	b.WriteString("winner 0\ncells:")
	for c := range 10 {
		fmt.Fprintf(&b, " %d", 1000-c) // processor c is the lowest writing cell c
	}
	x := []int{5, 9, 2, 9, 1}
	best := slices.Max(x)
	first := slices.Index(x, best)
	fmt.Fprintf(&b, "\nmaximum %d at index %d, first index of the maximum %d\n", best, first, first)
	return b.String()
}

func multiprefixWant(p map[string]int64) string {
	n := int(p["N"])
	var b strings.Builder
	line := func(label string, vals []int) {
		b.WriteString(label)
		for _, v := range vals {
			fmt.Fprintf(&b, " %d", v)
		}
		b.WriteString("\n")
	}
	var values, sums, maxima, minima, packed []int
	var ors []uint32
	sum, best, least := 0, 0, 1000
	var bits, mask uint32 = 0, 0xffffffff
	for i := range n {
		v := (i*7 + 3) % 11
		values = append(values, v)
		sums, maxima, minima, ors = append(sums, sum), append(maxima, best), append(minima, least), append(ors, bits)
		sum, best, least = sum+v, max(best, v), min(least, v)
		bits |= 1 << (i % 8)
		mask &^= 1 << (i % 5)
		if v%2 == 0 {
			packed = append(packed, v)
		}
	}
	line("values:      ", values)
	line("sums before: ", sums)
	line("max before:  ", maxima)
	line("min before:  ", minima)
	b.WriteString("or before:  ")
	for _, o := range ors {
		fmt.Fprintf(&b, " %x", o)
	}
	fmt.Fprintf(&b, "\ntotal %d, max %d, min %d, or 0x%x, and 0x%x\n", sum, best, least, bits, mask)
	line(fmt.Sprintf("%d even values packed:", len(packed)), packed)
	return b.String()
}

func fig1Want(p map[string]int64) string {
	n := int(p["N"])
	a := make([]int, n)
	for i := range a {
		if i%3 == 0 {
			a[i] = i
		} else {
			a[i] = 10*i + 1
		}
	}
	var b strings.Builder
	b.WriteString("a:")
	var check int64
	for i := range a {
		fmt.Fprintf(&b, " %d", a[i])
		check += int64(a[i]+a[(i+1)%n]) * int64(i+1)
	}
	fmt.Fprintf(&b, "\nchecksum %d\n", check)
	return b.String()
}

func fig3Want(p map[string]int64) string {
	n := int(p["N"])
	a := make([]int, n)
	var before, after int64
	for i := range n {
		a[(i+1)%n] = 2 * i
		before += int64(i)
	}
	for i := range n {
		after += int64(a[i]) * int64(i+1)
	}
	return fmt.Sprintf("sum of the first reads %d, checksum of the second reads %d\n", before, after)
}

func fig5Want(p map[string]int64) string {
	n := int(p["N"])
	a := make([]int, n+10)
	for i := range 10 {
		for id := range n {
			a[id+i] = id
		}
	}
	var check int64
	for c, v := range a {
		check += int64(v) * int64(c+1)
	}
	return fmt.Sprintf("a[0..11]: %d %d %d %d %d %d %d %d %d %d %d %d\na[%d] = %d, checksum %d\n",
		a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], n+8, a[n+8], check)
}

// quicksortWant sorts the LCG's numbers with Go's sort.
func quicksortWant(p map[string]int64) string {
	n := int(p["N"])
	a := make([]int, n)
	x := uint32(12345)
	for i := range a {
		x = x*1664525 + 1013904223
		a[i] = int(x >> 1)
	}
	sort.Ints(a)
	var check uint64
	for i, v := range a {
		check += uint64(v) * uint64(i+1)
	}
	return fmt.Sprintf("sorted %d ints\nchecksum %d\na[0] = %d, a[%d] = %d, a[%d] = %d\n",
		n, check, a[0], n/2, a[n/2], n-1, a[n-1])
}

// subgroupShWant is subgroup_sh.fork's output: group g of fork(3) holds
// the processors p = g mod 3 of P.
func subgroupShWant(p map[string]int64) string {
	var b strings.Builder
	for g := int64(0); g < 3; g++ {
		members, squares, even, odd := 0, int64(0), int64(0), int64(0)
		for q := g; q < p["P"]; q += 3 {
			members++
			squares += q * q
			if q%2 == 0 {
				even = max(even, q)
			} else {
				odd = max(odd, q)
			}
		}
		fmt.Fprintf(&b, "group %d: %d members, sum of squares %d, largest even %d, largest odd %d\n", g, members, squares, even, odd)
	}
	return b.String()
}

// dcsumWant is dcsum.fork's output: the sum, and the recursion's leaves
// and depth, the group halving with the range.
func dcsumWant(p map[string]int64) string {
	n := p["N"]
	var sum int64
	for i := range n {
		sum += i*i%1009 - 500
	}
	leaves, deepest := 0, int64(0)
	var rec func(lo, hi, g, depth int64)
	rec = func(lo, hi, g, depth int64) {
		if hi-lo <= p["CUT"] || g == 1 {
			leaves++
			deepest = max(deepest, depth)
			return
		}
		mid := lo + (hi-lo)/2
		rec(lo, mid, g/2, depth+1)
		rec(mid, hi, g-g/2, depth+1)
	}
	rec(0, n, p["P"], 0)
	return fmt.Sprintf("sum %d over %d leaf groups, %d levels deep\n", sum, leaves, deepest)
}
