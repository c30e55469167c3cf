package fork

import (
	"gpuc/internal/diag"
	"gpuc/ir"
)

// IR construction for C's operators, shared by constant evaluation and the
// lowering. The IR has no implicit conversions, so these helpers insert
// them; operations on constants fold, so that literals keep their types.

// convert returns e converted to t, folding constants.
func convert(e ir.Expr, t ir.Type) ir.Expr {
	if e.Type() == t || t == ir.Invalid {
		return e
	}
	return ir.Fold(&ir.Convert{Pos: e.At(), T: t, X: e})
}

// truth is C's truth value of a scalar: e != 0.
func truth(e ir.Expr) ir.Expr {
	if e.Type() == ir.Bool {
		return e
	}
	return ir.Fold(&ir.Binary{Pos: e.At(), Op: ir.Ne, X: e, Y: zero(e.At(), e.Type())})
}

// zero is the zero value of t.
func zero(pos diag.Pos, t ir.Type) *ir.Const { return &ir.Const{Pos: pos, T: t} }

// intConst is an integer constant of type t.
func intConst(pos diag.Pos, t ir.Type, v int64) *ir.Const {
	c := ir.IntConst(t, v)
	c.Pos = pos
	return c
}

// unaryOp applies a C unary operator (- + ! ~) to x; t is the result type.
func unaryOp(pos diag.Pos, op string, x ir.Expr, t ir.Type) ir.Expr {
	switch op {
	case "!":
		return ir.Fold(&ir.Unary{Pos: pos, Op: ir.Not, X: truth(x)})
	case "+":
		return convert(x, t)
	case "-":
		return ir.Fold(&ir.Unary{Pos: pos, Op: ir.Neg, X: convert(x, t)})
	}
	return ir.Fold(&ir.Unary{Pos: pos, Op: ir.BitNot, X: convert(x, t)})
}

// binaryOp applies a C binary operator to x and y, converting both to the
// operand type opT (for && and ||, to their truth values).
func binaryOp(pos diag.Pos, op string, x, y ir.Expr, opT ir.Type) ir.Expr {
	o, _ := ir.ParseBinOp(op)
	if o.IsLogical() {
		return ir.Fold(&ir.Binary{Pos: pos, Op: o, X: truth(x), Y: truth(y)})
	}
	return ir.Fold(&ir.Binary{Pos: pos, Op: o, X: convert(x, opT), Y: convert(y, opT)})
}
