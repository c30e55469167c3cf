package termination

import (
	"math/big"
	"testing"

	"gpuc/analysis/its"
)

// parseSys reads a system in the text form, failing the test on error.
func parseSys(t *testing.T, src string) *its.System {
	t.Helper()
	sys, err := its.Parse(src, "t.its")
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// ivalAt gives v's interval at location loc.
func ivalAt(t *testing.T, sys *its.System, loc, v string) (lo, hi int64) {
	t.Helper()
	st := intervals(sys)
	for l, env := range st {
		if sys.Locs[l].Name == loc {
			x, _ := sys.Var(v)
			a := env.get(x)
			return a.lo.Int64(), a.hi.Int64()
		}
	}
	t.Fatalf("no location %s", loc)
	return 0, 0
}

// Note [Guarded expression intervals]: a guard on a compound expression bounds an update that
// reads it; a disjunctive guard narrows through the side that can hold; the guarded entries do
// not leak into the post-state.
func TestGuardedExpressionIntervals(t *testing.T) {
	sys := parseSys(t, `
var a i64
var b i64
var c i64
var d i64
params a, b
loc entry [entry]
loc l [loop]
loc exit [exit]
trans entry -> l [((a - b) >=s 126:i64), (((a <s 0:i64) && (b <=s 3:i64)) || ((a >=s 0:i64) && (b >=s 7:i64))), (a <s 0:i64)] {c := ((a - b) + -126:i64); d := b}
trans l -> l [(c <s 1000:i64)] {c := (c + 1:i64)}
trans l -> exit [(c >=s 1000:i64)] {}
`)
	if lo, _ := ivalAt(t, sys, "l", "c"); lo != 0 {
		t.Errorf("c >= %d at l, want c >= 0 from the guard on a - b", lo)
	}
	for _, tr := range sys.Trans {
		if tr.From != sys.Entry {
			continue
		}
		post := ipost(sys, tr, intervals(sys)[sys.Entry])
		if post == nil {
			t.Fatal("the entry transition is feasible")
		}
		for k := range post {
			if k != "" && k[0] == 0 {
				t.Errorf("guarded key %q leaks into the post-state", k)
			}
		}
	}
	// Only the first disjunct can hold with a < 0: d := b is at most 3.
	if _, hi := ivalAt(t, sys, "l", "d"); hi != 3 {
		t.Errorf("d <= %d at l, want 3 from the disjunct that holds", hi)
	}
}

// Note [Guarded select intervals]: a clamp's arms are read under their conditions.
func TestSelectIntervals(t *testing.T) {
	sys := parseSys(t, `
var x i32
var z i32
params x
loc entry [entry]
loc l [loop]
loc exit [exit]
trans entry -> l [] {z := ((x >s 255:i32) ? 255:i32 : x)}
trans l -> l [(z <s 0:i32)] {z := (z + 1:i32)}
trans l -> exit [(z >=s 0:i32)] {}
`)
	if _, hi := ivalAt(t, sys, "l", "z"); hi != 255 {
		t.Errorf("z <= %d at l, want 255", hi)
	}
	// An arm that is not a side of the compare keeps its own interval.
	e := &its.Ite{C: its.B(its.Sgt, its.R(its.Var{Name: "x", Sort: its.I32}), its.C(255, its.I32)), T: its.C(7, its.I32), E: its.C(-9, its.I32)}
	if a := ieval(e, ienv{}); a.lo.Cmp(big.NewInt(-9)) != 0 || a.hi.Cmp(big.NewInt(7)) != 0 {
		t.Errorf("ite(x > 255, 7, -9) in [%v, %v], want [-9, 7]", a.lo, a.hi)
	}
}

// Note [Chained compares]: transitivity through a shared middle term, same signedness only.
func TestChainedCompares(t *testing.T) {
	v := func(n string) its.Expr { return its.R(its.Var{Name: n, Sort: its.I64}) }
	got := map[string]bool{}
	for _, e := range chained([]its.Expr{
		its.B(its.Slt, v("c"), v("d")),
		its.B(its.Sge, v("b"), v("d")), // d <= b
		its.B(its.Ule, v("b"), v("e")), // unsigned: no chain with the signed ones
	}) {
		got[e.String()] = true
	}
	if !got["(c <s b)"] {
		t.Errorf("chained gives %v, want c <s b", got)
	}
	for k := range got {
		if k != "(c <s b)" {
			t.Errorf("unexpected chained compare %s", k)
		}
	}
}
