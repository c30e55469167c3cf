package fork

import (
	"gpuc/internal/diag"
	"gpuc/ir"
)

// Note [Steps]
//
// Synchronous Fork code runs as on a PRAM: within a step every read of
// shared memory sees the values from before the step, and the step's
// writes are visible from the next one, for any number of processors.
// The lowering makes each expression statement, declaration and condition
// one step and brackets it with grid barriers, conservatively; the
// barrier-elision pass removes those that no dependence between
// processors needs.
//
//   - The step's expressions are evaluated first, shared reads included,
//     into privates where the value outlives the step.
//   - Its shared writes are deferred: their indices and values are held
//     in temporaries, and the stores follow a grid barrier and precede
//     another: barrier grid; prio a[i] = t; barrier grid. Under
//     --crcw=priority they are priority stores, so that the lowest $
//     wins, as on the SB-PRAM; under --crcw=arbitrary plain ones.
//   - A step that only reads shared memory is followed by a grid barrier.
//   - A step touching private variables only has no barrier.
//
// A multiprefix operation is a step of its own within the statement,
// followed by a grid barrier. A sync function is inlined where it is
// called, its body made of steps of its own.
//
// Note [Jumps]
//
// In synchronous code the group splits on private conditions, and the IR
// lets no break, continue or return leave a split. So they set flags: a
// loop holding break or continue declares brk and cnt at the top of its
// body, an inlined sync function that returns before its end declares
// ret, and the statements after one that may set a flag run in a split on
// the flags being clear. A loop that may be left by break or return is a
// split while on a private flag, run, which the end of each iteration
// recomputes: the increment and condition when no flag is set. Flags are
// treated as private throughout, which is always correct.

// step is one synchronous step being lowered.
type step struct {
	root   *[]ir.Stmt // the block the step started in
	reads  bool       // it reads shared memory
	writes []ir.Stmt  // its shared stores, deferred to its end
}

// stepped lowers fn as one step (Note [Steps]).
func (b *body) stepped(pos diag.Pos, fn func()) {
	outer := b.step
	st := &step{root: b.Block()}
	b.step = st
	fn()
	b.step = outer
	switch {
	case len(st.writes) > 0:
		b.barrier(pos)
		b.Emit(st.writes...)
		b.barrier(pos)
	case st.reads:
		b.barrier(pos)
	}
}

// hold returns v, or a temporary holding it if v reads memory or calls a
// function, so that it can be used after the step's barriers.
func (b *body) hold(v ir.Expr) ir.Expr {
	impure := false
	ir.WalkExpr(v, func(x ir.Expr) bool {
		switch x.(type) {
		case *ir.Load, *ir.Call:
			impure = true
		}
		return !impure
	})
	if !impure {
		return v
	}
	return b.temp(v)
}

// isPrivate reports whether e may differ between the processors of a
// group in synchronous code, so that a condition on it splits the IR's
// group. It reads $, a private variable, private elements, or calls a
// function; constants, @, groupsize(), the host's locals and shared
// variables at uniform indices are the same for the whole group, except
// in a group-recursive function, where the IR's group holds all sibling
// groups (Note [Group recursion]).
func (b *body) isPrivate(e expr) bool { return b.varies(e, false) }

// differsInGroup reports whether e may differ between the processors of
// one Fork group. Inside a group-recursive function @, groupsize(), sh
// parameters and sh locals are the same within a group, though not across
// its siblings.
func (b *body) differsInGroup(e expr) bool { return b.varies(e, true) }

// varies is isPrivate (inGroup false) or differsInGroup (true).
func (b *body) varies(e expr, inGroup bool) bool {
	switch e := e.(type) {
	case *lit, *strLit:
		return false
	case *groupID:
		return !inGroup && b.ids != nil
	case *ident:
		if e.c != nil {
			return false
		}
		bd := b.binding(e.v)
		switch {
		case bd == nil:
			return false
		case bd.local != "":
			return bd.region && !(inGroup && bd.uniform)
		}
		return !inGroup && bd.start != ""
	case *index:
		base, idx := subscripts(e)
		for _, i := range idx {
			if b.varies(i, inGroup) {
				return true
			}
		}
		return b.varies(base, inGroup)
	case *call:
		if e.builtin == groupsizeBuiltin {
			return !inGroup && b.ids != nil
		}
		return true
	case *unary:
		return b.varies(e.x, inGroup)
	case *cast:
		return b.varies(e.x, inGroup)
	case *binary:
		return b.varies(e.x, inGroup) || b.varies(e.y, inGroup)
	case *condExpr:
		return b.varies(e.cond, inGroup) || b.varies(e.x, inGroup) || b.varies(e.y, inGroup)
	}
	return true // $, assignments, ++ and --
}

// within lowers fn with whole cleared if cond (nil: none) differs
// between the processors of the group, which then splits.
func (b *body) within(cond expr, fn func()) {
	saved := b.whole
	if cond != nil && b.differsInGroup(cond) {
		b.whole = false
	}
	fn()
	b.whole = saved
}

// branch makes a conditional for code inside a step: a split if it
// synchronises (holds barriers or group constructs) under a private
// condition, an if otherwise.
func (b *body) branch(pos diag.Pos, private bool, c ir.Expr, then, els []ir.Stmt) ir.Stmt {
	if b.mode == syncMode && private && (synchronises(then) || synchronises(els)) {
		return &ir.Split{Pos: pos, Cond: c, Then: then, Else: els}
	}
	return &ir.If{Pos: pos, Cond: c, Then: then, Else: els}
}

// synchronises reports whether body holds a grid barrier or a group
// construct.
func synchronises(body []ir.Stmt) bool {
	return ir.HasBarrier(body, true) || ir.AnyStmt(body, ir.IsGroupConstruct)
}

// jumpGuard returns the condition under which the statements after s run
// in synchronous code (Note [Jumps]), or nil if s sets no flag, and
// whether a flag was set where the group's processors may disagree.
func (b *body) jumpGuard(s stmt) (ir.Expr, bool) {
	var brk, cnt, ret string
	if f := b.loop; f != nil && !f.native {
		if hasJump(s, true) {
			brk = f.brk
		}
		if hasJump(s, false) {
			cnt = f.cnt
		}
	}
	if b.inline != nil && hasReturn(s) {
		ret = b.inline.ret
	}
	return none(s.stmtPos(), brk, cnt, ret), b.privFlags[brk] || b.privFlags[cnt] || b.privFlags[ret]
}

// setJumpFlag sets a jump flag, noting whether the group may disagree.
func (b *body) setJumpFlag(pos diag.Pos, flag string) {
	if !b.whole {
		b.privFlags[flag] = true
	}
	b.Emit(setFlag(pos, flag, true))
}

// syncLoop lowers a loop of synchronous code: a while loop if its
// condition is shared and nothing leaves it early, a split while
// otherwise (Note [Jumps]).
func (b *body) syncLoop(pos diag.Pos, init stmt, cond expr, post []expr, body stmt, isDo bool) {
	var sh *shadowed
	var count string
	if !isDo {
		sh = b.shadowCounter(init, cond, post) // Note [Shadowed loop counters]
	}
	if init != nil {
		b.stmt(init)
	}
	if sh != nil {
		count = b.declareShadow(pos, sh)
	}
	effects := func() {
		b.effects(post)
		if sh != nil {
			b.stepShadow(pos, sh, count)
		}
	}
	brk, cnt := hasJump(body, true), hasJump(body, false)
	ret := b.inline != nil && b.inline.ret != "" && hasReturn(body)
	private := cond != nil && b.isPrivate(cond) || brk || ret
	saved := b.whole
	defer func() { b.whole = saved }()
	frame := &loopFrame{}
	if !isDo && !brk && !ret {
		var c ir.Expr
		pre := b.Nest(func() {
			b.withShadow(sh, count, func() { b.stepped(pos, func() { c = b.condOrTrue(pos, cond) }) })
		})
		if len(pre) == 0 {
			b.whole = saved && (cond == nil || !b.differsInGroup(cond))
			loop := b.Nest(func() {
				b.loopFlags(pos, frame, false, cnt)
				b.withShadow(sh, count, func() { b.Emit(b.loopBody(frame, body)...) })
				effects()
			})
			b.Emit(loopStmt(pos, private, c, loop))
			return
		}
	}
	run := b.local(pos, "run", ir.Bool, ir.BoolConst(isDo))
	if !isDo {
		b.withShadow(sh, count, func() { b.condStep(pos, cond, run) })
	}
	var retFlag string
	if ret {
		retFlag = b.inline.ret
	}
	b.whole = saved && !brk && (cond == nil || !b.differsInGroup(cond))
	loop := b.Nest(func() {
		b.loopFlags(pos, frame, brk, cnt)
		b.withShadow(sh, count, func() { b.Emit(b.loopBody(frame, body)...) })
		next := func() {
			effects()
			b.withShadow(sh, count, func() { b.condStep(pos, cond, run) })
		}
		stop := none(pos, frame.brk, retFlag)
		if stop == nil {
			next()
			return
		}
		b.Emit(&ir.Split{Pos: pos, Cond: stop, Then: b.Nest(next), Else: []ir.Stmt{setFlag(pos, run, false)}})
	})
	b.Emit(loopStmt(pos, private, &ir.Var{Pos: pos, Name: run, T: ir.Bool}, loop))
}

// loopFlags declares a synchronous loop's flags at the top of its body.
func (b *body) loopFlags(pos diag.Pos, f *loopFrame, brk, cnt bool) {
	if brk {
		f.brk = b.flag(pos, "brk")
	}
	if cnt {
		f.cnt = b.flag(pos, "cnt")
	}
}

func loopStmt(pos diag.Pos, private bool, c ir.Expr, body []ir.Stmt) ir.Stmt {
	if private {
		return &ir.SplitWhile{Pos: pos, Cond: c, Body: body}
	}
	return &ir.While{Pos: pos, Cond: c, Body: body}
}

// condStep evaluates a loop condition into run, as a step.
func (b *body) condStep(pos diag.Pos, cond expr, run string) {
	b.stepped(pos, func() {
		b.Emit(&ir.Assign{Pos: pos, Name: run, Value: b.condOrTrue(pos, cond)})
	})
}

// start lowers start(P) S to a region of P processors running S
// synchronously; start S runs on the PROCS parameter, --procs.
func (b *body) start(s *startStmt) {
	if b.mode != hostMode {
		b.errorf(s.pos, "start inside parallel code is not supported")
		return
	}
	var procs ir.Expr
	if s.procs == nil {
		procs = &ir.ParamRef{Pos: s.pos, Name: b.l.procsParam(s.pos), T: b.l.m.Param(b.l.procs).Type}
	} else {
		procs = b.expr(s.procs)
	}
	saved := b.context
	b.context = context{mode: syncMode, inRegion: true, whole: true}
	if overParams(procs) {
		b.procs = procs
	}
	body := b.Nest(func() { b.stmt(s.body) })
	b.context = saved
	b.Emit(&ir.Region{Pos: s.pos, Procs: procs, Body: body})
}

// seq lowers seq S: processor 0 runs S asynchronously while the group
// waits.
func (b *body) seq(s *seqStmt) {
	if !b.synchronous(s.pos, "seq") {
		return
	}
	if b.touchesShared(s.body) {
		b.barrier(s.pos)
	}
	var first ir.Expr = &ir.Binary{Pos: s.pos, Op: ir.Eq, X: b.groupValue(s.pos, "$", 0), Y: intConst(s.pos, ir.I32, 0)}
	if lead := b.seqLeader(s.pos); lead != nil {
		first = lead
	}
	saved := b.context
	b.mode, b.inSeq, b.loop = asyncMode, true, nil
	body := b.Nest(func() { b.stmt(s.body) })
	b.context = saved
	b.Emit(&ir.If{Pos: s.pos, Cond: first, Then: body})
	b.barrier(s.pos)
}

// farm lowers farm S: S without implicit synchronisation, then a grid
// barrier that joins the group again.
func (b *body) farm(s *farmStmt) {
	switch b.mode {
	case hostMode:
		b.errorf(s.pos, "farm outside start")
		return
	case asyncMode, deviceMode:
		b.stmt(s.body)
		return
	}
	saved := b.context
	b.mode, b.loop = asyncMode, nil
	b.stmt(s.body)
	b.context = saved
	b.barrier(s.pos)
}

// fork lowers fork(k; @ = e1; $ = e2) S.
func (b *body) fork(s *forkStmt) {
	if !b.synchronous(s.pos, "fork") {
		return
	}
	f := &ir.Fork{Pos: s.pos}
	b.stepped(s.pos, func() {
		f.Count = b.hold(convert(b.expr(s.count), ir.I32))
		f.Group = b.hold(convert(b.expr(s.group), ir.I32))
		if s.member == nil {
			f.Member = &ir.Builtin{Pos: s.pos, Op: ir.ProcID}
		} else {
			f.Member = b.hold(convert(b.expr(s.member), ir.I32))
		}
	})
	saved := b.context
	b.loop, b.whole, b.ids = nil, false, nil
	group := func() ir.Expr { return &ir.Builtin{Pos: s.pos, Op: ir.GroupID} }
	f.Body = b.dividing(s.pos, true, f.Count, group, func() { b.stmt(s.body) })
	b.context = saved
	b.Emit(f)
}

func (b *body) barrierStmt(s *barrierStmt) {
	if b.mode == asyncMode || b.mode == deviceMode {
		// Fork's barrier in a farm waits for the farm's group. gpuc runs
		// asynchronous code as independent threads of one step, which
		// cannot wait for one another in the middle of it.
		b.errorf(s.pos, "barrier in asynchronous code: gpuc runs a farm or an asynchronous function as independent threads, which cannot wait for one another; end the farm before the barrier")
		return
	}
	if b.synchronous(s.pos, "barrier") {
		b.barrier(s.pos)
	}
}

// synchronous reports whether a construct of synchronous code stands in
// synchronous code, and reports it otherwise.
func (b *body) synchronous(pos diag.Pos, what string) bool {
	switch b.mode {
	case hostMode:
		b.errorf(pos, "%s outside start", what)
	case asyncMode, deviceMode:
		b.errorf(pos, "%s in asynchronous code", what)
	default:
		return true
	}
	return false
}

// inlineCall inlines a call of a sync function into synchronous code. The
// arguments are evaluated in the caller's step; the body's steps are its
// own.
func (b *body) inlineCall(e *call) ir.Expr {
	f := e.fn
	for fr := b.inline; fr != nil; fr = fr.outer {
		if fr.fn == f {
			if !b.l.badRec[f] { // else reported by groupRecursion
				b.errorf(e.pos, "recursive call of sync function %s is not supported here", f.name)
			}
			return b.zeroOf(e)
		}
	}
	if !b.bindParams(f, e.args) {
		return b.zeroOf(e)
	}
	fr := &inlineFrame{fn: f, outer: b.inline}
	if f.result != ir.Void {
		fr.result = b.stepLocal(e.pos, f.name+"_result", f.result)
	}
	if hasEarlyReturn(f) {
		fr.ret = b.flag(e.pos, "ret")
	}
	outer, saved := b.step, b.context
	if outer != nil {
		outer.reads = true
	}
	b.step, b.inline, b.loop = nil, fr, nil
	b.stmts(f.body.items)
	b.step, b.context = outer, saved
	if fr.result == "" {
		return nil
	}
	return &ir.Var{Pos: e.pos, Name: fr.result, T: f.result}
}

// bindParams binds the parameters of an inlined sync function: an array
// parameter to the argument's buffer, any other to a local holding the
// argument's value; false if an argument's binding is missing.
func (b *body) bindParams(f *function, args []expr) bool {
	for i, p := range f.params {
		if p.isArray() {
			a := b.binding(arrayOf(args[i]))
			if a == nil {
				return false // an error was reported at the array's declaration
			}
			bd := *a
			bd.v = p
			b.vars[p] = &bd
			continue
		}
		v := convert(b.expr(args[i]), p.t)
		b.vars[p] = &binding{v: p, local: b.local(p.pos, p.name, p.t, v), region: true, uniform: p.shared}
	}
	return true
}

// inlineReturn lowers return in an inlined sync function, as a step.
func (b *body) inlineReturn(s *returnStmt) {
	fr := b.inline
	b.stepped(s.pos, func() {
		if s.x != nil && fr.result != "" {
			b.Emit(&ir.Assign{Pos: s.pos, Name: fr.result, Value: convert(b.expr(s.x), fr.fn.result)})
		}
		if fr.ret != "" {
			b.setJumpFlag(s.pos, fr.ret)
		}
	})
}

// stepLocal declares a zero-initialised local for a value computed inside
// a step: at the step's top level if the code is nested in it (see temp).
func (b *body) stepLocal(pos diag.Pos, base string, t ir.Type) string {
	if b.step == nil || b.Block() == b.step.root {
		return b.local(pos, base, t, nil)
	}
	name := b.fresh(base)
	*b.step.root = append(*b.step.root, &ir.Decl{Pos: pos, Name: name, T: t, Init: zero(pos, t)})
	return name
}

// touchesShared reports whether s may read or write shared memory: it
// names a buffer or calls a function.
func (b *body) touchesShared(s stmt) bool {
	found := false
	walkExprs(s, func(e expr) {
		switch e := e.(type) {
		case *ident:
			if e.v != nil && (e.v.kind == globalVar || e.v.shared || e.v.isArray()) {
				found = true
			}
			if bd := b.binding(e.v); bd != nil && bd.buf != "" {
				found = true
			}
		case *call:
			found = found || e.builtin != printfBuiltin && e.builtin != errorBuiltin && e.builtin != groupsizeBuiltin
		}
	})
	return found
}
