package llvm

import (
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"gpuc/ir"
)

// Note [Barriers on the CPU]
//
// On the host target a kernel runs the threads of a block one after
// another, so a block barrier cannot wait. Instead the thread loop is
// split at each barrier (loop fission, as MCUDA and POCL do), following
// the interpreter's team model (ir/interp/team.go):
//
//   - A statement list of a kernel that holds barriers is block-wide: its
//     maximal runs of statements without barriers are segments, each run
//     for every thread in a loop over tid(); the statements that hold
//     barriers (if, while, for, switch and barrier itself) become
//     control flow around those loops.
//   - The verifier allows barriers only under block-uniform control flow,
//     so the condition of such a statement has one value for all threads
//     of the block. It is evaluated for each running thread, in a thread
//     loop of its own, and the last value decides; with no running thread
//     it is false, so that loops end.
//   - Locals declared at the top of a segment, loop variables of
//     block-wide loops and the kernel's parameters live across barriers:
//     each has one element per thread (an alloca sized by the block).
//     Locals declared deeper live within one segment and are plain
//     allocas.
//   - Each thread has a status: running, returned, or having left or
//     skipped the rest of a block-wide loop at some depth (break and
//     continue in a segment). Segments run only the running threads; a
//     block-wide loop sets the threads that continued running again at
//     the end of each iteration, and those that left when it ends.
//
// Blocks run in order, each with its shared buffers zeroed.

// wideList emits a block-wide statement list: segments, and the
// statements with barriers between them.
func (f *fn) wideList(list []ir.Stmt) {
	start := 0
	for i, s := range list {
		if !ir.HasBarrier([]ir.Stmt{s}, false) {
			continue
		}
		if start < i {
			f.segment(list[start:i])
		}
		f.wideStmt(s)
		start = i + 1
	}
	if start < len(list) {
		f.segment(list[start:])
	}
}

// segment runs statements without barriers for each running thread; the
// locals they declare at the top level are private to each thread.
func (f *fn) segment(list []ir.Stmt) {
	f.forThreads(true, func() {
		for _, s := range list {
			f.unreachable()
			if d, ok := s.(*ir.Decl); ok {
				f.declare(d, true)
			} else {
				f.stmt(s)
			}
		}
	})
}

// wideStmt emits a statement that holds a barrier.
func (f *fn) wideStmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.Barrier:
		// The segments before and after it are the barrier.
	case *ir.If:
		then, els, end := f.block("wide.then"), f.block("wide.else"), f.block("wide.endif")
		f.cur.NewCondBr(f.collective(s.Cond), then, els)
		f.arm(then, f.wideList, s.Then, end)
		f.arm(els, f.wideList, s.Else, end)
		f.enter(end)
	case *ir.While:
		f.wideLoop(nil, s.Cond, nil, s.Body)
	case *ir.For:
		f.wideLoop(s.Init, s.Cond, s.Post, s.Body)
	case *ir.Switch:
		f.wideSwitch(s)
	default:
		f.errorf(s.At(), "barrier in a %T statement", s)
	}
}

// collective evaluates a block-uniform condition or switch value for each
// running thread; the last one's value decides, and with none running
// it is the zero value (false). A nil condition holds.
func (f *fn) collective(e ir.Expr) value.Value {
	t := ir.Bool
	if e != nil {
		t = e.Type()
	}
	res := f.alloca(valType(t), nil)
	f.cur.NewStore(zero(t), res)
	f.forThreads(true, func() { f.cur.NewStore(f.cond(e), res) })
	return f.cur.NewLoad(valType(t), res)
}

// wideLoop emits a while loop (init and post nil) or a for loop that
// holds a barrier.
func (f *fn) wideLoop(init ir.Stmt, cond ir.Expr, post ir.Stmt, body []ir.Stmt) {
	if init != nil {
		f.segment([]ir.Stmt{init})
	}
	head, bodyB, exit := f.block("wide.loop"), f.block("wide.body"), f.block("wide.done")
	f.jump(head)
	f.enter(head)
	f.cur.NewCondBr(f.collective(cond), bodyB, exit)
	f.enter(bodyB)
	f.cpu.depth++
	l := loop{wide: true, depth: f.cpu.depth}
	f.loops = append(f.loops, l)
	f.wideList(body)
	f.loops = f.loops[:len(f.loops)-1]
	f.cpu.depth--
	f.resume(l.status(true))
	if post != nil {
		f.segment([]ir.Stmt{post})
	}
	f.jump(head)
	f.enter(exit)
	f.resume(l.status(false))
}

// resume sets the threads with status st running again.
func (f *fn) resume(st int64) {
	f.forThreads(false, func() {
		p := f.cpu.statusOf(f)
		old := f.cur.NewLoad(types.I8, p)
		f.cur.NewStore(f.cur.NewSelect(f.cur.NewICmp(enum.IPredEQ, old, constantI8(st)), constantI8(running), old), p)
	})
}

// wideSwitch emits a switch whose arms hold barriers.
func (f *fn) wideSwitch(s *ir.Switch) {
	x, t := f.collective(s.X), s.X.Type()
	end := f.block("wide.endswitch")
	def := f.block("wide.default")
	arms := f.switchTo(x, t, s.Cases, def)
	for i, c := range s.Cases {
		f.arm(arms[i], f.wideList, c.Body, end)
	}
	f.arm(def, f.wideList, s.Default, end)
	f.enter(end)
}
