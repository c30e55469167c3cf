package chr

import (
	"fmt"
	"sort"

	"gpuc/ir"
)

// matcher emits the search of one plan in one owner iteration.
type matcher struct {
	l     *lowerer
	p     *rulePlan
	vn    varNames
	step  ir.Expr
	slots map[*head]ir.Expr // slots of the heads matched so far
	// stop, when set, ends every loop once true: a removal rule's search
	// without chaining stops at its first firing.
	stop string
	prop bool
	// bounds: the locals holding the extrema that the plan's bounds
	// read (Note [Guard bounds]).
	bounds map[*extremum]string
}

// newMatcher declares the plan's variables in b, zeroed.
func (l *lowerer) newMatcher(b *block, p *rulePlan, step ir.Expr) *matcher {
	m := &matcher{l: l, p: p, vn: varNames{}, step: step, slots: map[*head]ir.Expr{}, prop: p.delta >= 0}
	for _, name := range sortedVars(p.r) {
		v := p.r.vars[name]
		t := v.cell.find().t
		m.vn[v] = b.decl(l.locals.fresh("v_"+identifier(name, "v")), t, zero(b.Builder, t)).Name
	}
	return m
}

func zero(b *ir.Builder, t ir.Type) ir.Expr {
	if t == ir.F64 {
		return b.F64(0)
	}
	return b.I64(0)
}

// bindHead assigns the head's fresh variables from slot, and returns the
// tests its arguments need: constants, and variables bound before or
// earlier in the head. known holds the variables bound so far. Each
// argument's loads and tests carry its position in the head.
func (m *matcher) bindHead(b *block, h *head, slot ir.Expr, known map[*ruleVar]bool, test bool) ir.Expr {
	s := m.l.stores[h.ct]
	var cond ir.Expr
	for i, arg := range h.args {
		ab := b.At(arg.at()) // the argument's expressions point at it
		switch a := arg.(type) {
		case *integer:
			cond = ab.And(cond, ab.Bin(ir.Eq, s.arg(ab, i, slot), ab.I64(a.val)))
		case *float:
			cond = ab.And(cond, ab.Bin(ir.Eq, s.arg(ab, i, slot), ab.F64(a.val)))
		case *variable:
			if a.name == "_" {
				continue
			}
			v := m.p.r.vars[a.name]
			if known[v] {
				cond = ab.And(cond, ab.Bin(ir.Eq, s.arg(ab, i, slot), ab.Local(m.vn[v], s.ct.args[i])))
				continue
			}
			known[v] = true
			b.Set(m.vn[v], s.arg(ab, i, slot))
		}
	}
	if !test {
		return nil
	}
	return cond
}

// alive is the liveness test of a partner slot: in phase C a live slot of
// the snapshot, in phase E one that is also old enough for the plan's
// semi-naive order.
func (m *matcher) alive(b *ir.Builder, h *head, slot ir.Expr) ir.Expr {
	s := m.l.stores[h.ct]
	live := b.Bin(ir.Eq, b.Ld(s.state, slot), b.I32(1))
	born := b.Ld(s.born, slot)
	if !m.prop {
		// Not refilled by a firing of an earlier claim round.
		return b.And(live, b.Bin(ir.Le, born, m.step))
	}
	switch {
	case h.index == m.p.delta:
		return b.And(live, b.Bin(ir.Eq, born, m.step))
	case h.index < m.p.delta:
		return b.And(live, b.Bin(ir.Lt, born, m.step))
	}
	return b.And(live, b.Bin(ir.Le, born, m.step))
}

// distinct tests that slot differs from the slots of the heads of the
// same type matched so far.
func (m *matcher) distinct(b *ir.Builder, h *head, slot ir.Expr) ir.Expr {
	var others []*head
	for other := range m.slots {
		if other.ct == h.ct {
			others = append(others, other)
		}
	}
	// In head order, so that the same rule compiles to the same code.
	sort.Slice(others, func(i, j int) bool { return others[i].index < others[j].index })
	var c ir.Expr
	for _, other := range others {
		c = b.And(c, b.Bin(ir.Ne, slot, m.slots[other]))
	}
	return c
}

// loopCond adds the stop flag to a loop condition.
func (m *matcher) loopCond(b *ir.Builder, c ir.Expr) ir.Expr {
	if m.stop == "" {
		return c
	}
	return b.And(c, b.Not(b.Local(m.stop, ir.Bool)))
}

// search emits the loops that match steps[k:] and then act.
func (m *matcher) search(b *block, k int, known map[*ruleVar]bool, act func(b *block)) {
	if k == len(m.p.steps) {
		act(b)
		return
	}
	if bt := m.boundTest(b.Builder, k); k == 0 && bt != nil {
		// Later steps' bounds join the guard of the step before
		// (candidate).
		inner := b.sub()
		m.searchStep(inner, k, known, act)
		b.ifThen(bt, inner.stmts())
		return
	}
	m.searchStep(b, k, known, act)
}

// searchStep emits the loop of step k, by its kind of lookup.
func (m *matcher) searchStep(b *block, k int, known map[*ruleVar]bool, act func(b *block)) {
	st := m.p.steps[k]
	switch {
	case st.ix != nil:
		m.keyed(b, k, known, act)
	case st.ext != nil:
		m.extremum(b, k, known, act)
	default:
		m.scan(b, k, known, act)
	}
}

// candidate emits the tests and bindings of one candidate slot of step k
// and the search of the rest. checkAlive says whether liveness needs a
// test (index chains hold only live slots in phase C).
func (m *matcher) candidate(b *block, k int, slot ir.Expr, known map[*ruleVar]bool, checkAlive bool, act func(b *block)) {
	st := m.p.steps[k]
	var pre ir.Expr
	if checkAlive || m.prop {
		pre = m.alive(b.Builder, st.h, slot)
	}
	pre = b.And(pre, m.distinct(b.Builder, st.h, slot))
	inner := b.sub()
	kn := copyKnown(known)
	argTest := m.bindHead(inner, st.h, slot, kn, true)
	rest := inner.sub()
	m.slots[st.h] = slot
	m.search(rest, k+1, kn, act)
	delete(m.slots, st.h)
	guard := b.And(argTest, m.vn.tests(b.Builder, st.guards))
	if faultFree(st.guards) {
		// Note [Guards before keys]
		guard = b.And(m.vn.tests(b.Builder, st.guards), argTest)
	}
	// The next step's bounds read only values in registers (Note [Guard
	// bounds]).
	guard = b.And(m.boundTest(b.Builder, k+1), guard)
	if guard != nil {
		inner.ifThen(guard, rest.stmts())
	} else {
		inner.Emit(rest.stmts()...)
	}
	if pre != nil {
		b.ifThen(pre, inner.stmts())
	} else {
		b.Emit(inner.stmts()...)
	}
}

// Note [Guards before keys]
//
// A partner's guard conjuncts are tested before its argument tests (the
// keys of its index, which a hash bucket shares with other keys) when
// they cannot fault: their arithmetic has no integer division, so on a
// candidate that does not match they only compute a value that is
// thrown away. Most candidates fail the guard (Floyd–Warshall's
// D3 > D1 + D2 fails for all but a few K of each owner), and a failed
// guard then reads one argument of the candidate, not the two key
// arguments as well: half the bytes of a probe.

// faultFree reports whether the guard conjuncts gs can be evaluated on
// any values without an error (Note [Guards before keys]).
func faultFree(gs []*comparison) bool {
	var ok func(a arith) bool
	ok = func(a arith) bool {
		op, isOp := a.(*aOp)
		if !isOp {
			return true
		}
		if intOnly[op.op] {
			return false
		}
		for _, x := range op.args {
			if !ok(x) {
				return false
			}
		}
		return true
	}
	for _, g := range gs {
		if !ok(g.x) || !ok(g.y) {
			return false
		}
	}
	return len(gs) > 0
}

func copyKnown(k map[*ruleVar]bool) map[*ruleVar]bool {
	out := make(map[*ruleVar]bool, len(k))
	for v := range k {
		out[v] = true
	}
	return out
}

// Note [Counted chain walks]
//
// A probe walks a hash chain by its next pointers until -1 (Note
// [Indices]). Each step's build inserts every slot below the store's size
// n once, so no chain is longer than n; but the walk's end depends on
// pointers that other threads wrote, and `gpuc check --termination` could
// not prove it (fib's, fw's, primes', shortest_paths' and tc's rule
// kernels stayed UNKNOWN). So the walk counts its steps down from n and
// raises an internal error past it, which no correct build reaches: the
// count is a ranking function by construction, at one decrement a step.

// keyed walks the hash chain of the step's key values.
func (m *matcher) keyed(b *block, k int, known map[*ruleVar]bool, act func(b *block)) {
	st := m.p.steps[k]
	s := m.l.stores[st.h.ct]
	var keys []ir.Expr
	for _, e := range st.keys {
		keys = append(keys, b.Cast(s.ct.args[st.keyPos[len(keys)]], m.vn.expr(b.Builder, e)))
	}
	head := b.Ld(st.ix.head, s.bucket(b.Builder, hash(b.Builder, keys)))
	var cur, slot *ir.Var
	body := b.sub()
	if st.ix.whole {
		// A head of -2 - slot starts a chain of two or more; a slot, a
		// chain of one, whose next pointer the walk does not read (Note
		// [Indices]).
		first := b.decl(m.l.locals.fresh("c"), ir.I32, head)
		multi := b.decl(m.l.locals.fresh("multi"), ir.Bool, b.Bin(ir.Lt, first, b.I32(-1)))
		cur = b.decl(m.l.locals.fresh("c"), ir.I32, b.Sel(multi, b.Bin(ir.Sub, b.I32(-2), first), first))
		slot = body.decl(m.l.locals.fresh("s"), ir.I32, cur)
		body.Emit(&ir.If{Pos: b.Pos, Cond: multi,
			Then: []ir.Stmt{&ir.Assign{Pos: b.Pos, Name: cur.Name, Value: b.Ld(st.ix.next, slot)}},
			Else: []ir.Stmt{&ir.Assign{Pos: b.Pos, Name: cur.Name, Value: b.I32(-1)}}})
	} else {
		cur = b.decl(m.l.locals.fresh("c"), ir.I32, head)
		slot = body.decl(m.l.locals.fresh("s"), ir.I32, cur)
		body.Set(cur.Name, b.Ld(st.ix.next, slot))
	}
	// A chain holds each slot below the store's size at most once: the
	// walk counts its steps against that (Note [Counted chain walks]).
	left := b.decl(m.l.locals.fresh("left"), ir.I32, s.nRef(b.Builder))
	body.ifThen(b.Bin(ir.Le, left, b.I32(0)), []ir.Stmt{&ir.Raise{Pos: b.Pos,
		Msg: fmt.Sprintf("internal error: a chain of the index %s is longer than the %s/%d store", st.ix.head, s.ct.name, s.ct.arity)}})
	body.Set(left.Name, b.Bin(ir.Sub, left, b.I32(1)))
	// The chains hold the live slots of phase B; only a later claim round
	// may find one of them removed or refilled.
	m.candidate(body, k, slot, known, m.l.retry, act)
	b.while(m.loopCond(b.Builder, b.Bin(ir.Ge, cur, b.I32(0))), body.stmts())
}

// scan tries every slot of the store. A removal rule's owner starts
// just after its own slot and wraps around, so that owners contending
// for interchangeable partners propose different ones (Note [Parallel
// firing]).
func (m *matcher) scan(b *block, k int, known map[*ruleVar]bool, act func(b *block)) {
	st := m.p.steps[k]
	s := m.l.stores[st.h.ct]
	fresh := m.l.locals.fresh
	j := b.decl(fresh("j"), ir.I32, b.I32(0))
	body := b.sub()
	var slot ir.Expr = j
	if !m.prop {
		n := s.nRef(b.Builder)
		start := b.decl(fresh("from"), ir.I32, b.Bin(ir.Rem, b.Bin(ir.Add, m.slots[m.p.owner], b.I32(1)), b.Builtin(ir.Max, n, b.I32(1))))
		at := b.Bin(ir.Add, start, j)
		slot = body.decl(fresh("s"), ir.I32, b.Sel(b.Bin(ir.Ge, at, n), b.Bin(ir.Sub, at, n), at))
	}
	m.candidate(body, k, slot, known, true, act)
	body.Set(j.Name, b.Bin(ir.Add, j, b.I32(1)))
	b.while(m.loopCond(b.Builder, b.Bin(ir.Lt, j, s.nRef(b.Builder))), body.stmts())
}

// extremum tries the best candidate for the range conjunct first and
// scans only when it fails for another reason (Note [Indices]).
func (m *matcher) extremum(b *block, k int, known map[*ruleVar]bool, act func(b *block)) {
	st := m.p.steps[k]
	x := st.ext
	fresh := m.l.locals.fresh
	c1 := b.Cast(ir.I32, b.Ld(x.buf, b.I32(1)))
	c2 := b.Cast(ir.I32, b.Ld(x.buf, b.I32(2)))
	least := b.Ld(x.buf, b.I32(0))
	next := b.Ld(x.buf, b.I32(3))
	cand := b.decl(fresh("e"), ir.I32, b.I32(-1))
	scan := b.decl(fresh("escan"), ir.Bool, b.Bool(false))
	// holds tests the range conjunct with X given by its key, declaring
	// X's value in into.
	holds := func(into *block, key ir.Expr) ir.Expr {
		val := key
		if x.max {
			val = b.Neg(key)
		}
		vn := varNames{}
		for rv, n := range m.vn {
			vn[rv] = n
		}
		xv := into.decl(fresh("xk"), ir.I64, val)
		vn[m.p.r.vars[st.h.args[x.pos].(*variable).name]] = xv.Name
		return vn.test(b.Builder, st.extCmp)
	}
	notUsed := func(c ir.Expr) ir.Expr { return m.distinct(b.Builder, st.h, c) }
	pick := b.sub()
	nextHolds := holds(pick, next)
	pick.Emit(&ir.If{Pos: b.Pos, Cond: orTrue(b.Builder, notUsed(c1)), Then: []ir.Stmt{&ir.Assign{Pos: b.Pos, Name: cand.Name, Value: c1}},
		Else: []ir.Stmt{&ir.If{Pos: b.Pos, Cond: b.And(b.Bin(ir.Ne, c2, c1), notUsed(c2)), Then: []ir.Stmt{&ir.Assign{Pos: b.Pos, Name: cand.Name, Value: c2}},
			Else: []ir.Stmt{&ir.If{Pos: b.Pos, Cond: b.And(b.Bin(ir.Ne, next, b.I64(1<<63-1)), nextHolds), Then: []ir.Stmt{&ir.Assign{Pos: b.Pos, Name: scan.Name, Value: b.Bool(true)}}}}}}})
	b.ifThen(b.Bin(ir.Ne, least, b.I64(1<<63-1)), pick.stmts())
	try := b.sub()
	tryBody := try.sub()
	m.candidate(tryBody, k, cand, known, false, act)
	if m.stop != "" {
		tryBody.ifThen(b.Not(b.Local(m.stop, ir.Bool)), []ir.Stmt{&ir.Assign{Pos: b.Pos, Name: scan.Name, Value: b.Bool(true)}})
	}
	// A candidate that an earlier claim round removed ends the search
	// until the next step's extremum.
	try.ifThen(b.And(m.alive(b.Builder, st.h, cand), holds(try, x.keyOf(b.Builder, m.l.stores[st.h.ct].arg(b.Builder, x.pos, cand)))), tryBody.stmts())
	b.ifThen(b.Bin(ir.Ge, cand, b.I32(0)), try.stmts())
	full := b.sub()
	m.scan(full, k, known, act)
	b.ifThen(b.Local(scan.Name, ir.Bool), full.stmts())
}

// orTrue makes a missing condition true.
func orTrue(b *ir.Builder, c ir.Expr) ir.Expr {
	if c == nil {
		return b.Bool(true)
	}
	return c
}

// sortedVars lists a rule's variable names in a fixed order.
func sortedVars(r *rule) []string {
	var names []string
	for n := range r.vars {
		names = append(names, n)
	}
	sortStrings(names)
	return names
}

// ownerLoop emits the loop over the owner's slots with the owner's tests,
// calling inner for each live owner that passes them.
func (l *lowerer) ownerLoop(b *block, p *rulePlan, step ir.Expr, inner func(b *block, m *matcher, s ir.Expr, known map[*ruleVar]bool)) {
	s := l.stores[p.owner.ct]
	b.Pos = p.r.pos
	bounds := l.loadBounds(b, p)
	l.forListed(b, s, func(b *block, i ir.Expr) {
		body := b.sub()
		m := l.newMatcher(body, p, step)
		m.bounds = bounds
		m.slots[p.owner] = i
		known := map[*ruleVar]bool{}
		test := m.bindHead(body, p.owner, i, known, true)
		rest := body.sub()
		inner(rest, m, i, known)
		cond := b.And(test, m.vn.tests(b.Builder, p.early))
		if cond != nil {
			body.ifThen(cond, rest.stmts())
		} else {
			body.Emit(rest.stmts()...)
		}
		b.ifThen(m.alive(b.Builder, p.owner, i), body.stmts())
	})
}
