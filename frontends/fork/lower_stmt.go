package fork

import (
	"gpuc/internal/diag"
	"gpuc/ir"
)

// stmts lowers a statement list. In synchronous code the statements after
// one that may break, continue or return run only on the processors that
// did not (Note [Jumps]).
func (b *body) stmts(items []stmt) {
	for i, s := range items {
		b.stmt(s)
		if b.mode != syncMode || i == len(items)-1 {
			continue
		}
		if g, private := b.jumpGuard(s); g != nil {
			whole := b.whole
			b.whole = whole && !private
			rest := b.Nest(func() { b.stmts(items[i+1:]) })
			b.whole = whole
			if len(rest) > 0 {
				b.Emit(&ir.Split{Pos: items[i+1].stmtPos(), Cond: g, Then: rest})
			}
			return
		}
	}
}

func (b *body) stmt(s stmt) {
	switch s := s.(type) {
	case *block:
		b.stmts(s.items)
	case *declStmt:
		for _, v := range s.vars {
			b.declare(v)
		}
	case *exprStmt:
		if s.x != nil {
			b.exprStmt(s.x)
		}
	case *ifStmt:
		b.ifStmt(s)
	case *whileStmt:
		b.loopStmt(s.pos, nil, s.cond, nil, s.body, false)
	case *doStmt:
		b.loopStmt(s.pos, nil, s.cond, nil, s.body, true)
	case *forStmt:
		b.loopStmt(s.pos, s.init, s.cond, s.post, s.body, false)
	case *breakStmt:
		b.jump(s.pos, true)
	case *continueStmt:
		b.jump(s.pos, false)
	case *returnStmt:
		b.returnStmt(s)
	case *startStmt:
		b.start(s)
	case *seqStmt:
		b.seq(s)
	case *farmStmt:
		b.farm(s)
	case *forkStmt:
		if b.rec != nil && s == b.rec.tail {
			b.tailFork(s)
		} else {
			b.fork(s)
		}
	case *barrierStmt:
		b.barrierStmt(s)
	}
}

// exprStmt lowers an expression statement: a step in synchronous code.
func (b *body) exprStmt(x expr) {
	if b.mode == syncMode {
		b.stepped(x.exprPos(), func() { b.effect(x) })
		return
	}
	b.effect(x)
}

// declare lowers a local declaration: a scalar becomes an IR local, an
// array or a sh variable a buffer.
func (b *body) declare(v *variable) {
	if v.isArray() || v.shared {
		b.sharedLocal(v)
		return
	}
	bd := &binding{v: v, region: b.inRegion}
	var init ir.Expr
	lowerInit := func() {
		if len(v.inits) > 0 {
			init = convert(b.expr(v.inits[0].x), v.t)
		}
		bd.local = b.local(v.pos, v.name, v.t, init)
	}
	if b.mode == syncMode && len(v.inits) > 0 {
		b.stepped(v.pos, lowerInit)
	} else {
		lowerInit()
	}
	b.vars[v] = bd
}

// sharedLocal lowers the declaration of a local array or sh variable: a
// buffer of its own, with one instance per group that may run the
// declaration at once (Notes [Group recursion], [Subgroup instances]).
func (b *body) sharedLocal(v *variable) {
	fn := b.inst.key.fn
	switch {
	case b.mode == deviceMode:
		b.errorf(v.pos, "array or sh variable %s in function %s, which runs asynchronously on each processor, is not supported", v.name, fn.name)
		return
	case b.inRegion && !v.shared:
		b.errorf(v.pos, "private arrays are not supported yet; declare %s sh and index it by $", v.name)
		return
	case b.mode == hostMode && b.l.isRecursive(fn):
		b.errorf(v.pos, "array or sh variable %s in recursive function %s is not supported", v.name, fn.name)
		return
	}
	bd := &binding{v: v, buf: b.l.newPlaceholder(v.name)}
	switch {
	case b.sub != nil:
		bd = b.instanced(v, bd.buf)
	case b.rec != nil:
		bd = b.perGroupLocal(v, bd.buf)
	default:
		b.l.buffer(v, bd.buf)
	}
	if bd == nil {
		return
	}
	b.vars[v] = bd
	if len(v.inits) == 0 {
		return
	}
	store := func() {
		for _, el := range v.inits {
			pos := el.x.exprPos()
			p := &place{pos: pos, bd: bd, buf: bd.buf, index: b.instanceIndex(bd, indexConst(pos, el.index)), t: v.t}
			b.storeTo(p, convert(b.expr(el.x), v.t), false)
		}
	}
	if b.mode == syncMode {
		b.stepped(v.pos, store)
	} else {
		store()
	}
}

func (b *body) ifStmt(s *ifStmt) {
	var c ir.Expr
	if b.mode == syncMode {
		b.stepped(s.pos, func() { c = b.hold(b.cond(s.cond)) })
	} else {
		c = b.cond(s.cond)
	}
	var then, els []ir.Stmt
	divides := b.mode == syncMode && b.isPrivate(s.cond) && b.differsInGroup(s.cond)
	part := func(i int64, s stmt) []ir.Stmt {
		if !divides {
			return b.Nest(func() { b.stmt(s) })
		}
		side := func() ir.Expr { return intConst(s.stmtPos(), ir.I64, i) }
		return b.dividing(s.stmtPos(), false, intConst(s.stmtPos(), ir.I64, 2), side, func() { b.stmt(s) })
	}
	b.within(s.cond, func() {
		then = part(0, s.then)
		if s.orElse != nil {
			els = part(1, s.orElse)
		}
	})
	if b.mode == syncMode && b.isPrivate(s.cond) {
		b.Emit(&ir.Split{Pos: s.pos, Cond: c, Then: then, Else: els})
		return
	}
	b.Emit(&ir.If{Pos: s.pos, Cond: c, Then: then, Else: els})
}

func (b *body) loopStmt(pos diag.Pos, init stmt, cond expr, post []expr, body stmt, isDo bool) {
	if fr := b.rec; fr != nil && b.whole && b.ids == &fr.ids && readsGroupSizeIn(cond, post, body) {
		// The loop's bound or stride reads the group's size: the facts
		// again right before it, in the kernel the loop ends up in
		// after the passes split the level (groupFacts).
		b.Emit(b.groupFacts(pos, fr))
	}
	if b.mode == syncMode {
		b.syncLoop(pos, init, cond, post, body, isDo)
		return
	}
	b.plainLoop(pos, init, cond, post, body, isDo)
}

// readsGroupSizeIn reports whether a loop's condition, post expressions
// or body read groupsize().
func readsGroupSizeIn(cond expr, post []expr, body stmt) bool {
	found := false
	see := func(e expr) {
		if c, ok := e.(*call); ok && c.builtin == groupsizeBuiltin {
			found = true
		}
	}
	for _, e := range append([]expr{cond}, post...) {
		if e != nil {
			walkExpr(e, see)
		}
	}
	if body != nil {
		walkExprs(body, see)
	}
	return found
}

// plainLoop lowers a loop of sequential or asynchronous code: a for loop
// where the IR's for fits, a while loop otherwise.
func (b *body) plainLoop(pos diag.Pos, init stmt, cond expr, post []expr, body stmt, isDo bool) {
	var c ir.Expr
	initStmts := b.Nest(func() {
		if init != nil {
			b.stmt(init)
		}
	})
	condPre := b.Nest(func() { c = b.condOrTrue(pos, cond) })
	postStmts := b.Nest(func() { b.effects(post) })
	if !isDo && len(condPre) == 0 && simpleFor(initStmts, postStmts) {
		f := &ir.For{Pos: pos, Cond: c, Body: b.loopBody(&loopFrame{native: true}, body)}
		if len(initStmts) > 0 {
			f.Init = initStmts[0]
		}
		if len(postStmts) > 0 {
			f.Post = postStmts[0]
		}
		b.Emit(f)
		return
	}
	b.Emit(initStmts...)
	exit := func(c ir.Expr) ir.Stmt {
		return &ir.If{Pos: pos, Cond: unaryOp(pos, "!", c, ir.Bool), Then: []ir.Stmt{&ir.Break{Pos: pos}}}
	}
	frame := &loopFrame{native: true, cont: func() { b.effects(post) }}
	if isDo {
		frame.cont = func() { b.Emit(exit(b.condOrTrue(pos, cond))) }
		loop := b.loopBody(frame, body)
		loop = append(append(loop, condPre...), exit(c))
		b.Emit(&ir.While{Pos: pos, Cond: ir.BoolConst(true), Body: loop})
		return
	}
	loop := append(b.loopBody(frame, body), postStmts...)
	if len(condPre) > 0 {
		loop = append(append(condPre, exit(c)), loop...)
		c = ir.BoolConst(true)
	}
	b.Emit(&ir.While{Pos: pos, Cond: c, Body: loop})
}

// simpleFor reports whether a loop's lowered init and increment fit the
// IR's for: at most one declaration or assignment, and one assignment.
func simpleFor(init, post []ir.Stmt) bool {
	if len(init) > 1 || len(post) > 1 {
		return false
	}
	if len(init) == 1 {
		switch init[0].(type) {
		case *ir.Decl, *ir.Assign:
		default:
			return false
		}
	}
	if len(post) == 1 {
		if _, ok := post[0].(*ir.Assign); !ok {
			return false
		}
	}
	return true
}

// loopBody lowers a loop's body with frame as the innermost loop.
func (b *body) loopBody(frame *loopFrame, s stmt) []ir.Stmt {
	saved := b.loop
	b.loop = frame
	out := b.Nest(func() { b.stmt(s) })
	b.loop = saved
	return out
}

// condOrTrue lowers a loop condition; a missing one is true.
func (b *body) condOrTrue(pos diag.Pos, cond expr) ir.Expr {
	if cond == nil {
		c := ir.BoolConst(true)
		c.Pos = pos
		return c
	}
	return b.cond(cond)
}

// effects lowers a for loop's increment expressions.
func (b *body) effects(post []expr) {
	for _, e := range post {
		b.exprStmt(e)
	}
}

// jump lowers break and continue: native, or setting a flag in
// synchronous code (Note [Jumps]).
func (b *body) jump(pos diag.Pos, isBreak bool) {
	f := b.loop
	if f == nil {
		return // the checker reported it
	}
	switch {
	case f.native && isBreak:
		b.Emit(&ir.Break{Pos: pos})
	case f.native:
		if f.cont != nil {
			f.cont()
		}
		b.Emit(&ir.Continue{Pos: pos})
	case isBreak:
		b.setJumpFlag(pos, f.brk)
	default:
		b.setJumpFlag(pos, f.cnt)
	}
}

func (b *body) returnStmt(s *returnStmt) {
	if b.inline != nil {
		if b.rec != nil && b.inline == b.rec.inline && !b.whole {
			b.errorf(s.pos, "return in recursive sync function %s where the processors of its group may disagree is not supported: return from the whole group", b.rec.fn.name)
			return
		}
		b.inlineReturn(s)
		return
	}
	r := &ir.Return{Pos: s.pos}
	if s.x != nil {
		v := convert(b.expr(s.x), b.inst.key.fn.result)
		if b.inst.f.Result == ir.Void {
			b.drop(v) // int main's status
		} else {
			r.Value = v
		}
	}
	b.Emit(r)
}

// hasCall reports whether e calls a function.
func hasCall(e ir.Expr) bool {
	return ir.AnyExpr(e, func(x ir.Expr) bool {
		_, isCall := x.(*ir.Call)
		return isCall
	})
}
