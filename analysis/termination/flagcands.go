package termination

import "gpuc/analysis/its"

// Note [Flag candidates]
//
// A loop whose condition is a flag set at the end of the body from a compare, as Fork lowers a
// synchronous `do ... while (i < 10)` (`run := (i + 1 < 10) ? 1 : 0; i := i + 1`, then `while
// (run)`), is ranked by 10 - i only with the invariant that ties the flag to the compare: where
// run holds, i < 10. No template proposed it, so paper_fig5's loop of ten steps was UNKNOWN. For
// each update `b := c ? 1 : 0` of a flag b with c a compare, Houdini now gets `b == 0 || c'`,
// where c' is c read after the transition: each variable the transition steps by a constant k
// (v := v + k) stands as v - k, which is exact in bitvector semantics; a compare that reads a
// variable the transition sets otherwise gives no candidate. Houdini keeps it only where it is
// inductive, like any candidate. Where c is a conjunction, each compare in it that reads no load
// gives a candidate of its own (the flag implies every conjunct).

// flagCandidates gives the flag candidates of sys.
func flagCandidates(sys *its.System) []its.Expr {
	var out []its.Expr
	for _, t := range sys.Trans {
		for _, k := range its.SortedUpdates(t) {
			ite, ok := t.Update[k].(*its.Ite)
			if !ok {
				continue
			}
			b, _ := sys.Var(k)
			one, okT := ite.T.(*its.Const)
			zero, okE := ite.E.(*its.Const)
			if !okT || !okE || one.Val.Sign() == 0 || zero.Val.Sign() != 0 {
				continue
			}
			// Where the flag holds, so does each conjunct of c: one candidate for each
			// compare among them that reads no load (CHR's claim rounds: `more := lost
			// changed && round < min(ROUNDS, 15)`).
			for _, a := range conjuncts(ite.C) {
				c, okC := a.(*its.Binary)
				if !okC || !c.Op.IsCompare() || its.HasNondet(c) {
					continue
				}
				post, ok := afterSteps(c, t)
				if !ok {
					continue
				}
				out = append(out, its.B(its.LOr, its.B(its.Eq, its.R(b), &its.Const{Val: zero.Val, Sort: b.Sort}), post))
			}
		}
	}
	return out
}

// afterSteps reads e after t: each variable t steps by a constant k stands as v - k; false where
// e reads a variable t sets in another way.
func afterSteps(e its.Expr, t its.Transition) (its.Expr, bool) {
	ok := true
	var walk func(x its.Expr) its.Expr
	walk = func(x its.Expr) its.Expr {
		switch x := x.(type) {
		case *its.Ref:
			u, set := t.Update[x.Var.Name]
			for _, h := range t.Havoc {
				set = set || h == x.Var.Name
			}
			if !set {
				return x
			}
			s, isStep := u.(*its.Binary)
			if !isStep || s.Op != its.Add {
				ok = false
				return x
			}
			r, isRef := s.X.(*its.Ref)
			k, isConst := s.Y.(*its.Const)
			if !isRef || !isConst || r.Var.Name != x.Var.Name {
				ok = false
				return x
			}
			return its.B(its.Sub, x, k)
		case *its.Unary:
			return &its.Unary{Op: x.Op, X: walk(x.X)}
		case *its.Binary:
			return its.B(x.Op, walk(x.X), walk(x.Y))
		case *its.Cast:
			c := *x
			c.X = walk(x.X)
			return &c
		case *its.Ite:
			return &its.Ite{C: walk(x.C), T: walk(x.T), E: walk(x.E)}
		}
		return x
	}
	out := walk(e)
	return out, ok
}
