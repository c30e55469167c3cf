package chr_test

import (
	"fmt"
	"strings"
	"testing"

	"gpuc/frontends/chr"
	"gpuc/ir"
)

// TestGuardBounds checks Note [Guard bounds] on confluent programs whose
// guards bound a partner's argument from below and from above, through
// + - and negation, on negative values: the lowering tests the bound
// where the conjunct is monotone (and not otherwise), and the final
// store is SWI-Prolog's, at the SPMD level and lowered with the race
// checker.
func TestGuardBounds(t *testing.T) {
	// A complete DAG on 7 nodes with weights in -5..5.
	var dag []string
	for i := 0; i < 7; i++ {
		for j := i + 1; j < 7; j++ {
			dag = append(dag, fmt.Sprintf("e(%d, %d, %d)", i, j, (i*7+j*13)%11-5))
		}
	}
	edges := strings.Join(dag, ", ")
	marks := "a(1, 3), a(1, -4), a(2, 7), a(3, -9), b(1, 2), b(1, 5), b(2, -8), b(2, -6), b(3, 9), b(3, 8), b(4, 0)"
	cases := []struct {
		name, rules, query string
		bounds             int // bound locals of the SPMD module
	}{
		// Shortest paths, the guard's sides swapped: A + min B - C < 0.
		{"least", "e(I, K, A), e(K, J, B) \\ e(I, J, C) <=> A + B - C < 0 | D is A + B, e(I, J, D).", edges, 1},
		// Longest paths: C < A + max B.
		{"greatest", "e(I, K, A), e(K, J, B) \\ e(I, J, C) <=> C < A + B | D is A + B, e(I, J, D).", edges, 1},
		// Negation: -min V > W.
		{"negated", "a(K, V) \\ b(K, W) <=> -V > W | c(K, W).", marks, 1},
		// Not monotone in V: no bound, the same store.
		{"product", "a(K, V) \\ b(K, W) <=> V * V > W | c(K, W).", marks, 0},
		// >= with V on the left: max V - 2 >= W.
		{"at-least", "a(K, V) \\ b(K, W) <=> V - 2 >= W | c(K, W).", marks, 1},
		// No key: the scan of a is skipped where max V - 2 >= W fails.
		{"scan", "a(_, V) \\ b(_, W) <=> V - 2 >= W | c(0, W).", marks, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := ":- use_module(library(chr)).\n:- chr_constraint e(+int, +int, +int), a(+int, +int), b(+int, +int), c(+int, +int).\n" +
				c.rules + "\n?- " + c.query + ".\n"
			m := mustParse(t, c.name+".chr", src, chr.Options{})
			if got := strings.Count(ir.Print(m), "var bound"); got != c.bounds {
				t.Errorf("%d bound locals, want %d:\n%s", got, c.bounds, src)
			}
			want := swipl(t, src)
			if got := mustRun(t, m, nil, false, false); got != want {
				t.Errorf("gpuc run:\n%s\nwant (SWI-Prolog)\n%s", got, want)
			}
			m = mustParse(t, c.name+".chr", src, chr.Options{})
			if got := mustRun(t, m, smallProcs, true, true); got != want {
				t.Errorf("gpuc run --race --passes=default PROCS=7:\n%s\nwant (SWI-Prolog)\n%s", got, want)
			}
		})
	}
}
