package its

// Negate is the negation of a condition, with a comparison flipped and
// a double negation or a constant folded, so that guards stay small.
func Negate(e Expr) Expr {
	switch e := e.(type) {
	case *Unary:
		if e.Op == Not {
			return e.X
		}
	case *Const:
		if e.Val.Sign() != 0 {
			return False()
		}
		return True()
	case *Binary:
		if n, ok := negated[e.Op]; ok {
			return B(n, e.X, e.Y)
		}
	}
	return &Unary{Op: Not, X: e}
}

// negated maps each comparison to its negation.
var negated = map[Op]Op{Eq: Ne, Ne: Eq, Ult: Uge, Uge: Ult, Ule: Ugt, Ugt: Ule, Slt: Sge, Sge: Slt, Sle: Sgt, Sgt: Sle}

// Size counts the nodes of e, the translators' measure for keeping
// expressions from growing without bound.
func Size(e Expr) int {
	switch e := e.(type) {
	case *Unary:
		return 1 + Size(e.X)
	case *Binary:
		return 1 + Size(e.X) + Size(e.Y)
	case *Cast:
		return 1 + Size(e.X)
	case *Ite:
		return 1 + Size(e.C) + Size(e.T) + Size(e.E)
	case *Load:
		return 1 + Size(e.Addr)
	}
	return 1
}

// Intersect keeps the guards of a that b has too (by their printed form),
// in a's order: what two paths' guards have in common.
func Intersect(a, b []Expr) []Expr {
	in := map[string]bool{}
	for _, g := range b {
		in[g.String()] = true
	}
	var out []Expr
	for _, g := range a {
		if in[g.String()] {
			out = append(out, g)
		}
	}
	return out
}

// ReadsOnly reports whether e is made of constants and of variables for
// which ok holds, with no nondeterministic value or load.
func ReadsOnly(e Expr, ok func(name string) bool) bool {
	switch e := e.(type) {
	case *Const:
		return true
	case *Ref:
		return ok(e.Var.Name)
	case *Unary:
		return ReadsOnly(e.X, ok)
	case *Binary:
		return ReadsOnly(e.X, ok) && ReadsOnly(e.Y, ok)
	case *Cast:
		return ReadsOnly(e.X, ok)
	case *Ite:
		return ReadsOnly(e.C, ok) && ReadsOnly(e.T, ok) && ReadsOnly(e.E, ok)
	}
	return false
}

// AddGuard appends the guard g to gs, split at &&, and drops true and
// what gs holds already: the same node, or one that equal (if not nil)
// finds equal to it.
func AddGuard(gs []Expr, g Expr, equal func(h, g Expr) bool) []Expr {
	if b, ok := g.(*Binary); ok && b.Op == LAnd {
		return AddGuard(AddGuard(gs, b.X, equal), b.Y, equal)
	}
	if c, ok := g.(*Const); ok && c.Val.Sign() != 0 {
		return gs
	}
	for _, h := range gs {
		if h == g || equal != nil && equal(h, g) {
			return gs
		}
	}
	return append(gs, g)
}
