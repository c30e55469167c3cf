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
	// Its one pending argument is the new subterm in the local next: the
	// walk descends into it at once (Note [Descending at once]).
	outDescend = 3
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
	params := []param{{"s0", l.id}, {"k", ir.I32}, {"favail", ir.I64}, {"settle", ir.Bool}}
	if !l.world {
		params = append(params, param{"one", ir.Bool}) // Note [One processor's walks]
	}
	b := l.newFunc(ir.DeviceFunc, "trs_step", ir.I64, params...)
	b.Decl("s", l.id, b.V("s0")) // the walk's first slot, which a walk on one processor may move up
	b.Decl("nstep", ir.I32, b.I32(0))
	b.Decl("t", l.id, b.V("s"))
	b.Decl("walk", ir.Bool, b.Bool(true))
	body, at := b.Block(), len(*b.Block())
	spent := l.fueled(b, "fuel", ir.I64, l.stepFuel(b), func() ir.Expr { return b.V("walk") }, func() { l.visit(b) })
	b.If(spent, func() { l.walkSpent(b) })
	b.Return(b.Conv(ir.I64, b.V("nstep")))
	*body = append((*body)[:at], append(l.stepDecls, (*body)[at:]...)...)
	l.stepDecls = nil
}

// visit is one turn of the walk, at slot t. If no argument is pending, it
// rewrites t. Otherwise, if an argument was pending before this phase
// (only the walk's first slot can have one, and only if it comes from
// the input: Note [Forks]), t goes back on the worklist; if two or more
// are pending and FORK is set, t waits for them; else the walk descends
// into the first.
func (l *lowerer) visit(b *fn) {
	h := b.Decl("h", ir.I32, b.Ld("hd", b.V("t")))
	for _, x := range l.regs() {
		b.Decl(x, l.id, b.S(0))
	}
	b.Decl("pa", l.id, b.S(-1))
	b.Decl("npa", ir.I32, b.I32(0))
	b.Decl("before", ir.Bool, b.Bool(false))
	l.forArgs(b, h, func(a int, arr string) {
		x := l.regs()[a]
		b.Set(x, b.Ld(arr, b.V("t")))
		b.If(b.Not(l.normal(b, b.V(x))), func() {
			b.If(b.Not(b.isSlot(b.V("pa"))), func() { b.Set("pa", b.V(x)) })
			b.Set("npa", b.Add(b.V("npa"), b.I32(1)))
			b.If(b.Ne(b.Ld("pn", b.V(x)), b.U8(0)), func() { b.Set("before", b.Bool(true)) })
		})
	})
	b.IfElse(b.Not(b.isSlot(b.V("pa"))), func() { l.rewriteSlot(b) }, func() {
		b.Set("walk", b.Bool(false))
		b.IfElse(b.V("before"), func() {
			b.Call("trs_enlist", b.V("t"), b.V("k"))
		}, func() {
			b.IfElse(b.And(b.Ne(b.P(pFork), b.I32(0)), b.Lt(b.I32(1), b.V("npa"))), func() {
				b.Call("trs_leave", b.V("t"), b.V("s"), b.Bool(false), b.V("k"))
			}, func() {
				b.Store("up", b.V("pa"), b.V("t"))
				b.Set("t", b.V("pa"))
				b.Set("walk", b.Bool(true))
			})
		})
	})
}

// enlistFunc: trs_enlist(x, k) appends slot x to the worklist of
// iteration k+1; without a worklist it flags x in the list buffer of
// iteration k+1 instead, which the scan of every slot then tests.
func (l *lowerer) enlistFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_enlist", ir.Void, param{"x", l.id}, param{"k", ir.I32})
	if l.world {
		// The owner's next worklist: every rewrite runs on its slot's owner.
		o := b.Decl("o", ir.I32, b.owner(b.V("x")))
		b.Decl("q", ir.I32, b.I32(0))
		b.Atomic("q", ir.AtomicAdd, "wlen", b.ctrOf(o, b.Rem(b.Add(b.V("k"), b.I32(1)), b.I32(3))), b.I32(1))
		b.Call("trs_push", b.slotOn(b.V("o"), b.Conv(l.id, b.V("q"))), b.V("x"), b.V("k"))
		return
	}
	b.IfElse(b.Ne(b.P(pWorklist), b.I32(0)), func() {
		b.Decl("q", ir.I32, b.I32(0))
		b.Atomic("q", ir.AtomicAdd, "wlen", b.Rem(b.Add(b.V("k"), b.I32(1)), b.I32(3)), b.I32(1))
		b.Call("trs_push", b.V("q"), b.V("x"), b.V("k"))
	}, func() {
		b.Call("trs_push", b.V("x"), b.I32(1), b.V("k"))
	})
}

// ctorFunc: trs_ctor(h) says whether symbol h is a constructor, one
// without rules, so that a term it heads is in normal form once its
// arguments are.
func (l *lowerer) ctorFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_ctor", ir.Bool, param{"h", ir.I32})
	sw := &ir.Switch{Pos: b.Pos, X: b.V("h")}
	c := &ir.Case{Pos: b.Pos, Body: b.Nest(func() { b.Return(b.Bool(true)) })}
	for _, s := range l.sys.Syms {
		if !s.Defined() {
			c.Values = append(c.Values, int64(s.Index))
		}
	}
	if len(c.Values) > 0 {
		sw.Cases = append(sw.Cases, c)
		b.Emit(sw)
	}
	b.Return(b.Bool(false))
}

// waitFunc: trs_wait(a, skip, k) makes slot a, which the walk leaves with
// pending arguments that this thread made, wait for them: jc[a] counts
// them, and each but skip (the one the walk came up from, which is
// already listed or waiting) goes on the next worklist with up pointing
// back to a.
func (l *lowerer) waitFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_wait", ir.Void, param{"a", l.id}, param{"skip", l.id}, param{"k", ir.I32})
	h := b.Decl("h", ir.I32, b.Ld("hd", b.V("a")))
	b.Decl("n", ir.I32, b.I32(0))
	l.forArgs(b, h, func(_ int, arr string) {
		y := b.Decl("y", l.id, b.Ld(arr, b.V("a")))
		b.If(b.Ne(l.pnw(b, y), b.U8(0)), func() {
			b.Set("n", b.Add(b.V("n"), b.I32(1)))
			b.If(b.Ne(b.V("y"), b.V("skip")), func() {
				b.Store("up", b.V("y"), b.V("a"))
				b.Call("trs_enlist", b.V("y"), b.V("k"))
			})
		})
	})
	b.Store("jc", b.V("a"), b.V("n"))
}

// leaveFunc: trs_leave(d, s, self, k) ends a walk from s at slot d
// (Note [Forks]): d goes back on the worklist if self (it ran out of fuel
// or found the store full) and otherwise waits for its pending arguments;
// every slot on the way back up to s waits for its own.
func (l *lowerer) leaveFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_leave", ir.Void, param{"d", l.id}, param{"s", l.id}, param{"self", ir.Bool}, param{"k", ir.I32})
	b.IfElse(b.V("self"), func() { b.Call("trs_enlist", b.V("d"), b.V("k")) }, func() { b.Call("trs_wait", b.V("d"), b.S(-1), b.V("k")) })
	b.Decl("a", l.id, b.V("d"))
	below := func() ir.Expr { return b.Ne(b.V("a"), b.V("s")) }
	spent := l.fueled(b, "fuel", l.id, l.storeSlots(b), below, func() {
		b.Decl("x", l.id, b.V("a"))
		b.Set("a", b.Ld("up", b.V("a")))
		b.Call("trs_wait", b.V("a"), b.V("x"), b.V("k"))
	})
	b.If(spent, func() { l.walkSpent(b) })
}

// rewriteSlot rewrites slot t, whose arguments are in normal form, in
// registers, then writes it back and decides where the walk goes.
func (l *lowerer) rewriteSlot(b *fn) {
	b.Decl("n", ir.I32, b.I32(0))
	b.Decl("out", ir.I32, b.I32(outNormal))
	b.Decl("written", ir.Bool, b.Bool(false))
	b.Decl("more", ir.Bool, b.Bool(true))
	// The steps left to the walk, LOCAL (LOCAL1 on one processor, Note
	// [One processor's walks]) - nstep - n: a turn goes on only
	// after a rewrite, which adds one to n, so the count down from the
	// top of each turn says what nstep + n >= LOCAL would, in a form that
	// the termination check reads at once (Note [Checked walk bounds]).
	b.Decl("quota", ir.I32, b.Sub(l.fuel(b), b.V("nstep")))
	b.While(b.V("more"), func() {
		b.Set("more", b.Bool(false))
		b.If(b.Bin(ir.Le, b.V("quota"), b.I32(0)), func() {
			b.Set("out", b.I32(outStop))
			b.Break()
		})
		b.Set("quota", b.Sub(b.V("quota"), b.I32(1)))
		l.rewriteStages(b) // Note [One allocation site]
	})
	b.If(b.Lt(b.I32(0), b.V("n")), func() {
		b.Set("nstep", b.Add(b.V("nstep"), b.V("n")))
		b.If(b.Not(b.V("written")), func() {
			b.Store("hd", b.V("t"), b.V("h"))
			l.forArgs(b, b.V("h"), func(a int, arr string) { b.Store(arr, b.V("t"), b.V(l.regs()[a])) })
		})
	})
	if l.stepDeclared("next") {
		// Note [Descending at once]
		b.If(b.And(b.V("one"), b.Eq(b.V("out"), b.I32(outDescend))), func() {
			b.Store("up", b.V("next"), b.V("t"))
			b.Set("t", b.V("next"))
		})
	}
	b.If(b.Eq(b.V("out"), b.I32(outNormal)), func() {
		b.Store("pnw", b.V("t"), b.U8(0))
		b.IfElse(b.Ne(b.V("t"), b.V("s")), func() { b.Set("t", b.Ld("up", b.V("t"))) }, func() {
			// The walk is done; the last argument of a waiting slot to
			// reach normal form lists it, or settles it if it is a
			// constructor (Note [Settling]).
			b.Set("walk", b.Bool(false))
			if !l.world {
				b.If(b.V("one"), func() { b.Store("pn", b.V("s"), b.U8(0)) }) // Note [One processor's walks]
			}
			p := b.Decl("p", l.id, b.Ld("up", b.V("s")))
			above := func() ir.Expr { return b.isSlot(ir.CloneExpr(p)) }
			spent := l.fueled(b, "pfuel", l.id, l.storeSlots(b), above, func() {
				b.Decl("left", ir.I32, b.I32(0))
				b.Atomic("left", ir.AtomicSub, "jc", b.V("p"), b.I32(1))
				b.If(b.Ne(b.V("left"), b.I32(1)), func() { b.Break() })
				// Not an input slot that a list may hold and other
				// walks read (Note [Settling]).
				unshared := func() ir.Expr { return b.Or(b.Eq(b.Ld("pn", b.V("p")), b.U8(0)), b.Ge(b.V("p"), b.S(l.nodes))) }
				b.If(b.Not(b.And(b.V("settle"), b.And(unshared(), b.CallExpr("trs_ctor", b.Ld("hd", b.V("p")))))), func() {
					if !l.world {
						// One processor walks on from p (Note [One
						// processor's walks]).
						b.If(b.And(b.V("one"), unshared()), func() {
							b.Set("s", b.V("p"))
							b.Set("t", b.V("p"))
							b.Set("walk", b.Bool(true))
							b.Break()
						})
					}
					b.Call("trs_enlist", b.V("p"), b.V("k"))
					b.Break()
				})
				b.Store("pnw", b.V("p"), b.U8(0))
				b.Store("pn", b.V("p"), b.U8(0))
				b.Set("p", b.Ld("up", b.V("p")))
			})
			b.If(spent, func() { l.walkSpent(b) })
		})
	})
	b.If(b.Eq(b.V("out"), b.I32(outStop)), func() {
		b.Set("walk", b.Bool(false))
		b.Call("trs_leave", b.V("t"), b.V("s"), b.Bool(true), b.V("k"))
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

// rewriteSym is the match stage's case of a defined symbol: its rules in
// file order, the first that matches applying (Note [One allocation
// site]). The heads of the arguments that some rule inspects are loaded
// once.
func (l *lowerer) rewriteSym(b *fn, sa *stepAlloc, sym *Sym) {
	b.Pos = sym.Pos
	heads := make([]ir.Expr, sym.Arity)
	for i := 0; i < sym.Arity; i++ {
		for _, r := range sym.Rules {
			if r.LHS.Args[i].Sym != nil {
				heads[i] = b.Decl(fmt.Sprintf("g%d", i), ir.I32, l.head(b, b.V(l.regs()[i])))
				break
			}
		}
	}
	b.While(b.Bool(true), func() {
		for _, r := range sym.Rules {
			b.Pos = r.Pos
			ms := &matchState{rule: r, vars: map[*Var]ir.Expr{}, direct: map[*Var]int{}, from: map[any]ir.Expr{}}
			var todo []patAt
			for i, p := range r.LHS.Args {
				todo = append(todo, patAt{p: p, slot: b.V(l.regs()[i]), head: heads[i], root: i, path: b.V(l.regs()[i])})
			}
			l.match(b, ms, todo, func() { l.pick(b, sa, ms) })
		}
		b.Pos = sym.Pos
		if sym.Of != nil {
			// No rule applies: the copy becomes the symbol it copies, in
			// normal form (Note [Conditional rules]).
			b.Set("h", b.I32(int64(sym.Of.Index)))
			b.Store("hd", b.V("t"), b.V("h"))
		}
		b.Break()
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
	from   map[any]ir.Expr  // each binding's slot read anew from the root's argument registers
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
	path ir.Expr // the slot read anew from the root's argument registers
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
			c := ir.Expr(b.CallExpr("trs_eq", ir.CloneExpr(e[0]), ir.CloneExpr(e[1])))
			if cond == nil {
				cond = c
			} else {
				cond = b.And(cond, c)
			}
		}
		b.If(cond, body)
		return
	}
	pa, rest := todo[0], todo[1:]
	if v := pa.p.Var; v != nil {
		if first, ok := ms.vars[v]; ok {
			ms.eqs = append(ms.eqs, [2]ir.Expr{first, pa.slot})
		} else {
			ms.vars[v] = b.Decl(fmt.Sprintf("v%d_%d", ms.rule.Index, v.Index), l.id, pa.slot)
			ms.from[v] = pa.path
			if pa.root >= 0 {
				ms.direct[v] = pa.root
			}
		}
		l.match(b, ms, rest, body)
		return
	}
	head := pa.head
	if head == nil {
		head = l.head(b, ir.CloneExpr(pa.slot))
	}
	b.If(b.Eq(ir.CloneExpr(head), b.I32(int64(pa.p.Sym.Index))), func() {
		if pa.root >= 0 {
			// A copy, since the root's argument registers change as the rule applies.
			name := fmt.Sprintf("a%d_%d", ms.rule.Index, pa.root)
			ms.subs = append(ms.subs, boundSub{t: pa.p, slot: b.Decl(name, l.id, pa.slot), root: pa.root})
		} else {
			ms.subs = append(ms.subs, boundSub{t: pa.p, slot: pa.slot, root: -1})
		}
		ms.from[pa.p] = pa.path
		var kids []patAt
		for i, a := range pa.p.Args {
			name := fmt.Sprintf("p%d_%d", ms.rule.Index, ms.paths)
			ms.paths++
			kids = append(kids, patAt{p: a, slot: b.Decl(name, l.id, l.arg(b, i, ir.CloneExpr(pa.slot))), root: -1, path: l.arg(b, i, ir.CloneExpr(pa.path))})
		}
		l.match(b, ms, append(kids, rest...), body)
	})
}

// newTerm is a subterm of a right-hand side that gets a new slot.
type newTerm struct {
	t      *Term
	slot   ir.Expr // the local holding its slot
	normal bool    // in normal form when made: no rules for its head, arguments normal
	rg     string  // in a world, the site's local holding its device range (forkGroups)
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
		b.Store("hd", nt.slot, b.I32(int64(nt.t.Sym.Index)))
		for i, a := range nt.t.Args {
			b.Store(l.args[i], ir.CloneExpr(nt.slot), slotOf(ms, news, a))
		}
		b.Store("rc", ir.CloneExpr(nt.slot), b.I32(1))
		if l.world {
			b.If(b.several(), func() { b.Store("rg", ir.CloneExpr(nt.slot), b.V(nt.rg)) })
		}
		if !nt.normal {
			b.Store("pnw", ir.CloneExpr(nt.slot), b.U8(1))
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
		b.Call("trs_collapse", b.V("t"), ir.CloneExpr(slot))
		b.Set("written", b.Bool(true))
		return
	}
	b.Set("h", b.I32(int64(r.RHS.Sym.Index)))
	for i, a := range r.RHS.Args {
		b.Set(l.regs()[i], slotOf(ms, news, a))
	}
	pending := false
	for _, nt := range news {
		pending = pending || !nt.normal
	}
	switch {
	case pending && !l.world && len(pendingArgs(ms, news, r.RHS)) == 1:
		// Note [Descending at once]
		l.declareNext(b)
		b.IfElse(b.V("one"), func() {
			b.Set("out", b.I32(outDescend))
			b.Set("next", pendingArgs(ms, news, r.RHS)[0])
		}, func() { b.Set("out", b.I32(outQueued)) })
	case pending:
		b.Set("out", b.I32(outQueued)) // the walk visits them next
	case r.RHS.Sym.Defined():
		b.Set("more", b.Bool(true))
	}
}

// Note [Descending at once]
//
// A rewrite whose new root has pending arguments (outQueued) leaves the
// walk at the same slot, and the next turn visits it again: it reads the
// head and every argument, tests their pending flags, and descends into
// the first pending one. Where exactly one argument of the new root is
// pending, that turn's outcome is known when the rule is built: its other
// arguments are bound subterms of the old arguments, which were in normal
// form, or new subterms in normal form when made (setRoot's reading);
// the pending one is a new subterm, whose pn is 0 (a free slot's, Note
// [Phases]), so the turn neither lists the slot nor forks, and descends.
// On one processor (Note [One processor's walks]) the rewrite descends
// itself (outDescend, the local next): revnat1000's conc rule, half a
// million rewrites in one chain, ran three turns a rewrite, one of them
// this visit. The rewrites, their order and their count are the same;
// only the walk's fuel, an upper bound on its turns, is spent more
// slowly. The wide step keeps the visit (tt10 tuned its registers;
// Note [Wide and one-processor steps]), and a world has no parameter one.

// pendingArgs lists the slots of the arguments of the right-hand side
// rhs that are new subterms not in normal form when made.
func pendingArgs(ms *matchState, news []*newTerm, rhs *Term) []ir.Expr {
	var out []ir.Expr
	for _, a := range rhs.Args {
		for _, nt := range news {
			if nt.t == a && !nt.normal {
				out = append(out, ir.CloneExpr(nt.slot))
			}
		}
	}
	return out
}

// declareNext declares trs_step's local next once, at its start (Note
// [Descending at once]).
func (l *lowerer) declareNext(b *fn) {
	b.Local("next", l.id)
	if !l.stepDeclared("next") {
		l.stepDecls = append(l.stepDecls, &ir.Decl{Pos: b.Pos, Name: "next", T: l.id, Init: b.S(-1)})
	}
}

// stepDeclared says whether trs_step declares the local name at its start.
func (l *lowerer) stepDeclared(name string) bool {
	for _, d := range l.stepDecls {
		if d, ok := d.(*ir.Decl); ok && d.Name == name {
			return true
		}
	}
	return false
}
