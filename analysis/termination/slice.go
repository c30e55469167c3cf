package termination

import "gpuc/analysis/its"

// Note [Slicing]
// Before the analysis, variables that no guard and no fact reads, directly or through the
// updates of variables that one reads, are dropped with their updates. The transitions a run
// can take depend only on the guards, so the sliced system has the same runs, up to the dropped
// values: it terminates exactly when the original does, and a witness for it is one for the
// original. Facts are kept whole, with their variables, so that a witness never picks a launch
// a dropped fact would forbid. Slicing matters for speed: the dropped updates are often the
// multiplications and remainders that address memory.

// guardVars adds to vars the variables that t's guards read.
func guardVars(t its.Transition, vars map[string]bool) {
	for _, g := range t.Guard {
		for v := range its.FreeVars(g) {
			vars[v] = true
		}
	}
}

// closeUnderUpdates adds to vars, until none is left out, the variables
// that the updates of a variable in vars read.
func closeUnderUpdates(sys *its.System, vars map[string]bool) {
	for changed := true; changed; {
		changed = false
		for _, t := range sys.Trans {
			for k, e := range t.Update {
				if !vars[k] {
					continue
				}
				for v := range its.FreeVars(e) {
					if !vars[v] {
						vars[v] = true
						changed = true
					}
				}
			}
		}
	}
}

// slice returns sys without the variables that cannot influence control.
func slice(sys *its.System) *its.System {
	keep := map[string]bool{}
	for _, t := range sys.Trans {
		guardVars(t, keep)
	}
	for _, f := range sys.Facts {
		for v := range its.FreeVars(f.Expr) {
			keep[v] = true
		}
	}
	closeUnderUpdates(sys, keep)
	if len(keep) == len(sys.Vars) {
		return sys
	}
	c := *sys
	c.Vars = nil
	for _, v := range sys.Vars {
		if keep[v.Name] {
			c.Vars = append(c.Vars, v)
		}
	}
	filter := func(names []string) []string {
		var out []string
		for _, n := range names {
			if keep[n] {
				out = append(out, n)
			}
		}
		return out
	}
	c.Params = filter(sys.Params)
	c.ThreadVars = filter(sys.ThreadVars)
	c.Trans = make([]its.Transition, len(sys.Trans))
	for i, t := range sys.Trans {
		nt := t
		nt.Update = map[string]its.Expr{}
		for k, e := range t.Update {
			if keep[k] {
				nt.Update[k] = e
			}
		}
		nt.Havoc = filter(t.Havoc)
		c.Trans[i] = nt
	}
	return &c
}

// Note [Proof view]
// Proofs (invariants and ranking functions) read a coarser system: guard conjuncts that read
// memory (Nondet or Load) are dropped. A transition then fires in more states, so the system has
// more runs, and a proof for it holds for the original; the solver no longer has to reason about
// the address arithmetic of loads, which is most of the cost of such queries. Witnesses read the
// exact system: more runs would make a FALSE unsound.

// proofView drops the guard conjuncts that read memory, and the facts that multiply or divide
// two variables (gid == bid*bdim + tid): fewer assumptions can only make a proof harder, never
// wrong, and 64-bit multipliers are what the solver is slowest at. Their linear consequences
// (tid <= gid < gsize), which translators state as facts too, stay.
func proofView(sys *its.System) *its.System {
	orig := sys
	sys = keepBoundedLoads(sys)   // Note [Bounded loads in the proof view]
	sys = keepInvariantLoads(sys) // Note [Loads at invariant addresses]
	changed := sys != orig
	var facts []its.Fact
	for _, f := range sys.Facts {
		if nonlinear(f.Expr) {
			changed = true
			continue
		}
		facts = append(facts, f)
	}
	trans := make([]its.Transition, len(sys.Trans))
	for i, t := range sys.Trans {
		nt := t
		nt.Guard = nil
		for _, g := range t.Guard {
			if its.HasNondet(g) {
				changed = true
				continue
			}
			nt.Guard = append(nt.Guard, g)
		}
		trans[i] = nt
	}
	if !changed {
		return sys
	}
	c := *sys
	c.Trans = trans
	c.Facts = facts
	return slice(&c)
}

// nonlinear reports whether e multiplies, divides or shifts by a non-constant.
func nonlinear(e its.Expr) bool {
	found := false
	its.Walk(e, func(x its.Expr) {
		b, ok := x.(*its.Binary)
		if !ok {
			return
		}
		_, xc := b.X.(*its.Const)
		_, yc := b.Y.(*its.Const)
		switch b.Op {
		case its.Mul:
			found = found || (!xc && !yc)
		case its.UDiv, its.SDiv, its.URem, its.SRem, its.Shl, its.LShr, its.AShr:
			found = found || !yc
		}
	})
	return found
}
