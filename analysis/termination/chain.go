package termination

import "gpuc/analysis/its"

// Note [Chained compares]
// A path's guards often bound a counter through a middle term: nussinov's c2 loop runs while
// c2 < min(B, D), which reaches the inner loops on two paths, one with c2 < B, the other with
// c2 < D and D <= B. No compare holds on both, so the available compares (a must-analysis,
// Note [Invariants for free]) lose c2's bound; but both paths imply c2 < B. So each transition
// also makes available the compares that follow from two of its guard compares by transitivity:
// x < y (or <=) and y < z (or <=) give x < z (< if either is strict, else <=), when both have the
// same signedness and y is the same expression in both. Signed and unsigned orders on bitvectors
// of one width are total orders, so this is exact in bitvector semantics, with no query.

// order is a guard compare read as lo < hi or lo <= hi.
type order struct {
	lo, hi         its.Expr
	strict, signed bool
}

// asOrder reads a compare as an order; false for == and != and non-compares.
func asOrder(e its.Expr) (order, bool) {
	b, ok := e.(*its.Binary)
	if !ok || its.HasNondet(b) {
		return order{}, false
	}
	switch b.Op {
	case its.Slt, its.Ult:
		return order{b.X, b.Y, true, b.Op == its.Slt}, true
	case its.Sle, its.Ule:
		return order{b.X, b.Y, false, b.Op == its.Sle}, true
	case its.Sgt, its.Ugt:
		return order{b.Y, b.X, true, b.Op == its.Sgt}, true
	case its.Sge, its.Uge:
		return order{b.Y, b.X, false, b.Op == its.Sge}, true
	}
	return order{}, false
}

func (o order) expr() its.Expr {
	var op its.Op
	switch {
	case o.signed && o.strict:
		op = its.Slt
	case o.signed:
		op = its.Sle
	case o.strict:
		op = its.Ult
	default:
		op = its.Ule
	}
	return its.B(op, o.lo, o.hi)
}

// chained gives the compares that follow by transitivity from guards (chains of up to
// maxChain compares), which are not among guards.
func chained(guards []its.Expr) []its.Expr {
	var os []order
	have := map[string]bool{}
	for _, g := range guards {
		if o, ok := asOrder(g); ok {
			os = append(os, o)
			have[o.expr().String()] = true
		}
	}
	var out []its.Expr
	for round, n := 1, len(os); round < maxChain && len(os) < 64; round++ {
		for i := range os {
			for j := range os[:n] {
				a, b := os[i], os[j]
				if a.signed != b.signed || a.hi.String() != b.lo.String() || a.lo.String() == b.hi.String() {
					continue
				}
				c := order{a.lo, b.hi, a.strict || b.strict, a.signed}
				if e := c.expr(); !have[e.String()] {
					have[e.String()] = true
					out = append(out, e)
					os = append(os, c)
				}
			}
		}
	}
	return out
}

const maxChain = 4

// Note [Available definitions]
// A transition that sets v := e, where e reads neither v nor any variable the transition
// changes, leaves v == e true at its target; it stays true along transitions that change neither
// v nor what e reads, like an available compare (Note [Invariants for free]). Nussinov's inner
// loop bound reads mul141, set to c1 * 3 on the way in: the definition ties it to c1, whose
// bounds the outer loop's guards give. Only small linear definitions over no fresh value count.

// maxDefSize bounds the size of a definition's right-hand side.
const maxDefSize = 12

// definitions gives the definitions v == e that hold after t.
func definitions(sys *its.System, t its.Transition) []its.Expr {
	changes := changedVars(t)
	var out []its.Expr
	for _, k := range its.SortedUpdates(t) {
		e := t.Update[k]
		v, ok := sys.Var(k)
		if !ok || v.Sort.IsBool() || its.HasNondet(e) || nonlinear(e) || divides(e) || its.Size(e) > maxDefSize {
			continue
		}
		if _, isConst := e.(*its.Const); isConst {
			continue // interval bounds cover constants
		}
		free := true
		for x := range its.FreeVars(e) {
			if changes[x] {
				free = false
				break
			}
		}
		if free && its.SortOf(e) == v.Sort {
			out = append(out, its.B(its.Eq, its.R(v), e))
		}
	}
	return out
}
