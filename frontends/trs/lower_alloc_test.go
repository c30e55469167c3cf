package trs

import (
	"fmt"
	"strings"
	"testing"

	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/passes"
)

// siteAtomics counts the atomic adds of function name on each of the
// allocator's counters.
func siteAtomics(t *testing.T, m *ir.Module, name string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, f := range m.Funcs {
		if f.Name != name {
			continue
		}
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if a, ok := s.(*ir.Atomic); ok && a.Op == ir.AtomicAdd {
				n[a.Buf]++
			}
			return true
		})
	}
	return n
}

// Note [One allocation site]: however many rules need new slots, trs_step
// takes them at one site, two adds on the fresh counter and two on the
// free ring's head (one of each for either order FRESH asks for); in a
// world, a fork group has a site of its own. The references move in each
// rule's build case, as constants: one add for F's X, one for G's three
// uses of X, none where a reference moves (Y) or goes. The one-processor
// step has the same site; its builds that reuse S(X) in place (Note
// [Reuse in place]) add one for G's X (two) and none for F's.
func TestOneAllocationSite(t *testing.T) {
	system := func(rules int) string {
		var b strings.Builder
		b.WriteString("sort Nat = struct Zero() | S(Nat) | Node(Nat, Nat)")
		for i := 0; i < rules; i++ {
			fmt.Fprintf(&b, " | F%d(Nat, Nat) | G%d(Nat)", i, i)
		}
		b.WriteString(";\nvar X : Nat; Y : Nat;\n")
		for i := 0; i < rules; i++ {
			fmt.Fprintf(&b, "eqn F%d(S(X), Y) = F%d(X, S(S(Y)));\n    F%d(Zero(), Y) = Y;\n", i, i, i)
			fmt.Fprintf(&b, "    G%d(S(X)) = Node(G%d(X), F%d(X, X));\n    G%d(Zero()) = Zero();\n", i, i, i, i)
		}
		b.WriteString("input G0(S(S(Zero())));\n")
		return b.String()
	}
	for _, rules := range []int{1, 20} {
		for _, world := range []bool{false, true} {
			m := lowerSource(t, system(rules), Options{World: world})
			irtest.RunPasses(t, m, &passes.Config{}, "default")
			n := siteAtomics(t, m, "trs_step")
			sites := 1
			if world {
				sites = 3 // G's Node(G(X), F(X, X)) forks in two
			}
			if n["nfresh"] != 2*sites || n["free"] != 2*sites {
				t.Errorf("%d rules, world %v: %d adds on nfresh and %d on free in trs_step; want %d of each", rules, world, n["nfresh"], n["free"], 2*sites)
			}
			if n["rc"] != 2*rules {
				t.Errorf("%d rules, world %v: %d adds on rc in trs_step; want %d", rules, world, n["rc"], 2*rules)
			}
			if world {
				continue
			}
			n = siteAtomics(t, m, "trs_step1")
			if n["nfresh"] != 2 || n["free"] != 2 || n["rc"] != 3*rules {
				t.Errorf("%d rules: trs_step1 has %d adds on nfresh, %d on free and %d on rc; want 2, 2 and %d", rules, n["nfresh"], n["free"], n["rc"], 3*rules)
			}
		}
	}
}

// Note [Rules that need no slots]: on one device, trs_step's build stage
// has a case for each rule whose right-hand side needs new slots (F's
// first, G's first), and the others are built where they match; in a
// world, every rule has its case.
func TestRulesThatNeedNoSlots(t *testing.T) {
	const src = `sort Nat = struct Zero() | S(Nat) | Node(Nat, Nat) | F(Nat, Nat) | G(Nat);
var X : Nat; Y : Nat;
eqn F(S(X), Y) = F(X, S(S(Y)));
    F(Zero(), Y) = Y;
    G(S(X)) = Node(G(X), F(X, X));
    G(Zero()) = Zero();
input G(S(S(Zero())));`
	for _, world := range []bool{false, true} {
		m := lowerSource(t, src, Options{World: world})
		cases := -1
		ir.WalkStmts(m.Func("trs_step").Body, func(s ir.Stmt) bool {
			if sw, ok := s.(*ir.Switch); ok {
				if v, ok := sw.X.(*ir.Var); ok && v.Name == lRule {
					cases = len(sw.Cases)
				}
			}
			return true
		})
		want := 2
		if world {
			want = 4
		}
		if cases != want {
			t.Errorf("world %v: the build stage has %d cases; want %d", world, cases, want)
		}
	}
}
