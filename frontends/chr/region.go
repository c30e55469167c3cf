package chr

import (
	"fmt"
	"slices"

	"gpuc/ir"
)

// defaultMaxSteps is the default of MAXSTEPS, the parameter that bounds
// the fixpoint loop; steps count in i32.
const defaultMaxSteps = 1 << 30

// regionBody builds the fixpoint loop (Note [Parallel firing]).
func (l *lowerer) regionBody() []ir.Stmt {
	b := newBlock(l.m, l.pos).at(l.prog.qpos)
	l.copyQuery(b)
	b.Barrier(true)
	step := b.decl(l.locals.fresh("step"), ir.I32, b.I32(0))
	l.stamp = b.decl(l.locals.fresh("stamp"), ir.I32, b.I32(0))
	// go last: the host-loops pass makes step and stamp host variables,
	// and a device piece just before the loop computes its condition
	// there and at the end of each step, with no launch of its own (Note
	// [Host loops]).
	goOn := b.decl(l.locals.fresh("go"), ir.Bool, b.Bool(true))
	body := b.sub()
	body.Set(step.Name, b.Bin(ir.Add, step, b.I32(1)))
	body.ifThen(b.Bin(ir.Gt, step, b.P(l.maxSteps)), []ir.Stmt{&ir.Raise{Pos: l.pos,
		Msg: fmt.Sprintf("no fixpoint after %s steps (set %s=N to allow more)", l.maxSteps, l.maxSteps)}})
	total := b.Ld(l.fired, b.I32(int64(len(l.prog.rules))))
	before := body.decl(l.locals.fresh("before"), ir.I64, total)
	l.phaseA(body)
	l.phaseB(body)
	l.claimRounds(body, step)
	for _, p := range l.plans {
		if p.delta >= 0 {
			l.matchPropagation(body, p, step)
		}
	}
	body.Barrier(true)
	body.Set(goOn.Name, b.Bin(ir.Ne, b.Ld(l.fired, b.I32(int64(len(l.prog.rules)))), before))
	b.while(goOn, body.stmts())
	b.ifThen(b.Bin(ir.Eq, b.Builtin(ir.ProcID), b.I32(0)), []ir.Stmt{
		&ir.Store{Pos: l.pos, Buf: l.steps, Index: b.I32(0), Value: b.Cast(ir.I64, step)},
		&ir.Store{Pos: l.pos, Buf: l.steps, Index: b.I32(1), Value: b.Cast(ir.I64, l.stamp)}})
	return b.stmts()
}

// outputRegion is the region that packs and sorts the final stores, with
// outputProcs processors (Note [Output]).
func (l *lowerer) outputRegion() ir.Stmt {
	b := newBlock(l.m, l.pos)
	l.compact(b)
	return &ir.Region{Pos: l.pos, Procs: l.outputProcs(b.Builder), Body: b.stmts()}
}

// outputProcs is the processor count of the output's regions:
// min(PROCS, maxOutputProcs) (Note [Output]).
func (l *lowerer) outputProcs(b *ir.Builder) ir.Expr {
	return b.Builtin(ir.Min, b.P(l.procs), b.I32(maxOutputProcs))
}

// maxOutputProcs bounds the processors of the output's regions: 2^16,
// which an H100 or H200 holds as one cooperative kernel (2^16 of its
// 270,336 threads) with room for the register use of a sort over several
// stores (Note [Output]).
const maxOutputProcs = 1 << 16

// compact packs each store's live constraints into its packed arrays on
// the device and sorts an index of them in the standard order of terms
// (Note [Output]), so that the host copies back only what it prints, in
// the order it prints it. The live buffer holds [live count, packing
// cursor, unsorted flag]. A store with no dead slot below its top packs
// in slot order, and one whose packed constraints are already in order
// (Floyd-Warshall's edges, read in order and refilled in place) skips
// the sorting network: its log2(n)^2/2 passes over the store cost more
// than the fixpoint of a dense store.
func (l *lowerer) compact(b *block) {
	tops := map[*store]ir.Expr{}
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		b := b.at(ct.pos)
		tops[s] = b.Builtin(ir.Min, b.Ld(s.top, b.I32(0)), s.capRef(b.Builder))
		l.forSlots(b, tops[s], func(b *block, i ir.Expr) {
			count := b.sub()
			count.Atomic("", ir.AtomicAdd, s.live, b.I32(0), b.I32(1))
			b.ifThen(b.Bin(ir.Eq, b.Ld(s.state, i), b.I32(1)), count.stmts())
		})
	}
	b.Barrier(true)
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		b := b.at(ct.pos)
		dense := b.Bin(ir.Eq, b.Ld(s.live, b.I32(0)), tops[s])
		l.forSlots(b, tops[s], func(b *block, i ir.Expr) {
			in := b.sub()
			at := in.decl(l.locals.fresh("at"), ir.I32, i)
			next := in.sub()
			next.Atomic(at.Name, ir.AtomicAdd, s.live, b.I32(1), b.I32(1))
			in.ifThen(b.Not(dense), next.stmts())
			for k := range s.args {
				in.Store(s.packed[k], at, s.arg(b.Builder, k, i))
			}
			b.ifThen(b.Bin(ir.Eq, b.Ld(s.state, i), b.I32(1)), in.stmts())
		})
	}
	b.Barrier(true)
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		b := b.at(ct.pos)
		if ct.arity == 0 {
			continue
		}
		l.forSlots(b, b.Bin(ir.Sub, b.Ld(s.live, b.I32(0)), b.I32(1)), func(b *block, i ir.Expr) {
			up := b.sub()
			up.Atomic("", ir.AtomicMax, s.live, b.I32(2), b.I32(1))
			b.ifThen(s.packedLess(b.Builder, b.Bin(ir.Add, i, b.I32(1)), i), up.stmts())
		})
	}
	b.Barrier(true)
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		b := b.at(ct.pos)
		if ct.arity == 0 {
			continue
		}
		live := b.decl(l.locals.fresh("live_"+s.base), ir.I32, b.Ld(s.live, b.I32(0)))
		b.ifThen(b.Bin(ir.Gt, live, b.I32(1<<30)), []ir.Stmt{&ir.Raise{Pos: b.Pos,
			Msg: fmt.Sprintf("more than 2^30 live %s constraints to sort for output", ct)}})
		unsorted := b.Bin(ir.Ne, b.Ld(s.live, b.I32(2)), b.I32(0))
		grow := b.decl(l.locals.fresh("grow_"+s.base), ir.I32, b.I32(1))
		b.while(b.And(unsorted, b.Bin(ir.Lt, grow, live)), []ir.Stmt{&ir.Assign{Pos: b.Pos, Name: grow.Name, Value: b.Bin(ir.Mul, grow, b.I32(2))}})
		// At most 2^30, since live is: the clamp states it for the kernels
		// that read the size from a spill (Note [Bounded spills]).
		size := b.decl(l.locals.fresh("size_"+s.base), ir.I32, b.Builtin(ir.Max, b.Builtin(ir.Min, grow, b.I32(1<<30)), b.I32(0)))
		l.forSlots(b, b.Builtin(ir.Max, size, live), func(b *block, i ir.Expr) {
			b.Store(s.order, i, b.Sel(b.Bin(ir.Lt, i, live), i, b.I32(-1)))
		})
		b.Barrier(true)
		b.Emit(ir.SortNetwork(b.Pos, s.order, size, func(x, y ir.Expr) ir.Expr { return s.packedLess(b.Builder, x, y) }, l.locals.fresh)...)
	}
}

// packedLess tells whether packed constraint x sorts strictly before
// packed constraint y: argument by argument, by value.
func (s *store) packedLess(b *ir.Builder, x, y ir.Expr) ir.Expr {
	var less ir.Expr = b.Bool(false)
	for a := len(s.packed) - 1; a >= 0; a-- {
		xa, ya := b.Ld(s.packed[a], x), b.Ld(s.packed[a], y)
		less = b.Bin(ir.LogOr, b.Bin(ir.Lt, xa, ya), b.And(b.Bin(ir.Eq, xa, ya), less))
	}
	return less
}

// maxRounds bounds the claim rounds of a step: claim words hold the round
// in 4 bits. The ROUNDS parameter lowers the bound (1 gives one claim
// round per step).
const maxRounds = 15

// rounds emits phases C and D as claim rounds (Note [Parallel firing]):
// each round matches and commits; owners that lost, or whose partners
// were taken, search again among the constraints still alive, until a
// round has no losing proposal or maxRounds have run.
func (l *lowerer) claimRounds(b *block, step ir.Expr) {
	removal := false
	for _, p := range l.plans {
		removal = removal || p.delta < 0
	}
	if !removal {
		return
	}
	l.round = b.decl(l.locals.fresh("round"), ir.I32, b.I32(0))
	round := func(body *block) {
		body.Set(l.round.Name, b.Bin(ir.Add, l.round, b.I32(1)))
		body.Set(l.stamp.Name, b.Bin(ir.Add, l.stamp, b.I32(1)))
		for _, p := range l.plans {
			if p.delta < 0 {
				l.matchRemoval(body, p, step)
			}
		}
		body.Barrier(true)
		for _, p := range l.plans {
			if p.delta < 0 {
				l.commit(body, p, step)
			}
		}
		body.Barrier(true)
	}
	l.retry = l.contended()
	if !l.retry {
		round(b)
		return
	}
	more := b.decl(l.locals.fresh("more"), ir.Bool, b.Bool(true))
	lost := b.Ld(l.lost, b.I32(0))
	seen := b.decl(l.locals.fresh("lost"), ir.I64, lost)
	body := b.sub()
	round(body)
	// The live constraints of the step only shrink over its rounds, so an
	// owner that proposed nothing finds nothing later: another round can
	// fire only if a proposal lost. The count of losers only grows, and
	// only phase D adds to it, so reading it here races with nothing.
	limit := b.Builtin(ir.Min, b.P(l.rounds), b.I32(maxRounds))
	body.Set(more.Name, b.And(b.Bin(ir.Ne, lost, seen), b.Bin(ir.Lt, l.round, limit)))
	body.Set(seen.Name, lost)
	b.while(more, body.stmts())
}

// contended tells whether proposals of different owners may claim the
// same removed constraint, which only claim rounds after the first can
// make up for (Note [Parallel firing]). It is decided from the rules: a
// proposal claims its owner, and a partner only for a removed head other
// than the owner; partners by rank (Note [Pairing]) are claimed by one
// group each, unless another rule removes their type too. Proposals of
// one owner under several rules (primes' range/3 rules) do not contend:
// the earliest rule always holds the owner's claim, and when its firing
// is blocked by a kept head it waits for the next step, as every blocked
// proposal does. So Floyd-Warshall, min, gcd and primes run one claim
// round a step, with no loop and no read-back for the rounds.
func (l *lowerer) contended() bool {
	removers := map[*ctype]int{}
	for _, p := range l.plans {
		if p.delta < 0 {
			for _, ct := range removedTypes(p.r) {
				removers[ct]++
			}
		}
	}
	for _, p := range l.plans {
		if p.delta >= 0 || len(p.r.removed) == 1 {
			continue
		}
		if !p.paired || removers[p.owner.ct] > 1 {
			return true
		}
	}
	return false
}

// removedTypes lists the types of a rule's removed heads, once each.
func removedTypes(r *rule) []*ctype {
	var out []*ctype
	for _, h := range r.removed {
		if !slices.Contains(out, h.ct) {
			out = append(out, h.ct)
		}
	}
	return out
}

// Note [Live lists]
//
// Stores do not compact, so their slots below the top include every
// constraint that died. Phase B lists the slots of each owned store's
// live constraints (an atomic counter hands out places) and clears their
// claim words; the owner loops of phases C, D and E walk that list
// instead of every slot, so a step costs one pass over the slots and
// then time in proportion to the live constraints (primes' composite/1
// store has six million slots and under a million live constraints).
// Constraints made in the step are not in the list, and are not alive
// for the step anyway (Note [Parallel firing]).

// forListed emits a grid-stride loop over the listed live slots of s.
func (l *lowerer) forListed(b *block, s *store, body func(b *block, slot ir.Expr)) {
	l.forSlots(b, b.Ld(s.count, b.I32(0)), func(b *block, k ir.Expr) {
		slot := b.decl(l.locals.fresh("o"), ir.I32, b.Ld(s.list, k))
		body(b, slot)
	})
}

// forSlots emits a grid-stride loop over 0..n-1.
func (l *lowerer) forSlots(b *block, n ir.Expr, body func(b *block, slot ir.Expr)) {
	name := l.locals.fresh("i")
	i := b.Local(name, ir.I32)
	inner := b.sub()
	body(inner, i)
	b.Emit(&ir.For{Pos: b.Pos,
		Init: &ir.Decl{Pos: b.Pos, Name: name, T: ir.I32, Init: b.Builtin(ir.ProcID)},
		Cond: b.Bin(ir.Lt, i, n),
		Post: &ir.Assign{Pos: b.Pos, Name: name, Value: b.Bin(ir.Add, i, b.Builtin(ir.NumProcs))},
		Body: inner.stmts()})
}

// Note [Input stores]
//
// A store may start from input files (gpuc compile --input NAME_aK
// --input NAME_top): its argument arrays and its top, with NAME_st and
// NAME_born given too or left out. Left out, they start zeroed, and a
// slot below the top whose birth is 0 holds a constraint of the input:
// the region makes it alive, born at step 1, before the query's
// constraints are copied in. No slot that a program fills has birth 0
// (the query's and the input's are born at 1, a body's in the next
// step), so a store read with NAME_st and NAME_born is left as it is.
// Leaving them out halves what is read and copied for a store of one
// integer argument (min over 10^8: 0.8 GB, not 1.6 GB).

// copyQuery makes the input stores' constraints alive (Note [Input
// stores]) and copies the query's constraints into the stores.
func (l *lowerer) copyQuery(b *block) {
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		b := b.at(ct.pos)
		// Allocation goes on from top, whether the host or an input set it
		// (Note [Store tops]).
		b.ifThen(b.Bin(ir.Eq, b.Builtin(ir.ProcID), b.I32(0)), []ir.Stmt{
			&ir.Store{Pos: b.Pos, Buf: s.taken, Index: b.I32(0), Value: b.Ld(s.top, b.I32(0))}})
		top := b.Builtin(ir.Min, b.Ld(s.top, b.I32(0)), s.capRef(b.Builder))
		l.forSlots(b, top, func(b *block, i ir.Expr) {
			b.ifThen(b.Bin(ir.Eq, b.Ld(s.born, i), b.I32(0)), []ir.Stmt{
				&ir.Store{Pos: b.Pos, Buf: s.state, Index: i, Value: b.I32(1)},
				&ir.Store{Pos: b.Pos, Buf: s.born, Index: i, Value: b.I32(1)}})
		})
	}
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		b := b.at(ct.pos)
		if s.query == 0 {
			continue
		}
		l.forSlots(b, b.I32(int64(s.query)), func(b *block, i ir.Expr) {
			for a, q := range s.qargs {
				b.Store(s.args[a], i, b.Ld(q, i))
			}
			b.Store(s.state, i, b.I32(1))
			b.Store(s.born, i, b.I32(1))
		})
	}
}

// phaseA takes the step's snapshot of each store and clears claims,
// index heads and extrema.
func (l *lowerer) phaseA(b *block) {
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		b := b.at(ct.pos)
		s.n = l.locals.fresh("n_" + s.base)
		// Clamped to [0, capacity], as copyQuery's top: an allocation past
		// it raised before this step, so the clamp changes nothing for a
		// program that runs, and it bounds every scan of the step for the
		// termination analysis, in the kernels that read it from a spill
		// too (Note [Bounded spills]).
		b.decl(s.n, ir.I32, b.Builtin(ir.Max, b.Builtin(ir.Min, b.Ld(s.top, b.I32(0)), s.capRef(b.Builder)), b.I32(0)))
		if len(s.indices) == 0 && !s.wide {
			// No hash table: no size to declare. A constant local
			// would become a host variable (Note [Host loops]) and cut
			// the region there, a launch more each step.
			s.hs = ""
		} else {
			s.hs = l.locals.fresh("hs_" + s.base)
			// The size grows in its own local, at most to 2^30 (past it the
			// doubling wrapped, and a store of more than 2^30 constraints never
			// ended its step), and the size is that clamped, which states the
			// range for the kernels that read it from a spill (Note [Bounded
			// spills]).
			hsg := l.locals.fresh("hsg_" + s.base)
			b.decl(hsg, ir.I32, b.I32(1))
			hs := b.Local(hsg, ir.I32)
			if len(s.indices) > 0 && !s.wide {
				b.while(b.And(b.Bin(ir.Lt, hs, s.nRef(b.Builder)), b.Bin(ir.Lt, hs, b.I32(1<<30))), []ir.Stmt{&ir.Assign{Pos: b.Pos, Name: hsg, Value: b.Bin(ir.Mul, hs, b.I32(2))}})
			}
			if s.wide {
				// The least power of two not below twice the live range, at
				// most 4 CAP (the heads' length) and 2^30 (Note [Indices]).
				half := b.Bin(ir.Shr, hs, b.I32(1))
				grow := b.And(b.And(b.Bin(ir.Lt, half, s.nRef(b.Builder)), b.Bin(ir.Le, half, s.capRef(b.Builder))), b.Bin(ir.Lt, hs, b.I32(1<<30)))
				b.while(grow, []ir.Stmt{&ir.Assign{Pos: b.Pos, Name: hsg, Value: b.Bin(ir.Mul, hs, b.I32(2))}})
			}
			b.decl(s.hs, ir.I32, b.Builtin(ir.Max, b.Builtin(ir.Min, hs, b.I32(1<<30)), b.I32(0)))
		}
		if s.claim != "" && !s.listed {
			l.forSlots(b, s.nRef(b.Builder), func(b *block, i ir.Expr) { b.Store(s.claim, i, b.U64(0)) })
		}
		for _, ix := range s.indices {
			l.forSlots(b, b.Local(s.hs, ir.I32), func(b *block, i ir.Expr) { b.Store(ix.head, i, b.I32(-1)) })
		}
	}
	var init []ir.Stmt
	for _, ct := range l.prog.types {
		if s := l.stores[ct]; s.listed {
			init = append(init, &ir.Store{Pos: l.pos, Buf: s.count, Index: b.I32(0), Value: b.I32(0)})
		}
		for _, x := range l.stores[ct].exts {
			init = append(init, l.initCells(b.Builder, x)...)
		}
	}
	if init != nil {
		b.ifThen(b.Bin(ir.Eq, b.Builtin(ir.ProcID), b.I32(0)), init)
	}
	b.Barrier(true)
}

// phaseB builds the indices and extrema of the step.
func (l *lowerer) phaseB(b *block) {
	anyExt := false
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		b := b.at(ct.pos)
		if len(s.indices) == 0 && len(s.exts) == 0 && !s.listed {
			continue
		}
		for _, x := range s.exts {
			anyExt = anyExt || x.search
		}
		l.forSlots(b, s.nRef(b.Builder), func(b *block, i ir.Expr) {
			in := b.sub()
			for _, ix := range s.indices {
				var keys []ir.Expr
				for _, p := range ix.pos {
					keys = append(keys, s.arg(b.Builder, p, i))
				}
				old := l.locals.fresh("old")
				in.decl(old, ir.I32, b.I32(0))
				in.Atomic(old, ir.AtomicExch, ix.head, s.bucket(b.Builder, hash(b.Builder, keys)), i)
				in.Store(ix.next, i, b.Local(old, ir.I32))
			}
			for _, x := range s.exts {
				cell := b.I32(0)
				if !x.search {
					cell = x.keyCell(b.Builder, i)
				}
				in.Atomic("", ir.AtomicMin, x.buf, cell, x.keyOf(b.Builder, s.arg(b.Builder, x.pos, i)))
			}
			if s.listed {
				r := in.decl(l.locals.fresh("rank"), ir.I32, b.I32(0))
				in.Atomic(r.Name, ir.AtomicAdd, s.count, b.I32(0), b.I32(1))
				in.Store(s.list, r, i)
				if s.ranked {
					in.Store(s.rank, i, r)
				}
				if s.claim != "" {
					in.Store(s.claim, i, b.U64(0))
				}
			}
			b.ifThen(b.Bin(ir.Eq, b.Ld(s.state, i), b.I32(1)), in.stmts())
		})
	}
	b.Barrier(true)
	// Heads of chains of two or more become -2 - slot (Note [Indices]).
	marked := false
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		b := b.at(ct.pos)
		for _, ix := range s.indices {
			if !ix.whole {
				continue
			}
			marked = true
			l.forSlots(b, b.Local(s.hs, ir.I32), func(b *block, i ir.Expr) {
				h := b.decl(l.locals.fresh("h"), ir.I32, b.Ld(ix.head, i))
				more := b.sub()
				more.ifThen(b.Bin(ir.Ge, b.Ld(ix.next, h), b.I32(0)), []ir.Stmt{
					&ir.Store{Pos: b.Pos, Buf: ix.head, Index: i, Value: b.Bin(ir.Sub, b.I32(-2), h)}})
				b.ifThen(b.Bin(ir.Ge, h, b.I32(0)), more.stmts())
			})
		}
	}
	if marked {
		b.Barrier(true)
	}
	if !anyExt {
		return
	}
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		b := b.at(ct.pos)
		for _, x := range s.exts {
			if x.search {
				l.extremumPass(b, s, x)
			}
		}
	}
	b.Barrier(true)
}

// extremumPass finds the slots with the least key and the next key.
func (l *lowerer) extremumPass(b *block, s *store, x *extremum) {
	b = b.at(s.ct.pos)
	l.forSlots(b, s.nRef(b.Builder), func(b *block, i ir.Expr) {
		k := l.locals.fresh("k")
		in := b.sub()
		kv := in.decl(k, ir.I64, x.keyOf(b.Builder, s.arg(b.Builder, x.pos, i)))
		least := b.Ld(x.buf, b.I32(0))
		eq := b.sub()
		eq.Atomic("", ir.AtomicMin, x.buf, b.I32(1), b.Cast(ir.I64, i))
		eq.Atomic("", ir.AtomicMax, x.buf, b.I32(2), b.Cast(ir.I64, i))
		gt := b.sub()
		gt.Atomic("", ir.AtomicMin, x.buf, b.I32(3), kv)
		in.Emit(&ir.If{Pos: b.Pos, Cond: b.Bin(ir.Eq, kv, least), Then: eq.stmts(),
			Else: []ir.Stmt{&ir.If{Pos: b.Pos, Cond: b.Bin(ir.Gt, kv, least), Then: gt.stmts()}}})
		b.ifThen(b.Bin(ir.Eq, b.Ld(s.state, i), b.I32(1)), in.stmts())
	})
}

// declareRuleBuffers declares the proposal buffers of removal rules and
// names their variables.
func (l *lowerer) declareRuleBuffers() {
	b := l.builder()
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		if s.listed {
			s.list = l.name(s.base + "_list")
			s.count = l.name(s.base + "_listed")
			l.buffer(s.list, ir.I32, s.capRef(b), ir.Scratch)
			// Each count indexes the list of CAP entries right after its
			// atomic add, so a count past CAP already faults: a checked
			// fact for the termination analysis (Note [Bounded buffers]
			// in package ir).
			l.buffer(s.count, ir.I32, b.I32(1), ir.Scratch).Bound = s.cap
		}
		if s.ranked {
			s.rank = l.name(s.base + "_rank")
			l.buffer(s.rank, ir.I32, s.capRef(b), ir.Scratch)
		}
	}
	for _, p := range l.plans {
		if p.delta >= 0 {
			continue
		}
		s := l.stores[p.owner.ct]
		stem := fmt.Sprintf("r%d", p.r.index+1)
		p.on = l.name(stem + "_on")
		p.claim = l.name(stem + "_cl")
		l.buffer(p.on, ir.I32, s.capRef(b), ir.Scratch)
		l.buffer(p.claim, ir.U64, s.capRef(b), ir.Scratch)
		p.slots = map[*head]string{}
		for _, st := range p.steps {
			p.slots[st.h] = l.name(fmt.Sprintf("%s_h%d", stem, st.h.index))
			l.buffer(p.slots[st.h], ir.I32, s.capRef(b), ir.Scratch)
		}
		p.inputs = map[*ruleVar]string{}
		for _, v := range bodyInputs(p.r) {
			n := l.name(fmt.Sprintf("%s_%s", stem, identifier(v.name, "v")))
			l.buffer(n, v.cell.find().t, s.capRef(b), ir.Scratch)
			p.inputs[v] = n
		}
	}
}
