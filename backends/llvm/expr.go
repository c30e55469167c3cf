package llvm

import (
	llir "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"gpuc/backends/abi"
	"gpuc/ir"
)

// expr emits an expression, operands left to right, and returns its
// value; on an error it reports and returns the type's zero.
func (f *fn) expr(e ir.Expr) value.Value {
	switch e := e.(type) {
	case *ir.Const:
		return konst(e.T, e.Bits)
	case *ir.Var:
		if sl := f.lookup(e.Name, e.Pos); sl != nil {
			return f.cur.NewLoad(valType(sl.t), f.addr(sl))
		}
	case *ir.ParamRef:
		if p, ok := f.params[e.Name]; ok {
			return p
		}
		f.errorf(e.Pos, "parameter %s is not passed here", e.Name)
	case *ir.Load:
		return f.load(e)
	case *ir.Unary:
		return f.unary(e.Op, e.X.Type(), f.expr(e.X))
	case *ir.Binary:
		return f.binary(e)
	case *ir.Select:
		return f.lazy(e.Cond, nil, e.X, e.Y)
	case *ir.Convert:
		return f.convert(e.T, e.X.Type(), f.expr(e.X))
	case *ir.Call:
		return f.callFunc(e)
	case *ir.Builtin:
		return f.builtin(e)
	case nil:
		f.errorf(f.src.Pos, "missing expression")
		return konst(ir.I32, 0)
	default:
		f.errorf(e.At(), "unsupported expression %T", e)
	}
	return zero(e.Type())
}

// elem computes the address of element index of buffer name.
func (f *fn) elem(node any, name string, index ir.Expr, pos ir.Pos) (value.Value, *ir.Buffer) {
	b := f.g.m.Buffer(name)
	idx := f.expr(index)
	if b == nil {
		f.errorf(pos, "unknown buffer %s", name)
		return nil, nil
	}
	i := f.convert(ir.I64, index.Type(), idx)
	if f.g.checks && !abi.IndexInRange(b, index) && !f.plan.Settled(node, f.active) {
		f.length = true
		n := f.convert(ir.I64, b.Len.Type(), f.expr(b.Len))
		f.length = false
		id, ok := f.g.faultIDs[abi.IndexFault(pos, b, abi.IndexUnsigned(index.Type()))]
		if !ok {
			f.errorf(pos, "internal error: the check of this index has no number")
		}
		went := f.check(f.cur.NewICmp(enum.IPredUGE, i, n), id, i, n, f.goOn && b.Space != ir.Shared)
		i = f.wentOn(went, i, i64(0))
	}
	if g, ok := f.g.consts[b.Name]; ok {
		return f.cur.NewGetElementPtr(g.ContentType, g, i64(0), i), b
	}
	base, ok := f.bufs[b.Name]
	if !ok {
		f.errorf(pos, "buffer %s is not passed here", name)
		return nil, nil
	}
	return f.cur.NewGetElementPtr(memType(b.Elem), base, i), b
}

func (f *fn) load(e *ir.Load) value.Value {
	p, b := f.elem(e, e.Buf, e.Index, e.Pos)
	if p == nil {
		return zero(e.T)
	}
	v := f.cur.NewLoad(memType(b.Elem), p)
	if b.Elem == ir.Bool {
		return f.cur.NewTrunc(v, types.I1)
	}
	return v
}

func (f *fn) unary(op ir.UnOp, t ir.Type, x value.Value) value.Value {
	switch {
	case op == ir.Not:
		return f.cur.NewXor(x, konst(ir.Bool, 1))
	case op == ir.BitNot:
		return f.cur.NewXor(x, konst(t, ^uint64(0)))
	case t.IsFloat():
		return f.cur.NewFNeg(x)
	}
	return f.cur.NewSub(zero(t), x)
}

func (f *fn) binary(e *ir.Binary) value.Value {
	switch e.Op {
	case ir.LogAnd:
		return f.lazy(e.X, konst(ir.Bool, 0), e.Y, nil)
	case ir.LogOr:
		return f.lazy(e.X, konst(ir.Bool, 1), nil, e.Y)
	}
	x := f.expr(e.X)
	y := f.expr(e.Y)
	t := e.X.Type()
	switch {
	case e.Op.IsCompare():
		return f.compare(e.Op, t, x, y)
	case t.IsFloat():
		return f.floatArith(e, x, y)
	}
	b := f.cur
	switch e.Op {
	case ir.Add:
		return b.NewAdd(x, y)
	case ir.Sub:
		return b.NewSub(x, y)
	case ir.Mul:
		return b.NewMul(x, y)
	case ir.Div, ir.Rem:
		if f.g.checks && abi.CheckedDivisor(e) && !f.length && !f.plan.Settled(e, f.active) {
			id, ok := f.g.faultIDs[abi.DivFault(e.Pos)]
			if !ok {
				f.errorf(e.Pos, "internal error: the check of this divisor has no number")
			}
			went := f.check(f.cur.NewICmp(enum.IPredEQ, y, zero(t)), id, i64(0), i64(0), f.goOn)
			y = f.wentOn(went, y, konst(t, 1))
		}
		return f.divide(e.Op, t, x, y) // f.cur, after the check
	case ir.And:
		return b.NewAnd(x, y)
	case ir.Or:
		return b.NewOr(x, y)
	case ir.Xor:
		return b.NewXor(x, y)
	case ir.Shl, ir.Shr:
		n := b.NewAnd(y, konst(t, uint64(8*t.Size()-1)))
		switch {
		case e.Op == ir.Shl:
			return b.NewShl(x, n)
		case t.IsSigned():
			return b.NewAShr(x, n)
		}
		return b.NewLShr(x, n)
	}
	f.errorf(e.Pos, "operator %s on %s", e.Op, t)
	return zero(e.Type())
}

// floatArith: IEEE operations without fast-math flags, so that nothing
// contracts a*b+c into a fused multiply-add, as the interpreter does not.
func (f *fn) floatArith(e *ir.Binary, x, y value.Value) value.Value {
	switch e.Op {
	case ir.Add:
		return f.cur.NewFAdd(x, y)
	case ir.Sub:
		return f.cur.NewFSub(x, y)
	case ir.Mul:
		return f.cur.NewFMul(x, y)
	case ir.Div:
		return f.cur.NewFDiv(x, y)
	}
	f.errorf(e.Pos, "operator %s on %s", e.Op, e.X.Type())
	return zero(e.X.Type())
}

// divide truncates toward zero. Division by -1 wraps and the remainder is
// 0, where LLVM's sdiv and srem would be undefined for the minimum value;
// division by zero stays undefined, as on the GPU.
func (f *fn) divide(op ir.BinOp, t ir.Type, x, y value.Value) value.Value {
	b := f.cur
	if !t.IsSigned() {
		if op == ir.Div {
			return b.NewUDiv(x, y)
		}
		return b.NewURem(x, y)
	}
	minus1 := b.NewICmp(enum.IPredEQ, y, konst(t, ^uint64(0)))
	safe := b.NewSelect(minus1, konst(t, 1), y)
	if op == ir.Div {
		return b.NewSelect(minus1, b.NewSub(zero(t), x), b.NewSDiv(x, safe))
	}
	return b.NewSelect(minus1, zero(t), b.NewSRem(x, safe))
}

var (
	signedPreds   = map[ir.BinOp]enum.IPred{ir.Eq: enum.IPredEQ, ir.Ne: enum.IPredNE, ir.Lt: enum.IPredSLT, ir.Le: enum.IPredSLE, ir.Gt: enum.IPredSGT, ir.Ge: enum.IPredSGE}
	unsignedPreds = map[ir.BinOp]enum.IPred{ir.Eq: enum.IPredEQ, ir.Ne: enum.IPredNE, ir.Lt: enum.IPredULT, ir.Le: enum.IPredULE, ir.Gt: enum.IPredUGT, ir.Ge: enum.IPredUGE}
	// Float comparisons are ordered (false for NaN) except !=, which NaN
	// satisfies.
	floatPreds = map[ir.BinOp]enum.FPred{ir.Eq: enum.FPredOEQ, ir.Ne: enum.FPredUNE, ir.Lt: enum.FPredOLT, ir.Le: enum.FPredOLE, ir.Gt: enum.FPredOGT, ir.Ge: enum.FPredOGE}
)

func (f *fn) compare(op ir.BinOp, t ir.Type, x, y value.Value) value.Value {
	switch {
	case t.IsFloat():
		return f.cur.NewFCmp(floatPreds[op], x, y)
	case t.IsSigned():
		return f.cur.NewICmp(signedPreds[op], x, y)
	}
	return f.cur.NewICmp(unsignedPreds[op], x, y)
}

// lazy evaluates cond and then only one side, as C's ?:, && and || do.
// A nil side is the constant short: the value of && and || when the
// right side is not evaluated.
func (f *fn) lazy(cond ir.Expr, short constant.Constant, x, y ir.Expr) value.Value {
	c := f.expr(cond)
	from, end := f.cur, f.block("sel.end")
	var incs []*llir.Incoming
	arm := func(e ir.Expr) *llir.Block {
		if e == nil {
			incs = append(incs, llir.NewIncoming(short, from))
			return end
		}
		b := f.block("sel")
		f.enter(b)
		v := f.expr(e)
		incs = append(incs, llir.NewIncoming(v, f.cur))
		f.cur.NewBr(end)
		return b
	}
	tb := arm(x)
	fb := arm(y)
	from.NewCondBr(c, tb, fb)
	f.enter(end)
	return f.cur.NewPhi(incs...)
}

// convert follows ir.EvalConvert: C's conversions, except that bool(x) is
// x != 0 and float-to-integer conversions saturate, NaN giving 0.
func (f *fn) convert(to, from ir.Type, x value.Value) value.Value {
	b := f.cur
	switch {
	case to == from:
		return x
	case to == ir.Bool && from.IsFloat():
		return b.NewFCmp(enum.FPredUNE, x, zero(from))
	case to == ir.Bool:
		return b.NewICmp(enum.IPredNE, x, zero(from))
	case from.IsFloat() && to.IsFloat() && to == ir.F64:
		return b.NewFPExt(x, types.Double)
	case from.IsFloat() && to.IsFloat():
		return b.NewFPTrunc(x, types.Float)
	case from.IsFloat():
		kind := "fptoui"
		if to.IsSigned() {
			kind = "fptosi"
		}
		name := "llvm." + kind + ".sat." + mangle(to) + "." + mangle(from)
		return f.call(name, valType(to), x)
	case to.IsFloat() && from.IsSigned():
		return b.NewSIToFP(x, valType(to))
	case to.IsFloat():
		return b.NewUIToFP(x, valType(to))
	}
	fw, tw := from.Size(), to.Size()
	if from == ir.Bool {
		fw = 0
	}
	switch {
	case tw < fw:
		return b.NewTrunc(x, valType(to))
	case tw == fw:
		return x
	case from.IsSigned():
		return b.NewSExt(x, valType(to))
	}
	return b.NewZExt(x, valType(to))
}

// callFunc calls a device function with its arguments, then the buffers
// and parameters it receives (package abi). On the host target, a call
// that may raise is followed by a check of the error word.
func (f *fn) callFunc(e *ir.Call) value.Value {
	g := f.g.m.Func(e.Func)
	if g == nil || g.Kind != ir.DeviceFunc {
		f.errorf(e.Pos, "call of %s, which is not a device function", e.Func)
		return zero(e.T)
	}
	var args []value.Value
	for _, a := range e.Args {
		args = append(args, f.expr(a))
	}
	for _, b := range f.g.conv.Buffers(g) {
		args = append(args, f.bufs[b.Name])
	}
	for _, p := range f.g.conv.Params(g) {
		args = append(args, f.params[p.Name])
	}
	r := f.cur.NewCall(f.g.funcs[g.Name], args...)
	if f.g.target == Host && f.g.mayRaise[g.Name] {
		f.checkRaised()
	}
	return r
}

// nvvmGeometry names the NVVM intrinsics of the thread geometry.
var nvvmGeometry = map[ir.BuiltinOp]string{
	ir.ThreadID: "llvm.nvvm.read.ptx.sreg.tid.x", ir.BlockID: "llvm.nvvm.read.ptx.sreg.ctaid.x",
	ir.BlockDim: "llvm.nvvm.read.ptx.sreg.ntid.x", ir.GridDim: "llvm.nvvm.read.ptx.sreg.nctaid.x",
}

func (f *fn) builtin(e *ir.Builtin) value.Value {
	if e.Op == ir.GlobalID {
		return f.cur.NewAdd(f.cur.NewMul(f.geometry(ir.BlockID), f.geometry(ir.BlockDim)), f.geometry(ir.ThreadID))
	}
	if e.Op.IsKernelOnly() {
		return f.geometry(e.Op)
	}
	if w := f.g.world[e.Op]; w != nil {
		return f.cur.NewLoad(types.I32, w)
	}
	if len(e.Args) != e.Op.Arity() || e.Op.Arity() == 0 {
		f.errorf(e.Pos, "builtin %s is not device code", e.Op)
		return zero(ir.I32)
	}
	var v []value.Value
	for _, a := range e.Args {
		v = append(v, f.expr(a))
	}
	t := e.Args[0].Type()
	switch {
	case e.Op == ir.Sqrt && t.IsFloat():
		return f.call("llvm.sqrt."+mangle(t), valType(t), v[0])
	case e.Op == ir.Abs && t.IsFloat():
		return f.call("llvm.fabs."+mangle(t), valType(t), v[0])
	case e.Op == ir.Abs && t.IsSigned():
		neg := f.cur.NewICmp(enum.IPredSLT, v[0], zero(t))
		return f.cur.NewSelect(neg, f.cur.NewSub(zero(t), v[0]), v[0])
	case e.Op == ir.Abs && t.IsInt():
		return v[0]
	case (e.Op == ir.Min || e.Op == ir.Max) && t.IsFloat():
		return f.floatMinMax(e.Op == ir.Min, t, v[0], v[1])
	case e.Op == ir.Min || e.Op == ir.Max:
		less := f.compare(ir.Lt, t, v[0], v[1])
		if e.Op == ir.Min {
			return f.cur.NewSelect(less, v[0], v[1])
		}
		return f.cur.NewSelect(less, v[1], v[0])
	}
	f.errorf(e.Pos, "builtin %s on %s", e.Op, t)
	return zero(e.Type())
}

// geometry reads tid(), bid(), bdim() or gdim(): NVVM's registers, or
// on the host target the globals that the kernel's loops set.
func (f *fn) geometry(op ir.BuiltinOp) value.Value {
	if f.g.target == Host {
		return f.cur.NewLoad(types.I32, f.g.geom[op])
	}
	return f.call(nvvmGeometry[op], types.I32)
}

// floatMinMax is CUDA's fminf and fmaxf, as ir.EvalBuiltin has them: a NaN
// operand yields the other one, and -0 orders below +0.
func (f *fn) floatMinMax(isMin bool, t ir.Type, a, b value.Value) value.Value {
	c := f.cur
	bits := types.NewInt(uint64(8 * t.Size()))
	negA := c.NewICmp(enum.IPredSLT, c.NewBitCast(a, bits), constant.NewInt(bits, 0))
	ltAB, ltBA := c.NewFCmp(enum.FPredOLT, a, b), c.NewFCmp(enum.FPredOLT, b, a)
	var r value.Value
	if isMin {
		r = c.NewSelect(ltAB, a, c.NewSelect(ltBA, b, c.NewSelect(negA, a, b)))
	} else {
		r = c.NewSelect(ltAB, b, c.NewSelect(ltBA, a, c.NewSelect(negA, b, a)))
	}
	r = c.NewSelect(c.NewFCmp(enum.FPredUNO, b, b), a, r)
	return c.NewSelect(c.NewFCmp(enum.FPredUNO, a, a), b, r)
}
