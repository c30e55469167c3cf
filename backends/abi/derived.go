package abi

import "gpuc/ir"

// Note [Derived range facts]
//
// Two more ways of Note [Range facts] to put an index in range, each a
// consequence of what a test or an operator already guarantees:
//
//   - a bound under a minimum: where `x < min(a, b)` holds (a loop's or
//     an if's test, or the negation of `min(a, b) <= x`), x < a and x < b
//     hold, for each of a and b that is stable (not a load), although
//     the other may be a load: the grid-stride loops up to min(top[0],
//     CAP) of CHR's stores;
//   - a remainder: x % n lies in [0, n) where x is not negative and n is
//     at least 1 (a constant, or a length known positive there), so it
//     indexes a buffer of length n unchecked. Where n could be 0 the
//     divisor's own check comes first; where n could be negative the
//     index check stays (x % -4 is not below -4).
//
// Both only drop checks that cannot fail; TestDerivedFacts keeps the near
// misses (x <= min(...), a remainder by a length not known positive or of
// a value that may be negative) checked.

// minFacts returns the facts x < m for each stable operand m of a
// minimum y, nested minimums included: what x < y gives beyond x < y.
func minFacts(x, y ir.Expr) []fact {
	b, ok := strip(y).(*ir.Builtin)
	if !ok || b.Op != ir.Min || len(b.Args) != 2 || !stable(x) {
		return nil
	}
	var out []fact
	for _, a := range b.Args {
		if a.Type() != x.Type() {
			continue
		}
		if stable(a) {
			out = append(out, newFact(x, a))
		}
		out = append(out, minFacts(x, a)...)
	}
	return out
}

// remInRange reports whether index is x % n with n the buffer's length
// and at least 1, and x not negative, under k.
func (pl *planner) remInRange(index, length ir.Expr, k *known) bool {
	r, ok := strip(index).(*ir.Binary)
	if !ok || r.Op != ir.Rem || !r.X.Type().IsInt() || !pl.sameLength(r.Y, length) {
		return false
	}
	if !pl.nonNeg(r.X, ir.PrintExpr(strip(r.X)), k) {
		return false
	}
	if c, ok := strip(r.Y).(*ir.Const); ok {
		return c.T.IsInt() && (c.Int() >= 1 || !c.T.IsSigned() && c.Bits != 0)
	}
	return pl.divides(r.Y, k)
}
