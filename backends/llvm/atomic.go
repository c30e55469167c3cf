package llvm

import (
	llir "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/value"

	"gpuc/ir"
)

// atomic emits a read-modify-write as atomicrmw or cmpxchg, relaxed
// (monotonic) as CUDA's atomics are, and stores the old value if asked.
func (f *fn) atomic(s *ir.Atomic) {
	if s.Op.IsMultiprefix() {
		f.errorf(s.Pos, "atomic %s is SPMD-level", s.Op)
		return
	}
	p, b := f.elem(s, s.Buf, s.Index, s.Pos)
	var args []value.Value
	for _, a := range s.Args {
		args = append(args, f.expr(a))
	}
	if p == nil {
		return
	}
	if b.Space == ir.Constant || len(args) != s.Op.Operands() {
		f.errorf(s.Pos, "atomic %s on %s", s.Op, s.Buf)
		return
	}
	old := f.rmw(s, b.Elem, p, args)
	if old == nil {
		f.errorf(s.Pos, "atomic %s on %s", s.Op, b.Elem)
		return
	}
	if s.Dst != "" {
		if sl := f.lookup(s.Dst, s.Pos); sl != nil {
			f.cur.NewStore(old, f.addr(sl))
		}
	}
}

// rmwOps maps the atomics that atomicrmw does on integers, signed and
// unsigned where they differ.
var rmwOps = map[ir.AtomicOp][2]enum.AtomicOp{
	ir.AtomicAdd: {enum.AtomicOpAdd, enum.AtomicOpAdd}, ir.AtomicSub: {enum.AtomicOpSub, enum.AtomicOpSub},
	ir.AtomicMin: {enum.AtomicOpMin, enum.AtomicOpUMin}, ir.AtomicMax: {enum.AtomicOpMax, enum.AtomicOpUMax},
	ir.AtomicAnd: {enum.AtomicOpAnd, enum.AtomicOpAnd}, ir.AtomicOr: {enum.AtomicOpOr, enum.AtomicOpOr},
	ir.AtomicXor: {enum.AtomicOpXor, enum.AtomicOpXor}, ir.AtomicExch: {enum.AtomicOpXChg, enum.AtomicOpXChg},
}

// rmw applies the operation of s to *p, elements of type t, and returns
// the old value, or nil if the operation does not apply to t. On the
// host target a worker that runs its launch alone does it with plain
// loads and stores (Note [Atomics of one worker]).
func (f *fn) rmw(s *ir.Atomic, t ir.Type, p value.Value, args []value.Value) value.Value {
	const relaxed = enum.AtomicOrderingMonotonic
	elem := memType(t)
	switch {
	case s.Op == ir.AtomicCAS && t.IsInt():
		return f.serialOr(elem, p, func(old value.Value) value.Value {
			return f.cur.NewSelect(f.cur.NewICmp(enum.IPredEQ, old, args[0]), args[1], old)
		}, func() value.Value {
			return f.cur.NewExtractValue(f.cur.NewCmpXchg(p, args[0], args[1], relaxed, relaxed), 0)
		})
	case s.Op == ir.AtomicInc && t == ir.U32:
		return f.serialOr(elem, p, func(old value.Value) value.Value {
			return f.cur.NewSelect(f.cur.NewICmp(enum.IPredUGE, old, args[0]), zero(ir.U32), f.cur.NewAdd(old, konst(ir.U32, 1)))
		}, func() value.Value { return f.increment(p, args[0]) })
	case t.IsFloat() && s.Op == ir.AtomicAdd:
		return f.serialOr(elem, p, func(old value.Value) value.Value { return f.cur.NewFAdd(old, args[0]) },
			func() value.Value { return f.cur.NewAtomicRMW(enum.AtomicOpFAdd, p, args[0], relaxed) })
	case t.IsFloat() && s.Op == ir.AtomicSub:
		// x - v is x + (-v) in IEEE arithmetic, and fadd is native on GPUs.
		return f.serialOr(elem, p, func(old value.Value) value.Value { return f.cur.NewFAdd(old, f.cur.NewFNeg(args[0])) },
			func() value.Value { return f.cur.NewAtomicRMW(enum.AtomicOpFAdd, p, f.cur.NewFNeg(args[0]), relaxed) })
	case t.IsFloat() && s.Op == ir.AtomicExch:
		return f.serialOr(elem, p, func(value.Value) value.Value { return args[0] },
			func() value.Value { return f.cur.NewAtomicRMW(enum.AtomicOpXChg, p, args[0], relaxed) })
	case t.IsFloat():
		return nil
	}
	ops, ok := rmwOps[s.Op]
	if !ok || !t.IsInt() {
		return nil
	}
	op := ops[1]
	if t.IsSigned() {
		op = ops[0]
	}
	return f.serialOr(elem, p, func(old value.Value) value.Value { return f.plainRMW(s.Op, t.IsSigned(), old, args[0]) },
		func() value.Value { return f.cur.NewAtomicRMW(op, p, args[0], relaxed) })
}

// increment is CUDA's atomicInc, old >= lim ? 0 : old + 1, as a cmpxchg
// loop; the first try guesses 0.
func (f *fn) increment(p, lim value.Value) value.Value {
	from := f.cur
	try, done := f.block("inc"), f.block("inc.done")
	f.cur.NewBr(try)
	f.enter(try)
	guess := f.cur.NewPhi(llir.NewIncoming(zero(ir.U32), from))
	wrap := f.cur.NewICmp(enum.IPredUGE, guess, lim)
	next := f.cur.NewSelect(wrap, zero(ir.U32), f.cur.NewAdd(guess, konst(ir.U32, 1)))
	pair := f.cur.NewCmpXchg(p, guess, next, enum.AtomicOrderingMonotonic, enum.AtomicOrderingMonotonic)
	seen := f.cur.NewExtractValue(pair, 0)
	guess.Incs = append(guess.Incs, llir.NewIncoming(seen, try))
	f.cur.NewCondBr(f.cur.NewExtractValue(pair, 1), done, try)
	f.enter(done)
	return seen
}
