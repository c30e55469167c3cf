package llvm

import (
	"fmt"
	"strings"

	llir "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"gpuc/backends/abi"
	"gpuc/ir"
)

// list emits a statement list. Code after a statement that jumps goes to
// a block that nothing enters.
func (f *fn) list(body []ir.Stmt) {
	for _, s := range body {
		f.unreachable()
		f.stmt(s)
	}
}

func (f *fn) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.Decl:
		f.declare(s, false)
	case *ir.Assign:
		v := f.expr(s.Value)
		if sl := f.lookup(s.Name, s.Pos); sl != nil {
			f.cur.NewStore(v, f.addr(sl))
		}
	case *ir.Store:
		f.store(s)
	case *ir.Atomic:
		f.atomic(s)
	case *ir.CallStmt:
		f.expr(s.Call)
	case *ir.If:
		f.ifStmt(s)
	case *ir.While, *ir.For:
		f.loop(s)
	case *ir.Break:
		f.jumpOut(s.Pos, false)
	case *ir.Continue:
		f.jumpOut(s.Pos, true)
	case *ir.Return:
		f.ret(s)
	case *ir.Switch:
		f.switchStmt(s)
	case *ir.Barrier:
		f.barrier(s)
	case *ir.Raise:
		f.raise(s)
	case nil:
		f.errorf(f.src.Pos, "missing statement")
	default:
		f.errorf(s.At(), "%s is not device code", strings.ToLower(strings.TrimPrefix(fmt.Sprintf("%T", s), "*ir.")))
	}
}

// declare makes a local's memory, private to each thread if private is
// set, and initialises it (to zero if the declaration does not).
func (f *fn) declare(d *ir.Decl, private bool) {
	var v value.Value = zero(d.T)
	if d.Init != nil {
		v = f.expr(d.Init)
	}
	sl := f.newSlot(d.T, private)
	f.vars[d.Name] = sl
	f.cur.NewStore(v, f.addr(sl))
}

// lookup finds a local or function parameter.
func (f *fn) lookup(name string, pos ir.Pos) *slot {
	sl := f.vars[name]
	if sl == nil {
		f.errorf(pos, "undeclared local %s", name)
	}
	return sl
}

func (f *fn) ifStmt(s *ir.If) {
	c := f.expr(s.Cond)
	then, end := f.block("then"), f.block("endif")
	els := end
	if s.Else != nil {
		els = f.block("else")
	}
	f.cur.NewCondBr(c, then, els)
	f.arm(then, f.list, s.Then, end)
	if s.Else != nil {
		f.arm(els, f.list, s.Else, end)
	}
	f.enter(end)
}

// loop emits a loop; one whose checks a test can settle before it runs
// (Note [Check placement] in package abi) twice: without those checks
// where the test holds, with them where it fails.
func (f *fn) loop(s ir.Stmt) {
	plain := func() {
		switch s := s.(type) {
		case *ir.While:
			f.loopStmt(nil, s.Cond, nil, s.Body)
		case *ir.For:
			f.loopStmt(s.Init, s.Cond, s.Post, s.Body)
		}
	}
	h := f.plan.Hoist(s)
	if h == nil {
		plain()
		return
	}
	f.length = true // Pre divides by constants, or in buffers' lengths
	pre := f.expr(h.Pre)
	f.length = false
	fast, slow, end := f.block("hoisted"), f.block("checked"), f.block("endhoisted")
	f.cur.NewCondBr(pre, fast, slow)
	f.enter(fast)
	f.active = append(f.active, h)
	plain()
	f.active = f.active[:len(f.active)-1]
	f.jump(end)
	f.enter(slow)
	plain()
	f.jump(end)
	f.enter(end)
}

// loopStmt emits a while loop (init and post nil) or a for loop.
func (f *fn) loopStmt(init ir.Stmt, cond ir.Expr, post ir.Stmt, body []ir.Stmt) {
	if init != nil {
		f.stmt(init)
	}
	head, bodyB, latch, exit := f.block("loop"), f.block("body"), f.block("next"), f.block("done")
	f.jump(head)
	f.enter(head)
	f.cur.NewCondBr(f.cond(cond), bodyB, exit)
	f.enter(bodyB)
	f.loops = append(f.loops, loop{brk: exit, cont: latch})
	f.list(body)
	f.loops = f.loops[:len(f.loops)-1]
	f.jump(latch)
	f.enter(latch)
	if post != nil {
		f.stmt(post)
	}
	f.jump(head)
	f.enter(exit)
}

// cond evaluates a loop condition; a missing one holds.
func (f *fn) cond(e ir.Expr) value.Value {
	if e == nil {
		return konst(ir.Bool, 1)
	}
	return f.expr(e)
}

// jumpOut emits break (cont false) or continue.
func (f *fn) jumpOut(pos ir.Pos, cont bool) {
	if len(f.loops) == 0 {
		f.errorf(pos, "break or continue outside a loop")
		return
	}
	l := f.loops[len(f.loops)-1]
	switch {
	case l.wide:
		f.cpu.stop(f, l.status(cont))
	case cont:
		f.cur.NewBr(l.cont)
	default:
		f.cur.NewBr(l.brk)
	}
}

func (f *fn) ret(s *ir.Return) {
	var v value.Value
	if s.Value != nil {
		v = f.expr(s.Value)
	}
	if f.halts {
		f.faultHalt()
	}
	switch {
	case f.src.Kind == ir.DeviceFunc:
		f.cur.NewRet(v)
	case f.cpu != nil:
		f.cpu.stop(f, returned)
	default:
		f.cur.NewRet(nil)
	}
}

// switchStmt maps a switch to LLVM's: the first case that lists a value
// takes it, and an arm never falls through.
func (f *fn) switchStmt(s *ir.Switch) {
	x := f.expr(s.X)
	end := f.block("endswitch")
	def := end
	if s.Default != nil {
		def = f.block("default")
	}
	arms := f.switchTo(x, s.X.Type(), s.Cases, def)
	for i, c := range s.Cases {
		f.arm(arms[i], f.list, c.Body, end)
	}
	if s.Default != nil {
		f.arm(def, f.list, s.Default, end)
	}
	f.enter(end)
}

// switchTo ends the current block with a switch on x, of type t, to one
// new block per case, or to def; a value listed twice goes to the first
// case that lists it.
func (f *fn) switchTo(x value.Value, t ir.Type, cases []*ir.Case, def *llir.Block) []*llir.Block {
	seen := map[ir.Bits]bool{}
	var targets []*llir.Case
	arms := make([]*llir.Block, len(cases))
	for i, c := range cases {
		arms[i] = f.block("case")
		for _, v := range c.Values {
			if b := ir.IntBits(t, v); !seen[b] {
				seen[b] = true
				targets = append(targets, llir.NewCase(konst(t, b), arms[i]))
			}
		}
	}
	f.cur.NewSwitch(x, def, targets...)
	return arms
}

// barrier waits for the block on the GPU. On the host target the thread
// loops end at each barrier instead (see wide.go).
func (f *fn) barrier(s *ir.Barrier) {
	switch {
	case s.Grid || f.src.Kind != ir.KernelFunc:
		f.errorf(s.Pos, "barrier outside a kernel's block-uniform code")
	case f.cpu == nil:
		f.cur.NewCall(f.g.intrinsic("llvm.nvvm.barrier0", types.Void))
		if f.halts {
			f.faultHalt()
		}
	}
}

// faultHalt stops the thread after a barrier, or where its kernel
// returns or ends, where a fault was recorded: one whose check went on
// stops here (Note [Going on after a fault] in package abi), as do the
// others, which read the error word here too.
func (f *fn) faultHalt() {
	w := f.cur.NewLoad(types.I32, f.g.errWord)
	w.Volatile = true
	halt, ok := f.block("halt"), f.block("ok")
	f.cur.NewCondBr(f.cur.NewICmp(enum.IPredNE, w, i32(0)), halt, ok)
	f.enter(halt)
	f.stop()
	f.enter(ok)
}

// raise records the message in the error word, unless another raise was
// first, and ends the thread: on the GPU with PTX's exit, on the host
// target by returning (Note [Raise on the CPU]).
func (f *fn) raise(s *ir.Raise) {
	f.raiseError(f.g.raiseIDs[s.Msg])
	f.stop()
}

// stop ends the thread after a raise or a fault: on the GPU with PTX's
// exit, on the host target by returning (Note [Raise on the CPU]).
func (f *fn) stop() {
	if f.g.target == Host {
		f.leave()
		return
	}
	exit := llir.NewInlineAsm(types.NewPointer(types.NewFunc(types.Void)), "exit;", "")
	exit.SideEffect = true
	f.cur.NewCall(exit)
	f.cur.NewUnreachable()
}

// check faults where bad holds (Note [Checks] in package abi): unless
// CHECKS=0 cleared the checks word, the first fault records its number id
// in the error word and its values a and b, and the thread stops as a
// raise stops it; or, with goOn (Note [Going on after a fault] in package
// abi), goes on. check returns whether it went on after a fault, an i1
// of the block after it, or nil where a fault stops.
func (f *fn) check(bad value.Value, id int, a, b value.Value, goOn bool) value.Value {
	fault, on, first, stop, ok := f.block("fault"), f.block("fault.on"), f.block("fault.first"), f.block("fault.stop"), f.block("ok")
	from := f.cur
	f.cur.NewCondBr(bad, fault, ok)
	f.enter(fault)
	checks := f.cur.NewLoad(types.I32, f.g.checksOn)
	f.cur.NewCondBr(f.cur.NewICmp(enum.IPredNE, checks, i32(0)), on, ok)
	f.enter(on)
	x := f.cur.NewCmpXchg(f.g.errWord, i32(0), i32(int64(id)), enum.AtomicOrderingMonotonic, enum.AtomicOrderingMonotonic)
	f.cur.NewCondBr(f.cur.NewExtractValue(x, 1), first, stop)
	f.enter(first)
	vt := f.g.values.ContentType
	f.cur.NewStore(a, f.cur.NewGetElementPtr(vt, f.g.values, i64(0), i64(0)))
	f.cur.NewStore(b, f.cur.NewGetElementPtr(vt, f.g.values, i64(0), i64(1)))
	f.cur.NewBr(stop)
	f.enter(stop)
	if !goOn {
		f.stop()
		f.enter(ok)
		return nil
	}
	f.cur.NewBr(ok)
	f.enter(ok)
	return f.cur.NewPhi(llir.NewIncoming(constant.False, from), llir.NewIncoming(constant.False, fault), llir.NewIncoming(constant.True, stop))
}

// wentOn is v, or where check went on after a fault, safe: the index 0,
// the divisor 1 or the value 0 (Note [Going on after a fault] in package
// abi).
func (f *fn) wentOn(went, v, safe value.Value) value.Value {
	if went == nil {
		return v
	}
	return f.cur.NewSelect(went, safe, v)
}

func (f *fn) store(s *ir.Store) {
	if s.Priority {
		f.errorf(s.Pos, "priority store is SPMD-level")
	}
	p, b := f.elem(s, s.Buf, s.Index, s.Pos)
	v := f.expr(s.Value)
	if p == nil {
		return
	}
	v = f.checkValue(s, b, v)
	if b.Space == ir.Constant {
		f.errorf(s.Pos, "store to constant buffer %s", b.Name)
		return
	}
	f.cur.NewStore(f.toMem(v, b.Elem), p)
}

// checkValue checks the value v that s writes into b, where b has a
// below bound (Note [Bounded buffers] in package ir) and the plan does
// not elide it: v, widened to 64 bits by its type, below the bound as
// unsigned integers.
func (f *fn) checkValue(s *ir.Store, b *ir.Buffer, v value.Value) value.Value {
	n := abi.BoundExpr(f.g.m, b)
	if !f.g.checks || !abi.CheckedWrite(b) || n == nil || f.plan.Settled(abi.WriteCheck(s), f.active) {
		return v
	}
	x := f.convert(ir.I64, b.Elem, v)
	f.length = true
	bound := f.convert(ir.I64, n.Type(), f.expr(n))
	f.length = false
	id, ok := f.g.faultIDs[abi.BelowFault(s.Pos, b, abi.IndexUnsigned(b.Elem))]
	if !ok {
		f.errorf(s.Pos, "internal error: the check of this write has no number")
	}
	went := f.check(f.cur.NewICmp(enum.IPredUGE, x, bound), id, x, bound, f.goOn)
	return f.wentOn(went, v, zero(b.Elem))
}

// toMem converts a value to its memory form: bool becomes a byte.
func (f *fn) toMem(v value.Value, t ir.Type) value.Value {
	if t == ir.Bool {
		return f.cur.NewZExt(v, types.I8)
	}
	return v
}
