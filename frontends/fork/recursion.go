package fork

import (
	"fmt"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// Note [Group recursion]
//
// A sync function that calls itself divides its group and recurses into
// the parts, as parallel quicksort does. Inlining cannot lower it, and one
// IR fork per call would run sibling groups one after another (group-split
// runs a fork's subgroups in turn). The frontend supports tail group
// recursion: every recursive call of f ends a path through the body of a
// fork that is the last statement of f, as in
//
//	sync void qsort(sh int lo, sh int hi) {
//	  if (hi - lo < 2) return;
//	  ... partition around a[m] ...
//	  fork(2; @ = $ < p ? 0 : 1; $ = $ < p ? $ : $ - p)
//	    if (@ == 0) qsort(lo, m); else qsort(m + 1, hi);
//	}
//
// and lowers a call of f to a loop over recursion levels, in which the
// sibling groups of a level run it together:
//
//   - Each processor holds its group in locals: fr_start, the first gid()
//     of its group (groups are contiguous ranges of gid(), see below),
//     fr_pid ($ = gid() - fr_start), fr_group (@), fr_size (groupsize())
//     and fr_live (the group has work at this level), and one local per
//     parameter; a sh parameter's is the same on every processor of the
//     group.
//   - The call becomes `split while fr_live { one level of f }`, a
//     processor leaving when its group is done. In the level $, @ and
//     groupsize() read the locals, seq S runs where fr_pid == 0, and a sh
//     local is a buffer with one instance per possible group start, P of
//     them (P*len for an array), at fr_start; so P must be an expression
//     over parameters. Conditions on sh parameters and sh locals are the
//     same within a group but not across siblings, so they split the IR's
//     group (isPrivate) without splitting the Fork group (differsInGroup).
//   - A return sets the ret flag of Note [Jumps]. The level starts with
//     fr_live false, so a processor whose group returned, or reached the
//     end of f without recursing, leaves the loop.
//   - The tail fork evaluates @ and $ in the old group, checks the rule
//     below at run time, and sets fr_group, fr_pid and fr_start = gid() -
//     $; each new leader zeroes a counter at its gid(), every member adds
//     one, and fr_size is the count (if anything reads groupsize()). The
//     fork's body runs in the new group,
//     where f's own sh locals are still the parent group's instance; a
//     recursive call evaluates its arguments into the parameter locals and
//     sets fr_live again.
//
// Contiguity rule: within each parent group, the new groups are contiguous
// runs in the order of $, numbered by increasing @, and $ restarts at 0 in
// each: for consecutive members p-1 and p of a parent group, either
// @(p) == @(p-1) and $(p) == $(p-1) + 1, or @(p) > @(p-1) and $(p) == 0;
// the first member has $ == 0. Proportional splits (@ = $ < p ? 0 : 1;
// $ = $ < p ? $ : $ - p) satisfy it, and it makes every group a range of
// gid() from fr_start, so that groups need no allocation. A fork that
// breaks it raises an error.
//
// The lowering needs whole groups (body.whole): f must be called by the
// region's group or by a group of a recursive function, not under a
// condition that differs within the group nor in a fork body, where the
// group is no range of gid(). Inside f, return and groupsize() must not
// stand under such conditions or in ordinary fork bodies either, whose IR
// groups hold processors of several sibling groups. Multiprefix operations
// with a result belong in farm there (Note [Asynchronous multiprefix]):
// each group has its own cells, and the multiprefix scan serves one
// address per step.

// recFrame is a group-recursive function being lowered at one call site.
type recFrame struct {
	fn     *function
	tail   *forkStmt
	inline *inlineFrame // for return, Note [Jumps]
	start  string       // the locals of Note [Group recursion]
	live   string
	ids    [3]string // $, @, groupsize()
}

// Diagnostics for recursive calls in the wrong place.
const (
	notTail    = "recursive call of %s is not supported here: a sync function may call itself only at the end of the body of a fork that is its last statement"
	notPathEnd = "recursive call of %s must end its path through the body of the fork: only blocks and ifs may lead to it, and nothing may follow it"
)

// groupRecursion finds the sync functions that call themselves and checks
// that they have the shape Note [Group recursion] lowers: l.tails maps
// each to its tail fork. Recursion through other sync functions is
// refused.
func (l *lowerer) groupRecursion() {
	for _, f := range l.prog.funcs {
		if f.mode != syncFunc {
			continue
		}
		if c := l.mutualCall(f); c != nil {
			l.errorf(c.pos, "sync functions %s and %s call each other: mutual recursion is not supported, only a sync function that calls itself at the end of a fork", f.name, c.fn.name)
			l.badRec[f] = true
			continue
		}
		if !calls(f.body, f) {
			continue
		}
		if tail := l.tailShape(f); tail != nil {
			l.tails[f] = tail
		} else {
			l.badRec[f] = true
		}
	}
}

// mutualCall returns a call in f of another sync function from which f
// can be reached through sync functions, or nil.
func (l *lowerer) mutualCall(f *function) *call {
	var found *call
	walkExprs(f.body, func(e expr) {
		c, ok := e.(*call)
		if ok && found == nil && c.fn != nil && c.fn != f && c.fn.mode == syncFunc && reachesSync(c.fn, f, map[*function]bool{}) {
			found = c
		}
	})
	return found
}

// reachesSync reports whether g calls f through sync functions.
func reachesSync(g, f *function, seen map[*function]bool) bool {
	seen[g] = true
	for _, h := range g.calls {
		if h == f {
			return true
		}
		if h.mode == syncFunc && !seen[h] && reachesSync(h, f, seen) {
			return true
		}
	}
	return false
}

// calls reports whether s calls f.
func calls(s stmt, f *function) bool {
	found := false
	walkExprs(s, func(e expr) {
		c, ok := e.(*call)
		found = found || ok && c.fn == f
	})
	return found
}

// tailShape checks that the recursive calls of f end paths through its
// last statement, a fork, and returns that fork; nil after an error.
func (l *lowerer) tailShape(f *function) *forkStmt {
	if f.result != ir.Void {
		l.errorf(f.pos, "recursive sync function %s returns %s: a sync function that calls itself must return void", f.name, cName(f.result))
		return nil
	}
	tail := lastFork(f.body)
	ok := true
	walkStmts(f.body, func(s stmt) bool {
		if tail != nil && s == stmt(tail) {
			for _, e := range stmtExprs(tail) {
				ok = l.noSelfCalls(f, e, notTail) && ok
			}
			ok = l.tailPaths(f, tail.body) && ok
			return false
		}
		for _, e := range stmtExprs(s) {
			ok = l.noSelfCalls(f, e, notTail) && ok
		}
		return true
	})
	if !ok {
		return nil
	}
	return tail
}

// lastFork returns the fork that is the last statement of b, or nil.
func lastFork(b *block) *forkStmt {
	for len(b.items) > 0 {
		switch s := b.items[len(b.items)-1].(type) {
		case *forkStmt:
			return s
		case *block:
			b = s
		default:
			return nil
		}
	}
	return nil
}

// tailPaths checks that the recursive calls of f in s, the body of f's
// tail fork, end their paths; false after an error.
func (l *lowerer) tailPaths(f *function, s stmt) bool {
	switch s := s.(type) {
	case *exprStmt:
		if c, isCall := s.x.(*call); isCall && c.fn == f {
			ok := true
			for _, a := range c.args {
				ok = l.noSelfCalls(f, a, notPathEnd) && ok
			}
			return ok
		}
	case *block:
		ok := true
		for i, item := range s.items {
			if i == len(s.items)-1 {
				ok = l.tailPaths(f, item) && ok
			} else {
				ok = l.noSelfCallsIn(f, item) && ok
			}
		}
		return ok
	case *ifStmt:
		ok := l.noSelfCalls(f, s.cond, notPathEnd)
		ok = l.tailPaths(f, s.then) && ok
		if s.orElse != nil {
			ok = l.tailPaths(f, s.orElse) && ok
		}
		return ok
	}
	return l.noSelfCallsIn(f, s)
}

// noSelfCallsIn reports the recursive calls of f in s, in a fork body.
func (l *lowerer) noSelfCallsIn(f *function, s stmt) bool {
	ok := true
	walkExprs(s, func(e expr) {
		if c, isCall := e.(*call); isCall && c.fn == f {
			l.errorf(c.pos, notPathEnd, f.name)
			ok = false
		}
	})
	return ok
}

// noSelfCalls reports the recursive calls of f in e with the message msg.
func (l *lowerer) noSelfCalls(f *function, e expr, msg string) bool {
	ok := true
	walkExpr(e, func(e expr) {
		if c, isCall := e.(*call); isCall && c.fn == f {
			l.errorf(c.pos, msg, f.name)
			ok = false
		}
	})
	return ok
}

// groupCall lowers a call of a group-recursive function: the recursive
// call at the end of its tail fork, or a first call, which becomes the
// loop over recursion levels (Note [Group recursion]).
func (b *body) groupCall(e *call) {
	f := e.fn
	if fr := b.rec; fr != nil && fr.fn == f {
		b.recurse(e)
		return
	}
	switch {
	case !b.whole:
		b.errorf(e.pos, "recursive sync function %s must be called by a whole group: not under a condition that differs between its processors, nor in a fork body", f.name)
		return
	case b.procs == nil:
		b.errorf(e.pos, "recursive sync function %s needs the processor count of start to be a constant or parameter expression: its groups keep their variables in buffers with one element per processor", f.name)
		return
	}
	if !b.bindParams(f, e.args) {
		return
	}
	outer, saved := b.step, b.context
	if outer != nil {
		outer.reads = true
	}
	fr := b.declareGroup(e.pos, f)
	b.step, b.loop = nil, nil
	body := b.Nest(func() {
		b.rec, b.ids, b.inline, b.whole, b.sub = fr, &fr.ids, fr.inline, true, nil
		b.Emit(setFlag(e.pos, fr.live, false))
		if b.l.readsGroupSize(f, map[*function]bool{}) {
			b.Emit(b.groupFacts(e.pos, fr))
		}
		if hasEarlyReturn(f) {
			fr.inline.ret = b.flag(e.pos, "ret")
		}
		b.stmts(f.body.items)
		b.barrier(e.pos) // a level ends together: Fork's calls synchronise
	})
	b.step, b.context = outer, saved
	b.Emit(&ir.SplitWhile{Pos: e.pos, Cond: varRef(e.pos, fr.live, ir.Bool), Body: body})
}

// groupFacts is the checked fact (Note [Checked facts] in package ir) that
// opens each level of a group-recursive function: every member counted
// itself into fr_size, so 1 <= fr_size <= the processors of the start, and
// the members are numbered 0, 1, ... from fr_start (the contiguity rule),
// so 0 <= fr_pid < fr_size. The level's loops that step by groupsize()
// read fr_size, which for one thread is a value loaded from memory; the
// termination analysis reads the fact as a guard on every path from the
// level's start (docs/TERMINATION.md). A correct lowering never raises it.
func (b *body) groupFacts(pos diag.Pos, fr *recFrame) ir.Stmt {
	size, pid := varRef(pos, fr.ids[2], ir.I32), varRef(pos, fr.ids[0], ir.I32)
	t := usual(ir.I32, b.procs.Type())
	cmp := func(op string, x, y ir.Expr) ir.Expr { return binaryOp(pos, op, x, y, t) }
	and := func(x, y ir.Expr) ir.Expr { return binaryOp(pos, "&&", x, y, ir.Bool) }
	one, nought := intConst(pos, ir.I32, 1), intConst(pos, ir.I32, 0)
	fact := and(and(cmp("<=", one, size), cmp("<=", size, ir.CloneExpr(b.procs))),
		and(cmp("<=", nought, pid), cmp("<", pid, size)))
	return ir.CheckFact(pos, fact, fmt.Sprintf("a group of recursive sync function %s has a size outside [1, processors of start] or a member $ outside [0, groupsize()) (Note [Group recursion])", fr.fn.name))
}

// declareGroup declares the locals that hold a processor's group, starting
// with the calling group.
func (b *body) declareGroup(pos diag.Pos, f *function) *recFrame {
	fr := &recFrame{fn: f, tail: b.l.tails[f], inline: &inlineFrame{fn: f, outer: b.inline}}
	pid := b.groupValue(pos, "$", 0)
	gid := &ir.Builtin{Pos: pos, Op: ir.GlobalID}
	fr.start = b.local(pos, "fr_start", ir.I32, &ir.Binary{Pos: pos, Op: ir.Sub, X: gid, Y: pid})
	for i, name := range [3]string{"fr_pid", "fr_group", "fr_size"} {
		fr.ids[i] = b.local(pos, name, ir.I32, b.groupValue(pos, [3]string{"$", "@", "groupsize()"}[i], i))
	}
	fr.live = b.local(pos, "fr_live", ir.Bool, ir.BoolConst(true))
	return fr
}

// varRef reads the local name of type t.
func varRef(pos diag.Pos, name string, t ir.Type) *ir.Var {
	return &ir.Var{Pos: pos, Name: name, T: t}
}

// recurse lowers a recursive call at the end of a path through the tail
// fork: the arguments, evaluated in the new group, become the parameters
// of the group's next level.
func (b *body) recurse(e *call) {
	fr := b.rec
	var dst []string
	var vals []ir.Expr
	for i, p := range e.fn.params {
		if p.isArray() {
			if arrayOf(e.args[i]) != p {
				b.errorf(e.args[i].exprPos(), "recursive call of %s must pass its array parameter %s unchanged", e.fn.name, p.name)
			}
			continue
		}
		dst = append(dst, b.vars[p].local)
		vals = append(vals, b.temp(convert(b.expr(e.args[i]), p.t)))
	}
	for i, name := range dst {
		b.Emit(&ir.Assign{Pos: e.pos, Name: name, Value: vals[i]})
	}
	b.Emit(setFlag(e.pos, fr.live, true))
}

// tailFork lowers the tail fork of the group-recursive function being
// lowered: the processors move to their new groups, checked, counted, and
// run the body there (Note [Group recursion]).
func (b *body) tailFork(s *forkStmt) {
	fr, pos := b.rec, s.pos
	var count, grp, mem *ir.Var
	b.stepped(pos, func() {
		count = b.temp(convert(b.expr(s.count), ir.I32))
		grp = b.temp(convert(b.expr(s.group), ir.I32))
		if s.member == nil {
			mem = b.temp(b.groupValue(pos, "$", 0))
		} else {
			mem = b.temp(convert(b.expr(s.member), ir.I32))
		}
	})
	b.checkSubgroups(pos, count, grp, mem)
	parent := b.local(pos, "fr_parent", ir.I32, varRef(pos, fr.start, ir.I32))
	gid := &ir.Builtin{Pos: pos, Op: ir.GlobalID}
	b.Emit(
		&ir.Assign{Pos: pos, Name: fr.ids[1], Value: grp},
		&ir.Assign{Pos: pos, Name: fr.ids[0], Value: mem},
		&ir.Assign{Pos: pos, Name: fr.start, Value: &ir.Binary{Pos: pos, Op: ir.Sub, X: gid, Y: mem}},
	)
	if b.l.readsGroupSize(fr.fn, map[*function]bool{}) {
		b.countGroups(pos)
	}
	restore := b.rebind(fr.start, parent)
	saved := b.context
	b.loop, b.whole, b.sub = nil, true, nil
	b.stmt(s.body)
	b.context = saved
	restore()
}

// checkSubgroups raises an error where the new group indices are out of
// range or the new groups break the contiguity rule: each processor
// compares its @ and $ with those of the processor before it.
func (b *body) checkSubgroups(pos diag.Pos, count, grp, mem *ir.Var) {
	fr := b.rec
	i32 := func(v int64) ir.Expr { return intConst(pos, ir.I32, v) }
	bin := func(op ir.BinOp, x, y ir.Expr) ir.Expr { return &ir.Binary{Pos: pos, Op: op, X: x, Y: y} }
	gid := func() ir.Expr { return &ir.Builtin{Pos: pos, Op: ir.GlobalID} }
	pid := varRef(pos, fr.ids[0], ir.I32)
	bad := bin(ir.LogOr, bin(ir.Lt, grp, i32(0)), bin(ir.Ge, grp, count))
	b.Emit(&ir.If{Pos: pos, Cond: bad, Then: []ir.Stmt{&ir.Raise{Pos: pos, Msg: "fork: a processor's group index is out of range"}}})
	groups, members := b.procBuffer(pos, "fork_group"), b.procBuffer(pos, "fork_member")
	b.Emit(
		&ir.Store{Pos: pos, Buf: groups, Index: gid(), Value: grp},
		&ir.Store{Pos: pos, Buf: members, Index: gid(), Value: mem},
	)
	b.barrier(pos)
	prevG, prevM := b.local(pos, "prev_group", ir.I32, nil), b.local(pos, "prev_member", ir.I32, nil)
	prev := bin(ir.Sub, gid(), i32(1))
	b.Emit(&ir.If{Pos: pos, Cond: bin(ir.Gt, pid, i32(0)), Then: []ir.Stmt{
		&ir.Assign{Pos: pos, Name: prevG, Value: &ir.Load{Pos: pos, Buf: groups, Index: prev, T: ir.I32}},
		&ir.Assign{Pos: pos, Name: prevM, Value: &ir.Load{Pos: pos, Buf: members, Index: ir.CloneExpr(prev), T: ir.I32}},
	}})
	pg, pm := varRef(pos, prevG, ir.I32), varRef(pos, prevM, ir.I32)
	starts := bin(ir.Eq, mem, i32(0))
	same := bin(ir.LogAnd, bin(ir.Eq, grp, pg), bin(ir.Eq, mem, bin(ir.Add, pm, i32(1))))
	next := bin(ir.LogAnd, bin(ir.Gt, grp, pg), starts)
	ok := &ir.Select{Pos: pos, Cond: bin(ir.Eq, pid, i32(0)), X: starts, Y: bin(ir.LogOr, same, next)}
	b.Emit(&ir.If{Pos: pos, Cond: &ir.Unary{Pos: pos, Op: ir.Not, X: ok}, Then: []ir.Stmt{&ir.Raise{Pos: pos,
		Msg: "fork: subgroups of a recursive sync function must be contiguous runs of $, in increasing order of @, each numbered from $ = 0"}}})
}

// countGroups sets fr_size to the size of each processor's new group: the
// leader zeroes a counter at its gid(), and every member adds one.
func (b *body) countGroups(pos diag.Pos) {
	fr := b.rec
	counter := b.procBuffer(pos, "fr_count")
	at := func() ir.Expr { return varRef(pos, fr.start, ir.I32) }
	leader := &ir.Binary{Pos: pos, Op: ir.Eq, X: varRef(pos, fr.ids[0], ir.I32), Y: intConst(pos, ir.I32, 0)}
	b.Emit(&ir.If{Pos: pos, Cond: leader, Then: []ir.Stmt{&ir.Store{Pos: pos, Buf: counter, Index: at(), Value: intConst(pos, ir.I32, 0)}}})
	b.barrier(pos)
	b.Emit(&ir.Atomic{Pos: pos, Op: ir.AtomicAdd, Buf: counter, Index: at(), Args: []ir.Expr{intConst(pos, ir.I32, 1)}})
	b.barrier(pos)
	b.Emit(&ir.Assign{Pos: pos, Name: fr.ids[2], Value: &ir.Load{Pos: pos, Buf: counter, Index: at(), T: ir.I32}})
}

// readsGroupSize reports whether the groups of f may read groupsize():
// f, the sync functions it inlines or starts, or the functions it calls
// from parallel code.
func (l *lowerer) readsGroupSize(f *function, seen map[*function]bool) bool {
	seen[f] = true
	found := false
	walkExprs(f.body, func(e expr) {
		c, ok := e.(*call)
		switch {
		case !ok || found:
		case c.builtin == groupsizeBuiltin:
			found = true
		case c.fn == nil || seen[c.fn]:
		case c.fn.mode == syncFunc:
			found = l.tails[c.fn] != nil || l.readsGroupSize(c.fn, seen)
		default:
			found = l.needsGroup[c.fn]
		}
	})
	return found
}

// rebind makes the per-group variables bound to the group at start use
// the one at parent instead, until the returned function restores them.
func (b *body) rebind(start, parent string) (restore func()) {
	old := map[*variable]*binding{}
	for v, bd := range b.vars {
		if bd.start == start {
			old[v] = bd
			moved := *bd
			moved.start = parent
			b.vars[v] = &moved
		}
	}
	return func() {
		for v, bd := range old {
			b.vars[v] = bd
		}
	}
}

// procBuffer declares a scratch buffer of i32 with one element per
// processor of the region.
func (b *body) procBuffer(pos diag.Pos, base string) string {
	name := b.l.newPlaceholder(base)
	b.l.m.Buffers = append(b.l.m.Buffers, &ir.Buffer{Pos: pos, Name: name, Elem: ir.I32, Len: ir.CloneExpr(b.procs), Space: ir.Global, Role: ir.Scratch})
	return name
}

// perGroupLocal binds a sh local declared in a group-recursive function:
// a buffer with one instance per possible group start (Note [Group
// recursion]).
func (b *body) perGroupLocal(v *variable, name string) *binding {
	bd := &binding{v: v, buf: name, start: b.rec.start}
	n := ir.Expr(ir.CloneExpr(b.procs))
	if v.isArray() {
		bd.stride = arrayLen(v)
		if bd.stride == nil {
			return nil // an error was reported at the declaration
		}
		t := usual(n.Type(), bd.stride.Type())
		n = binaryOp(v.pos, "*", n, arrayLen(v), t)
	}
	b.l.m.Buffers = append(b.l.m.Buffers, &ir.Buffer{Pos: v.pos, Name: name, Elem: v.t, Len: n, Space: ir.Global, Role: ir.Scratch})
	return bd
}

// instanceIndex turns an index into an array or sh variable into one into
// its buffer: the same, unless each group has its own instance.
func (b *body) instanceIndex(bd *binding, idx ir.Expr) ir.Expr {
	if bd == nil || bd.start == "" && bd.sub == "" {
		return idx
	}
	pos := idx.At()
	var base ir.Expr
	if bd.start != "" {
		base = varRef(pos, bd.start, ir.I32)
	}
	if bd.sub != "" {
		path := ir.Expr(varRef(pos, bd.sub, ir.I64))
		if base != nil {
			path = binaryOp(pos, "+", binaryOp(pos, "*", convert(base, ir.I64), ir.CloneExpr(bd.subN), ir.I64), path, ir.I64)
		}
		base = path
	}
	if bd.stride != nil {
		base = binaryOp(pos, "*", base, ir.CloneExpr(bd.stride), usual(base.Type(), bd.stride.Type()))
	}
	if k, ok := constInt(idx); ok && k == 0 {
		return base
	}
	return binaryOp(pos, "+", base, idx, usual(base.Type(), idx.Type()))
}
