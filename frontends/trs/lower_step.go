package trs

import (
	"fmt"

	"gpuc/ir"
)

// Outcomes of rewriting one slot of the walk, in the local out.
const (
	outNormal = 0 // in normal form: leave it
	outQueued = 1 // its new pending subterms are queued: descend into them
	outStop   = 2 // out of fuel, or the store is full: end the walk
)

// stepFunc builds trs_step(s, k, favail), the derive phase's work on one
// worklist entry (Note [Local normalisation]): a depth-first walk from s
// that rewrites each slot once its arguments are in normal form, and
// descends into the pending subterms that its rewrites make, which belong
// to this thread alone. The walk's path is kept in up: up[c] is the slot
// the walk descended from into c, and up[s] the slot that waits for s
// (Note [Forks]). It returns the number of rewrite steps. favail says
// whether the free ring had entries as the phase began, settle whether
// the walk settles waiting slots (Note [Settling]).
func (l *lowerer) stepFunc() {
	l.enlistFunc()
	l.ctorFunc()
	l.waitFunc()
	l.leaveFunc()
	b := l.newFunc(ir.DeviceFunc, "trs_step", ir.I64, param{"s", ir.I32}, param{"k", ir.I32}, param{"favail", ir.I64}, param{"settle", ir.Bool})
	b.decl("nstep", ir.I32, b.i32(0))
	b.decl("t", ir.I32, b.v("s"))
	b.decl("walk", ir.Bool, b.boolean(true))
	b.while(b.v("walk"), func() { l.visit(b) })
	b.ret(b.conv(ir.I64, b.v("nstep")))
}

// visit is one turn of the walk, at slot t. If no argument is pending, it
// rewrites t. Otherwise, if an argument was pending before this phase
// (only the walk's first slot can have one, and only if it comes from
// the input: Note [Forks]), t goes back on the worklist; if two or more
// are pending and FORK is set, t waits for them; else the walk descends
// into the first.
func (l *lowerer) visit(b *fn) {
	h := b.decl("h", ir.I32, b.ld("hd", b.v("t")))
	for _, x := range l.regs() {
		b.decl(x, ir.I32, b.i32(0))
	}
	b.decl("pa", ir.I32, b.i32(-1))
	b.decl("npa", ir.I32, b.i32(0))
	b.decl("before", ir.Bool, b.boolean(false))
	l.forArgs(b, h, func(a int, arr string) {
		x := l.regs()[a]
		b.set(x, b.ld(arr, b.v("t")))
		normal := b.and(b.eq(b.ld("pn", b.v(x)), b.u8(0)), b.eq(b.ld("pnw", b.v(x)), b.u8(0)))
		b.if_(b.not(normal), func() {
			b.if_(b.lt(b.v("pa"), b.i32(0)), func() { b.set("pa", b.v(x)) })
			b.set("npa", b.add(b.v("npa"), b.i32(1)))
			b.if_(b.ne(b.ld("pn", b.v(x)), b.u8(0)), func() { b.set("before", b.boolean(true)) })
		})
	})
	b.ifElse(b.lt(b.v("pa"), b.i32(0)), func() { l.rewriteSlot(b) }, func() {
		b.set("walk", b.boolean(false))
		b.ifElse(b.v("before"), func() {
			b.call("trs_enlist", b.v("t"), b.v("k"))
		}, func() {
			b.ifElse(b.and(b.ne(b.p(pFork), b.i32(0)), b.lt(b.i32(1), b.v("npa"))), func() {
				b.call("trs_leave", b.v("t"), b.v("s"), b.boolean(false), b.v("k"))
			}, func() {
				b.store("up", b.v("pa"), b.v("t"))
				b.set("t", b.v("pa"))
				b.set("walk", b.boolean(true))
			})
		})
	})
}

// enlistFunc: trs_enlist(x, k) appends slot x to the worklist of
// iteration k+1; without a worklist it flags x in the list buffer of
// iteration k+1 instead, which the scan of every slot then tests.
func (l *lowerer) enlistFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_enlist", ir.Void, param{"x", ir.I32}, param{"k", ir.I32})
	b.ifElse(b.ne(b.p(pWorklist), b.i32(0)), func() {
		b.decl("q", ir.I32, b.i32(0))
		b.atomic("q", ir.AtomicAdd, "wlen", b.rem(b.add(b.v("k"), b.i32(1)), b.i32(3)), b.i32(1))
		b.call("trs_push", b.v("q"), b.v("x"), b.v("k"))
	}, func() {
		b.call("trs_push", b.v("x"), b.i32(1), b.v("k"))
	})
}

// ctorFunc: trs_ctor(h) says whether symbol h is a constructor, one
// without rules, so that a term it heads is in normal form once its
// arguments are.
func (l *lowerer) ctorFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_ctor", ir.Bool, param{"h", ir.I32})
	sw := &ir.Switch{Pos: b.pos, X: b.v("h")}
	c := &ir.Case{Pos: b.pos, Body: b.nest(func() { b.ret(b.boolean(true)) })}
	for _, s := range l.sys.Syms {
		if !s.Defined() {
			c.Values = append(c.Values, int64(s.Index))
		}
	}
	if len(c.Values) > 0 {
		sw.Cases = append(sw.Cases, c)
		b.emit(sw)
	}
	b.ret(b.boolean(false))
}

// waitFunc: trs_wait(a, skip, k) makes slot a, which the walk leaves with
// pending arguments that this thread made, wait for them: jc[a] counts
// them, and each but skip (the one the walk came up from, which is
// already listed or waiting) goes on the next worklist with up pointing
// back to a.
func (l *lowerer) waitFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_wait", ir.Void, param{"a", ir.I32}, param{"skip", ir.I32}, param{"k", ir.I32})
	h := b.decl("h", ir.I32, b.ld("hd", b.v("a")))
	b.decl("n", ir.I32, b.i32(0))
	l.forArgs(b, h, func(_ int, arr string) {
		y := b.decl("y", ir.I32, b.ld(arr, b.v("a")))
		b.if_(b.ne(b.ld("pnw", y), b.u8(0)), func() {
			b.set("n", b.add(b.v("n"), b.i32(1)))
			b.if_(b.ne(b.v("y"), b.v("skip")), func() {
				b.store("up", b.v("y"), b.v("a"))
				b.call("trs_enlist", b.v("y"), b.v("k"))
			})
		})
	})
	b.store("jc", b.v("a"), b.v("n"))
}

// leaveFunc: trs_leave(d, s, self, k) ends a walk from s at slot d
// (Note [Forks]): d goes back on the worklist if self (it ran out of fuel
// or found the store full) and otherwise waits for its pending arguments;
// every slot on the way back up to s waits for its own.
func (l *lowerer) leaveFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_leave", ir.Void, param{"d", ir.I32}, param{"s", ir.I32}, param{"self", ir.Bool}, param{"k", ir.I32})
	b.ifElse(b.v("self"), func() { b.call("trs_enlist", b.v("d"), b.v("k")) }, func() { b.call("trs_wait", b.v("d"), b.i32(-1), b.v("k")) })
	b.decl("a", ir.I32, b.v("d"))
	b.while(b.ne(b.v("a"), b.v("s")), func() {
		b.decl("x", ir.I32, b.v("a"))
		b.set("a", b.ld("up", b.v("a")))
		b.call("trs_wait", b.v("a"), b.v("x"), b.v("k"))
	})
}

// rewriteSlot rewrites slot t, whose arguments are in normal form, in
// registers, then writes it back and decides where the walk goes.
func (l *lowerer) rewriteSlot(b *fn) {
	b.decl("n", ir.I32, b.i32(0))
	b.decl("out", ir.I32, b.i32(outNormal))
	b.decl("written", ir.Bool, b.boolean(false))
	b.decl("more", ir.Bool, b.boolean(true))
	b.while(b.v("more"), func() {
		b.set("more", b.boolean(false))
		b.if_(b.ge(b.add(b.v("nstep"), b.v("n")), b.max(b.p(pLocal), b.i32(1))), func() {
			b.set("out", b.i32(outStop))
			b.brk()
		})
		sw := &ir.Switch{Pos: b.pos, X: b.v("h")}
		for _, sym := range l.sys.Syms {
			if !sym.Defined() {
				continue
			}
			sw.Cases = append(sw.Cases, &ir.Case{Pos: sym.Pos, Values: []int64{int64(sym.Index)}, Body: b.nest(func() { l.rewriteSym(b, sym) })})
		}
		b.pos = l.pos
		if len(sw.Cases) > 0 {
			b.emit(sw)
		}
	})
	b.if_(b.lt(b.i32(0), b.v("n")), func() {
		b.set("nstep", b.add(b.v("nstep"), b.v("n")))
		b.if_(b.not(b.v("written")), func() {
			b.store("hd", b.v("t"), b.v("h"))
			l.forArgs(b, b.v("h"), func(a int, arr string) { b.store(arr, b.v("t"), b.v(l.regs()[a])) })
		})
	})
	b.if_(b.eq(b.v("out"), b.i32(outNormal)), func() {
		b.store("pnw", b.v("t"), b.u8(0))
		b.ifElse(b.ne(b.v("t"), b.v("s")), func() { b.set("t", b.ld("up", b.v("t"))) }, func() {
			// The walk is done; the last argument of a waiting slot to
			// reach normal form lists it, or settles it if it is a
			// constructor (Note [Settling]).
			b.set("walk", b.boolean(false))
			p := b.decl("p", ir.I32, b.ld("up", b.v("s")))
			b.while(b.ge(p, b.i32(0)), func() {
				b.decl("left", ir.I32, b.i32(0))
				b.atomic("left", ir.AtomicSub, "jc", b.v("p"), b.i32(1))
				b.if_(b.ne(b.v("left"), b.i32(1)), func() { b.brk() })
				// Not an input slot that a list may hold and other
				// walks read (Note [Settling]).
				unshared := b.or(b.eq(b.ld("pn", b.v("p")), b.u8(0)), b.ge(b.v("p"), b.i32(l.nodes)))
				b.if_(b.not(b.and(b.v("settle"), b.and(unshared, b.callExpr("trs_ctor", b.ld("hd", b.v("p")))))), func() {
					b.call("trs_enlist", b.v("p"), b.v("k"))
					b.brk()
				})
				b.store("pnw", b.v("p"), b.u8(0))
				b.store("pn", b.v("p"), b.u8(0))
				b.set("p", b.ld("up", b.v("p")))
			})
		})
	})
	b.if_(b.eq(b.v("out"), b.i32(outStop)), func() {
		b.set("walk", b.boolean(false))
		b.call("trs_leave", b.v("t"), b.v("s"), b.boolean(true), b.v("k"))
	})
}

// regs names the locals that hold the slot's arguments during a step.
func (l *lowerer) regs() []string {
	out := make([]string, l.k)
	for i := range out {
		out[i] = fmt.Sprintf("x%d", i)
	}
	return out
}

// rewriteSym is the switch case of a defined symbol: its rules in file
// order, the first that matches applying. The heads of the arguments that
// some rule inspects are loaded once.
func (l *lowerer) rewriteSym(b *fn, sym *Sym) {
	b.pos = sym.Pos
	heads := make([]ir.Expr, sym.Arity)
	for i := 0; i < sym.Arity; i++ {
		for _, r := range sym.Rules {
			if r.LHS.Args[i].Sym != nil {
				heads[i] = b.decl(fmt.Sprintf("g%d", i), ir.I32, b.ld("hd", b.v(l.regs()[i])))
				break
			}
		}
	}
	b.while(b.boolean(true), func() {
		for _, r := range sym.Rules {
			b.pos = r.Pos
			ms := &matchState{rule: r, vars: map[*Var]ir.Expr{}, direct: map[*Var]int{}}
			var todo []patAt
			for i, p := range r.LHS.Args {
				todo = append(todo, patAt{p: p, slot: b.v(l.regs()[i]), head: heads[i], root: i})
			}
			l.match(b, ms, todo, func() { l.apply(b, ms) })
		}
		b.pos = sym.Pos
		if sym.Of != nil {
			// No rule applies: the copy becomes the symbol it copies, in
			// normal form (Note [Conditional rules]).
			b.set("h", b.i32(int64(sym.Of.Index)))
			b.store("hd", b.v("t"), b.v("h"))
		}
		b.brk()
	})
}

// matchState is what matching a rule has bound so far.
type matchState struct {
	rule   *Rule
	vars   map[*Var]ir.Expr // the local holding each bound variable
	direct map[*Var]int     // variables bound to an argument of the root
	subs   []boundSub       // the left-hand side's matched subterms below the root
	eqs    [][2]ir.Expr     // repeated variables: slots that must hold equal terms
	paths  int              // locals made for subterm slots
}

// boundSub is a subterm of a left-hand side, not a variable, with the
// local that holds its slot once matched, and its argument position if it
// is an argument of the root (else -1).
type boundSub struct {
	t    *Term
	slot ir.Expr
	root int
}

// bound says whether a right-hand side's subterm t is already in the
// store: a variable, or a copy of a matched subterm of the left-hand side
// (as S(X) in Fact(S(X)) = Times(S(X), Fact(X))), which the right-hand
// side then shares rather than builds anew (Note [Sharing]). It returns
// t's slot, its argument position at the root or -1, and a key for
// counting its uses.
func (ms *matchState) bound(t *Term) (slot ir.Expr, root int, key any, ok bool) {
	if v := t.Var; v != nil {
		root, direct := ms.direct[v]
		if !direct {
			root = -1
		}
		return ms.vars[v], root, v, true
	}
	for _, s := range ms.subs {
		if SameTerm(s.t, t) {
			return s.slot, s.root, s.t, true
		}
	}
	return nil, -1, nil, false
}

// patAt is a pattern to match against the term in slot slot; head, if
// not nil, holds the slot's head already, and root is the argument
// position for the root's arguments, -1 below.
type patAt struct {
	p    *Term
	slot ir.Expr
	head ir.Expr
	root int
}

// match emits the tests of the patterns in todo as nested ifs, depth
// first, binding variables as it goes; body runs where all match, after
// the equality tests of repeated variables.
func (l *lowerer) match(b *fn, ms *matchState, todo []patAt, body func()) {
	if len(todo) == 0 {
		if len(ms.eqs) == 0 {
			body()
			return
		}
		var cond ir.Expr
		for _, e := range ms.eqs {
			c := ir.Expr(b.callExpr("trs_eq", ir.CloneExpr(e[0]), ir.CloneExpr(e[1])))
			if cond == nil {
				cond = c
			} else {
				cond = b.and(cond, c)
			}
		}
		b.if_(cond, body)
		return
	}
	pa, rest := todo[0], todo[1:]
	if v := pa.p.Var; v != nil {
		if first, ok := ms.vars[v]; ok {
			ms.eqs = append(ms.eqs, [2]ir.Expr{first, pa.slot})
		} else {
			ms.vars[v] = b.decl(fmt.Sprintf("v%d_%d", ms.rule.Index, v.Index), ir.I32, pa.slot)
			if pa.root >= 0 {
				ms.direct[v] = pa.root
			}
		}
		l.match(b, ms, rest, body)
		return
	}
	head := pa.head
	if head == nil {
		head = b.ld("hd", ir.CloneExpr(pa.slot))
	}
	b.if_(b.eq(ir.CloneExpr(head), b.i32(int64(pa.p.Sym.Index))), func() {
		if pa.root >= 0 {
			// A copy, since the root's argument registers change as the rule applies.
			name := fmt.Sprintf("a%d_%d", ms.rule.Index, pa.root)
			ms.subs = append(ms.subs, boundSub{t: pa.p, slot: b.decl(name, ir.I32, pa.slot), root: pa.root})
		} else {
			ms.subs = append(ms.subs, boundSub{t: pa.p, slot: pa.slot, root: -1})
		}
		var kids []patAt
		for i, a := range pa.p.Args {
			name := fmt.Sprintf("p%d_%d", ms.rule.Index, ms.paths)
			ms.paths++
			kids = append(kids, patAt{p: a, slot: b.decl(name, ir.I32, b.ld(l.args[i], ir.CloneExpr(pa.slot))), root: -1})
		}
		l.match(b, ms, append(kids, rest...), body)
	})
}

// newTerm is a subterm of a right-hand side that gets a new slot.
type newTerm struct {
	t      *Term
	slot   ir.Expr // the local holding its slot
	normal bool    // in normal form when made: no rules for its head, arguments normal
}

// apply emits what a matched rule does: allocate the right-hand side's
// new subterms, write them, move references, overwrite the root in the
// registers, count the step and decide what comes next. It ends with a
// break out of the rule loop.
func (l *lowerer) apply(b *fn, ms *matchState) {
	r := ms.rule
	var news []*newTerm
	if _, _, _, collapse := ms.bound(r.RHS); !collapse {
		for _, a := range r.RHS.Args {
			ms.collectNew(a, &news)
		}
	}
	if len(news) == 0 {
		l.applyRule(b, ms, news, func() {})
		return
	}
	ok, takeSlots := l.alloc(b, r.Index, news)
	b.if_(ok, func() { l.applyRule(b, ms, news, takeSlots) })
	b.set("out", b.i32(outStop)) // the store is full: the slot stays as it is
	b.brk()
}

// applyRule is apply once the slots are taken.
func (l *lowerer) applyRule(b *fn, ms *matchState, news []*newTerm, takeSlots func()) {
	takeSlots()
	l.writeNew(b, ms, news)
	l.moveRefs(b, ms)
	l.setRoot(b, ms, news)
	b.set("n", b.add(b.v("n"), b.i32(1)))
	b.brk()
}

// collectNew lists the subterms of t that are not bound, children
// first, and decides which are in normal form when made.
func (ms *matchState) collectNew(t *Term, out *[]*newTerm) bool {
	if _, _, _, ok := ms.bound(t); ok {
		return true
	}
	normal := !t.Sym.Defined()
	for _, a := range t.Args {
		normal = ms.collectNew(a, out) && normal
	}
	*out = append(*out, &newTerm{t: t, normal: normal})
	return normal
}

// alloc reserves slots for the new subterms, from the fresh counter and
// the free ring in the order FRESH asks for (Note [Fresh slots first]),
// with one atomic add on each that it uses. It returns a local that is
// false if the store is full, having set the overflow flag, and a
// function that declares the new subterms' slot locals where they are
// needed: the fresh ones first, then those from the ring.
func (l *lowerer) alloc(b *fn, rule int, news []*newTerm) (ir.Expr, func()) {
	m := int64(len(news))
	name := func(base string) string { return fmt.Sprintf("%s%d", base, rule) }
	fb, nf, rb, nr, ok := name("fb"), name("nf"), name("rb"), name("nr"), name("ok")
	b.decl(fb, ir.I64, b.i64(0))
	b.decl(nf, ir.I32, b.i32(0))
	b.decl(rb, ir.I64, b.i64(0))
	b.decl(nr, ir.I32, b.i32(0))
	// take(n, counter, at, end, base, got): up to n slots from positions
	// counter[at] to end, the first at base.
	take := func(n ir.Expr, counter string, at int64, end ir.Expr, base, got string) {
		b.atomic(base, ir.AtomicAdd, counter, b.i32(at), b.conv(ir.I64, n))
		b.set(got, b.conv(ir.I32, b.min(b.max(b.sub(end, b.v(base)), b.i64(0)), b.conv(ir.I64, ir.CloneExpr(n)))))
	}
	fresh := func(n ir.Expr) { take(n, "nfresh", 0, b.conv(ir.I64, b.p(pCapacity)), fb, nf) }
	ring := func(n ir.Expr) {
		b.if_(b.lt(b.i64(0), b.v("favail")), func() { take(n, "free", frHead, b.ld("free", b.i32(frTail)), rb, nr) })
	}
	short := func() ir.Expr { return b.lt(b.add(b.v(nf), b.v(nr)), b.i32(m)) }
	b.ifElse(b.ne(b.p(pFresh), b.i32(0)), func() {
		b.if_(b.lt(b.ld("nfresh", b.i32(1)), b.conv(ir.I64, b.p(pCapacity))), func() { fresh(b.i32(m)) })
		b.if_(short(), func() { ring(b.sub(b.i32(m), b.v(nf))) })
	}, func() {
		ring(b.i32(m))
		b.if_(short(), func() { fresh(b.sub(b.i32(m), b.v(nr))) })
	})
	b.decl(ok, ir.Bool, b.boolean(true))
	b.if_(short(), func() {
		b.atomic("", ir.AtomicOr, "status", b.i32(stOverflow), b.i32(1))
		b.set(ok, b.boolean(false))
	})
	takeSlots := func() {
		for j, nt := range news {
			fromFresh := b.conv(ir.I32, b.add(b.v(fb), b.i64(int64(j))))
			ring := b.ld("fl", b.rem(b.add(b.v(rb), b.conv(ir.I64, b.sub(b.i32(int64(j)), b.v(nf)))), b.conv(ir.I64, b.p(pCapacity))))
			nt.slot = b.decl(fmt.Sprintf("t%d_%d", rule, j), ir.I32, b.sel(b.lt(b.i32(int64(j)), b.v(nf)), fromFresh, ring))
		}
	}
	return b.v(ok), takeSlots
}

// slotOf is the slot local of a right-hand side's subterm.
func slotOf(ms *matchState, news []*newTerm, t *Term) ir.Expr {
	if slot, _, _, ok := ms.bound(t); ok {
		return ir.CloneExpr(slot)
	}
	for _, nt := range news {
		if nt.t == t {
			return ir.CloneExpr(nt.slot)
		}
	}
	panic("trs: right-hand side subterm without a slot")
}

// writeNew writes the new subterms into their slots. Each has one
// reference, from its parent; those not in normal form are pending.
func (l *lowerer) writeNew(b *fn, ms *matchState, news []*newTerm) {
	for _, nt := range news {
		b.store("hd", nt.slot, b.i32(int64(nt.t.Sym.Index)))
		for i, a := range nt.t.Args {
			b.store(l.args[i], ir.CloneExpr(nt.slot), slotOf(ms, news, a))
		}
		b.store("rc", ir.CloneExpr(nt.slot), b.i32(1))
		if !nt.normal {
			b.store("pnw", ir.CloneExpr(nt.slot), b.u8(1))
		}
	}
}

// moveRefs adds the references the right-hand side makes to the slots of
// its bound subterms (variables and copies of matched subterms), then
// drops the old root's references to its arguments. A bound subterm that
// is an argument of the root moves its reference instead: f(X) -> g(X)
// changes no count.
func (l *lowerer) moveRefs(b *fn, ms *matchState) {
	r := ms.rule
	uses := map[any]int64{}
	var order []any
	var count func(t *Term)
	count = func(t *Term) {
		if _, _, key, ok := ms.bound(t); ok {
			if uses[key] == 0 {
				order = append(order, key)
			}
			uses[key]++
			return
		}
		for _, a := range t.Args {
			count(a)
		}
	}
	if _, _, _, collapse := ms.bound(r.RHS); !collapse {
		for _, a := range r.RHS.Args {
			count(a)
		}
	}
	delta := make([]int64, len(r.LHS.Args))
	for i := range delta {
		delta[i] = -1
	}
	for _, key := range order {
		var slot ir.Expr
		var root int
		switch k := key.(type) {
		case *Var:
			slot, root, _, _ = ms.bound(&Term{Var: k})
		case *Term:
			slot, root, _, _ = ms.bound(k)
		}
		if root >= 0 {
			delta[root] += uses[key]
		} else {
			l.addRef(b, ir.CloneExpr(slot), uses[key])
		}
	}
	for i, d := range delta {
		if d > 0 {
			l.addRef(b, b.v(l.regs()[i]), d)
		}
	}
	for i, d := range delta {
		if d < 0 {
			b.call("trs_release", b.v(l.regs()[i]), b.v("k"))
		}
	}
}

// setRoot makes the right-hand side's root the slot's new root and
// decides what follows: a bound term (a variable's) is copied and is in
// normal form; a root with pending arguments (a new subterm is pending only if
// it or one below it has rules, and then so is the root's argument above
// it) is left for the walk to visit them; a root whose head has rules is tried again;
// any other root is in normal form.
func (l *lowerer) setRoot(b *fn, ms *matchState, news []*newTerm) {
	r := ms.rule
	if slot, _, _, ok := ms.bound(r.RHS); ok {
		b.call("trs_collapse", b.v("t"), ir.CloneExpr(slot))
		b.set("written", b.boolean(true))
		return
	}
	b.set("h", b.i32(int64(r.RHS.Sym.Index)))
	for i, a := range r.RHS.Args {
		b.set(l.regs()[i], slotOf(ms, news, a))
	}
	pending := false
	for _, nt := range news {
		pending = pending || !nt.normal
	}
	switch {
	case pending:
		b.set("out", b.i32(outQueued)) // the walk visits them next
	case r.RHS.Sym.Defined():
		b.set("more", b.boolean(true))
	}
}
