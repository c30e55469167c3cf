package termination

import (
	"fmt"
	"math/big"
	"strings"

	"gpuc/analysis/its"
)

// Note [Division by other constants]
// A division or remainder by a constant d that is no power of two (polybench's cholesky: a loop
// bound c0 / 3 in 64 bits) cannot be shifted (Note [Division by powers of two]), and a 64-bit
// bvsdiv is a division circuit: z3 took 1 to 3 s to find a model of a Houdini query over it. The
// quotient becomes a fresh constant Q instead, defined by linear bounds that fix it, computed in
// a width W = w + bits(|d|) + 1 where neither x nor Q*d can wrap:
//   x /u d:  0 <= x - Q*d < d                                      (Q, x zero-extended)
//   x /s d:  0 <= x - Q*d < d if x >= 0,  -d < x - Q*d <= 0 if x < 0  (rounds toward zero)
//   x /s -d = -(x /s d);  x % d = x - Q*d in w bits (the sign of x for %s, as bvsrem).
// For each x exactly one Q in w bits meets the bounds, so the definition is a top-level
// assertion of the query whatever context the division sits in, and one Q serves every
// occurrence of the same x. The multiplication by a constant is a few adders: the same queries
// take 0.1 to 0.4 s. TestConstantDivision checks the encoding against the solver's operators.

// byConstant encodes a division or remainder by a constant d with 3 <= |d| (no power of two,
// which byPowerOfTwo takes) through a fresh quotient; ok=false otherwise.
func (q *query) byConstant(e *its.Binary, sc *scope) (string, bool) {
	w, d, neg, ok := constDivisor(e)
	if !ok {
		return "", false
	}
	signed := e.Op == its.SDiv || e.Op == its.SRem
	if d.Cmp(big.NewInt(3)) < 0 || new(big.Int).And(d, new(big.Int).Sub(d, big.NewInt(1))).Sign() == 0 {
		return "", false // 0, 1, 2 or a power of two
	}
	x := q.term(e.X, sc)
	key := fmt.Sprintf("%t %s %s", signed, d, x)
	quo, isNew := q.freshFor(key, "quo", w)
	if isNew {
		k := d.BitLen() + 1
		W := w + k
		ext := "zero_extend"
		if signed {
			ext = "sign_extend"
		}
		wide := func(t string) string { return fmt.Sprintf("((_ %s %d) %s)", ext, k, t) }
		r := fmt.Sprintf("(bvsub %s (bvmul %s %s))", wide(x), wide(quo), bvConst(d, W))
		zero, dW := bvConst(new(big.Int), W), bvConst(d, W)
		up := fmt.Sprintf("(and (bvsle %s %s) (bvslt %s %s))", zero, r, r, dW)
		if !signed {
			q.assert(up)
		} else {
			down := fmt.Sprintf("(and (bvslt (bvneg %s) %s) (bvsle %s %s))", dW, r, r, zero)
			q.assert(fmt.Sprintf("(ite (bvsge %s %s) %s %s)", x, bvConst(new(big.Int), w), up, down))
		}
	}
	switch e.Op {
	case its.URem, its.SRem:
		return fmt.Sprintf("(bvsub %s (bvmul %s %s))", x, quo, bvConst(d, w)), true
	}
	if neg {
		return "(bvneg " + quo + ")", true
	}
	return quo, true
}

// Note [Division by variables]
// A division or remainder by a variable (shoc's reduce: region_size = n / 4 / num_groups) is a
// 64-bit division circuit; z3 takes 2 s and more on a Houdini query over one, past the 1 s per
// query. Such a value becomes a fresh constant v with bounds that hold for the true value:
//   x /u y:  v = ~0 if y = 0, else v <=u x;      x %u y:  v = x if y = 0, else v <=u x, v <u y;
// and its exact definition (= v (bvudiv x y)) goes after a marker at the end of the script.
// analyzer.check asks the part before the marker first: every model of the exact script is one
// of it, so unsat there is unsat (most proofs need only the bounds), and only an answer other than
// unsat asks the whole script, whose models are exact. The certificate keeps the part that was
// proved (Engine.proved), so --verify-cert re-checks what the solver answered. Signed division by
// a variable stays exact.

// exactMarker separates a script's exact definitions from the bounds before it.
const exactMarker = ";; exact definitions (Note [Division by variables])\n"

// abstractPart gives the script before its exact definitions; ok=false where it has none.
func abstractPart(script string) (string, bool) {
	i := strings.Index(script, exactMarker)
	if i < 0 {
		return "", false
	}
	return script[:i], true
}

// byVariable encodes x /u y and x %u y with y no constant as a fresh value with bounds, and its
// exact definition after the marker (Note [Division by variables]); ok=false otherwise.
func (q *query) byVariable(e *its.Binary, sc *scope) (string, bool) {
	if e.Op != its.UDiv && e.Op != its.URem {
		return "", false
	}
	if _, ok := e.Y.(*its.Const); ok {
		return "", false
	}
	w := its.SortOf(e).Width
	x, y := q.term(e.X, sc), q.term(e.Y, sc)
	key := fmt.Sprintf("%s %s %s", e.Op, x, y)
	v, isNew := q.freshFor(key, "vdiv", w)
	if !isNew {
		return v, true
	}
	zero := bvConst(new(big.Int), w)
	if e.Op == its.UDiv {
		q.assert(fmt.Sprintf("(ite (= %s %s) (= %s (bvnot %s)) (bvule %s %s))", y, zero, v, zero, v, x))
		fmt.Fprintf(&q.exact, "(assert (= %s (bvudiv %s %s)))\n", v, x, y)
	} else {
		q.assert(fmt.Sprintf("(ite (= %s %s) (= %s %s) (and (bvule %s %s) (bvult %s %s)))", y, zero, v, x, v, x, v, y))
		fmt.Fprintf(&q.exact, "(assert (= %s (bvurem %s %s)))\n", v, x, y)
	}
	return v, true
}

// freshFor gives the fresh variable of width w that stands for key's
// expression in this query, declaring it, named PREFIX!N, the first time;
// isNew says that the caller must assert its definition.
func (q *query) freshFor(key, prefix string, w int) (v string, isNew bool) {
	if v, ok := q.quotients[key]; ok {
		return v, false
	}
	if q.quotients == nil {
		q.quotients = map[string]string{}
	}
	q.fresh++
	v = q.declare(fmt.Sprintf("%s!%d", prefix, q.fresh), its.Sort{Width: w})
	q.quotients[key] = v
	return v, true
}
