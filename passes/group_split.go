package passes

import (
	"gpuc/ir"
)

var groupSplitPass = &Pass{
	Name: "group-split",
	Doc:  "run splits, split whiles and forks on the whole group, predicated, with subgroup sizes counted on the device",
	From: ir.SPMDLevel,
	To:   ir.SPMDLevel,
	Run:  groupSplit,
}

// Note [Group split]
//
// Subgroups run independently, so running them on the whole group is a
// valid schedule as long as each processor does only its own subgroup's
// work and every processor passes the same barriers. group-split makes
// that explicit:
//
//   - Membership is a private bool computed on the device: a split's
//     condition, a fork's group index compared with the subgroup being
//     run, a split while's "still in the loop".
//   - Statements with effects (stores, atomics, assignments to varying
//     locals, output) run under `if member`; statements that only compute
//     uniform locals, and control flow with uniform conditions, run on
//     every processor, so all of them take the same path through the
//     barriers, which now synchronise the whole group: a stronger
//     synchronisation than the subgroup's, hence still correct.
//   - A split runs its then-part, then its else-part; a fork runs its
//     subgroups one after another, with group() the loop counter, so
//     control flow that depends on group() stays uniform; a split while
//     keeps going while any processor is still in it.
//   - groupsize() inside is counted with an atomic add on a monotonic
//     counter: read a base, barrier, members add one, barrier, read again.
//     The same trick, with an atomic max of the iteration number, tells a
//     split while's processors whether anyone is still in it, with no
//     counter to clear and no race.
//
// Barriers go in generously: at entry (the condition must see earlier
// writes), between evaluating it and running the bodies, between parts and
// at exit. elide-barriers, run again afterwards, removes those that no
// dependence needs.

func groupSplit(m *ir.Module, cfg *Config) error {
	names := newNamer(m)
	var errs []error
	forEachRegion(m, func(r *ir.Region) {
		if !hasGroupConstructs(r.Body) {
			return
		}
		uniquifyLocals(r.Body, names)
		r.Body = uniformSplits(m, r.Body, cfg.report())
		g := &grouper{m: m, names: names, u: newUniformity(m, r.Body, false), rep: cfg.report(), world: r.World}
		r.Body = g.emit(r.Body, "", nil)
		if g.err != nil {
			errs = append(errs, g.err)
		}
	})
	return joinErrors(errs)
}

// uniformSplits turns the splits and split whiles whose condition is the
// same on every processor into ifs and whiles: the whole group takes the
// same side, so no subgroup forms. Frontends split on every private
// condition, and a private variable often holds a uniform value (Fork's
// `pr int d` loop counter). The analysis is optimistic: it reads every
// split as an if and every split while as a while, and a condition that
// stays uniform under that reading is uniform. The split's own
// synchronisation (before its condition, between the condition and the
// body, at its end and at each iteration's end) becomes grid barriers,
// which elide-barriers, running after, removes where nothing needs them.
func uniformSplits(m *ir.Module, body []ir.Stmt, rep *Report) []ir.Stmt {
	u := &uniformity{m: m, varying: map[string]bool{}, splitsAsIfs: true}
	u.run(body)
	return ir.RewriteStmts(body, func(s ir.Stmt) []ir.Stmt {
		sync := func(body []ir.Stmt) []ir.Stmt { return append([]ir.Stmt{gridBarrier(s.At())}, body...) }
		switch s := s.(type) {
		case *ir.Split:
			if !u.varies(s.Cond) {
				rep.note(s.Pos, "split on a condition every processor agrees on: an if")
				i := &ir.If{Pos: s.Pos, Cond: s.Cond, Then: sync(s.Then)}
				if s.Else != nil {
					i.Else = sync(s.Else)
				}
				return []ir.Stmt{gridBarrier(s.Pos), i, gridBarrier(s.Pos)}
			}
		case *ir.SplitWhile:
			if !u.varies(s.Cond) {
				rep.note(s.Pos, "split while on a condition every processor agrees on: a while")
				body := append(sync(s.Body), gridBarrier(s.Pos))
				return []ir.Stmt{gridBarrier(s.Pos), &ir.While{Pos: s.Pos, Cond: s.Cond, Body: body}, gridBarrier(s.Pos)}
			}
		}
		return []ir.Stmt{s}
	})
}

func hasGroupConstructs(body []ir.Stmt) bool {
	return ir.AnyStmt(body, ir.IsGroupConstruct)
}

type grouper struct {
	world bool // a world region's: its counters are one element for the world
	// wholeGroup says that the member set is never empty where the body
	// runs (a cooperative kernel's active threads), so a uniform check
	// may raise on every thread (Note [Uniform checks on every thread]).
	wholeGroup bool
	// stride, if not nil, makes each guarded piece a loop over the
	// thread's processors (Note [Strided cooperative kernels]).
	stride *strider
	m      *ir.Module
	names  *namer
	u      *uniformity
	rep    *Report
	err    error
}

func (g *grouper) fail(err error) {
	if g.err == nil {
		g.err = err
	}
}

// emit lowers body run by the processors for which the private bool
// member holds ("" for all of them); gs, if not nil, replaces groupsize().
func (g *grouper) emit(body []ir.Stmt, member string, gs ir.Expr) []ir.Stmt {
	var out, run []ir.Stmt
	flush := func() {
		if len(run) > 0 {
			out = append(out, g.guard(run, member)...)
			run = nil
		}
	}
	for _, s := range body {
		if gs != nil {
			replaceGroupSize(s, gs)
		}
		switch s := s.(type) {
		case *ir.Split:
			flush()
			out = append(out, g.split(s, member)...)
		case *ir.SplitWhile:
			flush()
			out = append(out, g.splitWhile(s, member)...)
		case *ir.Fork:
			flush()
			out = append(out, g.fork(s, member)...)
		case *ir.Barrier:
			flush()
			out = append(out, s)
		default:
			switch {
			case member == "" && !hasGroupConstructs([]ir.Stmt{s}):
				flush()
				out = append(out, s)
			case g.uniformSafe(s), g.wholeGroup && g.uniformCheck(s):
				flush()
				out = append(out, s)
			case g.structural(s):
				flush()
				out = append(out, g.restructure(s, member, gs))
			case hasGroupConstructs([]ir.Stmt{s}):
				g.fail(errorf(s.At(), "group-split: a split, split while or fork under processor-dependent control flow"))
			default:
				run = append(run, s)
			}
		}
	}
	flush()
	if out == nil && body != nil {
		out = []ir.Stmt{}
	}
	return out
}

// uniformSafe reports whether every processor may run s: it only sets a
// uniform local to a value without effects.
func (g *grouper) uniformSafe(s ir.Stmt) bool {
	name, value, ok := setsLocal(s)
	if !ok {
		return false
	}
	return !g.u.varying[name] && (value == nil || g.effectFree(value))
}

func (g *grouper) effectFree(e ir.Expr) bool {
	ok := true
	ir.WalkExpr(e, func(x ir.Expr) bool {
		if c, isCall := x.(*ir.Call); isCall {
			ok = ok && pureCall(g.m, c.Func, map[string]bool{})
		}
		return ok
	})
	return ok
}

// structural reports whether s is control flow with a uniform condition
// that must keep its shape: it holds a barrier, a group construct or a
// uniform assignment that later control flow may read.
func (g *grouper) structural(s ir.Stmt) bool {
	var cond ir.Expr
	switch s := s.(type) {
	case *ir.If:
		cond = s.Cond
	case *ir.While:
		cond = s.Cond
	case *ir.For:
		cond = s.Cond
		if (s.Init != nil && !g.uniformSafe(s.Init)) || (s.Post != nil && !g.uniformSafe(s.Post)) {
			return false
		}
	case *ir.Switch:
		cond = s.X
	default:
		return false
	}
	if g.u.varies(cond) {
		return false
	}
	keep := false
	for _, sub := range ir.SubBodies(s) {
		ir.WalkStmts(sub, func(x ir.Stmt) bool {
			switch x.(type) {
			case *ir.Barrier, *ir.Split, *ir.SplitWhile, *ir.Fork:
				keep = true
			}
			keep = keep || g.uniformSafe(x)
			return !keep
		})
	}
	return keep
}

// restructure keeps the shape of uniform control flow and lowers its bodies.
func (g *grouper) restructure(s ir.Stmt, member string, gs ir.Expr) ir.Stmt {
	switch s := s.(type) {
	case *ir.If:
		s.Then, s.Else = g.emit(s.Then, member, gs), g.emit(s.Else, member, gs)
	case *ir.While:
		s.Body = g.emit(s.Body, member, gs)
	case *ir.For:
		s.Body = g.emit(s.Body, member, gs)
	case *ir.Switch:
		for _, c := range s.Cases {
			c.Body = g.emit(c.Body, member, gs)
		}
		s.Default = g.emit(s.Default, member, gs)
	}
	return s
}

// guard runs statements under `if member`. Their top-level declarations
// move out, with zero values, so that later guarded statements see them.
func (g *grouper) guard(run []ir.Stmt, member string) []ir.Stmt {
	if member == "" {
		return run
	}
	for _, s := range run {
		if body := []ir.Stmt{s}; ir.JumpsOut(body, true) || ir.JumpsOut(body, false) {
			g.fail(errorf(s.At(), "group-split: break or continue in code that only some processors run; leave the loop through its condition"))
		}
	}
	out, inner := hoistDecls(run)
	if g.stride != nil {
		if len(inner) > 0 {
			out = append(out, g.stride.loop(out, inner, inner[0].At()))
		}
		return out
	}
	if len(inner) > 0 {
		b := ir.NewBuilder(g.m, inner[0].At(), &out)
		b.If(noPos(b).Local(member, ir.Bool), func() { b.Emit(inner...) })
	}
	return out
}

func gridBarrier(pos ir.Pos) ir.Stmt { return &ir.Barrier{Pos: pos, Grid: true} }

// noPos is the builder of the pass's own expressions (flags, counters),
// which carry no source position (Note [IR builder]).
func noPos(b *ir.Builder) *ir.Builder { return b.At(ir.Pos{}) }

// memberAnd returns `member && x`, or x for the whole group; e builds
// without positions.
func memberAnd(e *ir.Builder, member string, x ir.Expr) ir.Expr {
	if member == "" {
		return x
	}
	return e.And(e.Local(member, ir.Bool), x)
}

// split runs the then-part, then the else-part, each predicated.
func (g *grouper) split(s *ir.Split, member string) []ir.Stmt {
	pos := s.Pos
	if len(s.Else) > 0 {
		g.rep.note(pos, "split: the then-part, then the else-part, run on the whole group under membership flags")
	} else {
		g.rep.note(pos, "split: runs on the whole group under a membership flag")
	}
	in, out := g.names.fresh("split_then"), g.names.fresh("split_else")
	var stmts []ir.Stmt
	b := ir.NewBuilder(g.m, pos, &stmts)
	e := noPos(b)
	b.Barrier(true)
	b.Decl(in, ir.Bool, memberAnd(e, member, s.Cond))
	b.Decl(out, ir.Bool, memberAnd(e, member, e.Not(e.V(in))))
	b.Barrier(true)
	b.Emit(g.part(s.Then, in, pos)...)
	if len(s.Else) > 0 {
		b.Barrier(true)
		b.Emit(g.part(s.Else, out, pos)...)
	}
	b.Barrier(true)
	return stmts
}

// part lowers the body of one subgroup, counting its size first if the
// body asks for groupsize().
func (g *grouper) part(body []ir.Stmt, member string, pos ir.Pos) []ir.Stmt {
	var pre []ir.Stmt
	var gs ir.Expr
	if usesGroupSize(body) {
		g.rep.note(pos, "groupsize() counted on the device with an atomic add")
		pre, gs = g.count(member, pos)
	}
	return append(pre, g.emit(body, member, gs)...)
}

// usesGroupSize reports whether body reads groupsize() outside nested
// group constructs, which count their own.
func usesGroupSize(body []ir.Stmt) bool {
	return ir.AnyStmtOutside(body, ir.IsGroupConstruct, func(s ir.Stmt) bool {
		return ir.ExprsHold(s, func(x ir.Expr) bool {
			b, ok := x.(*ir.Builtin)
			return ok && b.Op == ir.GroupSize
		})
	})
}

// replaceGroupSize replaces groupsize() in s, but not inside the group
// constructs nested in s, which have sizes of their own.
func replaceGroupSize(s ir.Stmt, gs ir.Expr) {
	ir.RewriteStmtExprs(s, func(e ir.Expr) ir.Expr {
		if b, ok := e.(*ir.Builtin); ok && b.Op == ir.GroupSize {
			return ir.CloneExpr(gs)
		}
		return e
	})
	if ir.IsGroupConstruct(s) {
		return
	}
	for _, sub := range ir.SubBodies(s) {
		for _, x := range sub {
			replaceGroupSize(x, gs)
		}
	}
}

// count counts the processors for which member holds, on a monotonic
// counter, and returns the statements and the i32 local with the count.
func (g *grouper) count(member string, pos ir.Pos) ([]ir.Stmt, ir.Expr) {
	buf := g.buffer("group_count", ir.I64, pos)
	base, n := g.names.fresh("count_base"), g.names.fresh("groupsize")
	var stmts []ir.Stmt
	b := ir.NewBuilder(g.m, pos, &stmts)
	e := noPos(b)
	b.Decl(base, ir.I64, e.Ld(buf, e.I32(0)))
	b.Barrier(true)
	b.If(e.Local(member, ir.Bool), func() { b.Atomic("", ir.AtomicAdd, buf, e.I32(0), e.I64(1)) })
	b.Barrier(true)
	b.Decl(n, ir.I32, e.Conv(ir.I32, e.Sub(e.Ld(buf, e.I32(0)), e.V(base))))
	return stmts, e.V(n)
}

// buffer makes a one-element scratch buffer for the pass's bookkeeping.
func (g *grouper) buffer(base string, t ir.Type, pos ir.Pos) string {
	name := g.names.fresh(base)
	b := ir.NewBuilder(g.m, pos, nil)
	b.Scratch(name, t, noPos(b).I32(1)).Space = worldSpace(g.world)
	return name
}

// splitWhile runs the loop while any processor is still in it.
func (g *grouper) splitWhile(s *ir.SplitWhile, member string) []ir.Stmt {
	pos := s.Pos
	if ir.JumpsOut(s.Body, false) || ir.JumpsOut(s.Body, true) {
		g.fail(errorf(pos, "group-split: break or continue in a split while; leave the loop through its condition"))
	}
	g.rep.note(pos, "split while: runs on the whole group while any processor is in the loop, told by an atomic max on an epoch counter")
	flag := g.buffer("loop_epoch", ir.I32, pos)
	it, in := g.names.fresh("loop_epoch"), g.names.fresh("in_loop")
	var stmts []ir.Stmt
	b := ir.NewBuilder(g.m, pos, &stmts)
	e := noPos(b)
	next := func() ir.Expr { return e.Add(e.Local(it, ir.I32), e.I32(1)) }
	announce := func() {
		b.If(e.Local(in, ir.Bool), func() { b.Atomic("", ir.AtomicMax, flag, e.I32(0), next()) })
	}
	b.Barrier(true)
	b.Decl(it, ir.I32, e.Ld(flag, e.I32(0)))
	b.Decl(in, ir.Bool, memberAnd(e, member, ir.CloneExpr(s.Cond)))
	b.Barrier(true)
	announce()
	b.Barrier(true)
	b.While(e.Gt(e.Ld(flag, e.I32(0)), e.V(it)), func() {
		b.Set(it, next())
		b.Emit(g.part(s.Body, in, pos)...)
		b.Barrier(true)
		b.If(e.V(in), func() { b.Set(in, s.Cond) })
		announce()
		b.Barrier(true)
	})
	return stmts
}

// fork runs the subgroups one after another, group() the loop counter and
// pid() each processor's new member index.
func (g *grouper) fork(s *ir.Fork, member string) []ir.Stmt {
	pos := s.Pos
	if g.u.varies(s.Count) {
		g.fail(errorf(pos, "group-split: the count of this fork differs between processors"))
	}
	g.rep.note(pos, "fork: the subgroups run one after another on the whole group, group() the loop counter")
	k, grp, mem, i := g.names.fresh("fork_count"), g.names.fresh("fork_group"), g.names.fresh("fork_member"), g.names.fresh("fork_index")
	in := g.names.fresh("in_fork")
	var stmts []ir.Stmt
	b := ir.NewBuilder(g.m, pos, &stmts)
	e := noPos(b)
	renameBuiltins(s.Body, ir.GroupID, e.Local(i, ir.I32))
	renameBuiltins(s.Body, ir.ProcID, e.Local(mem, ir.I32))
	b.Barrier(true)
	b.Decl(k, ir.I32, s.Count)
	b.Decl(grp, ir.I32, s.Group)
	b.Decl(mem, ir.I32, s.Member)
	outOfRange := e.Or(e.Lt(e.Local(grp, ir.I32), e.I32(0)), e.Ge(e.V(grp), e.Local(k, ir.I32)))
	b.If(memberAnd(e, member, outOfRange), func() { b.Raise("fork: a processor's group index is out of range") })
	b.Barrier(true)
	b.Loop(i, e.I32(0), e.V(k), e.I32(1), func() {
		b.Decl(in, ir.Bool, memberAnd(e, member, e.Eq(e.V(grp), e.V(i))))
		b.Emit(g.part(s.Body, in, pos)...)
		b.Barrier(true)
	})
	return stmts
}

// renameBuiltins replaces a builtin in body, but not inside nested forks,
// which renumber for themselves; their count, group and member are
// evaluated outside them, so those are renamed.
func renameBuiltins(body []ir.Stmt, op ir.BuiltinOp, to ir.Expr) {
	f := func(e ir.Expr) ir.Expr {
		if b, ok := e.(*ir.Builtin); ok && b.Op == op {
			return ir.CloneExpr(to)
		}
		return e
	}
	for _, s := range body {
		ir.RewriteStmtExprs(s, f)
		if _, ok := s.(*ir.Fork); ok {
			continue
		}
		for _, sub := range ir.SubBodies(s) {
			renameBuiltins(sub, op, to)
		}
	}
}
