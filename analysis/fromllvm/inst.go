package fromllvm

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"gpuc/analysis/its"
)

// translate gives the expression of a relevant instruction's result on a path.
func (t *fnT) translate(in ir.Instruction, env map[value.Value]its.Expr) its.Expr {
	v := in.(value.Value)
	s, ok := t.sortOfValue(v)
	if !ok {
		return &its.Nondet{Sort: its.U32, Why: "untracked value " + valueName(v)}
	}
	bin := func(op its.Op, x, y value.Value) its.Expr {
		ex, ey := t.eval(x, env), t.eval(y, env)
		if s.IsBool() {
			switch op {
			case its.And:
				return its.B(its.LAnd, ex, ey)
			case its.Or:
				return its.B(its.LOr, ex, ey)
			case its.Xor, its.Add, its.Sub:
				return its.B(its.Ne, ex, ey)
			case its.Mul:
				return its.B(its.LAnd, ex, ey)
			}
			return &its.Nondet{Sort: s, Why: "i1 " + op.String()}
		}
		return its.B(op, coerce(ex, s), coerce(ey, s))
	}
	switch in := in.(type) {
	case *ir.InstAdd:
		return bin(its.Add, in.X, in.Y)
	case *ir.InstSub:
		return bin(its.Sub, in.X, in.Y)
	case *ir.InstMul:
		return bin(its.Mul, in.X, in.Y)
	case *ir.InstUDiv:
		return bin(its.UDiv, in.X, in.Y)
	case *ir.InstSDiv:
		return bin(its.SDiv, in.X, in.Y)
	case *ir.InstURem:
		return bin(its.URem, in.X, in.Y)
	case *ir.InstSRem:
		return bin(its.SRem, in.X, in.Y)
	case *ir.InstShl:
		return bin(its.Shl, in.X, in.Y)
	case *ir.InstLShr:
		return bin(its.LShr, in.X, in.Y)
	case *ir.InstAShr:
		return bin(its.AShr, in.X, in.Y)
	case *ir.InstAnd:
		return bin(its.And, in.X, in.Y)
	case *ir.InstOr:
		return bin(its.Or, in.X, in.Y)
	case *ir.InstXor:
		if c, ok := in.Y.(*constant.Int); ok && s.IsBool() && c.X.Sign() != 0 {
			return its.Negate(t.eval(in.X, env))
		}
		if c, ok := in.Y.(*constant.Int); ok && !s.IsBool() && s.Norm(c.X).Cmp(s.Norm(big.NewInt(-1))) == 0 {
			// ~x is -1 - x exactly in two's complement, which linear arithmetic reads.
			return its.B(its.Sub, its.C(-1, s), coerce(t.eval(in.X, env), s))
		}
		return bin(its.Xor, in.X, in.Y)
	case *ir.InstICmp:
		ops := map[enum.IPred]its.Op{enum.IPredEQ: its.Eq, enum.IPredNE: its.Ne,
			enum.IPredULT: its.Ult, enum.IPredULE: its.Ule, enum.IPredUGT: its.Ugt, enum.IPredUGE: its.Uge,
			enum.IPredSLT: its.Slt, enum.IPredSLE: its.Sle, enum.IPredSGT: its.Sgt, enum.IPredSGE: its.Sge}
		op, ok := ops[in.Pred]
		xs, ok2 := t.sortOfValue(in.X)
		if !ok || !ok2 {
			return &its.Nondet{Sort: its.Bool, Why: "compare"}
		}
		ex, ey := t.eval(in.X, env), t.eval(in.Y, env)
		if xs.IsBool() {
			// Booleans as 0/1 bits: true is 1 (unsigned) or -1 (signed).
			ex, ey = resize(ex, xs, its.Sort{Width: 8}, false), resize(ey, xs, its.Sort{Width: 8}, false)
			switch op {
			case its.Slt, its.Sle, its.Sgt, its.Sge:
				op = map[its.Op]its.Op{its.Slt: its.Ugt, its.Sle: its.Uge, its.Sgt: its.Ult, its.Sge: its.Ule}[op]
			}
			return its.B(op, ex, ey)
		}
		switch op {
		case its.Slt, its.Sle, its.Sgt, its.Sge:
			xs.Signed = true
		case its.Ult, its.Ule, its.Ugt, its.Uge:
			xs.Signed = false
		}
		if isPtr(in.X.Type()) {
			xs = its.U64
		}
		return its.B(op, coerce(ex, xs), coerce(ey, xs))
	case *ir.InstSelect:
		return &its.Ite{C: t.eval(in.Cond, env), T: coerce(t.eval(in.ValueTrue, env), s), E: coerce(t.eval(in.ValueFalse, env), s)}
	case *ir.InstTrunc:
		return t.conv(in.From, s, false, env)
	case *ir.InstZExt:
		return t.conv(in.From, s, false, env)
	case *ir.InstSExt:
		return t.conv(in.From, s, true, env)
	case *ir.InstPtrToInt:
		return t.conv(in.From, s, false, env)
	case *ir.InstIntToPtr:
		return t.conv(in.From, s, false, env)
	case *ir.InstBitCast:
		if _, ok := sortOf(in.From.Type()); ok && isPtr(in.From.Type()) == isPtr(in.To) {
			return coerce(t.eval(in.From, env), s)
		}
	case *ir.InstAddrSpaceCast:
		return coerce(t.eval(in.From, env), s)
	case *ir.InstFreeze:
		return coerce(t.eval(in.X, env), s)
	case *ir.InstGetElementPtr:
		return t.gep(in.ElemType, in.Src, in.Indices, env)
	case *ir.InstLoad:
		return t.load(in, s, env)
	case *ir.InstCall:
		return t.call(in, s, env)
	case *ir.InstExtractElement:
		if e := t.paramElem(in, s); e != nil {
			return e
		}
	}
	return &its.Nondet{Sort: s, Why: strings.TrimPrefix(fmt.Sprintf("%T", in), "*ir.Inst") + " " + valueName(v)}
}

// Note [Vector parameters]
// A kernel parameter of vector type (AMD's SimpleConvolution: `uint2 inputDimensions`) is read
// with extractelement at a constant index. Each element is a parameter of its own, fixed for the
// run, named after the vector and the element (`inputDimensions_y`, an underscore so that
// `gpuc check` takes NAME=VALUE for it): one variable for every read of it, which a condition can
// bound and a witness can state. Other extractelements stay fresh values.

// paramElem gives the variable of element k of a vector parameter; nil for other operands.
func (t *fnT) paramElem(in *ir.InstExtractElement, s its.Sort) its.Expr {
	p, ok := in.X.(*ir.Param)
	c, ok2 := in.Index.(*constant.Int)
	if !ok || !ok2 || s.IsBool() || !c.X.IsInt64() {
		return nil
	}
	k := c.X.Int64()
	name := fmt.Sprintf("%s_%d", valueName(p), k)
	if k >= 0 && k < 4 {
		name = valueName(p) + "_" + "xyzw"[k:k+1]
	}
	key := "elem|" + name
	nv, ok := t.loads[key]
	if !ok {
		nv = its.Var{Name: t.uniq(name), Sort: s}
		t.loads[key] = nv
		t.constVar[nv.Name] = true
		t.sys.Vars = append(t.sys.Vars, nv)
		t.sys.Params = append(t.sys.Params, nv.Name)
	}
	return coerce(its.R(nv), s)
}

// arg gives call argument i without its parameter attributes.
func arg(c *ir.InstCall, i int) value.Value {
	if a, ok := c.Args[i].(*ir.Arg); ok {
		return a.Value
	}
	return c.Args[i]
}

func isPtr(t types.Type) bool { _, ok := t.(*types.PointerType); return ok }

func (t *fnT) conv(from value.Value, s its.Sort, signed bool, env map[value.Value]its.Expr) its.Expr {
	if _, ok := sortOf(from.Type()); !ok {
		return &its.Nondet{Sort: s, Why: "conversion"}
	}
	x := t.eval(from, env)
	return resize(x, its.SortOf(x), s, signed)
}

// call models launch builtins as variables, min/max/abs intrinsics exactly, and anything else
// as a fresh value (math functions, atomics).
func (t *fnT) call(c *ir.InstCall, s its.Sort, env map[value.Value]its.Expr) its.Expr {
	name := calleeName(c)
	if b, ok := openclBuiltins[name]; ok && len(c.Args) == 1 {
		if d, ok := arg(c, 0).(*constant.Int); ok && d.X.IsInt64() && d.X.Int64() >= 0 && d.X.Int64() < 3 {
			v := t.launchVar(b, int(d.X.Int64()), its.U64)
			return resize(v, its.U64, s, false)
		}
		return &its.Nondet{Sort: s, Why: name + " of an unknown dimension"}
	}
	if b, d, ok := cudaBuiltin(name); ok {
		return resize(t.launchVar(b, d, its.U32), its.U32, s, false)
	}
	if strings.HasPrefix(name, "llvm.") && len(c.Args) >= 1 {
		base := strings.SplitN(strings.TrimPrefix(name, "llvm."), ".", 2)[0]
		x := coerce(t.eval(arg(c, 0), env), s)
		var y its.Expr
		if len(c.Args) > 1 {
			y = coerce(t.eval(arg(c, 1), env), s)
		}
		switch base {
		case "smax":
			return &its.Ite{C: its.B(its.Sge, x, y), T: x, E: y}
		case "smin":
			return &its.Ite{C: its.B(its.Sle, x, y), T: x, E: y}
		case "umax":
			return &its.Ite{C: its.B(its.Uge, x, y), T: x, E: y}
		case "umin":
			return &its.Ite{C: its.B(its.Ule, x, y), T: x, E: y}
		case "abs":
			return &its.Ite{C: its.B(its.Slt, x, its.C(0, s)), T: &its.Unary{Op: its.Neg, X: x}, E: x}
		}
	}
	if name == "" {
		name = "indirect call"
	}
	return &its.Nondet{Sort: s, Why: "call " + name}
}

// load reads a read-only buffer as a Load (or, where the address never changes during the
// run, as a variable no transition updates: Note [Hoisted loads]); any other load is fresh.
func (t *fnT) load(in *ir.InstLoad, s its.Sort, env map[value.Value]its.Expr) its.Expr {
	base := t.roBase(in.Src)
	if base == nil {
		return &its.Nondet{Sort: s, Why: "load " + valueName(in)}
	}
	if _, ok := base.(*ir.Param); ok {
		t.noAlias = true
	}
	bufName := valueName(base)
	if k, ok := t.inv(in.Src); ok {
		key := bufName + "|" + in.ElemType.String() + "|" + k
		nv, ok := t.loads[key]
		if !ok {
			vs := s
			if vs.IsBool() {
				vs = bit
			}
			nv = its.Var{Name: t.uniq(fmt.Sprintf("%s[%d]", bufName, len(t.loads))), Sort: vs}
			t.loads[key] = nv
			t.constVar[nv.Name] = true
			t.sys.Vars = append(t.sys.Vars, nv)
		}
		if s.IsBool() {
			return fromBit(nv)
		}
		return its.R(nv)
	}
	return &its.Load{Buffer: bufName, Addr: t.eval(in.Src, env), Sort: s}
}

// Note [Hoisted loads]
// A load from a read-only buffer whose address is the same whenever it runs reads the same
// value: it becomes a variable that no transition updates, an unknown constant of the run, and
// the analysis treats it like a parameter. An address is the same when it is built, by pure
// operations, from parameters, launch builtins, constants, values defined outside every cycle
// (assigned at most once) and other such loads; inv gives it a key, so that two loads of one
// address share their variable even where the address is computed twice.

// inv gives the key of a value that is fixed for the whole run of the thread.
func (t *fnT) inv(v value.Value) (string, bool) {
	if k, ok := t.invKey[v]; ok {
		return k, k != ""
	}
	t.invKey[v] = "" // cycles through phis are not invariant
	k, ok := t.invCompute(v)
	if !ok {
		k = ""
	}
	t.invKey[v] = k
	return k, ok
}

func (t *fnT) invCompute(v value.Value) (string, bool) {
	switch c := v.(type) {
	case *constant.Int:
		return c.Typ.String() + " " + c.X.String(), true
	case *constant.Null:
		return "null", true
	case *ir.Global:
		return "@" + c.Name(), true
	case *ir.Param:
		return "%" + c.Name(), true
	case constant.Constant:
		return c.Ident(), true
	}
	in, ok := v.(ir.Instruction)
	if !ok {
		return "", false
	}
	if b, ok := t.defBlock[v]; ok && !t.cyclic[b] {
		return v.Ident(), true
	}
	switch in := in.(type) {
	case *ir.InstCall:
		name := calleeName(in)
		if _, ok := openclBuiltins[name]; ok && len(in.Args) == 1 {
			if d, ok := arg(in, 0).(*constant.Int); ok {
				return name + d.X.String(), true
			}
		}
		if _, _, ok := cudaBuiltin(name); ok {
			return name, true
		}
		return "", false
	case *ir.InstLoad:
		if t.roBase(in.Src) == nil {
			return "", false
		}
		k, ok := t.inv(in.Src)
		return "load " + in.ElemType.String() + "(" + k + ")", ok
	case *ir.InstPhi:
		return "", false
	}
	ops := instOperands(in)
	if ops == nil {
		return "", false
	}
	parts := []string{fmt.Sprintf("%T", in), v.Type().String()}
	switch in := in.(type) {
	case *ir.InstICmp:
		parts = append(parts, in.Pred.String())
	case *ir.InstGetElementPtr:
		parts = append(parts, in.ElemType.String())
	}
	for _, op := range ops {
		k, ok := t.inv(op)
		if !ok {
			return "", false
		}
		parts = append(parts, k)
	}
	return "(" + strings.Join(parts, " ") + ")", true
}

// base walks an address back through GEPs and casts to the parameter or global it points into;
// nil where it is not one (a phi or select of pointers, a loaded pointer).
func base(v value.Value) value.Value {
	for {
		switch p := v.(type) {
		case *ir.InstGetElementPtr:
			v = p.Src
		case *ir.InstBitCast:
			v = p.From
		case *ir.InstAddrSpaceCast:
			v = p.From
		case *constant.ExprGetElementPtr:
			v = p.Src
		case *constant.ExprBitCast:
			v = p.From
		case *constant.ExprAddrSpaceCast:
			v = p.From
		case *ir.Param, *ir.Global:
			return v
		default:
			return nil
		}
	}
}

// roBase gives the read-only buffer an address points into, or nil.
func (t *fnT) roBase(p value.Value) value.Value {
	b := base(p)
	if b != nil && t.readOnly[b] {
		return b
	}
	return nil
}

// pureCalls take pointers without writing through them.
var pureCalls = map[string]bool{
	"llvm.lifetime.start.p0i8": true, "llvm.lifetime.end.p0i8": true, "llvm.dbg.declare": true,
	"llvm.dbg.value": true, "llvm.prefetch": true,
}

// findReadOnly finds the kernel's pointer parameters and globals that nothing in the kernel
// writes: stores, atomics, calls that take the pointer, and pointers that escape into memory or
// integers all count as writes; a write through an address of unknown base makes nothing
// read-only. Device functions get none (their callers may write the buffers).
func (t *fnT) findReadOnly() {
	t.readOnly = map[value.Value]bool{}
	if !t.kernel {
		return
	}
	written := map[value.Value]bool{}
	unknown, globals := false, false
	write := func(p value.Value) {
		if b := base(p); b != nil {
			written[b] = true
		} else {
			unknown = true
		}
	}
	escape := func(p value.Value) {
		if isPtr(p.Type()) {
			write(p)
		}
	}
	for _, b := range t.blocks {
		for _, in := range b.Insts {
			switch in := in.(type) {
			case *ir.InstStore:
				write(in.Dst)
				escape(in.Src)
			case *ir.InstAtomicRMW:
				write(in.Dst)
			case *ir.InstCmpXchg:
				write(in.Ptr)
			case *ir.InstPtrToInt:
				write(in.From)
			case *ir.InstCall:
				name := calleeName(in)
				if pureCalls[name] || strings.HasPrefix(name, "llvm.lifetime") || strings.HasPrefix(name, "llvm.dbg") {
					continue
				}
				if strings.HasPrefix(name, "llvm.memcpy") || strings.HasPrefix(name, "llvm.memmove") {
					if len(in.Args) > 0 {
						write(arg(in, 0))
					}
					continue
				}
				if g, ok := in.Callee.(*ir.Func); ok && len(g.Blocks) > 0 {
					globals = true // a device function left uninlined may write any global
				}
				for i := range in.Args {
					escape(arg(in, i))
				}
			case *ir.InstInsertValue:
				escape(in.Elem)
			case *ir.InstInsertElement:
				escape(in.Elem)
			}
		}
	}
	if unknown {
		return
	}
	for _, p := range t.f.Params {
		if isPtr(p.Typ) && !written[p] {
			t.readOnly[p] = true
		}
	}
	for _, g := range t.m.Globals {
		if written[g] || globals {
			continue
		}
		pt, ok := g.Type().(*types.PointerType)
		if !ok {
			continue
		}
		as := pt.AddrSpace
		if g.Immutable || as == 3 { // constants, and shared memory only this kernel's threads write
			t.readOnly[g] = true
		}
	}
}
