package termination

import (
	"math/big"

	"gpuc/analysis/its"
)

// Note [Steps that cannot wrap]
// decrease asks the solver, for each transition of a component, whether a candidate ranking
// function decreases in bitvector semantics. Where the function moves by a constant d > 0 over
// the integers (constDiff) and each variable it reads that the transition changes steps by one
// toward a bound the transition's own guard states (v := v - 1 under X < v, v := v + 1 under
// v < X, the comparison in v's signedness on v itself, no cast), no step wraps: the bitvector
// values are the integer ones, and the difference is d. The transition is then strict with no
// query. Its obligation still goes into the certificate, so --verify-cert asks the solver.
// Checked walks (Note [Checked walk bounds] in frontends/trs) have dozens of such back edges in
// one loop nest, a query each before, which spent the work budget of trs_step.

// stepsCannotWrap reports whether every variable that fs read and t updates is v := v - 1 or
// v := v + 1, in v's sort, under a guard of t that keeps it from wrapping.
func stepsCannotWrap(t its.Transition, fs ...*Linear) bool {
	for _, f := range fs {
		for v, c := range f.Coef {
			if c.Sign() == 0 {
				continue
			}
			e, ok := t.Update[v]
			if !ok {
				continue
			}
			if !unitStepGuarded(t, v, e) {
				return false
			}
		}
	}
	return true
}

// unitStepGuarded: e is v + 1 or v - 1 (v of its own sort), and a guard of t bounds v on the
// side it moves toward.
func unitStepGuarded(t its.Transition, v string, e its.Expr) bool {
	b, ok := e.(*its.Binary)
	if !ok || (b.Op != its.Add && b.Op != its.Sub) {
		return false
	}
	r, ok := b.X.(*its.Ref)
	if !ok || r.Var.Name != v || r.Var.Sort.IsBool() {
		return false
	}
	k, ok := b.Y.(*its.Const)
	if !ok || k.Sort != r.Var.Sort || k.Val.Cmp(big.NewInt(1)) != 0 {
		return false
	}
	up := b.Op == its.Add
	lt, gt := its.Ult, its.Ugt
	if r.Var.Sort.Signed {
		lt, gt = its.Slt, its.Sgt
	}
	isV := func(x its.Expr) bool {
		y, ok := x.(*its.Ref)
		return ok && y.Var == r.Var
	}
	for _, g := range t.Guard {
		c, ok := g.(*its.Binary)
		if !ok {
			continue
		}
		// Going up needs v < X (v is not the largest value); going down X < v.
		switch {
		case up && c.Op == lt && isV(c.X), up && c.Op == gt && isV(c.Y):
			return true
		case !up && c.Op == lt && isV(c.Y), !up && c.Op == gt && isV(c.X):
			return true
		}
	}
	return false
}
