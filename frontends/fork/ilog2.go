package fork

import (
	"math/bits"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// ilog2 is Fork's ilog2(x): floor(log2(x)) as an int, and -1 for x <= 0.
// A constant folds; any other x, which must be side-effect free (a
// temporary), becomes -1 plus the number of powers of two up to x, a sum
// of comparisons without branches or loops that every backend has.
func ilog2(pos diag.Pos, x ir.Expr) ir.Expr {
	t := x.Type()
	if c, ok := x.(*ir.Const); ok {
		v := c.Bits
		if t.IsSigned() && int64(v) <= 0 || v == 0 {
			return ir.IntConst(ir.I32, -1)
		}
		return ir.IntConst(ir.I32, int64(63-bits.LeadingZeros64(v)))
	}
	width := t.Size() * 8
	if t.IsSigned() {
		width-- // the sign bit is no power of two of a positive x
	}
	var sum ir.Expr = ir.IntConst(ir.I32, -1)
	for k := range width {
		power := &ir.Const{Pos: pos, T: t, Bits: ir.Normalize(t, 1<<k)}
		one := &ir.Select{Pos: pos, Cond: &ir.Binary{Pos: pos, Op: ir.Ge, X: x, Y: power}, X: ir.IntConst(ir.I32, 1), Y: ir.IntConst(ir.I32, 0)}
		sum = &ir.Binary{Pos: pos, Op: ir.Add, X: sum, Y: one}
	}
	return sum
}
