package llvm

import (
	llir "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"gpuc/ir"
)

// Note [Atomics of one worker]
//
// On the host target a kernel's function that runs every block of its
// launch (lo 0, hi the grid) runs the launch alone: the pool gives a
// launch's blocks to one worker or shares them out in chunks smaller than
// the grid (Note [Pool by measure] in backends/cuda/cpu.h), and a block's
// threads take turns on that worker (Note [Blocks across cores]). No
// other thread then touches the launch's memory, so its read-modify-
// writes need not be atomic. The kernel sets the worker's flag
// gpuc_serial at entry, and each read-modify-write tests it: set, it is a
// plain load, operation and store; clear, the atomicrmw or cmpxchg. A
// locked instruction waits for every store before it to leave the store
// buffer, and the one worker of a sequential rewrite (TRS's one-block
// kernel on a CPU) did several per rewrite, each behind stores to slots
// that missed the cache: revnat's rewriting spent most of its time on
// them (docs/BENCHMARKS.md). The result is the same: with one thread the
// plain sequence is what the atomic does.

// serialFlag defines the host target's thread-local gpuc_serial.
func (g *gen) serialFlag() {
	g.serial = g.global("gpuc_serial", types.I32, ir.Global, i32(0))
	g.serial.Linkage, g.serial.Align = enum.LinkageInternal, 4
	g.serial.TLSModel = enum.TLSModelInitialExec
}

// setSerial stores, at a host kernel's entry, whether it runs its whole
// launch: lo is 0 and hi the grid.
func (f *fn) setSerial(grid, lo, hi value.Value) {
	whole := f.cur.NewAnd(f.cur.NewICmp(enum.IPredEQ, lo, i32(0)), f.cur.NewICmp(enum.IPredEQ, hi, grid))
	f.cur.NewStore(f.cur.NewZExt(whole, types.I32), f.g.serial)
}

// serialOr emits a read-modify-write of *p, values of type t: where the
// worker runs its launch alone, plain(old) computes the new value from
// the old, which is stored unless plain returns nil; otherwise atomic()
// emits the atomic instruction and returns the old value. It returns the
// old value.
func (f *fn) serialOr(t types.Type, p value.Value, plain func(old value.Value) value.Value, atomic func() value.Value) value.Value {
	if f.g.serial == nil {
		return atomic()
	}
	one, many, done := f.block("rmw.one"), f.block("rmw.many"), f.block("rmw.done")
	flag := f.cur.NewLoad(types.I32, f.g.serial)
	f.cur.NewCondBr(f.cur.NewICmp(enum.IPredNE, flag, i32(0)), one, many)
	f.enter(one)
	old := f.cur.NewLoad(t, p)
	if next := plain(old); next != nil {
		f.cur.NewStore(next, p)
	}
	from := f.cur
	f.cur.NewBr(done)
	f.enter(many)
	got := atomic()
	if got == nil {
		// No atomic for this type: the caller reports it.
		f.cur.NewBr(done)
		f.enter(done)
		return nil
	}
	fromMany := f.cur
	f.cur.NewBr(done)
	f.enter(done)
	return f.cur.NewPhi(llir.NewIncoming(old, from), llir.NewIncoming(got, fromMany))
}

// plainRMW is the new value of op applied to old and v, for the
// integer operations of rmwOps; signed says how min and max compare.
func (f *fn) plainRMW(op ir.AtomicOp, signed bool, old, v value.Value) value.Value {
	switch op {
	case ir.AtomicAdd:
		return f.cur.NewAdd(old, v)
	case ir.AtomicSub:
		return f.cur.NewSub(old, v)
	case ir.AtomicAnd:
		return f.cur.NewAnd(old, v)
	case ir.AtomicOr:
		return f.cur.NewOr(old, v)
	case ir.AtomicXor:
		return f.cur.NewXor(old, v)
	case ir.AtomicExch:
		return v
	case ir.AtomicMin, ir.AtomicMax:
		pred := map[[2]bool]enum.IPred{{true, true}: enum.IPredSLT, {true, false}: enum.IPredULT, {false, true}: enum.IPredSGT, {false, false}: enum.IPredUGT}[[2]bool{op == ir.AtomicMin, signed}]
		return f.cur.NewSelect(f.cur.NewICmp(pred, v, old), v, old)
	}
	return nil
}
