package passes

import (
	"gpuc/ir"
)

var elideBarriersPass = &Pass{
	Name: "elide-barriers",
	Doc:  "remove grid barriers that no cross-processor dependence needs; turn sync-free splits into ifs",
	From: ir.SPMDLevel,
	To:   ir.SPMDLevel,
	Run:  reporting(elideBarriers),
}

// elideBarriers runs on every region. Frontends insert grid barriers
// conservatively, after every step that touches shared memory (Fork's PRAM
// semantics); this pass keeps only those that separate two accesses that
// may conflict across processors (Note [Cross-processor conflicts]).
//
// A split or split while is a group construct only for what happens inside
// it: its entry, exit and iteration ends synchronise the group. One whose
// body holds no grid barrier, no groupsize() and no group construct needs
// those syncs only where a dependence crosses them, so it becomes an if
// (or a while), with explicit barriers where its syncs were needed (Note
// [Converting splits]).
func elideBarriers(m *ir.Module, rep *Report) {
	forEachRegion(m, func(r *ir.Region) { elideRegion(m, r, rep) })
}

// Note [Converting splits]
//
// Whether a barrier is needed depends on which other sync points stay:
// two barriers may cover the same dependence, and either can go, but not
// both. So the pass removes one barrier at a time and analyses the region
// afresh after each removal; every decision sees the ones made before it.
//
// The syncs of a split must follow the same rule. The explicit barriers
// around a split are judged while its entry and exit syncs stand, and go
// where those syncs separate a dependence; turning the split into an if
// must not then drop both syncs on one analysis, each judged as if the
// other stayed. In
//
//	a[pid()] = pid();
//	barrier grid;          // goes: the split's entry orders a before a
//	split pid() >= LO { z = 1; }
//	b[pid()] = a[N - 1 - pid()] + z;
//
// nothing after the entry up to the exit conflicts with the write, and
// nothing before the exit back to the entry with the read, so both syncs
// went, and the write and the read of a were left unseparated.
//
// So a conversion puts grid barriers where the construct synchronised the
// group on the way in and out, one before the if or while and one after
// it, and leaves them to the one-at-a-time removal like any other
// barrier: here the first goes and the second stays. A split's entry
// evaluates the condition between two syncs (Note [Group split]); the
// barrier before the if is the first of them. The second, between the
// condition and the body, is gone, and so are a split while's syncs at the
// end of each iteration and before each evaluation of its condition.
// Those are the only syncs a conversion removes outright, and it does so
// only where they separate nothing (convertible).
func elideRegion(m *ir.Module, r *ir.Region, rep *Report) {
	r.Body = fenceLoops(r.Body)
	placed := map[ir.Stmt]bool{} // barriers that stand for converted splits' syncs
	for {
		e := newElider(m, r)
		if b := e.unneededBarrier(); b != nil {
			if !placed[b] {
				rep.note(b.Pos, "barrier removed: no cross-processor dependence crosses it")
			}
			r.Body = removeStmt(r.Body, b)
			continue
		}
		if !e.convertOne(r, placed, rep) {
			return
		}
	}
}

// fenceLoops puts a grid barrier before and after every loop that holds
// one. A barrier inside the loop may be needed only for the way in or the
// way out; with the fences there, elision (which tries the barriers in
// loops first) removes it, and it costs once instead of every iteration.
// Fences that nothing needs go too.
func fenceLoops(body []ir.Stmt) []ir.Stmt {
	return ir.RewriteStmts(body, func(s ir.Stmt) []ir.Stmt {
		switch s.(type) {
		case *ir.While, *ir.For:
			if holdsGridBarrier(s) {
				return []ir.Stmt{gridBarrier(s.At()), s, gridBarrier(s.At())}
			}
		}
		return []ir.Stmt{s}
	})
}

func holdsGridBarrier(s ir.Stmt) bool {
	return ir.HasBarrier(ir.SubBodies(s)[0], true)
}

// elider holds one analysis of a region body.
type elider struct {
	g       *cfg
	info    *accessInfo
	inFork  map[ir.Stmt]bool // statements lexically inside a fork body
	virtual map[ir.Stmt]bool // group constructs that could become ifs
}

func newElider(m *ir.Module, r *ir.Region) *elider {
	e := &elider{
		g:       buildCFG(r.Body),
		info:    newAccessInfo(m, r.Body),
		inFork:  map[ir.Stmt]bool{},
		virtual: map[ir.Stmt]bool{},
	}
	markForks(r.Body, false, e.inFork)
	ir.WalkStmts(r.Body, func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Split:
			e.virtual[s] = syncFree(s.Then) && syncFree(s.Else)
		case *ir.SplitWhile:
			e.virtual[s] = syncFree(s.Body)
		}
		return true
	})
	return e
}

func markForks(body []ir.Stmt, in bool, out map[ir.Stmt]bool) {
	for _, s := range body {
		out[s] = in
		_, isFork := s.(*ir.Fork)
		for _, sub := range ir.SubBodies(s) {
			markForks(sub, in || isFork, out)
		}
	}
}

// syncFree reports whether body needs no synchronisation of its own: no
// grid barrier, no group construct, no groupsize().
func syncFree(body []ir.Stmt) bool {
	free := true
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		switch s.(type) {
		case *ir.Barrier, *ir.Split, *ir.SplitWhile, *ir.Fork:
			free = false
		}
		return free
	})
	ir.WalkAllExprs(body, func(x ir.Expr) bool {
		if b, ok := x.(*ir.Builtin); ok && b.Op == ir.GroupSize {
			free = false
		}
		return free
	})
	return free
}

// stops reports whether a search for accesses stops at n while testing
// whether the sync point at self is needed.
func (e *elider) stops(self *node) func(*node) bool {
	return func(n *node) bool { return n != self }
}

// needed reports whether the sync point n separates two accesses that may
// conflict across processors.
func (e *elider) needed(n *node) bool {
	stop := e.stops(n)
	before := e.accesses(reach(n, false, stop), stop)
	after := e.accesses(reach(n, true, stop), stop)
	return e.anyConflict(before, after, e.inFork[n.stmt])
}

// anyConflict reports whether an access of before and one of after may
// conflict across processors.
func (e *elider) anyConflict(before, after []access, inFork bool) bool {
	for _, x := range before {
		for _, y := range after {
			if e.info.conflict(x, y, inFork) {
				return true
			}
		}
	}
	return false
}

func (e *elider) accesses(nodes []*node, stop func(*node) bool) []access {
	var out []access
	for _, n := range nodes {
		if n.kind == atomNode || !stop(n) {
			out = append(out, e.info.of(n)...)
		}
	}
	return out
}

// unneededBarrier returns a grid barrier that no dependence needs: the
// first of the most deeply nested ones, which run most often. Removing one
// barrier can make another needed (they may cover the same dependence),
// so those inside loops get the first chance to go.
func (e *elider) unneededBarrier() *ir.Barrier {
	var best *node
	for _, n := range e.g.nodes {
		if n.kind == barrierNode && (best == nil || n.depth > best.depth) && !e.needed(n) {
			best = n
		}
	}
	if best == nil {
		return nil
	}
	return best.stmt.(*ir.Barrier)
}

// convertOne turns the first sync-free split or split while that
// convertible allows into an if or a while between two grid barriers,
// which it records in placed, and reports whether it found one to turn.
func (e *elider) convertOne(r *ir.Region, placed map[ir.Stmt]bool, rep *Report) bool {
	iters := map[ir.Stmt]*node{}
	for _, n := range e.g.nodes {
		if n.kind == syncNode && n.role == syncIter {
			iters[n.stmt] = n
		}
	}
	var target ir.Stmt
	for _, n := range e.g.nodes { // in source order of the constructs
		if n.kind == syncNode && n.role == syncEntry && e.virtual[n.stmt] && e.convertible(n, iters[n.stmt]) {
			target = n.stmt
			break
		}
	}
	if target == nil {
		return false
	}
	rep.note(target.At(), "%s needs no synchronisation of its own: runs as %s", stmtKind(target), map[bool]string{true: "a while", false: "an if"}[isSplitWhile(target)])
	r.Body = ir.RewriteStmts(r.Body, func(s ir.Stmt) []ir.Stmt {
		if s != target {
			return []ir.Stmt{s}
		}
		var conv ir.Stmt
		switch s := s.(type) {
		case *ir.Split:
			conv = &ir.If{Pos: s.Pos, Cond: s.Cond, Then: s.Then, Else: s.Else}
		case *ir.SplitWhile:
			conv = &ir.While{Pos: s.Pos, Cond: s.Cond, Body: s.Body}
		}
		before, after := gridBarrier(s.At()), gridBarrier(s.At())
		placed[before], placed[after] = true, true
		return []ir.Stmt{before, conv, after}
	})
	return true
}

// convertible reports whether the sync-free split or split while with the
// entry sync entry (and, for a split while, the iteration end iter) may run
// as an if or a while between two grid barriers (Note [Converting
// splits]). That removes the sync between evaluating the condition and the
// body, and a split while's syncs from the end of one iteration to the
// condition and body of the next; none may separate a conflicting pair.
// The body holds no sync, so a search from the entry or the iteration end
// stops only at the construct's own syncs.
func (e *elider) convertible(entry, iter *node) bool {
	all := func(*node) bool { return true }
	cond := e.info.of(entry)
	before, after := cond, e.accesses(reach(entry, true, all), all)
	if iter != nil {
		before = append(e.accesses(reach(iter, false, all), all), cond...)
		after = append(after, cond...)
	}
	return !e.anyConflict(before, after, e.inFork[entry.stmt])
}

// removeStmt removes the statement s from body, wherever it is nested.
func removeStmt(body []ir.Stmt, target ir.Stmt) []ir.Stmt {
	return ir.RewriteStmts(body, func(s ir.Stmt) []ir.Stmt {
		if s == target {
			return nil
		}
		return []ir.Stmt{s}
	})
}

func isSplitWhile(s ir.Stmt) bool { _, ok := s.(*ir.SplitWhile); return ok }

// stmtKind names a statement for reports.
func stmtKind(s ir.Stmt) string {
	switch s.(type) {
	case *ir.Split:
		return "split"
	case *ir.SplitWhile:
		return "split while"
	case *ir.Fork:
		return "fork"
	case *ir.While:
		return "while loop"
	case *ir.For:
		return "for loop"
	case *ir.If:
		return "if"
	case *ir.Switch:
		return "switch"
	case *ir.Region:
		return "region"
	}
	return "statement"
}
