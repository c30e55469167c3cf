package cuda

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gpuc/backends/abi"
	"gpuc/ir"
)

// cx is an emitted C++ expression and its precedence, which decides where
// it needs parentheses. op names a binary operator, so that chains such as
// a && b && c stay flat.
type cx struct {
	s    string
	prec int
	op   string
}

// C++ precedence levels, loosest first. Binary operators sit at their
// ir.BinOp.Prec plus precBinary.
const (
	precBinary  = 3
	precBitAnd  = 8
	precEq      = 9
	precRel     = 10
	precShift   = 11
	precAdd     = 12
	precMul     = 13
	precUnary   = 14
	precPrimary = 15
)

// pick returns a if cond holds and b otherwise.
func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

func primary(s string) cx { return cx{s: s, prec: precPrimary} }
func unary(s string) cx   { return cx{s: s, prec: precUnary} }

// operand spells c as the operand of a prefix operator or a cast.
func operand(c cx) string {
	if c.prec >= precUnary && !strings.HasPrefix(c.s, "-") {
		return c.s
	}
	return "(" + c.s + ")"
}

// cast spells (T)x.
func cast(t ir.Type, x cx) cx { return unary("(" + ctype(t) + ")" + operand(x)) }

// call spells f(args).
func call(f string, args ...cx) cx {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.s
	}
	return primary(f + "(" + strings.Join(parts, ", ") + ")")
}

// infix spells x op y with the parentheses that C++ needs and that keep
// gcc's -Wparentheses quiet: arithmetic nests by precedence, comparisons
// take arithmetic operands bare, && and || take comparisons bare, and a
// chain of one associative operator stays flat.
func infix(op string, prec int, x, y cx) cx {
	return cx{s: side(x, op, prec, false) + " " + op + " " + side(y, op, prec, true), prec: prec, op: op}
}

func side(c cx, op string, prec int, right bool) string {
	arith := func(p int) bool { return p == precAdd || p == precMul }
	bare := c.prec >= precUnary
	switch {
	case arith(prec) && arith(c.prec):
		bare = c.prec > prec || c.prec == prec && !right
	case prec == precEq || prec == precRel:
		bare = bare || arith(c.prec)
	case op == "&&" || op == "||":
		bare = bare || c.prec == precEq || c.prec == precRel || c.op == op && !right
	case op == "&" || op == "|" || op == "^":
		bare = bare || c.op == op && !right
	}
	if bare {
		return c.s
	}
	return "(" + c.s + ")"
}

// expr emits an expression of device code (f.host false) or host code.
func (f *fn) expr(e ir.Expr) cx {
	switch e := e.(type) {
	case *ir.Const:
		return constant(e.T, e.Bits)
	case *ir.Str:
		return primary(cstring(e.Value))
	case *ir.Var:
		return primary(f.e.n.c(e.Name))
	case *ir.ParamRef:
		return primary(f.e.n.c(e.Name))
	case *ir.Load:
		return f.load(e)
	case *ir.Unary:
		return f.unaryOp(e.Op, e.X.Type(), f.expr(e.X))
	case *ir.Binary:
		return f.binary(e)
	case *ir.Select:
		return f.selectExpr(e)
	case *ir.Convert:
		return convert(e.T, e.X.Type(), f.expr(e.X))
	case *ir.Call:
		return f.callExpr(e)
	case *ir.Builtin:
		return f.builtin(e)
	case nil:
		f.errorf(f.f.Pos, "missing expression")
	default:
		f.errorf(e.At(), "unsupported expression %T", e)
	}
	return primary("0")
}

// constant spells a value of type t so that the C++ compiler reads back
// exactly that value, with the type t.
func constant(t ir.Type, b ir.Bits) cx {
	v := int64(b)
	switch t {
	case ir.Bool:
		return primary(strconv.FormatBool(b != 0))
	case ir.I8, ir.U8:
		return cast(t, signedLit(ir.FormatValue(t, b), ""))
	case ir.I32:
		if v == math.MinInt32 {
			return primary("(-2147483647 - 1)")
		}
		return signedLit(strconv.FormatInt(v, 10), "")
	case ir.I64:
		if v == math.MinInt64 {
			return primary("(-9223372036854775807LL - 1)")
		}
		return signedLit(strconv.FormatInt(v, 10), "LL")
	case ir.U32:
		return primary(strconv.FormatUint(b, 10) + "u")
	case ir.U64:
		return primary(strconv.FormatUint(b, 10) + "ULL")
	case ir.F32:
		if f := ir.AsFloat(t, b); math.IsInf(f, 0) || math.IsNaN(f) {
			return primary(fmt.Sprintf("gpuc_f32_from_bits(%#xu)", uint32(b)))
		}
		return signedLit(ir.FormatValue(t, b), "f")
	case ir.F64:
		if f := ir.AsFloat(t, b); math.IsInf(f, 0) || math.IsNaN(f) {
			return primary(fmt.Sprintf("gpuc_f64_from_bits(%#xULL)", b))
		}
		return signedLit(ir.FormatValue(t, b), "")
	}
	return primary("0")
}

// signedLit is a numeric literal that may start with a minus sign.
func signedLit(digits, suffix string) cx {
	if strings.HasPrefix(digits, "-") {
		return unary(digits + suffix)
	}
	return primary(digits + suffix)
}

func (f *fn) load(e *ir.Load) cx {
	idx := f.expr(e.Index)
	if a := f.e.m.Array(e.Buf); a != nil && f.host {
		return primary(f.e.n.c(a.Name) + ".at(" + idx.s + ", " + cstring(e.Pos.String()) + ")")
	}
	b := f.e.m.Buffer(e.Buf)
	switch {
	case b == nil:
		f.errorf(e.Pos, "load from unknown memory %s", e.Buf)
	case f.host && b.Space == ir.Shared:
		f.errorf(e.Pos, "shared buffer %s in host code", b.Name)
	case f.host && f.e.distributed(b):
		h, _ := blockVar(f.e, b)
		return call("gpuc_dist_get", primary(f.e.hostBuf(b)), primary(h), idx, primary(cstring(e.Pos.String())))
	case f.host:
		return primary(f.e.hostBuf(b) + ".get(" + idx.s + ", " + cstring(e.Pos.String()) + ")")
	case f.e.distributed(b):
		return f.distElem(e, e.Pos, b, e.Index, idx)
	default:
		return primary(f.e.n.c(b.Name) + "[" + f.checkedIndex(e, e.Pos, b, e.Index, idx).s + "]")
	}
	return primary("0")
}

// checkedIndex checks index idx (IR expression index) of an access at pos
// to buffer b in device code, with checks on (Note [Checks] in package
// abi): gpuc_idx compares it with b's length and faults if it is out of
// range, unless the plan elides or hoists the check of node.
func (f *fn) checkedIndex(node any, pos ir.Pos, b *ir.Buffer, index ir.Expr, idx cx) cx {
	if !f.needsCheck(node, b, index) {
		return idx
	}
	id := f.faultID(pos, abi.IndexFault(pos, b, abi.IndexUnsigned(index.Type())))
	f.length = true
	n := f.expr(b.Len)
	f.length = false
	return call(f.idxHelper(b), cast(ir.I64, idx), cast(ir.I64, n), primary(strconv.Itoa(id)))
}

// idxHelper names the device's check of an index into b, or of a value
// written into it: gpuc_idx_go where the check goes on (Note [Going on
// after a fault] in package abi), where index 0 is in b's storage (a
// global buffer takes 256 bytes of the pool at least, gpuc_pool_add);
// else gpuc_idx, which stops.
func (f *fn) idxHelper(b *ir.Buffer) string {
	if f.goOn && b.Space != ir.Shared && !f.e.distributed(b) {
		return "gpuc_idx_go"
	}
	return "gpuc_idx"
}

// needsCheck says whether device code checks index of b at node.
func (f *fn) needsCheck(node any, b *ir.Buffer, index ir.Expr) bool {
	return f.e.checks && !abi.IndexInRange(b, index) && !f.plan.Settled(node, f.active)
}

// checkedValue checks the value v that s writes into b, where b has a
// below bound (Note [Bounded buffers] in package ir): in host code
// always, with the message in place; in device code with checks on,
// through gpuc_idx, unless the plan elides it.
func (f *fn) checkedValue(s *ir.Store, b *ir.Buffer, v cx) cx {
	n := abi.BoundExpr(f.e.m, b)
	if !abi.CheckedWrite(b) || n == nil || !f.host && (!f.e.checks || f.plan.Settled(abi.WriteCheck(s), f.active)) {
		return v
	}
	format := abi.BelowFault(s.Pos, b, abi.IndexUnsigned(b.Elem))
	f.length = true
	bound := f.expr(n)
	f.length = false
	if f.host {
		return cast(b.Elem, call("gpuc_below_at", cast(ir.I64, v), cast(ir.I64, bound), primary(cstring(format))))
	}
	helper := "gpuc_idx"
	if f.goOn {
		helper = "gpuc_idx_go" // 0 indexes the storage of any global buffer
	}
	return cast(b.Elem, call(helper, cast(ir.I64, v), cast(ir.I64, bound), primary(strconv.Itoa(f.faultID(s.Pos, format)))))
}

// checkedDivisor checks the divisor y of e: in host code always, with the
// position; in device code with checks on, through gpuc_divisor.
func (f *fn) checkedDivisor(e *ir.Binary, y cx) cx {
	switch {
	case !abi.CheckedDivisor(e) || f.length:
		return y
	case !f.host && f.plan.Settled(e, f.active):
		return y
	case f.host:
		return call("gpuc_nonzero_at", y, primary(cstring(e.Pos.String())))
	case f.e.checks && f.goOn:
		return call("gpuc_divisor_go", y, primary(strconv.Itoa(f.faultID(e.Pos, abi.DivFault(e.Pos)))))
	case f.e.checks:
		return call("gpuc_divisor", y, primary(strconv.Itoa(f.faultID(e.Pos, abi.DivFault(e.Pos)))))
	}
	return y
}

func (f *fn) unaryOp(op ir.UnOp, t ir.Type, x cx) cx {
	switch {
	case op == ir.Not:
		return unary("!" + operand(x))
	case op == ir.BitNot && (t == ir.I8 || t == ir.U8):
		return cast(t, unary("~"+operand(x)))
	case op == ir.BitNot:
		return unary("~" + operand(x))
	case t.IsFloat():
		return unary("-" + operand(x))
	case t == ir.I32 || t == ir.I64:
		return call("gpuc_neg", x)
	case t == ir.U32:
		return infix("-", precAdd, primary("0u"), x)
	case t == ir.U64:
		return infix("-", precAdd, primary("0ULL"), x)
	}
	return cast(t, unary("-"+operand(x))) // i8, u8: int arithmetic, truncated
}

func (f *fn) binary(e *ir.Binary) cx {
	if e.Op.IsLogical() {
		return infix(e.Op.String(), e.Op.Prec()+precBinary, f.expr(e.X), f.expr(e.Y))
	}
	pre, v := f.operands(e.X, e.Y)
	return seq(pre, f.arith(e, v[0], v[1]))
}

// arith spells a non-logical binary operation on emitted operands.
func (f *fn) arith(e *ir.Binary, x, y cx) cx {
	t, op := e.X.Type(), e.Op
	prec := op.Prec() + precBinary
	switch {
	case op.IsCompare():
		if (t == ir.U32 || t == ir.U64) && op != ir.Eq && op != ir.Ne {
			x, y = hideZero(e.X, x), hideZero(e.Y, y)
		}
		return infix(op.String(), prec, x, y)
	case t.IsFloat():
		return f.floatArith(e, t, x, y)
	case op == ir.Shl || op == ir.Shr:
		return shift(op, t, x, y, e.Y)
	case op == ir.Div || op == ir.Rem:
		return divide(e, t, x, f.checkedDivisor(e, y))
	case t == ir.I32 || t == ir.I64:
		if op == ir.Add || op == ir.Sub || op == ir.Mul {
			return call("gpuc_"+opNames[op], x, y)
		}
		return infix(op.String(), prec, x, y)
	case t == ir.U32 || t == ir.U64:
		return infix(op.String(), prec, x, y)
	}
	return cast(t, infix(op.String(), prec, x, y)) // i8, u8, bool: int arithmetic
}

var opNames = map[ir.BinOp]string{ir.Add: "add", ir.Sub: "sub", ir.Mul: "mul", ir.Div: "div", ir.Rem: "rem"}

// hideZero keeps nvcc from warning about comparing an unsigned value with
// a literal zero, which the IR may well do.
func hideZero(e ir.Expr, c cx) cx {
	if k, ok := e.(*ir.Const); ok && k.Bits == 0 {
		return call("gpuc_opaque", c)
	}
	return c
}

// shift masks the count to the width of the type, as the IR says, unless
// it is a constant already in range. Left shifts of signed values go
// through unsigned arithmetic.
func shift(op ir.BinOp, t ir.Type, x, y cx, count ir.Expr) cx {
	w := uint64(8 * t.Size())
	if k, ok := count.(*ir.Const); !ok || k.Bits >= w {
		mask := constant(t, w-1)
		if t == ir.I8 || t == ir.U8 {
			mask = primary(strconv.FormatUint(w-1, 10))
		}
		y = primary("(" + infix("&", precBitAnd, y, mask).s + ")")
	}
	switch {
	case op == ir.Shl && (t == ir.I32 || t == ir.I64):
		return call("gpuc_shl", x, y)
	case op == ir.Shl && (t == ir.I8 || t == ir.U8):
		return cast(t, infix("<<", precShift, cast(ir.U32, x), y))
	case t == ir.I8 || t == ir.U8:
		return cast(t, infix(">>", precShift, x, y))
	}
	return infix(op.String(), precShift, x, y)
}

// divide uses the runtime's gpuc_div and gpuc_rem, which wrap on -1 and
// check for zero in host code, unless the divisor is a constant that can
// be neither.
func divide(e *ir.Binary, t ir.Type, x, y cx) cx {
	var r cx
	if k, ok := e.Y.(*ir.Const); ok && k.Bits != 0 && ir.Normalize(t, k.Bits) != ir.Normalize(t, ^uint64(0)) {
		r = infix(e.Op.String(), precMul, x, y)
	} else {
		r = call("gpuc_"+opNames[e.Op], x, y)
	}
	if t == ir.I8 || t == ir.U8 {
		r = cast(t, r)
	}
	return r
}

func (f *fn) floatArith(e *ir.Binary, t ir.Type, x, y cx) cx {
	switch e.Op {
	case ir.Add, ir.Sub:
		return infix(e.Op.String(), precAdd, x, y)
	case ir.Div:
		return infix("/", precMul, x, y)
	case ir.Mul:
		// Rounded products: nvcc must not contract a*b+c into an FMA,
		// which the interpreter does not do.
		if f.host {
			return call(pick(t == ir.F32, "gpuc_fmul", "gpuc_dmul"), x, y)
		}
		return call(pick(t == ir.F32, "__fmul_rn", "__dmul_rn"), x, y)
	}
	f.errorf(e.Pos, "operator %s on %s", e.Op, t)
	return primary("0")
}

// selectExpr spells c ? x : y, which is lazy in C++ as in the IR: only
// the side taken is evaluated, after the condition.
func (f *fn) selectExpr(e *ir.Select) cx {
	return ternary(f.expr(e.Cond), f.expr(e.X), f.expr(e.Y))
}

func ternary(c, x, y cx) cx {
	return primary("(" + c.s + " ? " + x.s + " : " + y.s + ")")
}

// convert follows C, except that bool(x) is x != 0 and float-to-integer
// conversions saturate through the runtime's gpuc_cvt_* helpers, which
// host and device share.
func convert(to, from ir.Type, x cx) cx {
	switch {
	case to == from:
		return x
	case to == ir.Bool:
		return primary("(" + infix("!=", precEq, x, primary("0")).s + ")")
	case from.IsFloat() && to.IsInt():
		return call("gpuc_cvt_"+to.String(), x)
	}
	return cast(to, x)
}

func (f *fn) callExpr(e *ir.Call) cx {
	g := f.e.m.Func(e.Func)
	if g == nil || g.Kind == ir.KernelFunc || (g.Kind == ir.HostFunc) != f.host {
		f.errorf(e.Pos, "call of %s in %s", e.Func, f.where())
		return primary("0")
	}
	pre, args := f.operands(e.Args...)
	if !f.host {
		for _, x := range f.e.extraArgs(g) {
			args = append(args, primary(x))
		}
	}
	return seq(pre, call(f.e.n.c(g.Name), args...))
}

var geometry = map[ir.BuiltinOp]string{
	ir.ThreadID: "(int)threadIdx.x", ir.BlockID: "(int)blockIdx.x",
	ir.BlockDim: "(int)blockDim.x", ir.GridDim: "(int)gridDim.x",
	ir.GlobalID: "(int)(blockIdx.x * blockDim.x + threadIdx.x)",
}

func (f *fn) builtin(e *ir.Builtin) cx {
	if e.Op.IsWorld() {
		return f.worldBuiltin(e.Op)
	}
	if g, ok := worldGeometry[e.Op]; ok && !f.host && f.e.worldKernels[f.f.Name] {
		return unary(g)
	}
	if g, ok := geometry[e.Op]; ok && !f.host {
		return unary(g)
	}
	if e.Op == ir.OnDevice && f.host {
		return primary("(int)gpuc_hybrid_on_device()")
	}
	if len(e.Args) != e.Op.Arity() || e.Op.Arity() == 0 {
		f.errorf(e.Pos, "builtin %s is not available in %s", e.Op, f.where())
		return primary("0")
	}
	pre, v := f.operands(e.Args...)
	t := e.Args[0].Type()
	var r cx
	switch {
	case e.Op == ir.Hybrid && f.host:
		r = cast(t, call("gpuc_hybrid", v[0], v[1]))
	case e.Op == ir.Min || e.Op == ir.Max:
		r = call("gpuc_"+e.Op.String(), v...)
	case e.Op == ir.Sqrt && t.IsFloat():
		r = call(pick(t == ir.F32, "sqrtf", "sqrt"), v[0])
	case e.Op == ir.Abs && t.IsFloat():
		r = call(pick(t == ir.F32, "fabsf", "fabs"), v[0])
	case e.Op == ir.Abs && t == ir.I8:
		r = cast(t, call("gpuc_abs", v[0]))
	case e.Op == ir.Abs && t.IsSigned():
		r = call("gpuc_abs", v[0])
	case e.Op == ir.Abs && t.IsInt():
		r = v[0]
	default:
		f.errorf(e.Pos, "builtin %s on %s", e.Op, t)
	}
	return seq(pre, r)
}

// Evaluation order. C++ leaves the order of operands and arguments open,
// while the IR evaluates them left to right. The order shows only where a
// call with effects (see effectful) meets another operand that calls or
// reads memory; there operands is explicit and evaluates the impure
// operands into temporaries first.

// operands emits es, returning the assignments to temporaries that must
// run first, in order, and the values.
func (f *fn) operands(es ...ir.Expr) (pre []string, vals []cx) {
	effects, impures := 0, 0
	for _, e := range es {
		if f.hasEffect(e) {
			effects++
		}
		if impure(e) {
			impures++
		}
	}
	ordered := effects > 0 && impures > 1
	for _, e := range es {
		v := f.expr(e)
		if ordered && impure(e) {
			t := f.temp(e.Type())
			pre = append(pre, t+" = "+v.s)
			v = primary(t)
		}
		vals = append(vals, v)
	}
	return pre, vals
}

// seq prefixes v with the assignments pre through the comma operator.
func seq(pre []string, v cx) cx {
	if len(pre) == 0 {
		return v
	}
	return primary("(" + strings.Join(pre, ", ") + ", " + v.s + ")")
}

// hasEffect reports whether e calls a function with effects.
func (f *fn) hasEffect(e ir.Expr) bool {
	return ir.AnyExpr(e, func(x ir.Expr) bool {
		c, ok := x.(*ir.Call)
		return ok && f.e.effectful[c.Func]
	})
}

// impure reports whether e calls a function or reads memory.
func impure(e ir.Expr) bool {
	return ir.AnyExpr(e, func(x ir.Expr) bool {
		switch x.(type) {
		case *ir.Call, *ir.Load:
			return true
		}
		return false
	})
}
