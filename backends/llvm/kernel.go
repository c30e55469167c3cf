package llvm

import (
	llir "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"gpuc/backends/abi"
	"gpuc/ir"
)

// deviceFunc emits a device function: its parameters live in allocas, as
// the IR may assign them.
func (g *gen) deviceFunc(src *ir.Func) {
	f := g.newFn(src)
	f.paramSlots(false)
	f.initParams(0)
	f.bind(len(src.Params))
	f.list(src.Body)
	f.finish()
}

// paramSlots gives each of the IR function's parameters a local, one per
// thread if private is set; initParams fills them.
func (f *fn) paramSlots(private bool) {
	for _, p := range f.src.Params {
		f.vars[p.Name] = f.newSlot(p.Type, private)
	}
}

// initParams stores the arguments, from LLVM parameter at on, into the
// parameters' locals, for the current thread; kernels take bools as bytes.
func (f *fn) initParams(at int) {
	for i, p := range f.src.Params {
		var v value.Value = f.f.Params[at+i]
		if p.Type == ir.Bool && f.src.Kind == ir.KernelFunc {
			v = f.cur.NewTrunc(v, types.I1)
		}
		f.cur.NewStore(v, f.addr(f.vars[p.Name]))
	}
}

// gpuKernel emits an NVPTX kernel: one call per thread.
func (g *gen) gpuKernel(src *ir.Func) {
	f := g.newFn(src)
	f.paramSlots(false)
	f.initParams(0)
	f.bind(len(src.Params))
	if len(g.conv.Shared(src)) > 0 {
		area := f.cur.NewGetElementPtr(g.smem.ContentType, g.smem, i64(0), i64(0))
		f.zeroShared(area, f.carve(area))
	}
	f.list(src.Body)
	if f.halts && f.cur.Term == nil {
		f.faultHalt()
	}
	f.finish()
}

// carve points each shared buffer of the kernel into its shared area, as
// package abi lays it out, and returns the area's size in bytes.
func (f *fn) carve(area value.Value) value.Value {
	var off value.Value = i64(0)
	for _, b := range f.g.conv.Shared(f.src) {
		p := f.cur.NewGetElementPtr(types.I8, area, off)
		f.bufs[b.Name] = f.cur.NewBitCast(p, f.g.ptr(memType(b.Elem), ir.Shared))
		var n value.Value = f.cur.NewMul(f.convert(ir.I64, b.Len.Type(), f.expr(b.Len)), i64(int64(b.Elem.Size())))
		n = f.cur.NewAnd(f.cur.NewAdd(n, i64(abi.Align-1)), i64(-abi.Align))
		off = f.cur.NewAdd(off, n)
	}
	return off
}

// zeroShared has the block's threads zero its shared area, four bytes at
// a time, and waits for them: shared buffers start zeroed.
func (f *fn) zeroShared(area, bytes value.Value) {
	word := f.g.ptr(types.I32, ir.Shared)
	step := f.cur.NewMul(f.cur.NewZExt(f.geometry(ir.BlockDim), types.I64), i64(4))
	i := f.alloca(types.I64, nil)
	f.cur.NewStore(f.cur.NewMul(f.cur.NewZExt(f.geometry(ir.ThreadID), types.I64), i64(4)), i)
	head, body, done := f.block("zero"), f.block("zero.body"), f.block("zero.done")
	f.jump(head)
	f.enter(head)
	at := f.cur.NewLoad(types.I64, i)
	f.cur.NewCondBr(f.cur.NewICmp(enum.IPredULT, at, bytes), body, done)
	f.enter(body)
	f.cur.NewStore(i32(0), f.cur.NewBitCast(f.cur.NewGetElementPtr(types.I8, area, at), word))
	f.cur.NewStore(f.cur.NewAdd(at, step), i)
	f.cur.NewBr(head)
	f.enter(done)
	f.cur.NewCall(f.g.intrinsic("llvm.nvvm.barrier0", types.Void))
}

// Note [Raise on the CPU]
//
// On the GPU a raising thread records its message in the error word and
// exits; the other threads of the launch go on, and the host reports the
// message at its next look, before anything more is printed. On the host
// target a raise records the message the same way and then returns from
// the kernel's function: from device functions, whose callers check the
// error word after each call that may raise, and so from the whole
// launch, whose later threads and blocks do not run. The host program
// checks the error word right after each launch and stops with the
// message, as the interpreter stops at a raise. Nothing the skipped
// threads could have done is visible: the program ends before it prints
// again, as on the GPU. Which message wins when one launch raises
// several is the first in block and thread order, as in the interpreter;
// on the GPU it is whichever reaches the error word first.

// cpuState is what a kernel on the host target keeps while its loops run
// the blocks and threads of a launch.
type cpuState struct {
	grid, block value.Value
	wide        bool        // the kernel holds barriers: threads run in segments
	status      value.Value // wide: each thread's status, one byte each
	next        *llir.Block // the current thread loop's next iteration
	depth       int         // block-wide loops around the code
}

// Thread statuses in a kernel with barriers, as the interpreter keeps
// them: running, returned, or having left or skipped the rest of the
// block-wide loop at some depth (see loop.status).
const (
	running  = 0
	returned = 1
)

// status is the status of a thread that leaves (cont false) or continues
// block-wide loop l.
func (l loop) status(cont bool) int64 {
	if cont {
		return 3 + 2*int64(l.depth)
	}
	return 2 + 2*int64(l.depth)
}

// stop ends the current thread's run through the code before the next
// barrier with status st.
func (c *cpuState) stop(f *fn, st int64) {
	if c.wide {
		f.cur.NewStore(constantI8(st), c.statusOf(f))
	}
	f.cur.NewBr(c.next)
}

// statusOf is the address of the current thread's status.
func (c *cpuState) statusOf(f *fn) value.Value {
	return f.cur.NewGetElementPtr(types.I8, c.status, f.cur.NewLoad(types.I32, f.g.geom[ir.ThreadID]))
}

// Note [Blocks across cores]
//
// A host program runs a launch's blocks on a pool of worker threads, one
// per core (cpu.h), where the launch site measures that the pool gains
// (Note [Pool by measure] in backends/cuda/cpu.h). A kernel's function on the host target therefore runs
// a range of blocks, lo up to hi, in order, with the worker's own shared
// area; the current thread's geometry and the error word are thread-local
// globals, so each worker has its own. The function returns the block it
// stopped at: hi, or the block whose thread raised (Note [Raise on the
// CPU]). The pool hands out ranges in any order, and of the ranges that
// stop early the one that stopped at the smallest block gives the
// message, which is the one the blocks run in order would give: the
// first in block and thread order. Blocks of one launch ran in any order
// on the GPU already, so nothing else changes: atomics are atomicrmw and
// cmpxchg, atomic on the CPU as on the GPU, and the pool's start and end
// of a launch order the workers' memory as a kernel boundary does.

// cpuKernel emits a kernel for the host target: a function that runs a
// range of the blocks of a launch in order, each with its shared area
// zeroed, and the threads of each block in a loop, or in segments between
// barriers (Note [Blocks across cores]).
func (g *gen) cpuKernel(src *ir.Func) {
	f := g.newFn(src)
	ps := f.f.Params
	c := &cpuState{grid: ps[0], block: ps[1], wide: ir.HasBarrier(src.Body, false)}
	f.cpu = c
	f.cur.NewStore(c.grid, g.geom[ir.GridDim])
	f.cur.NewStore(c.block, g.geom[ir.BlockDim])
	f.setSerial(c.grid, ps[3], ps[4])
	const first = 5 // after grid, block, the shared area and the block range
	f.bind(first + len(src.Params))
	bytes := f.carve(ps[2])
	if c.wide {
		c.status = f.alloca(types.I8, c.block)
	}
	f.paramSlots(c.wide)
	f.forBlocks(ps[3], ps[4], func() {
		if len(g.conv.Shared(src)) > 0 {
			f.call("llvm.memset.p0i8.i64", types.Void, ps[2], constantI8(0), bytes, konst(ir.Bool, 0))
		}
		if !c.wide {
			f.forThreads(false, func() {
				f.initParams(first)
				f.list(src.Body)
			})
			return
		}
		f.forThreads(false, func() {
			f.cur.NewStore(constantI8(running), c.statusOf(f))
			f.initParams(first)
		})
		f.wideList(src.Body)
	})
	f.finish()
}

// forBlocks runs body for each block from lo up to hi, bid() going up.
func (f *fn) forBlocks(lo, hi value.Value, body func()) {
	f.count(f.g.geom[ir.BlockID], lo, hi, "block", func(*llir.Block) { body() })
}

// forThreads runs body for each thread of the block, tid() going up; if
// onlyRunning is set, for those whose status is running. In body, the
// thread's code ends by branching to f.cpu.next.
func (f *fn) forThreads(onlyRunning bool, body func()) {
	c := f.cpu
	f.count(f.g.geom[ir.ThreadID], i32(0), c.block, "thread", func(next *llir.Block) {
		if onlyRunning {
			run := f.block("running")
			st := f.cur.NewLoad(types.I8, c.statusOf(f))
			f.cur.NewCondBr(f.cur.NewICmp(enum.IPredEQ, st, constantI8(running)), run, next)
			f.enter(run)
		}
		saved := c.next
		c.next = next
		body()
		c.next = saved
	})
}

// count runs body with the counter global ctr going from lo up to n;
// body may branch to the block it gets to go on with the next value.
func (f *fn) count(ctr *llir.Global, lo, n value.Value, name string, body func(next *llir.Block)) {
	f.cur.NewStore(lo, ctr)
	head, run, next, done := f.block(name), f.block(name+".run"), f.block(name+".next"), f.block(name+".done")
	f.jump(head)
	f.enter(head)
	f.cur.NewCondBr(f.cur.NewICmp(enum.IPredSLT, f.cur.NewLoad(types.I32, ctr), n), run, done)
	f.enter(run)
	body(next)
	f.jump(next)
	f.enter(next)
	f.cur.NewStore(f.cur.NewAdd(f.cur.NewLoad(types.I32, ctr), i32(1)), ctr)
	f.cur.NewBr(head)
	f.enter(done)
}
