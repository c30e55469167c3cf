package trs

import "gpuc/ir"

// Note [Summary on the device]
//
// The summary of the normal form (Note [Summary]) and the count of its
// distinct subterms ("live terms") are computed on the device, so that a
// normal form of 10^8 slots is not copied to the host and folded there,
// which took 17 s for the transformation tree at depth 26. Two loops of
// rounds, in an SPMD region after the fixpoint:
//
//   - Marking, top down: the order list starts with the root; a round
//     visits the slots that the previous one listed, and lists each of
//     their arguments that no one has marked yet (an atomic exchange on
//     up[c], whose values are otherwise at least -1). At the end the list
//     holds every slot of the normal form once, and its length is the
//     live count.
//   - Folding, bottom up: a round visits the slots still to do, and
//     computes those whose arguments are all done (pn, the pending flags,
//     free now that every reachable slot is in normal form, and 0 in all
//     of them); their size and hash are stored and pnw set. A second
//     phase makes pnw visible as pn and lists the rest for the next round.
//     A slot is done in the round after its deepest argument, so the
//     rounds are the height of the term, whatever its sharing.
//
// Both phases of a fold round read only what earlier phases wrote
// (Note [Phases]). The worklist, garbage and free-ring buffers, the
// reference counts and jc are free after the fixpoint, and hold the lists
// and the per-slot values: the order list in wl0, the fold lists in gl0
// and gl1, sizes in wl1 (low half) and jc (high half), hashes in fl and
// rc. Nothing is allocated for the summary.
//
// A term deeper than SUMROUNDS rounds in all (a long list, a large
// number) is left to the host, which copies the store and folds it as
// before (trs_sum); sum[sumDone] says which happened.

// Words of the summary's counters, sum[i].
const (
	sumLo     = 0 // the order list's entries that the marking round visits: [lo, hi)
	sumHi     = 1
	sumCount  = 2 // entries of the order list: the live count once marking ends
	sumRounds = 3 // rounds so far, marking and folding
	sumLen    = 4 // entries of the fold list of this round
	sumNext   = 5 // entries of the fold list of the next round
	sumDone   = 6 // 1 if the device computed the summary
	sumFold   = 7 // the fold round
	sumWords  = 8
)

// pSumRounds bounds the rounds of the device's summary.
const pSumRounds = "SUMROUNDS"

// summaryBuffers declares the summary's counters and its result: the
// size and hash of the root, and their host copies.
func (l *lowerer) summaryBuffers() {
	n := func(v int64) ir.Expr { return ir.IntConst(ir.I32, v) }
	l.m.Buffers = append(l.m.Buffers,
		&ir.Buffer{Pos: l.pos, Name: "sum", Elem: ir.I32, Len: n(sumWords), Space: ir.Global, Role: ir.Scratch},
		&ir.Buffer{Pos: l.pos, Name: "sumv", Elem: ir.U64, Len: n(2), Space: ir.Global, Role: ir.Scratch})
	l.m.Arrays = append(l.m.Arrays,
		&ir.Array{Pos: l.pos, Name: "h_sum", Elem: ir.I32, Len: n(sumWords)},
		&ir.Array{Pos: l.pos, Name: "h_sumv", Elem: ir.U64, Len: n(2)})
}

// summaryFuncs adds the device functions of the summary's rounds.
func (l *lowerer) summaryFuncs() {
	l.markFunc()
	l.foldFunc()
	l.settleFunc()
}

// store64 and load64 keep a u64 per slot in two i32 buffers.
func (b *fn) store64(lo, hi string, i, v ir.Expr) {
	b.store(lo, i, b.conv(ir.I32, v))
	b.store(hi, ir.CloneExpr(i), b.conv(ir.I32, b.bin(ir.Shr, ir.CloneExpr(v), b.u64(32))))
}

func (b *fn) load64(lo, hi string, i ir.Expr) ir.Expr {
	half := func(arr string, i ir.Expr) ir.Expr { return b.conv(ir.U64, b.conv(ir.U32, b.ld(arr, i))) }
	return b.bin(ir.Or, half(lo, i), b.bin(ir.Shl, half(hi, ir.CloneExpr(i)), b.u64(32)))
}

// markFunc: trs_mark(p, np) is processor p's share of a marking round.
func (l *lowerer) markFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_mark", ir.Void, param{"p", ir.I32}, param{"np", ir.I32})
	b.decl("hi", ir.I32, b.ld("sum", b.i32(sumHi)))
	b.loop("i", b.add(b.ld("sum", b.i32(sumLo)), b.v("p")), b.v("hi"), b.v("np"), func() {
		u := b.decl("u", ir.I32, b.ld("wl0", b.v("i")))
		h := b.decl("h", ir.I32, b.ld("hd", u))
		l.forArgs(b, h, func(_ int, arr string) {
			c := b.decl("c", ir.I32, b.ld(arr, b.v("u")))
			b.decl("seen", ir.I32, b.i32(0))
			b.atomic("seen", ir.AtomicExch, "up", c, b.i32(-2))
			b.if_(b.ne(b.v("seen"), b.i32(-2)), func() {
				b.decl("q", ir.I32, b.i32(0))
				b.atomic("q", ir.AtomicAdd, "sum", b.i32(sumCount), b.i32(1))
				b.store("wl0", b.v("q"), b.v("c"))
			})
		})
	})
}

// foldList reads entry i of the fold list of round r: the order list in
// round 0, then gl0 and gl1 in turn; nextList names the list that round
// r writes.
func (b *fn) foldList(r, i ir.Expr) ir.Expr {
	odd := b.eq(b.bin(ir.And, r, b.i32(1)), b.i32(1))
	return b.sel(b.eq(ir.CloneExpr(r), b.i32(0)), b.ld("wl0", i), b.sel(odd, b.ld("gl0", ir.CloneExpr(i)), b.ld("gl1", ir.CloneExpr(i))))
}

func (b *fn) storeNextList(r, i, v ir.Expr) {
	b.ifElse(b.eq(b.bin(ir.And, r, b.i32(1)), b.i32(0)), func() { b.store("gl0", i, v) }, func() { b.store("gl1", ir.CloneExpr(i), ir.CloneExpr(v)) })
}

// foldFunc: trs_fold(p, np) computes, in fold round r (sum[sumFold]), the size and
// hash of processor p's slots whose arguments are done.
func (l *lowerer) foldFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_fold", ir.Void, param{"p", ir.I32}, param{"np", ir.I32})
	b.decl("r", ir.I32, b.ld("sum", b.i32(sumFold)))
	b.loop("i", b.v("p"), b.ld("sum", b.i32(sumLen)), b.v("np"), func() {
		u := b.decl("u", ir.I32, b.foldList(b.v("r"), b.v("i")))
		h := b.decl("h", ir.I32, b.ld("hd", u))
		b.decl("ready", ir.Bool, b.boolean(true))
		l.forArgs(b, h, func(_ int, arr string) {
			b.if_(b.eq(b.ld("pn", b.ld(arr, b.v("u"))), b.u8(0)), func() { b.set("ready", b.boolean(false)) })
		})
		b.if_(b.v("ready"), func() {
			b.decl("size", ir.U64, b.u64(1))
			b.decl("hash", ir.U64, b.mul(b.conv(ir.U64, b.add(b.v("h"), b.i32(1))), b.u64(hashSeed)))
			l.forArgs(b, b.v("h"), func(_ int, arr string) {
				c := b.decl("c", ir.I32, b.ld(arr, b.v("u")))
				b.set("size", b.add(b.v("size"), b.load64("wl1", "jc", c)))
				b.set("hash", b.mul(b.bin(ir.Xor, b.v("hash"), b.load64("fl", "rc", b.v("c"))), b.u64(hashPrime)))
				b.set("hash", b.bin(ir.Xor, b.v("hash"), b.bin(ir.Shr, b.v("hash"), b.u64(32))))
			})
			b.store64("wl1", "jc", b.v("u"), b.v("size"))
			b.store64("fl", "rc", b.v("u"), b.v("hash"))
			b.store("pnw", b.v("u"), b.u8(1))
		})
	})
}

// settleFunc: trs_settle(p, np) ends fold round r: the slots done in
// it become visible as done, and the others go on the next round's list.
func (l *lowerer) settleFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_settle", ir.Void, param{"p", ir.I32}, param{"np", ir.I32})
	b.decl("r", ir.I32, b.ld("sum", b.i32(sumFold)))
	b.loop("i", b.v("p"), b.ld("sum", b.i32(sumLen)), b.v("np"), func() {
		u := b.decl("u", ir.I32, b.foldList(b.v("r"), b.v("i")))
		b.ifElse(b.ne(b.ld("pnw", u), b.u8(0)), func() { b.store("pn", b.v("u"), b.u8(1)) }, func() {
			b.decl("q", ir.I32, b.i32(0))
			b.atomic("q", ir.AtomicAdd, "sum", b.i32(sumNext), b.i32(1))
			b.storeNextList(b.v("r"), b.v("q"), b.v("u"))
		})
	})
}

// summaryRegion is the SPMD region of Note [Summary on the device], for
// the term at slot root. Its loops keep their state in sum, so that no
// private outlives a barrier and the region may take as many processors
// as there are slots in use.
func (l *lowerer) summaryRegion(b *fn, root int64) *ir.Region {
	at := func(i int64) ir.Expr { return b.i32(i) }
	word := func(i int64) ir.Expr { return b.ld("sum", at(i)) }
	first := func() ir.Expr { return b.eq(b.builtin(ir.ProcID), b.i32(0)) }
	bump := func(i int64) { b.store("sum", at(i), b.add(word(i), b.i32(1))) }
	rounds := func() ir.Expr { return b.lt(word(sumRounds), b.p(pSumRounds)) }
	marked := func() ir.Expr { return b.eq(word(sumLo), word(sumHi)) }
	body := b.nest(func() {
		b.if_(first(), func() {
			b.store("wl0", b.i32(0), b.i32(root))
			b.store("up", b.i32(root), b.i32(-2))
			for _, w := range [][2]int64{{sumLo, 0}, {sumHi, 1}, {sumCount, 1}, {sumRounds, 0}, {sumFold, 0}, {sumLen, 1}, {sumNext, 0}, {sumDone, 0}} {
				b.store("sum", at(w[0]), b.i32(w[1]))
			}
		})
		b.barrier(true)
		b.while(b.and(b.not(marked()), rounds()), func() {
			b.call("trs_mark", b.builtin(ir.ProcID), b.builtin(ir.NumProcs))
			b.barrier(true)
			b.if_(first(), func() {
				b.store("sum", at(sumLo), word(sumHi))
				b.store("sum", at(sumHi), word(sumCount))
				b.store("sum", at(sumLen), word(sumCount))
				bump(sumRounds)
			})
			b.barrier(true)
		})
		b.while(b.and(b.and(marked(), b.lt(b.i32(0), word(sumLen))), rounds()), func() {
			b.call("trs_fold", b.builtin(ir.ProcID), b.builtin(ir.NumProcs))
			b.barrier(true)
			b.call("trs_settle", b.builtin(ir.ProcID), b.builtin(ir.NumProcs))
			b.barrier(true)
			b.if_(first(), func() {
				b.store("sum", at(sumLen), word(sumNext))
				b.store("sum", at(sumNext), b.i32(0))
				bump(sumFold)
				bump(sumRounds)
			})
			b.barrier(true)
		})
		b.if_(b.and(b.and(first(), marked()), b.eq(word(sumLen), b.i32(0))), func() {
			b.store("sum", at(sumDone), b.i32(1))
			b.store("sumv", b.i32(0), b.load64("wl1", "jc", b.i32(root)))
			b.store("sumv", b.i32(1), b.load64("fl", "rc", b.i32(root)))
		})
	})
	// As many processors as slots in use, up to PROCS.
	procs := b.max(b.min(b.used(), b.p(pProcs)), b.i32(1))
	return &ir.Region{Pos: b.pos, Procs: procs, Body: body}
}
