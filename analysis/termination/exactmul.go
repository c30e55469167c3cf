package termination

import (
	"fmt"
	"math/big"
	"strings"

	"gpuc/analysis/its"
)

// Note [Products that cannot wrap]
// sieve's farm loop steps `i = i + (long)p * groupsize()`: in 64 bits, the product of two values
// extended from 32 bits. A 64-bit bvmul is a large circuit, and every query over the loop
// carried two of them (`p * procs`, `gid * p`): 50 to 700 ms each, most of the kernel's time,
// spent on models the proof did not need. But such a product never wraps: the operands' ranges,
// given by their source widths, bound it inside the width. So it is the integer product, and
// what the proofs use of it is linear: its range, and its sign and size against its factors,
//   x >= 0 && y >= 0 => v >= 0,   x >= 1 && y >= 0 => v >= y,   x <= -1 && y >= 0 => v <= -y,
// and the like for every sign case ((x - 1) * y >= 0 for x >= 1, y >= 0; and so on), all signed
// compares in the product's width, where neither the factors nor their negations wrap. The
// product is a fresh value with these facts; they hold for the true product, so every model of
// the exact query is one of them, and an unsat answer holds for the exact query. Its exact
// definition is written after a marker of its own in the part of exact definitions (Note
// [Division by variables]) but never asked (analyzer.check cuts it off): a model of the facts
// that the exact product would rule out only drops a candidate invariant or ranking, or a try
// at a witness, whose obligations are unsat queries like every other. The certificate keeps
// the part that was asked. With the facts, the farm loop's ranking `N - i` is proved from
// `p >= 1` and `procs >= 1`, and sieve's condition search ran in half the solver time. A
// product whose factors' ranges do not bound it inside its width (a 32-bit `p * p`) stays a
// bvmul.

// byExactProduct encodes x * y, both factors extensions of narrower values whose product
// cannot wrap, as a fresh value with linear facts and its exact definition after the marker
// (Note [Products that cannot wrap]); ok=false otherwise.
func (q *query) byExactProduct(e *its.Binary, sc *scope) (string, bool) {
	if e.Op != its.Mul {
		return "", false
	}
	s := its.SortOf(e)
	xl, xh, okx := extRange(e.X)
	yl, yh, oky := extRange(e.Y)
	if !okx || !oky || s.IsBool() {
		return "", false
	}
	lo, hi := its.Sort{Width: s.Width, Signed: true}.Min(), its.Sort{Width: s.Width, Signed: true}.Max()
	for _, a := range []*big.Int{xl, xh} {
		for _, b := range []*big.Int{yl, yh} {
			if p := new(big.Int).Mul(a, b); p.Cmp(lo) < 0 || p.Cmp(hi) > 0 {
				return "", false
			}
		}
	}
	// The negations -x and -y must not wrap either.
	for _, a := range []*big.Int{xl, yl} {
		if new(big.Int).Neg(a).Cmp(hi) > 0 {
			return "", false
		}
	}
	w := s.Width
	x, y := q.term(e.X, sc), q.term(e.Y, sc)
	key := fmt.Sprintf("mul %s %s", x, y)
	v, isNew := q.freshFor(key, "vmul", w)
	if !isNew {
		return v, true
	}
	c := func(k int64) string { return bvConst(big.NewInt(k), w) }
	ge := func(a, b string) string { return fmt.Sprintf("(bvsge %s %s)", a, b) }
	le := func(a, b string) string { return fmt.Sprintf("(bvsle %s %s)", a, b) }
	imp := func(p1, p2, concl string) {
		q.assert(fmt.Sprintf("(=> (and %s %s) %s)", p1, p2, concl))
	}
	neg := func(t string) string { return "(bvneg " + t + ")" }
	pmin, pmax := new(big.Int), new(big.Int)
	first := true
	for _, a := range []*big.Int{xl, xh} {
		for _, b := range []*big.Int{yl, yh} {
			p := new(big.Int).Mul(a, b)
			if first || p.Cmp(pmin) < 0 {
				pmin.Set(p)
			}
			if first || p.Cmp(pmax) > 0 {
				pmax.Set(p)
			}
			first = false
		}
	}
	q.assert(fmt.Sprintf("(and %s %s)", le(bvConst(pmin, w), v), le(v, bvConst(pmax, w))))
	zero, one, mone := c(0), c(1), c(-1)
	imp(ge(x, zero), ge(y, zero), ge(v, zero))
	imp(le(x, zero), le(y, zero), ge(v, zero))
	imp(ge(x, zero), le(y, zero), le(v, zero))
	imp(le(x, zero), ge(y, zero), le(v, zero))
	imp(ge(x, one), ge(y, zero), ge(v, y))
	imp(ge(x, zero), ge(y, one), ge(v, x))
	imp(ge(x, one), le(y, zero), le(v, y))
	imp(le(x, zero), ge(y, one), le(v, x))
	imp(le(x, mone), ge(y, zero), le(v, neg(y)))
	imp(ge(x, zero), le(y, mone), le(v, neg(x)))
	imp(le(x, mone), le(y, zero), ge(v, neg(y)))
	imp(le(x, zero), le(y, mone), ge(v, neg(x)))
	if !strings.Contains(q.exact.String(), productsMarker) {
		q.exact.WriteString(productsMarker)
	}
	fmt.Fprintf(&q.exact, "(assert (= %s (bvmul %s %s)))\n", v, x, y)
	return v, true
}

// extRange gives the range of the integer value a zero or sign extension e reads in the
// signed order of its width (the source's range); ok=false where e is no widening cast.
func extRange(e its.Expr) (lo, hi *big.Int, ok bool) {
	c, isCast := e.(*its.Cast)
	if !isCast || (c.Op != its.ZExt && c.Op != its.SExt) {
		return nil, nil, false
	}
	from := its.SortOf(c.X).Width
	if from <= 0 || from >= c.To.Width {
		return nil, nil, false
	}
	src := its.Sort{Width: from, Signed: c.Op == its.SExt}
	return src.Min(), src.Max(), true
}

// productsMarker starts the exact definitions of products that cannot wrap, in the part of a
// script after exactMarker (Note [Products that cannot wrap]).
const productsMarker = ";; exact products (Note [Products that cannot wrap])\n"

// withoutExactProducts gives script without the exact definitions of its products that cannot
// wrap (their facts stay), and without the marker of exact definitions where none is left
// (Note [Products that cannot wrap]).
func withoutExactProducts(script string) string {
	i := strings.Index(script, productsMarker)
	if i < 0 {
		return script
	}
	script = script[:i]
	if strings.HasSuffix(script, exactMarker) {
		script = strings.TrimSuffix(script, exactMarker)
	}
	return script
}
