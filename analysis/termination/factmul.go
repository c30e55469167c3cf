package termination

import (
	"fmt"
	"math/big"

	"gpuc/analysis/its"
)

// Note [Products bounded by the facts]
// The launch facts define the global id and the grid's size by 64-bit products,
// gid = bid * bdim + tid and gsize = gdim * bdim, and every query starts from the facts. A
// 64-bit bvmul is the largest circuit most queries hold (Note [Products that cannot wrap]): in
// AMD SimpleConvolution, whose loops' bounds divide the global id by a parameter, the queries
// of the condition search took 150 to 500 ms each, and with the two products written over the
// factors' own bits a third of that. The facts themselves bound the factors: 1 <= bdim <= 1024
// and bid < gdim <= 2^31 - 1, and a condition adds bid <= 1024 and the like. Where two factors
// x and y are known to lie in [0, X] and [0, Y] with X * Y < 2^w, x * y in w bits is the
// integer product, and so is the product of x's and y's low bits, zero-extended: written so,
// the multiplier is as wide as the factors' bounds, not as the sort.
//
// The bounds come only from the facts' compares between variables and constants (an interval
// pass over those conjuncts alone), never from a conjunct that holds a product. So the facts'
// conjunction F and its rewritten form F' are the same formula: an assignment that breaks a
// compare makes both false, and one that keeps every compare keeps every factor within its
// bounds, where each rewritten product equals the original. This holds wherever F stands in a
// query, asserted or not. It applies to one conjunction at a time, the facts (entryFacts) or
// an invariant at a location (Invariants.term; at the entry, the facts again): a product in a
// guard or update is not bounded by them at any later state.

// conjunctBounds gives the intervals that the compares between variables and constants of the
// conjunction of es alone imply (Note [Products bounded by the facts]); nil where there are
// none or they cannot hold.
func conjunctBounds(es []its.Expr) ienv {
	// Only where a product of two variables could use them.
	products := false
	for _, e := range es {
		its.Walk(e, func(x its.Expr) {
			if b, ok := x.(*its.Binary); ok && b.Op == its.Mul && plainOperand(b.X) && plainOperand(b.Y) {
				_, cx := b.X.(*its.Const)
				_, cy := b.Y.(*its.Const)
				products = products || !cx && !cy
			}
		})
	}
	if !products {
		return nil
	}
	var cmps []its.Expr
	for _, e := range es {
		for _, c := range conjuncts(e) {
			if b, ok := c.(*its.Binary); ok && b.Op.IsCompare() && plainOperand(b.X) && plainOperand(b.Y) {
				cmps = append(cmps, c)
			}
		}
	}
	if len(cmps) == 0 {
		return nil
	}
	env := ienv{}
	// Twice: a compare may bound a variable through one that a later compare bounds.
	for pass := 0; pass < 2; pass++ {
		for _, c := range cmps {
			if !irefine(c, env) {
				return nil
			}
		}
	}
	return env
}

func plainOperand(e its.Expr) bool {
	switch e.(type) {
	case *its.Ref, *its.Const:
		return true
	}
	return false
}

// byBoundedFactors encodes x * y, each factor a variable that sc's fact bounds keep within
// [0, 2^k) and their product within the sort, as a product of the factors' low bits (Note
// [Products bounded by the facts]); ok=false otherwise.
func (q *query) byBoundedFactors(e *its.Binary, sc *scope) (string, bool) {
	if e.Op != its.Mul || sc.bounds == nil {
		return "", false
	}
	s := its.SortOf(e)
	if s.IsBool() {
		return "", false
	}
	bits := func(x its.Expr) (int, *big.Int, bool) {
		r, ok := x.(*its.Ref)
		if !ok {
			return 0, nil, false
		}
		a, ok := sc.bounds[r.Var.Name]
		if !ok || a.lo.Sign() < 0 || a.hi.Sign() <= 0 {
			return 0, nil, false
		}
		return a.hi.BitLen(), a.hi, true
	}
	bx, hx, okx := bits(e.X)
	by, hy, oky := bits(e.Y)
	if !okx || !oky {
		return "", false
	}
	k := new(big.Int).Mul(hx, hy).BitLen()
	if k >= s.Width {
		return "", false
	}
	low := func(x its.Expr, b int) string {
		t := fmt.Sprintf("((_ extract %d 0) %s)", b-1, q.term(x, sc))
		if b < k {
			t = fmt.Sprintf("((_ zero_extend %d) %s)", k-b, t)
		}
		return t
	}
	return fmt.Sprintf("((_ zero_extend %d) (bvmul %s %s))", s.Width-k, low(e.X, bx), low(e.Y, by)), true
}
