package termination

import (
	"fmt"

	"gpuc/analysis/its"
)

// Note [Loads at invariant addresses]
//
// A Load reads a buffer the kernel never writes (Note [Thread-modular ITS]): the same address
// gives the same value. The proof view drops guard conjuncts that read memory (Note [Proof
// view]), so `for (j = 0; j < sigs[k]; j++)` with k unchanged in the loop (carve's plant) had no
// bound. Such a conjunct is kept instead, each Load in it that reads no fresh value (its value
// is then a function of the variables it reads, memory being fixed) read as a variable L that
// every transition changing one of those variables havocs, and no other transition touches.
// Every run of the original is a run of the new system in which L equals the Load at every
// state (at the entry L is any value, so choose the Load's; a transition that keeps the
// address's variables keeps both; one that changes them havocs L, so choose the Load's new
// value), and a guard reads its source state, so the conjunct with L holds exactly where the
// original does: a proof of the new system holds for the original. Kept only on transitions
// that change none of the address's variables themselves (elsewhere L is fresh each time round
// and bounds nothing) and only where the conjunct reads a variable some transition updates
// (a counter it may bound). L is havocked on leaving the entry too (a choice the original has),
// so that the condition search never takes it for a value read once. Witnesses read the exact
// system.

// keepInvariantLoads rewrites the guard conjuncts of sys described in Note [Loads at invariant
// addresses]; sys is not changed.
func keepInvariantLoads(sys *its.System) *its.System {
	counters := changedVars(sys.Trans...)
	type loadVar struct {
		v     its.Var
		reads map[string]bool
	}
	byText := map[string]*loadVar{}
	var order []string
	trans := make([]its.Transition, len(sys.Trans))
	changed := false
	for i, t := range sys.Trans {
		nt := t
		trans[i] = nt
		own := changedVars(t)
		var guard []its.Expr
		for j, g := range t.Guard {
			if !its.HasNondet(g) || !readsAny(g, counters) {
				continue
			}
			ok := true
			ng := replaceLoads(g, func(l *its.Load) its.Expr {
				if hasFresh(l) {
					ok = false
					return l
				}
				reads := its.FreeVars(l)
				for v := range reads {
					if own[v] {
						ok = false
						return l
					}
				}
				key := l.String()
				lv := byText[key]
				if lv == nil {
					lv = &loadVar{v: its.Var{Name: fmt.Sprintf("load#%d:%s", len(order), l.Sort), Sort: l.Sort}, reads: map[string]bool{}}
					for v := range reads {
						lv.reads[v] = true
					}
					byText[key] = lv
					order = append(order, key)
				}
				return its.R(lv.v)
			})
			if !ok || its.HasNondet(ng) {
				continue
			}
			if guard == nil {
				guard = append([]its.Expr(nil), t.Guard...)
			}
			guard[j] = ng
		}
		if guard != nil {
			trans[i].Guard = guard
			changed = true
		}
	}
	if !changed {
		return sys
	}
	c := *sys
	c.Vars = append([]its.Var(nil), sys.Vars...)
	for _, k := range order {
		c.Vars = append(c.Vars, byText[k].v)
	}
	for i := range trans {
		own := changedVars(trans[i])
		var havoc []string
		for _, k := range order {
			lv := byText[k]
			if trans[i].From == sys.Entry || sharesVar(lv.reads, own) {
				havoc = append(havoc, lv.v.Name)
			}
		}
		if len(havoc) > 0 {
			trans[i].Havoc = append(append([]string(nil), trans[i].Havoc...), havoc...)
		}
	}
	c.Trans = trans
	return &c
}

// sharesVar reports whether some key of a is in b.
func sharesVar(a, b map[string]bool) bool {
	for v := range a {
		if b[v] {
			return true
		}
	}
	return false
}

// hasFresh reports whether e reads a fresh value (a Nondet).
func hasFresh(e its.Expr) bool {
	found := false
	its.Walk(e, func(x its.Expr) {
		if _, ok := x.(*its.Nondet); ok {
			found = true
		}
	})
	return found
}

// replaceLoads copies e with each outermost Load replaced by what f gives for it.
func replaceLoads(e its.Expr, f func(*its.Load) its.Expr) its.Expr {
	return its.Rewrite(e, func(x its.Expr) (its.Expr, bool) {
		if l, ok := x.(*its.Load); ok {
			return f(l), true
		}
		return nil, false
	})
}
