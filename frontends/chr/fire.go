package chr

import (
	"fmt"

	"gpuc/ir"
)

// matchRemoval emits phase C for a simplification or simpagation rule:
// each owner searches one firing, records it and claims its removed heads.
func (l *lowerer) matchRemoval(b *block, p *rulePlan, step ir.Expr) {
	b = b.at(p.r.pos)
	if p.paired {
		l.pairRemoval(b, p, step)
		return
	}
	l.ownerLoop(b, p, step, func(b *block, m *matcher, s ir.Expr, known map[*ruleVar]bool) {
		fresh := l.locals.fresh
		nf := b.decl(fresh("nf"), ir.I32, b.I32(0))
		first, last := map[*head]*ir.Var{}, map[*head]*ir.Var{}
		for _, st := range p.steps {
			first[st.h] = b.decl(fresh("f"), ir.I32, b.I32(0))
			last[st.h] = b.decl(fresh("l"), ir.I32, b.I32(0))
		}
		if p.chain == nil {
			m.stop = fresh("found")
			b.decl(m.stop, ir.Bool, b.Bool(false))
		}
		m.search(b, 0, known, func(b *block) {
			rec := b.sub()
			for _, st := range p.steps {
				rec.Set(first[st.h].Name, m.slots[st.h])
			}
			b.ifThen(b.Bin(ir.Eq, nf, b.I32(0)), rec.stmts())
			for _, st := range p.steps {
				b.Set(last[st.h].Name, m.slots[st.h])
			}
			b.Set(nf.Name, b.Bin(ir.Add, nf, b.I32(1)))
			if m.stop != "" {
				b.Set(m.stop, b.Bool(true))
			}
			if p.chain != nil {
				m.advanceOwner(b)
			}
		})
		found := b.sub()
		l.propose(found, m, s, step, first, last, nf)
		b.ifThen(b.Bin(ir.Gt, nf, b.I32(0)), found.stmts())
	})
}

// pairRemoval emits phase C for a rule with interchangeable heads: the
// owner of rank r, a multiple of the rule's head count k, proposes the
// firing on the constraints of ranks r+1..r+k-1 (Note [Pairing]).
func (l *lowerer) pairRemoval(b *block, p *rulePlan, step ir.Expr) {
	s := l.stores[p.owner.ct]
	k := int64(len(p.r.removed))
	l.ownerLoop(b, p, step, func(b *block, m *matcher, slot ir.Expr, _ map[*ruleVar]bool) {
		fresh := l.locals.fresh
		r := b.decl(fresh("r"), ir.I32, b.Ld(s.rank, slot))
		group := b.sub()
		nf := group.decl(fresh("nf"), ir.I32, b.I32(1))
		sel := map[*head]*ir.Var{}
		var alive ir.Expr
		for j, st := range p.steps {
			sel[st.h] = group.decl(fresh("p"), ir.I32, b.Ld(s.list, b.Bin(ir.Add, r, b.I32(int64(j+1)))))
			alive = b.And(alive, m.alive(b.Builder, st.h, sel[st.h]))
		}
		found := group.sub()
		l.propose(found, m, slot, step, sel, sel, nf)
		group.ifThen(alive, found.stmts())
		b.ifThen(b.And(b.Bin(ir.Eq, b.Bin(ir.Rem, r, b.I32(k)), b.I32(0)),
			b.Bin(ir.Lt, b.Bin(ir.Add, r, b.I32(k-1)), b.Ld(s.count, b.I32(0)))), group.stmts())
	})
}

// advanceOwner makes the chained body constraint the owner: the body's
// is/2 goals run, and the owner's variables take the new arguments.
func (m *matcher) advanceOwner(b *block) {
	vals := m.bodyValues(b, true)
	for i, a := range m.p.owner.args {
		v := m.p.r.vars[a.(*variable).name]
		b.Set(m.vn[v], vals[m.p.chain][i])
	}
}

// bodyValues runs the body's is/2 goals and returns the argument values
// of each posted constraint (as fresh locals, so that later assignments
// to the head variables leave them alone). A speculative evaluation (a
// chained owner, Note [Indices]) divides by 1 where the divisor is 0; a
// real one raises the error SWI-Prolog would raise.
func (m *matcher) bodyValues(b *block, speculative bool) map[*post][]ir.Expr {
	vn := m.vn
	eval := vn.expr
	if speculative {
		eval = vn.speculative
	}
	out := map[*post][]ir.Expr{}
	for _, g := range m.p.r.goals {
		switch g := g.(type) {
		case *bind:
			if !speculative {
				checkDivisors(b, vn, m.p.r, g.e)
			}
			b.Set(m.vn[g.v], eval(b.Builder, g.e))
		case *post:
			for i, a := range g.args {
				t := g.ct.args[i]
				v := b.decl(m.l.locals.fresh("b"), t, b.Cast(t, eval(b.Builder, a)))
				out[g] = append(out[g], v)
			}
		}
	}
	return out
}

// checkDivisors raises an error before an integer division by zero,
// naming the rule and the position of the division.
func checkDivisors(b *block, vn varNames, r *rule, a arith) {
	op, ok := a.(*aOp)
	if !ok {
		return
	}
	for _, x := range op.args {
		checkDivisors(b, vn, r, x)
	}
	if intOnly[op.op] {
		msg := fmt.Sprintf("%s: in %s: arithmetic: evaluation error: zero_divisor", op.pos, r.label())
		ob := b.At(op.pos)
		b.ifThen(ob.Bin(ir.Eq, vn.expr(ob, op.args[1]), ob.I64(0)), []ir.Stmt{&ir.Raise{Pos: op.pos, Msg: msg}})
	}
}

// propose chooses the firing to propose (Note [Indices]), records it and
// claims its removed heads.
func (l *lowerer) propose(b *block, m *matcher, s, step ir.Expr, first, last map[*head]*ir.Var, nf *ir.Var) {
	p := m.p
	sel := map[*head]ir.Expr{}
	for _, st := range p.steps {
		sel[st.h] = b.decl(l.locals.fresh("p"), ir.I32, first[st.h])
	}
	if p.chain != nil {
		// Re-validate the last firing with the original owner.
		check := b.sub()
		m.bindAll(check, s, last)
		ok := check.decl(l.locals.fresh("ok"), ir.Bool, orTrue(b.Builder, m.vn.tests(check.Builder, p.r.guards)))
		use := check.sub()
		for _, st := range p.steps {
			use.Set(sel[st.h].(*ir.Var).Name, last[st.h])
		}
		check.ifThen(ok, use.stmts())
		b.ifThen(b.Bin(ir.Gt, nf, b.I32(1)), check.stmts())
	}
	selVars := map[*head]*ir.Var{}
	for h, e := range sel {
		selVars[h] = e.(*ir.Var)
	}
	m.bindAll(b, s, selVars)
	b.Store(p.on, s, l.stamp)
	for _, st := range p.steps {
		b.Store(p.slots[st.h], s, sel[st.h])
	}
	for _, v := range bodyInputs(p.r) {
		b.Store(p.inputs[v], s, b.Local(m.vn[v], v.cell.find().t))
	}
	owner := l.stores[p.owner.ct]
	claim := b.decl(l.locals.fresh("claim"), ir.U64, claimValue(b.Builder, p.r.index, demotion(b.Builder, p, s), b.Bin(ir.Sub, step, b.Ld(owner.born, s)), s, step, l.round))
	b.Store(p.claim, s, claim)
	for _, h := range p.r.removed {
		slot := s
		if h != p.owner {
			slot = sel[h]
		}
		b.Atomic("", ir.AtomicMax, l.stores[h.ct].claim, slot, claim)
	}
}

// claimValue is the claim word of a firing. Its top 4 bits hold the
// claim round, so that a later round's claims exceed the stale claims of
// earlier ones; below them, higher words go to higher priority: earlier
// rules, then firings not demoted, then newer owners (smaller age), then
// an order of slots scrambled per step. Any total order keeps steps
// sequential (Note [Parallel firing]); demotion steers which firings win,
// and the scrambled order makes the winners of a contested partner spread
// over the store, so that each round commits a constant fraction of
// chained proposals rather than one.
func claimValue(b *ir.Builder, rule int, demote, age, slot, step, round ir.Expr) ir.Expr {
	const ageBits = 20
	age = b.Builtin(ir.Min, age, b.I32(1<<ageBits-1))
	prio := b.Bin(ir.Or, b.Bin(ir.Or, b.Bin(ir.Or,
		b.U64(uint64(rule)<<53),
		b.Bin(ir.Shl, b.Cast(ir.U64, demote), b.U64(52))),
		b.Bin(ir.Shl, b.Cast(ir.U64, age), b.U64(32))),
		scramble(b, slot, step))
	return b.Bin(ir.Or, b.Bin(ir.Shl, b.Cast(ir.U64, round), b.U64(60)), b.Bin(ir.Sub, b.U64(1<<60-1), prio))
}

// scramble maps a slot (below 2^31) to 32 bits, one-to-one for each step:
// a xor with the step's key and a multiply-xorshift mix, every stage a
// bijection of 32-bit words.
func scramble(b *ir.Builder, slot, step ir.Expr) ir.Expr {
	const mask = 1<<32 - 1
	m32 := func(x ir.Expr) ir.Expr { return b.Bin(ir.And, x, b.U64(mask)) }
	x := m32(b.Bin(ir.Xor, b.Cast(ir.U64, slot), b.Bin(ir.Mul, b.Cast(ir.U64, step), b.U64(0x9E3779B9))))
	x = m32(b.Bin(ir.Mul, x, b.U64(0x85EBCA6B)))
	x = b.Bin(ir.Xor, x, b.Bin(ir.Shr, x, b.U64(16)))
	x = m32(b.Bin(ir.Mul, x, b.U64(0xC2B2AE35)))
	return b.Bin(ir.Xor, x, b.Bin(ir.Shr, x, b.U64(13)))
}

// demotion is true for an owner that is itself the extremum that other
// owners of the rule keep (min(A) \ min(B) with duplicates of the least
// value): its firing would remove what all the others keep, so it
// yields to them.
func demotion(b *ir.Builder, p *rulePlan, s ir.Expr) ir.Expr {
	var d ir.Expr
	for _, st := range p.steps {
		if st.ext != nil && st.h.ct == p.owner.ct {
			d = b.And(d, b.Bin(ir.Eq, b.Cast(ir.I64, s), b.Ld(st.ext.buf, b.I32(1))))
		}
	}
	if d == nil {
		return b.Bool(false)
	}
	return d
}

// bindAll assigns every head variable from the owner slot and the given
// partner slots.
func (m *matcher) bindAll(b *block, s ir.Expr, slots map[*head]*ir.Var) {
	known := map[*ruleVar]bool{}
	m.bindHead(b, m.p.owner, s, known, false)
	for _, st := range m.p.steps {
		m.bindHead(b, st.h, slots[st.h], known, false)
	}
}

// commit emits phase D for a removal rule.
func (l *lowerer) commit(b *block, p *rulePlan, step ir.Expr) {
	owner := l.stores[p.owner.ct]
	b = b.at(p.r.pos)
	l.forListed(b, owner, func(b *block, s ir.Expr) {
		in := b.sub()
		my := in.decl(l.locals.fresh("my"), ir.U64, b.Ld(p.claim, s))
		slotOf := map[*head]ir.Expr{p.owner: s}
		for _, st := range p.steps {
			slotOf[st.h] = in.decl(l.locals.fresh("q"), ir.I32, b.Ld(p.slots[st.h], s))
		}
		var held, free ir.Expr
		for _, h := range p.r.heads() {
			hs := l.stores[h.ct]
			switch {
			case h.removed:
				held = b.And(held, b.Bin(ir.Eq, b.Ld(hs.claim, slotOf[h]), my))
			case hs.claim != "":
				free = b.And(free, b.Bin(ir.Lt, b.Ld(hs.claim, slotOf[h]), my))
			}
		}
		heldAll := in.decl(l.locals.fresh("held"), ir.Bool, held)
		fire := in.sub()
		l.countFiring(fire, p.r)
		m := l.newMatcher(fire, p, step)
		for _, v := range bodyInputs(p.r) {
			fire.Set(m.vn[v], b.Ld(p.inputs[v], s))
		}
		l.writeBody(fire, p, slotOf, m.bodyValues(fire, false), step)
		// A proposal that lost a removed head's claim may find another
		// partner in the next claim round; one blocked only by a kept head
		// that a firing of higher priority removes waits for the next step,
		// where that firing's result is visible (Note [Parallel firing]).
		lose := in.sub()
		lose.Atomic("", ir.AtomicAdd, l.lost, b.I32(0), b.I64(1))
		in.ifThen(b.And(heldAll, free), fire.stmts())
		in.ifThen(b.Not(heldAll), lose.stmts())
		b.ifThen(b.Bin(ir.Eq, b.Ld(p.on, s), l.stamp), in.stmts())
	})
}

// bodyInputs lists the head variables that a rule's body reads, in a
// fixed order.
func bodyInputs(r *rule) []*ruleVar {
	used := map[*ruleVar]bool{}
	for _, g := range r.goals {
		switch g := g.(type) {
		case *bind:
			markVars(g.e, used)
		case *post:
			for _, a := range g.args {
				markVars(a, used)
			}
		}
	}
	var out []*ruleVar
	for _, name := range sortedVars(r) {
		if v := r.vars[name]; used[v] && v.is == nil {
			out = append(out, v)
		}
	}
	return out
}

func markVars(a arith, used map[*ruleVar]bool) {
	switch a := a.(type) {
	case *aVar:
		used[a.v] = true
	case *aOp:
		for _, x := range a.args {
			markVars(x, used)
		}
	}
}

// countFiring adds one firing to the rule's count and the total.
func (l *lowerer) countFiring(b *block, r *rule) {
	b.Atomic("", ir.AtomicAdd, l.fired, b.I32(int64(r.index)), b.I64(1))
	b.Atomic("", ir.AtomicAdd, l.fired, b.I32(int64(len(l.prog.rules))), b.I64(1))
}

// writeBody adds a committed firing's constraints, refilling removed
// heads' slots of the same type in place, and frees the other removed
// heads.
func (l *lowerer) writeBody(b *block, p *rulePlan, slotOf map[*head]ir.Expr, vals map[*post][]ir.Expr, step ir.Expr) {
	free := append([]*head(nil), p.r.removed...)
	for _, g := range p.r.goals {
		pg, ok := g.(*post)
		if !ok {
			continue
		}
		reused := false
		for i, h := range free {
			if h.ct == pg.ct {
				l.writeConstraint(b, pg.ct, slotOf[h], vals[pg], step)
				free = append(free[:i], free[i+1:]...)
				reused = true
				break
			}
		}
		if !reused {
			l.allocate(b, p.r, pg, vals[pg], step)
		}
	}
	for _, h := range free {
		b.Store(l.stores[h.ct].state, slotOf[h], b.I32(0))
	}
}

// writeConstraint fills a slot with a constraint visible from the next
// step.
func (l *lowerer) writeConstraint(b *block, ct *ctype, slot ir.Expr, vals []ir.Expr, step ir.Expr) {
	s := l.stores[ct]
	for i, v := range vals {
		b.Store(s.args[i], slot, v)
	}
	b.Store(s.born, slot, b.Bin(ir.Add, step, b.I32(1)))
	b.Store(s.state, slot, b.I32(1))
}

// Note [Store tops]
//
// A store hands out slots from a counter, and a slot past CAP raises
// "constraint store full". The counter that the adds advance (taken)
// passes CAP where the store is full: each thread that finds it full
// has added one before it raises, and on the GPU the others go on. So
// the adds go to taken, and top, which every loop over the store
// reads, is raised to the slot's end by an atomic maximum only after
// the check passed: top never exceeds CAP, a checked fact (`bound`,
// Note [Bounded buffers] in package ir) for the termination analysis.
// Slots are the same as with one counter, and at each barrier top
// equals taken in every run that has not raised (the slots below
// taken are all handed out, each below CAP); within a step a reader
// of top already saw slots whose constraints were not written yet,
// and those are born in the next step. The region starts taken at top,
// which the host sets or an input file gives (Note [Input stores]); an
// input top is no scratch buffer, and `--input` drops its bound, since
// no write checked the file's value (package driver).

// allocate takes a new slot (Note [Store tops]), raising an error when
// the store is full, and fills it.
func (l *lowerer) allocate(b *block, r *rule, pg *post, vals []ir.Expr, step ir.Expr) {
	ct := pg.ct
	s := l.stores[ct]
	slot := b.decl(l.locals.fresh("a"), ir.I32, b.I32(0))
	b.Atomic(slot.Name, ir.AtomicAdd, s.taken, b.I32(0), b.I32(1))
	b.ifThen(b.Bin(ir.Ge, slot, s.capRef(b.Builder)), []ir.Stmt{&ir.Raise{Pos: pg.pos,
		Msg: fmt.Sprintf("%s: in %s: constraint store full: more than %s %s constraints (set %s=N for a larger store)", pg.pos, r.label(), s.cap, ct, s.cap)}})
	b.Atomic("", ir.AtomicMax, s.top, b.I32(0), b.Bin(ir.Add, slot, b.I32(1)))
	l.writeConstraint(b, ct, slot, vals, step)
}

// matchPropagation emits phase E for one semi-naive plan of a
// propagation rule: every combination fires.
func (l *lowerer) matchPropagation(b *block, p *rulePlan, step ir.Expr) {
	b = b.at(p.r.pos)
	l.ownerLoop(b, p, step, func(b *block, m *matcher, _ ir.Expr, known map[*ruleVar]bool) {
		m.search(b, 0, known, func(b *block) {
			l.countFiring(b, p.r)
			vals := m.bodyValues(b, false)
			for _, g := range p.r.goals {
				if pg, ok := g.(*post); ok {
					l.allocate(b, p.r, pg, vals[pg], step)
				}
			}
		})
	})
}
