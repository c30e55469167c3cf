package termination

import "gpuc/analysis/its"

// Note [Guarded select intervals]
// A clamp such as min(max(nd, 0), 255) reaches the system as ite(nd >s 255, 255, nd), with
// both occurrences of nd one value (one *Nondet node, or one variable). Joining the two arms
// gives nd's whole range; reading each arm under its condition (the else arm under its
// negation) gives [.., 255], which bounds the loop counters set from it (parboil gridding's
// z <= cond93 loops). An arm narrows only where it is the same value as a side of the compare
// (sameValue); any other arm keeps its plain interval, so the result is never narrower than the
// values the select can take.

// iteInterval gives the interval of x, each arm read under the condition that selects it.
func iteInterval(x *its.Ite, env ienv) ival {
	t, tok := armInterval(x.C, false, x.T, env)
	e, eok := armInterval(x.C, true, x.E, env)
	switch {
	case tok && eok:
		return t.join(e)
	case tok:
		return t
	case eok:
		return e
	}
	// Neither arm can be taken: no value; the join of both is a sound answer.
	return ieval(x.T, env).join(ieval(x.E, env))
}

// armInterval gives the interval of arm where c holds (negated: where it does not); false where
// c (or its negation) cannot hold for the arm's value.
func armInterval(c its.Expr, negated bool, arm its.Expr, env ienv) (ival, bool) {
	plain := ieval(arm, env)
	b, ok := c.(*its.Binary)
	if !ok || !b.Op.IsCompare() || its.SortOf(arm).IsBool() {
		return plain, true
	}
	op, x, y := b.Op, b.X, b.Y
	if negated {
		op = negate(op)
	}
	switch {
	case sameValue(arm, x):
	case sameValue(arm, y):
		op, x, y = flip(op), y, x
	default:
		return plain, true
	}
	// The arm's value as a fresh variable, narrowed by "value op y".
	tmp := its.Var{Name: "\x00arm", Sort: its.SortOf(arm)}
	local := env.copy()
	local[tmp.Name] = plain
	if !irefine(its.B(op, its.R(tmp), y), local) {
		return ival{}, false
	}
	return local.get(tmp), true
}

// sameValue reports whether a and b are one value within one transition: the same node, the
// same variable or constant, or the same operation on same values.
func sameValue(a, b its.Expr) bool {
	if a == b {
		return true
	}
	switch a := a.(type) {
	case *its.Ref:
		r, ok := b.(*its.Ref)
		return ok && r.Var == a.Var
	case *its.Const:
		c, ok := b.(*its.Const)
		return ok && c.Sort == a.Sort && c.Val.Cmp(a.Val) == 0
	case *its.Unary:
		u, ok := b.(*its.Unary)
		return ok && u.Op == a.Op && sameValue(a.X, u.X)
	case *its.Binary:
		u, ok := b.(*its.Binary)
		return ok && u.Op == a.Op && sameValue(a.X, u.X) && sameValue(a.Y, u.Y)
	case *its.Cast:
		u, ok := b.(*its.Cast)
		return ok && u.Op == a.Op && u.To == a.To && sameValue(a.X, u.X)
	}
	// Nondet and Load: only the same node (a Nondet is fresh per node; a Load's address may
	// read a Nondet).
	return false
}
