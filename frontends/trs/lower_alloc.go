package trs

import (
	"fmt"

	"gpuc/ir"
)

// Note [One allocation site]
//
// A step rewrites a slot in three stages, each once per turn of the
// slot's loop (rewriteSlot). The match stage, a switch on the head with
// the rules of each symbol in file order, finds the first rule that
// applies and writes down which (the local rule) and how many new slots
// its right-hand side needs (need); in a world, also the slots of the
// bound subterms that the right-hand side uses (the binding registers b0,
// b1, ...). Then one site takes need slots from the fresh counter and the
// free ring (Note [Fresh slots first]). Then the build stage, a switch
// on rule (on one device, of the rules that need slots: Note [Rules that
// need no slots]), reads the bound subterms' slots anew from the root's argument
// registers along the left-hand side's paths (on one device: no one
// writes a slot below the root in the phase, as they are in normal form),
// moves the references (the rule's constants: those it adds to each bound
// subterm, and how each argument of the root changes its count: -1 drops
// the reference, 0 moves it, as f(X) -> g(X) does, more adds to it),
// names the new slots (the first nf_a fresh from fb_a on, the rest from
// the ring at rb_a), writes the right-hand side into them and sets the
// new root.
//
// Until wave 9 the match stage also wrote the counts into locals (bc0,
// ..., rd0, ...) that the site read, and the binding registers on one
// device too: every local that a rule's case sets is a value merged after
// the switch, and on the CPU (clang -O2) each turn stored some sixty
// constants to the stack, before the switch and in each case, for about
// half of sieve1000's time. With the counts as constants of the build
// stage's cases, the slots read anew there, and the garbage's locals
// declared once (Note [One processor's garbage]), sieve1000's CPU twin
// takes 200 ms rather than 450 and dart's 10 rather than 20
// (docs/BENCHMARKS.md, the CPU twin's speed).
//
// Before, every rule inlined its own allocator, four warp-combined
// atomics and the overflow flag, and its own reference counting: trs_step
// of REC's benchexpr20 was 7,186 lines of CUDA, which ptxas took minutes
// over, and a file of 250,000 WST rules lowered to 2.3 KB of IR a rule,
// now 0.9 KB (docs/BENCHMARKS.md, "One allocation site"). Now the
// allocator appears once per step, and threads of a warp that rewrite by
// different rules meet there, so that one warp-combined atomic can serve
// them all; each rule's case keeps only its few reference counts, one
// atomic on a slot each, which no two threads share anyway.
//
// Every thread makes the same atomics in the same order as before: the
// allocation's, then the added references, then the dropped ones; only
// the writes to its new slots, which no one else reads in the phase
// (Note [Phases]), come after the counting rather than before. A store
// that is full leaves the slot as it was and ends the walk (outStop), as
// before. Rewrite counts, the trace and the output do not change.
//
// In a world (Note [TRS on several devices]) the site takes slots in
// groups: group 0 on the calling device, and group j+1, for the j-th
// pending new argument of a root with m >= 2 of them (a fork), on the
// first device of the j-th of m parts of the slot's device range. The
// match stage sets need and need_j, the groups' sizes, and nfork, m or
// 0; the site holds one allocator per group index, up to the most forks
// of any rule, not one per rule.

// Note [Rules that need no slots]
//
// On one device, a rule whose right-hand side needs no new slot (a head
// that changes in place, f(X) -> g(X), or a collapse to a bound
// subterm) is built in its match case, where it is found, and has no case
// in the build stage: with nothing to allocate, a second switch, on the
// rule, cost it a jump through a table more per rewrite. transtree's
// rewrites are mostly such (25 of 27 per node), and after the one site
// its rewriting kernels took 22.6 ms where they had taken 20.2 (one
// H100, --checks=off, 2026-11-26 18:40). The site and the build stage
// are skipped where need is 0, as they did nothing there. The same
// statements run in the same order per thread, so rewrite counts, the
// trace and the output do not change. A world's rules keep the build stage: their binding
// registers and fork groups are the site's.

// stepAlloc is what the match stage of trs_step has handed the
// allocation site and the build stage.
type stepAlloc struct {
	plans []*rulePlan
	binds int // binding registers
	forks int // in a world, the most fork groups of any rule
}

// rulePlan is the build stage's view of a rule that applies: its bound
// subterms read from the binding registers, its new ones from the slots
// that the site took.
type rulePlan struct {
	ms      *matchState
	news    []*newTerm
	groups  [][]*newTerm // 0: the caller's; in a world, j+1 fork j's
	adds    []int64      // the references added to binding register i
	delta   []int64      // how the count of the root's argument a changes
	reads   []*ir.Decl   // one processor's store: the bound slots, read anew
	inCase  bool         // built in its match case (Note [Rules that need no slots])
	inPlace *inPlace     // one processor's reuse of a dropped argument (Note [Reuse in place])
}

// Locals of the site (Note [One allocation site]).
const (
	lRule  = "rule"  // the rule that applies, or -1
	lNeed  = "need"  // new slots it needs (group 0's in a world)
	lNFork = "nfork" // in a world: the rule's forks, m or 0
	siteAt = "_a"    // the tag of the site's locals
)

func bindReg(i int) string { return fmt.Sprintf("b%d", i) }
func needOf(j int) string  { return fmt.Sprintf("%s_%d", lNeed, j) }
func forkTag(j int) string { return fmt.Sprintf("%s_%d", siteAt, j) }

// groupTag and groupNeed are group g's locals at the site.
func groupTag(g int) string {
	if g == 0 {
		return siteAt
	}
	return forkTag(g - 1)
}

func groupNeed(g int) string {
	if g == 0 {
		return lNeed
	}
	return needOf(g - 1)
}

// rewriteStages emits one turn of the rewrite of slot t: the match
// stage, the allocation site and the build stage (Note [One allocation
// site]). It breaks out of the turn's loop where no rule applies or the
// store is full.
func (l *lowerer) rewriteStages(b *fn) {
	sa := &stepAlloc{}
	b.Local(lRule, ir.I32)
	b.Local(lNeed, ir.I32)
	if l.world {
		b.Local(lNFork, ir.I32)
	}
	sw := &ir.Switch{Pos: b.Pos, X: b.V("h")}
	for _, sym := range l.sys.Syms {
		if !sym.Defined() {
			continue
		}
		sw.Cases = append(sw.Cases, &ir.Case{Pos: sym.Pos, Values: []int64{int64(sym.Index)}, Body: b.Nest(func() { l.rewriteSym(b, sa, sym) })})
	}
	b.Pos = l.pos
	b.Decl(lRule, ir.I32, b.I32(-1))
	b.Decl(lNeed, ir.I32, b.I32(0))
	if l.world {
		b.Decl(lNFork, ir.I32, b.I32(0))
		for j := 0; j < sa.forks; j++ {
			b.Decl(needOf(j), ir.I32, b.I32(0))
		}
	}
	for i := 0; i < sa.binds; i++ {
		b.Decl(bindReg(i), l.id, b.S(0))
	}
	inPlace := anyInPlace(sa)
	if inPlace {
		b.Decl(lInPlace, ir.I32, b.I32(0)) // Note [Reuse in place]
	}
	if len(sw.Cases) > 0 {
		b.Emit(sw)
	}
	b.If(b.Lt(b.V(lRule), b.I32(0)), func() { b.Break() })
	siteAndBuild := func() {
		var ok ir.Expr
		if l.world {
			ok = l.allocWorld(b, sa)
		} else {
			// On one processor, the first slots come from the garbage of the
			// phase (Note [One processor's garbage]); the site takes the rest.
			most := int64(0)
			for _, p := range sa.plans {
				most = max(most, int64(len(p.news)))
			}
			need := b.V(lNeed)
			if inPlace {
				need = b.Sub(need, inPlaceTaken(b))
			}
			reused := l.takeGarbage(b, siteAt, most, need)
			ok = l.alloc(b, siteAt, b.Sub(ir.CloneExpr(need), reused), nil)
		}
		b.If(b.Not(ok), func() {
			b.Set("out", b.I32(outStop)) // the store is full: the slot stays as it is
			b.Break()
		})
		build := &ir.Switch{Pos: b.Pos, X: b.V(lRule)}
		for _, p := range sa.plans {
			if p.inCase {
				continue
			}
			build.Cases = append(build.Cases, &ir.Case{Pos: p.ms.rule.Pos, Values: []int64{int64(p.ms.rule.Index)}, Body: b.Nest(func() {
				b.Pos = p.ms.rule.Pos
				if p.inPlace == nil {
					l.build(b, p)
					return
				}
				b.IfElse(b.And(b.V("one"), b.Ne(b.V(lInPlace), b.I32(0))), func() { l.buildInPlace(b, p) }, func() { l.build(b, p) })
			})})
		}
		b.Pos = l.pos
		if len(build.Cases) > 0 {
			b.Emit(build)
		}
	}
	if l.world {
		siteAndBuild()
	} else {
		// Only the rules that need slots come this way (Note [Rules that
		// need no slots]).
		b.If(b.Lt(b.I32(0), b.V(lNeed)), siteAndBuild)
	}
	b.Set("n", b.Add(b.V("n"), b.I32(1)))
}

// pick is the match stage's end for a rule that matched: it writes down
// the rule, its need, the bound subterms its right-hand side uses and
// the references it moves, and leaves the rule loop.
func (l *lowerer) pick(b *fn, sa *stepAlloc, ms *matchState) {
	r := ms.rule
	p := &rulePlan{ms: &matchState{rule: r, vars: map[*Var]ir.Expr{}, direct: map[*Var]int{}}}
	_, uses := ms.uses()
	delta := make([]int64, len(r.LHS.Args))
	for a := range delta {
		delta[a] = -1
	}
	b.Set(lRule, b.I32(int64(r.Index)))
	for i, key := range ms.keys() {
		slot, root, _, _ := ms.boundKey(key)
		name := bindReg(i)
		if path := ms.from[key]; l.world || path == nil {
			b.Local(name, l.id)
			b.Set(name, ir.CloneExpr(slot))
			sa.binds = max(sa.binds, i+1)
			p.reads = append(p.reads, nil)
		} else {
			// Read anew in the build stage (Note [One allocation site]).
			name = fmt.Sprintf("c%d_%d", r.Index, i)
			p.reads = append(p.reads, &ir.Decl{Pos: b.Pos, Name: name, T: l.id, Init: ir.CloneExpr(path)})
			b.Local(name, l.id)
		}
		switch k := key.(type) {
		case *Var:
			p.ms.vars[k] = b.V(name)
			if root >= 0 {
				p.ms.direct[k] = root
			}
		case *Term:
			p.ms.subs = append(p.ms.subs, boundSub{t: k, slot: b.V(name), root: root})
		}
		p.adds = append(p.adds, 0)
		if root >= 0 {
			delta[root] += uses[key]
		} else {
			p.adds[i] = uses[key]
		}
	}
	p.delta = delta
	if _, _, _, collapse := p.ms.bound(r.RHS); !collapse {
		for _, a := range r.RHS.Args {
			p.ms.collectNew(a, &p.news)
		}
	}
	p.groups = [][]*newTerm{p.news}
	if l.world {
		p.groups = l.forkGroups(p)
		sa.forks = max(sa.forks, len(p.groups)-1)
		if len(p.groups) > 1 {
			b.Set(lNFork, b.I32(int64(len(p.groups)-1)))
		}
	}
	for g, nts := range p.groups {
		if len(nts) > 0 {
			b.Local(groupNeed(g), ir.I32)
			b.Set(groupNeed(g), b.I32(int64(len(nts))))
		}
	}
	l.planInPlace(p, ms)
	l.decideInPlace(b, p)
	sa.plans = append(sa.plans, p)
	if !l.world && len(p.news) == 0 {
		// Note [Rules that need no slots]
		p.inCase = true
		at := b.Pos
		b.Pos = r.Pos
		l.build(b, p)
		b.Pos = at
	}
	b.Break()
}

// build is the build stage of the picked rule p on one device: it reads
// its bound subterms anew, moves the references, and writes the right-hand
// side into the slots the site took (Note [One allocation site]).
func (l *lowerer) build(b *fn, p *rulePlan) {
	for _, d := range p.reads {
		if d != nil {
			b.Emit(d)
		}
	}
	l.moveRefs(b, p)
	for g, nts := range p.groups {
		if len(nts) == 0 {
			continue // takes none
		}
		var dev ir.Expr
		if g > 0 {
			dev = b.V("dv" + groupTag(g))
		}
		l.takeSlots(b, groupTag(g), fmt.Sprintf("%d_%d", p.ms.rule.Index, g), nts, dev)
	}
	l.writeNew(b, p.ms, p.news)
	l.setRoot(b, p.ms, p.news)
}

// moveRefs adds the references that the picked rule p's right-hand
// side makes to the slots of its bound subterms (variables and copies of
// matched subterms), then drops the old root's references to its
// arguments, in the build stage's case of p, where the counts are
// constants of the rule (Note [One allocation site]). A bound
// subterm that is an argument of the root moves its reference instead:
// f(X) -> g(X) changes no count.
func (l *lowerer) moveRefs(b *fn, p *rulePlan) {
	l.moveRefsAs(b, p, p.adds, -1, func(i int) ir.Expr { return p.bind(b, i) })
}

// moveRefsAs is moveRefs with adds[i] added to binding register i (read
// by bind) and the root's argument keep, if not -1, not released (Note
// [Reuse in place]).
func (l *lowerer) moveRefsAs(b *fn, p *rulePlan, adds []int64, keep int, bind func(int) ir.Expr) {
	for i, n := range adds {
		if n > 0 {
			l.addRef(b, bind(i), b.I32(n))
		}
	}
	for a, d := range p.delta {
		if d > 0 {
			l.addRef(b, b.V(l.regs()[a]), b.I32(d))
		}
	}
	for a, d := range p.delta {
		if d < 0 && a != keep {
			b.Call("trs_release", b.V(l.regs()[a]), b.V("k"))
		}
	}
}

// bind reads the slot of p's i-th bound subterm.
func (p *rulePlan) bind(b *fn, i int) ir.Expr {
	if p.reads[i] != nil {
		return b.V(p.reads[i].Name)
	}
	return b.V(bindReg(i))
}

// keys lists the bound subterms (variables and copies of matched
// subterms) that the right-hand side refers to: the whole right-hand
// side if it is one, else as uses orders them.
func (ms *matchState) keys() []any {
	if _, _, key, collapse := ms.bound(ms.rule.RHS); collapse {
		return []any{key}
	}
	order, _ := ms.uses()
	return order
}

// uses lists the bound subterms that a right-hand side other than a bound
// one refers to below its root, in order of first use, with the
// references it makes to each.
func (ms *matchState) uses() ([]any, map[any]int64) {
	r := ms.rule
	uses := map[any]int64{}
	var order []any
	if _, _, _, collapse := ms.bound(r.RHS); collapse {
		return nil, uses
	}
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
	for _, a := range r.RHS.Args {
		count(a)
	}
	return order, uses
}

// boundKey is bound for a key of uses.
func (ms *matchState) boundKey(key any) (slot ir.Expr, root int, k any, ok bool) {
	switch k := key.(type) {
	case *Var:
		return ms.bound(&Term{Var: k})
	case *Term:
		return ms.bound(k)
	}
	return nil, -1, nil, false
}

// alloc is the allocation site: it reserves need slots (an i32 of the
// match stage) from the fresh counter and the free ring in the order
// FRESH asks for (Note [Fresh slots first]), with one atomic add on each
// that it uses, and none where need is 0. It returns a local that is
// false if the store is full, having set the overflow flag; takeSlots
// then names the slots.
//
// In a world, dev is the device whose store the slots come from (the
// calling device's if nil), and the locals' names end in tag.
func (l *lowerer) alloc(b *fn, tag string, need ir.Expr, dev ir.Expr) ir.Expr {
	name := func(base string) string { return base + tag }
	counter := l.allocCounter(b, dev)
	capacity := func() ir.Expr { return l.allocCapacity(b) }
	favail := b.V("favail")
	if l.world && dev != nil {
		// Another device's ring, as the phase began there.
		favail = b.Sub(b.Ld("free", counter(frTail)), b.Ld("free", counter(frHead0)))
	}
	fb, nf, rb, nr, ok := name("fb"), name("nf"), name("rb"), name("nr"), name("ok")
	b.Decl(fb, ir.I64, b.I64(0))
	b.Decl(nf, ir.I32, b.I32(0))
	b.Decl(rb, ir.I64, b.I64(0))
	b.Decl(nr, ir.I32, b.I32(0))
	b.Decl(ok, ir.Bool, b.Bool(true))
	m := func() ir.Expr { return ir.CloneExpr(need) }
	// take(n, counter, at, end, base, got): up to n slots from positions
	// counter[at] to end, the first at base.
	take := func(n ir.Expr, buf string, at int64, end ir.Expr, base, got string) {
		b.Atomic(base, ir.AtomicAdd, buf, counter(at), b.Conv(ir.I64, n))
		b.Set(got, b.Conv(ir.I32, b.Min(b.Max(b.Sub(end, b.V(base)), b.I64(0)), b.Conv(ir.I64, ir.CloneExpr(n)))))
	}
	fresh := func(n ir.Expr) { take(n, "nfresh", 0, capacity(), fb, nf) }
	ring := func(n ir.Expr) {
		b.If(b.Lt(b.I64(0), ir.CloneExpr(favail)), func() { take(n, "free", frHead, b.Ld("free", counter(frTail)), rb, nr) })
	}
	short := func() ir.Expr { return b.Lt(b.Add(b.V(nf), b.V(nr)), m()) }
	b.If(b.Lt(b.I32(0), m()), func() {
		b.IfElse(b.Ne(b.P(pFresh), b.I32(0)), func() {
			b.If(b.Lt(b.Ld("nfresh", counter(1)), capacity()), func() { fresh(m()) })
			b.If(short(), func() { ring(b.Sub(m(), b.V(nf))) })
		}, func() {
			ring(m())
			b.If(short(), func() { fresh(b.Sub(m(), b.V(nr))) })
		})
		b.If(short(), func() {
			b.Atomic("", ir.AtomicOr, "status", b.ctr(b.I32(stOverflow)), b.I32(ovFull))
			b.Set(ok, b.Bool(false))
		})
	})
	return b.V(ok)
}

// allocCounter is word j of the allocating device's counters: dev's, or
// the calling device's if dev is nil.
func (l *lowerer) allocCounter(b *fn, dev ir.Expr) func(j int64) ir.Expr {
	return func(j int64) ir.Expr {
		if dev == nil {
			return b.ctr(b.I32(j))
		}
		return b.ctrOf(ir.CloneExpr(dev), b.I32(j))
	}
}

// allocCapacity is the slots of one device's store.
func (l *lowerer) allocCapacity(b *fn) ir.Expr {
	if l.world {
		return b.Conv(ir.I64, b.per())
	}
	return b.Conv(ir.I64, b.P(pCapacity))
}

// takeSlots declares the slot locals of the new subterms news, which the
// site's group with locals tagged tag has taken (from dev's store, the
// calling device's if nil): the fresh ones first, then those from the
// ring. The locals' names end in rtag.
func (l *lowerer) takeSlots(b *fn, tag, rtag string, news []*newTerm, dev ir.Expr) {
	on := func() ir.Expr {
		if dev == nil {
			return b.Builtin(ir.DeviceID)
		}
		return ir.CloneExpr(dev)
	}
	fb, nf, rb := b.V("fb"+tag), b.V("nf"+tag), b.V("rb"+tag)
	// reused: the slots taken from the garbage first, on one processor
	// (Note [One processor's garbage]); slot j is then the (j-reused)-th
	// of the site's.
	garbage := !l.world && dev == nil
	var reused ir.Expr = b.I32(0)
	if garbage {
		reused = b.V("gn" + tag)
	}
	for j, nt := range news {
		jj := b.Sub(b.I32(int64(j)), ir.CloneExpr(reused))
		fromFresh := b.Conv(l.id, b.Add(ir.CloneExpr(fb), b.Conv(ir.I64, jj)))
		at := b.Rem(b.Add(ir.CloneExpr(rb), b.Conv(ir.I64, b.Sub(ir.CloneExpr(jj), ir.CloneExpr(nf)))), l.allocCapacity(b))
		if l.world {
			fromFresh = b.slotOn(on(), fromFresh)
			at = b.slotOn(on(), b.Conv(l.id, at))
		}
		ring := b.Ld("fl", at)
		if l.world {
			ring = b.slotOn(on(), b.Conv(l.id, ring))
		}
		slot := b.Sel(b.Lt(ir.CloneExpr(jj), ir.CloneExpr(nf)), fromFresh, ring)
		if garbage {
			slot = b.Sel(b.Lt(b.I32(int64(j)), ir.CloneExpr(reused)), b.V(garbageLocal(tag, j)), slot)
		}
		nt.slot = b.Decl(fmt.Sprintf("t%s_%d", rtag, j), l.id, slot)
	}
}
