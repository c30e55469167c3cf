package fork

import (
	"math"

	"gpuc/ir"
)

// Note [Constants]
//
// A global const scalar is one of three things, decided by its type and
// its value, which must be a constant expression over literals and earlier
// constants:
//
//   - a parameter (paramConst): an int, unsigned, long or unsigned long
//     whose value uses no parameter, not declared static. It becomes an
//     IR parameter whose default is the value, so that NAME=VALUE
//     overrides it on the command line of gpuc run and of the generated
//     program;
//   - a derived constant (derivedConst): one whose value uses parameters,
//     as const int M = 2 * N. Each use lowers the value again, an
//     expression over the parameters, so that M follows an overridden N;
//   - a folded constant (foldedConst): any other, such as a static const
//     int, a double or a bool. Each use is an IR constant.
//
// Array lengths are constant expressions in the same sense, so they may
// use parameters; static buffers need lengths without them.

// constIR lowers a checked constant expression to IR, or returns nil if e
// is not constant.
func constIR(e expr) ir.Expr {
	switch e := e.(type) {
	case *lit:
		return &ir.Const{Pos: e.pos, T: e.t, Bits: e.bits}
	case *ident:
		if e.c != nil {
			return constValue(e.c, e)
		}
	case *unary:
		if x := constIR(e.x); x != nil {
			return unaryOp(e.pos, e.op, x, e.t)
		}
	case *binary:
		x, y := constIR(e.x), constIR(e.y)
		if x != nil && y != nil {
			return binaryOp(e.pos, e.op, x, y, e.opT)
		}
	case *cast:
		if x := constIR(e.x); x != nil {
			return convert(x, e.t)
		}
	case *condExpr:
		return constSelect(e)
	case *call:
		if x := constIR(e.args[0]); e.builtin == ilog2Builtin && x != nil {
			return ilog2(e.pos, x)
		}
	}
	return nil
}

func constSelect(e *condExpr) ir.Expr {
	c, x, y := constIR(e.cond), constIR(e.x), constIR(e.y)
	if c == nil || x == nil || y == nil {
		return nil
	}
	c, x, y = truth(c), convert(x, e.t), convert(y, e.t)
	if k, ok := c.(*ir.Const); ok {
		if k.Bits != 0 {
			return x
		}
		return y
	}
	return &ir.Select{Pos: e.pos, Cond: c, X: x, Y: y}
}

// constValue is a use of constant c at e.
func constValue(c *constant, e *ident) ir.Expr {
	switch c.kind {
	case paramConst:
		return &ir.ParamRef{Pos: e.pos, Name: c.irName, T: c.t}
	case derivedConst:
		if v := constIR(c.init); v != nil {
			return convert(v, c.t)
		}
		return nil
	}
	return &ir.Const{Pos: e.pos, T: c.t, Bits: c.bits}
}

// usesParams reports whether e reads a parameter.
func usesParams(e ir.Expr) bool {
	return ir.AnyExpr(e, func(x ir.Expr) bool {
		_, isParam := x.(*ir.ParamRef)
		return isParam
	})
}

// overParams reports whether e is an expression over parameters and
// constants only, as a buffer's length must be.
func overParams(e ir.Expr) bool {
	ok := true
	ir.WalkExpr(e, func(x ir.Expr) bool {
		switch x.(type) {
		case *ir.Const, *ir.ParamRef, *ir.Unary, *ir.Binary, *ir.Convert, *ir.Select:
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// constInt returns the value of e if it folded to an integer constant.
func constInt(e ir.Expr) (int64, bool) {
	c, ok := e.(*ir.Const)
	if !ok || !isIntegral(c.T) {
		return 0, false
	}
	if c.T == ir.U64 && c.Bits > math.MaxInt64 {
		return math.MaxInt64, true
	}
	return c.Int(), true
}

// classify decides what the constant k is, given its checked value v.
func (c *checker) classify(k *constant, v ir.Expr) {
	v = convert(v, k.t)
	if usesParams(v) {
		k.kind = derivedConst
		return
	}
	val, ok := v.(*ir.Const)
	switch {
	case !ok:
		c.errorf(k.init.exprPos(), "value of constant %s divides by zero", k.name)
	case k.kind == foldedConst || !isParamType(k.t):
		k.kind, k.bits = foldedConst, val.Bits
	default:
		k.kind, k.bits = paramConst, val.Bits
	}
}

// isParamType reports whether constants of type t become parameters.
func isParamType(t ir.Type) bool {
	return t == ir.I32 || t == ir.U32 || t == ir.I64 || t == ir.U64
}

// arrayLen is the number of elements of array v: a fresh IR expression
// over parameters and constants, or nil for a scalar or a bad declaration.
func arrayLen(v *variable) ir.Expr {
	if !v.isArray() {
		return nil
	}
	var rows ir.Expr
	switch {
	case v.rows != nil:
		rows = dimIR(v.rows)
	case v.init != nil && v.init.list != nil:
		rows = intConst(v.pos, ir.I32, int64(len(v.init.list)))
	}
	cols := rowLen(v)
	switch {
	case rows == nil || v.dims == 2 && cols == nil:
		return nil
	case v.dims == 2:
		return binaryOp(v.pos, "*", rows, cols, usual(rows.Type(), cols.Type()))
	}
	return rows
}

// rowLen is the second dimension of a 2-D array, fresh, or nil.
func rowLen(v *variable) ir.Expr {
	if v.cols == nil {
		return nil
	}
	return dimIR(v.cols)
}

// dimIR lowers a checked array dimension.
func dimIR(e expr) ir.Expr {
	d := constIR(e)
	if d == nil {
		return nil
	}
	return convert(d, promote(d.Type()))
}
