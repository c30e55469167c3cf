package fromllvm

import "gpuc/analysis/its"

// Note [Conditional splitting]
// min, max, abs and selects give Ite expressions, which linear ranking and invariant templates
// cannot read. A transition whose guards or updates hold an Ite whose condition reads no fresh
// value becomes two, one per case, with the condition or its negation as a guard; at most
// maxSplits conditions per transition (so at most 2^maxSplits transitions), outermost first.

const maxSplits = 3

func splitIte(t its.Transition) []its.Transition {
	return splitN(t, maxSplits)
}

func splitN(t its.Transition, n int) []its.Transition {
	if n == 0 {
		return []its.Transition{t}
	}
	var c its.Expr
	for _, g := range t.Guard {
		if c = findIte(g); c != nil {
			break
		}
	}
	if c == nil {
		for _, k := range its.SortedUpdates(t) {
			if c = findIte(t.Update[k]); c != nil {
				break
			}
		}
	}
	if c == nil {
		return []its.Transition{t}
	}
	var out []its.Transition
	for _, val := range []bool{true, false} {
		nt := its.Transition{From: t.From, To: t.To, Havoc: t.Havoc, Pos: t.Pos, Update: map[string]its.Expr{}}
		g := c
		if !val {
			g = its.Negate(c)
		}
		for _, old := range t.Guard {
			nt.Guard = addGuard(nt.Guard, subst(old, c, val))
		}
		nt.Guard = addGuard(nt.Guard, g)
		for k, e := range t.Update {
			nt.Update[k] = subst(e, c, val)
		}
		out = append(out, splitN(nt, n-1)...)
	}
	return out
}

// findIte gives the condition of the first Ite in e (outermost, left to right) that reads no
// fresh value, or nil.
func findIte(e its.Expr) its.Expr {
	switch e := e.(type) {
	case *its.Ite:
		if !hasNondet(e.C) {
			return e.C
		}
		for _, x := range []its.Expr{e.C, e.T, e.E} {
			if c := findIte(x); c != nil {
				return c
			}
		}
	case *its.Unary:
		return findIte(e.X)
	case *its.Binary:
		if c := findIte(e.X); c != nil {
			return c
		}
		return findIte(e.Y)
	case *its.Cast:
		return findIte(e.X)
	case *its.Load:
		return findIte(e.Addr)
	}
	return nil
}

func hasNondet(e its.Expr) bool {
	switch e := e.(type) {
	case *its.Nondet:
		return true
	case *its.Ite:
		return hasNondet(e.C) || hasNondet(e.T) || hasNondet(e.E)
	case *its.Unary:
		return hasNondet(e.X)
	case *its.Binary:
		return hasNondet(e.X) || hasNondet(e.Y)
	case *its.Cast:
		return hasNondet(e.X)
	case *its.Load:
		return hasNondet(e.Addr)
	}
	return false
}

// subst replaces every Ite whose condition is c (the same node or the same text) by the branch
// that val picks.
func subst(e its.Expr, c its.Expr, val bool) its.Expr {
	switch x := e.(type) {
	case *its.Ite:
		if x.C == c || x.C.String() == c.String() {
			if val {
				return subst(x.T, c, val)
			}
			return subst(x.E, c, val)
		}
		return &its.Ite{C: subst(x.C, c, val), T: subst(x.T, c, val), E: subst(x.E, c, val)}
	case *its.Unary:
		return &its.Unary{Op: x.Op, X: subst(x.X, c, val)}
	case *its.Binary:
		return its.B(x.Op, subst(x.X, c, val), subst(x.Y, c, val))
	case *its.Cast:
		return &its.Cast{Op: x.Op, X: subst(x.X, c, val), To: x.To}
	case *its.Load:
		return &its.Load{Buffer: x.Buffer, Addr: subst(x.Addr, c, val), Sort: x.Sort}
	}
	return e
}
