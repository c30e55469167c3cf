package termination

import (
	"fmt"
	"math/big"

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
	switch e.Op {
	case its.UDiv, its.URem, its.SDiv, its.SRem:
	default:
		return "", false
	}
	c, ok := e.Y.(*its.Const)
	if !ok {
		return "", false
	}
	w := c.Sort.Width
	signed := e.Op == its.SDiv || e.Op == its.SRem
	d := new(big.Int).Mod(c.Val, new(big.Int).Lsh(big.NewInt(1), uint(w))) // the constant's bits
	neg := false
	if signed && d.Bit(w-1) == 1 {
		d.Sub(d, new(big.Int).Lsh(big.NewInt(1), uint(w)))
		d.Neg(d)
		neg = true
	}
	if d.Cmp(big.NewInt(3)) < 0 || new(big.Int).And(d, new(big.Int).Sub(d, big.NewInt(1))).Sign() == 0 {
		return "", false // 0, 1, 2 or a power of two
	}
	x := q.term(e.X, sc)
	key := fmt.Sprintf("%t %s %s", signed, d, x)
	if q.quotients == nil {
		q.quotients = map[string]string{}
	}
	quo, seen := q.quotients[key]
	if !seen {
		q.fresh++
		quo = q.declare(fmt.Sprintf("quo!%d", q.fresh), its.Sort{Width: w})
		q.quotients[key] = quo
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
