package fromllvm

import (
	"math/big"
	"strings"
	"testing"

	"gpuc/analysis/its"
)

// TestMergeGuards: merged paths keep the guards they share and the disjunction of the rest of
// each (Note [Exact merges]); a path with no guard of its own makes the disjunction true.
func TestMergeGuards(t *testing.T) {
	c := its.R(its.Var{Name: "c", Sort: its.I64})
	n := its.R(its.Var{Name: "n", Sort: its.I64})
	shared := its.B(its.Slt, n, its.C(100, its.I64))
	a := []its.Expr{shared, its.B(its.Sgt, n, its.C(0, its.I64)), its.B(its.Sle, c, its.C(31, its.I64))}
	b := []its.Expr{shared, its.B(its.Sle, n, its.C(0, its.I64)), its.B(its.Sle, c, n)}
	got := mergeGuards([][]its.Expr{a, b})
	if len(got) != 2 || got[0].String() != shared.String() {
		t.Fatalf("merged guard %v, want the shared guard and one disjunction", got)
	}
	want := "(((n >s 0:i64) && (c <=s 31:i64)) || ((n <=s 0:i64) && (c <=s n)))"
	if got[1].String() != want {
		t.Errorf("disjunction %s, want %s", got[1], want)
	}
	// Exactness: each path's guards imply the merged guard, and the merged guard holds only
	// where one path's guards hold, on a grid of values.
	for cv := int64(-2); cv <= 40; cv += 3 {
		for nv := int64(-5); nv <= 105; nv += 5 {
			env := &its.Env{Vars: map[string]*big.Int{"c": big.NewInt(cv), "n": big.NewInt(nv)}}
			holds := func(gs []its.Expr) bool {
				for _, g := range gs {
					if its.Eval(g, env).Sign() == 0 {
						return false
					}
				}
				return true
			}
			if holds(got) != (holds(a) || holds(b)) {
				t.Errorf("c=%d n=%d: merged %v, paths %v %v", cv, nv, holds(got), holds(a), holds(b))
			}
		}
	}
	// A path with no guard of its own: only the shared guards remain.
	if got := mergeGuards([][]its.Expr{a, {shared}}); len(got) != 1 || !strings.Contains(got[0].String(), "100") {
		t.Errorf("merged with an unguarded path: %v, want the shared guard alone", got)
	}
}

// TestMergeGuardsBranch: two paths that differ in one test and its negation merge into the shared
// guards alone.
func TestMergeGuardsBranch(t *testing.T) {
	n := its.R(its.Var{Name: "n", Sort: its.I64})
	shared := its.B(its.Slt, n, its.C(100, its.I64))
	test := its.B(its.Ne, its.B(its.And, n, its.C(1, its.I64)), its.C(0, its.I64))
	got := mergeGuards([][]its.Expr{{shared, test}, {shared, its.Negate(test)}})
	if len(got) != 1 || got[0].String() != shared.String() {
		t.Errorf("merged %v, want the shared guard alone", got)
	}
}
