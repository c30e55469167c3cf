package trs

import (
	"fmt"
	"strings"
	"testing"

	"gpuc/ir"
)

// siteAtomics counts trs_step's atomic adds on each of the allocator's
// counters.
func siteAtomics(t *testing.T, m *ir.Module) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, f := range m.Funcs {
		if f.Name != "trs_step" {
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
// uses of X, none where a reference moves (Y) or goes.
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
			n := siteAtomics(t, lowerSource(t, system(rules), Options{World: world}))
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
		}
	}
}
