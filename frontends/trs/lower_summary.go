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

// Note [Shared slots in the summary's marking]
//
// A slot that many parents share, such as the numbers of the input that
// every list of tree merge sort holds (input slots, on device 0), takes
// one exchange on up from each parent in the marking: at depth 23, some
// 2^22 parents a device aim at 4 words, device 1's over NVLink. The
// interpreter at depth 10 on 2 devices (--devices 2, a scratch count by
// device, buffer and function) finds all of device 1's remote accesses
// but ~200 in the summary: trs_mark's exchanges on up and trs_fold's
// loads of pn, wl1, jc, fl and rc, 2,560 each and 23,040 of pn, all on
// input slots 1, 3, 4 and 5; device 0 makes the same accesses locally.
// So in a world the marking reads up[c] first and exchanges only where
// it is not yet -2: the same result (an exchange that finds -2 does
// nothing), one exchange a slot instead of one a parent. And the fold
// takes an input slot in normal form as folded, with the size and hash
// that the lowering computed (Summarize) into its record of the input,
// which every device holds (trs_folded, trs_fsize, trs_fhash): the same
// sums, and a parent may be done a round earlier. Device 1's remote
// accesses at depth 10 fell from ~36,100 to ~2,800 (the reads of up
// before the exchange). One device's program is unchanged.

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
	// In a world, the count of the fold list of odd rounds (sumNext
	// counts even ones), so that no device clears a count that another
	// still reads.
	sumNextOdd = 8
	// In a world, the host's decision (Note [A world's summary decides
	// on the device]).
	sumGo   = 9
	sumMode = 10
)

// pSumRounds bounds the rounds of the device's summary; pSumSteps is
// the rounds a world runs for each host decision (Note [A world's
// summary decides on the device]).
const (
	pSumRounds = "SUMROUNDS"
	pSumSteps  = "SUMSTEPS"
)

// summaryBuffers declares the summary's counters and its result: the
// size and hash of the root, and their host copies.
func (l *lowerer) summaryBuffers() {
	n := func(v int64) ir.Expr { return ir.IntConst(ir.I32, v) }
	space := ir.Global
	if l.world {
		// Each device keeps its copy of the round's words; the counts
		// that processors add to are device 0's.
		space = ir.Distributed
	}
	l.m.Buffers = append(l.m.Buffers,
		&ir.Buffer{Pos: l.pos, Name: "sum", Elem: ir.I32, Len: l.sumLen(), Space: space, Role: ir.Scratch},
		&ir.Buffer{Pos: l.pos, Name: "sumv", Elem: ir.U64, Len: n(2), Space: space, Role: ir.Scratch})
	if l.world {
		// The world's totals of worldSummary, a copy a device.
		l.m.Buffers = append(l.m.Buffers, &ir.Buffer{Pos: l.pos, Name: "sumw", Elem: ir.I64, Len: l.ctrLen(), Space: space, Role: ir.Scratch})
	}
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

// store64 and load64 keep a u64 per slot in two i32 buffers, or in the
// first where it is an i64 (slot ids of a world, Note [TRS on several
// devices]).
func (b *fn) store64(lo, hi string, i, v ir.Expr) {
	if b.M.Buffer(lo).Elem == ir.I64 {
		b.Store(lo, i, b.Conv(ir.I64, v))
		return
	}
	b.Store(lo, i, b.Conv(ir.I32, v))
	b.Store(hi, ir.CloneExpr(i), b.Conv(ir.I32, b.Bin(ir.Shr, ir.CloneExpr(v), b.U64(32))))
}

func (b *fn) load64(lo, hi string, i ir.Expr) ir.Expr {
	if b.M.Buffer(lo).Elem == ir.I64 {
		return b.Conv(ir.U64, b.Ld(lo, i))
	}
	half := func(arr string, i ir.Expr) ir.Expr { return b.Conv(ir.U64, b.Conv(ir.U32, b.Ld(arr, i))) }
	return b.Bin(ir.Or, half(lo, i), b.Bin(ir.Shl, half(hi, ir.CloneExpr(i)), b.U64(32)))
}

// markFunc: trs_mark(p, np) is processor p's share of a marking round.
func (l *lowerer) markFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_mark", ir.Void, param{"p", ir.I32}, param{"np", ir.I32})
	b.Decl("hi", ir.I32, b.Ld("sum", b.ctr(b.I32(sumHi))))
	l.strided(b, "i", b.Add(b.Ld("sum", b.ctr(b.I32(sumLo))), b.V("p")), b.V("hi"), b.V("np"), func() {
		u := b.Decl("u", l.id, b.ownSlot(b.Ld("wl0", b.mine(b.V("i")))))
		h := b.Decl("h", ir.I32, l.head(b, u))
		l.forArgs(b, h, func(a int, _ string) {
			c := b.Decl("c", l.id, l.arg(b, a, b.V("u")))
			if l.world {
				// Test before the exchange (Note [Shared slots in the
				// summary's marking]).
				b.Decl("seen", l.id, b.S(-2))
				b.If(b.Ne(b.Ld("up", c), b.S(-2)), func() { b.Atomic("seen", ir.AtomicExch, "up", ir.CloneExpr(c), b.S(-2)) })
			} else {
				b.Decl("seen", l.id, b.S(0))
				b.Atomic("seen", ir.AtomicExch, "up", c, b.S(-2))
			}
			b.If(b.Ne(b.V("seen"), b.S(-2)), func() {
				b.Decl("q", ir.I32, b.I32(0))
				if !l.world {
					b.Atomic("q", ir.AtomicAdd, "sum", b.I32(sumCount), b.I32(1))
					b.Store("wl0", b.V("q"), b.V("c"))
					return
				}
				// The order list of c's owner.
				o := b.Decl("o", ir.I32, b.owner(b.V("c")))
				b.Atomic("q", ir.AtomicAdd, "sum", b.ctrOf(o, b.I32(sumCount)), b.I32(1))
				b.Store("wl0", b.slotOn(b.V("o"), b.Conv(l.id, b.V("q"))), b.local(b.V("c")))
			})
		})
	})
}

// foldList reads entry i of the fold list of round r: the order list in
// round 0, then gl0 and gl1 in turn; nextList names the list that round
// r writes.
func (b *fn) foldList(r, i ir.Expr) ir.Expr {
	odd := b.Eq(b.Bin(ir.And, r, b.I32(1)), b.I32(1))
	i = b.mine(i)
	return b.ownSlot(b.Sel(b.Eq(ir.CloneExpr(r), b.I32(0)), b.Ld("wl0", i), b.Sel(odd, b.Ld("gl0", ir.CloneExpr(i)), b.Ld("gl1", ir.CloneExpr(i)))))
}

func (b *fn) storeNextList(r, i, v ir.Expr) {
	i, v = b.mine(i), b.local(v)
	b.IfElse(b.Eq(b.Bin(ir.And, r, b.I32(1)), b.I32(0)), func() { b.Store("gl0", i, v) }, func() { b.Store("gl1", ir.CloneExpr(i), ir.CloneExpr(v)) })
}

// foldFunc: trs_fold(p, np) computes, in fold round r (sum[sumFold]), the size and
// hash of processor p's slots whose arguments are done.
func (l *lowerer) foldFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_fold", ir.Void, param{"p", ir.I32}, param{"np", ir.I32})
	b.Decl("r", ir.I32, b.Ld("sum", b.ctr(b.I32(sumFold))))
	b.Decl("n", ir.I32, b.Ld("sum", b.ctr(b.I32(sumLen))))
	l.strided(b, "i", b.V("p"), b.V("n"), b.V("np"), func() {
		u := b.Decl("u", l.id, b.foldList(b.V("r"), b.V("i")))
		h := b.Decl("h", ir.I32, l.head(b, u))
		b.Decl("ready", ir.Bool, b.Bool(true))
		l.forArgs(b, h, func(a int, _ string) {
			if l.world {
				b.If(b.Not(b.CallExpr("trs_folded", l.arg(b, a, b.V("u")))), func() { b.Set("ready", b.Bool(false)) })
				return
			}
			b.If(b.Eq(b.Ld("pn", l.arg(b, a, b.V("u"))), b.U8(0)), func() { b.Set("ready", b.Bool(false)) })
		})
		b.If(b.V("ready"), func() {
			b.Decl("size", ir.U64, b.U64(1))
			b.Decl("hash", ir.U64, b.Mul(b.Conv(ir.U64, b.Add(b.V("h"), b.I32(1))), b.U64(hashSeed)))
			l.forArgs(b, b.V("h"), func(a int, _ string) {
				c := b.Decl("c", l.id, l.arg(b, a, b.V("u")))
				if l.world {
					b.Set("size", b.Add(b.V("size"), b.CallExpr("trs_fsize", c)))
					b.Set("hash", b.Mul(b.Bin(ir.Xor, b.V("hash"), b.CallExpr("trs_fhash", b.V("c"))), b.U64(hashPrime)))
				} else {
					b.Set("size", b.Add(b.V("size"), b.load64("wl1", "jc", c)))
					b.Set("hash", b.Mul(b.Bin(ir.Xor, b.V("hash"), b.load64("fl", "rc", b.V("c"))), b.U64(hashPrime)))
				}
				b.Set("hash", b.Bin(ir.Xor, b.V("hash"), b.Bin(ir.Shr, b.V("hash"), b.U64(32))))
			})
			b.store64("wl1", "jc", b.V("u"), b.V("size"))
			b.store64("fl", "rc", b.V("u"), b.V("hash"))
			b.Store("pnw", b.V("u"), b.U8(1))
		})
	})
}

// settleFunc: trs_settle(p, np) ends fold round r: the slots done in
// it become visible as done, and the others go on the next round's list.
func (l *lowerer) settleFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_settle", ir.Void, param{"p", ir.I32}, param{"np", ir.I32})
	b.Decl("r", ir.I32, b.Ld("sum", b.ctr(b.I32(sumFold))))
	b.Decl("n", ir.I32, b.Ld("sum", b.ctr(b.I32(sumLen))))
	l.strided(b, "i", b.V("p"), b.V("n"), b.V("np"), func() {
		u := b.Decl("u", l.id, b.foldList(b.V("r"), b.V("i")))
		b.IfElse(b.Ne(b.Ld("pnw", u), b.U8(0)), func() { b.Store("pn", b.V("u"), b.U8(1)) }, func() {
			b.Decl("q", ir.I32, b.I32(0))
			b.Atomic("q", ir.AtomicAdd, "sum", b.ctr(b.nextCount(b.V("r"))), b.I32(1))
			b.storeNextList(b.V("r"), b.V("q"), b.V("u"))
		})
	})
}

// summaryRegion is the SPMD region of Note [Summary on the device], for
// the term at slot root. Its loops keep their state in sum, so that no
// private outlives a barrier and the region may take as many processors
// as there are slots in use.
func (l *lowerer) summaryRegion(b *fn, root int64) *ir.Region {
	at := func(i int64) ir.Expr { return b.I32(i) }
	word := func(i int64) ir.Expr { return b.Ld("sum", at(i)) }
	first := func() ir.Expr { return b.Eq(b.Builtin(ir.ProcID), b.I32(0)) }
	bump := func(i int64) { b.Store("sum", at(i), b.Add(word(i), b.I32(1))) }
	// The rounds in sum[sumRounds], and in the local nr, so that
	// SUMROUNDS bounds them in a thread's own view too (Note [Checked
	// walk bounds]).
	rounds := func() ir.Expr {
		return b.And(b.Lt(word(sumRounds), b.P(pSumRounds)), b.Lt(b.V("nr"), b.P(pSumRounds)))
	}
	marked := func() ir.Expr { return b.Eq(word(sumLo), word(sumHi)) }
	body := b.Nest(func() {
		b.Decl("nr", ir.I32, b.I32(0))
		b.If(first(), func() {
			b.Store("wl0", b.I32(0), b.S(root))
			b.Store("up", b.S(root), b.S(-2))
			for _, w := range [][2]int64{{sumLo, 0}, {sumHi, 1}, {sumCount, 1}, {sumRounds, 0}, {sumFold, 0}, {sumLen, 1}, {sumNext, 0}, {sumDone, 0}} {
				b.Store("sum", at(w[0]), b.I32(w[1]))
			}
		})
		b.Barrier(true)
		b.While(b.And(b.Not(marked()), rounds()), func() {
			b.Call("trs_mark", b.Builtin(ir.ProcID), b.Builtin(ir.NumProcs))
			b.Barrier(true)
			b.If(first(), func() {
				b.Store("sum", at(sumLo), word(sumHi))
				b.Store("sum", at(sumHi), word(sumCount))
				b.Store("sum", at(sumLen), word(sumCount))
				bump(sumRounds)
			})
			b.Barrier(true)
			b.Set("nr", b.Add(b.V("nr"), b.I32(1)))
		})
		b.While(b.And(b.And(marked(), b.Lt(b.I32(0), word(sumLen))), rounds()), func() {
			b.Call("trs_fold", b.Builtin(ir.ProcID), b.Builtin(ir.NumProcs))
			b.Barrier(true)
			b.Call("trs_settle", b.Builtin(ir.ProcID), b.Builtin(ir.NumProcs))
			b.Barrier(true)
			b.If(first(), func() {
				b.Store("sum", at(sumLen), word(sumNext))
				b.Store("sum", at(sumNext), b.I32(0))
				bump(sumFold)
				bump(sumRounds)
			})
			b.Barrier(true)
			b.Set("nr", b.Add(b.V("nr"), b.I32(1)))
		})
		b.If(b.And(b.And(first(), marked()), b.Eq(word(sumLen), b.I32(0))), func() {
			b.Store("sum", at(sumDone), b.I32(1))
			b.Store("sumv", b.I32(0), b.load64("wl1", "jc", b.S(root)))
			b.Store("sumv", b.I32(1), b.load64("fl", "rc", b.S(root)))
		})
	})
	// As many processors as slots in use, up to PROCS.
	procs := b.Max(b.Min(b.used(), b.P(pProcs)), b.I32(1))
	return &ir.Region{Pos: b.Pos, Procs: procs, Body: body}
}

// sumLen is the length of the summary's words: a device's copy each in
// a world.
func (l *lowerer) sumLen() ir.Expr {
	if l.world {
		return l.ctrLen()
	}
	return ir.IntConst(ir.I32, sumWords)
}

// nextCount is the word that counts the fold list of round r's
// successor: sumNext on one device, device 0's sumNext or sumNextOdd by
// r's parity in a world.
func (b *fn) nextCount(r ir.Expr) ir.Expr {
	if !b.world {
		return b.I32(sumNext)
	}
	return b.Sel(b.Eq(b.Bin(ir.And, r, b.I32(1)), b.I32(0)), b.I32(sumNext), b.I32(sumNextOdd))
}

// World words of the summary, sumw[i], i64, in every device's copy: the
// order lists' length in all, its value a round before, and the fold
// lists' length in all.
const (
	sumTotal = 0
	sumPrev  = 1
	sumFlen  = 2
)

// worldSummary emits, on the host, the summary in a world: regions of W
// processors a device, each device marking and folding its own slots in
// its own lists, as the rewriting does (Note [TRS on several devices]). A
// slot's child on another device goes on that device's order list. Each
// device keeps its copy of the round's words, which its first processor
// brings up to date after a round from every device's counts, and runs
// SUMSTEPS rounds a host decision (Note [A world's summary decides on
// the device]).
func (l *lowerer) worldSummary(b *fn, root int64) {
	at := func(i int64) ir.Expr { return b.ctr(b.I32(i)) }
	word := func(i int64) ir.Expr { return b.Ld("sum", at(i)) }
	w := func() ir.Expr { return b.Bin(ir.Div, b.Builtin(ir.NumProcs), b.Builtin(ir.NumDevices)) }
	q := func() ir.Expr { return b.Sub(b.Builtin(ir.ProcID), b.Mul(b.Builtin(ir.DeviceID), w())) }
	first := func() ir.Expr { return b.Eq(b.Builtin(ir.ProcID), b.I32(0)) }
	mine := func() ir.Expr { return b.Eq(q(), b.I32(0)) }
	bump := func(i int64) { b.Store("sum", at(i), b.Add(word(i), b.I32(1))) }
	// Each device's own copy of the words, the same on every device.
	rounds := func() ir.Expr { return b.Lt(word(sumRounds), b.P(pSumRounds)) }
	// The world's totals, in sumw: i64, since the transformation tree at
	// depth 30 has 2^31 live slots.
	wordw := func(i int64) ir.Expr { return b.Ld("sumw", at(i)) }
	marked := func() ir.Expr { return b.Eq(wordw(sumTotal), wordw(sumPrev)) }
	// The round that a step runs, from the device's sum[sumMode]: 1 a
	// marking round, 2 a folding round, 0 none.
	markOn := func() ir.Expr { return b.Eq(word(sumMode), b.I32(1)) }
	foldOn := func() ir.Expr { return b.Eq(word(sumMode), b.I32(2)) }
	// decide sets the device's copy of the next step's round and of the
	// host's decision, sum[sumGo]: 1 while a round is to run, which
	// bumps sumRounds, so SUMROUNDS bounds the host's loop; else 0 where
	// the summary is done, 2 where SUMROUNDS ran out first.
	decide := func() {
		mode := b.Sel(b.Not(marked()), b.I32(1), b.Sel(b.Lt(b.I64(0), wordw(sumFlen)), b.I32(2), b.I32(0)))
		b.Store("sum", at(sumMode), b.Sel(rounds(), mode, b.I32(0)))
		done := b.And(marked(), b.Eq(wordw(sumFlen), b.I64(0)))
		b.Store("sum", at(sumGo), b.Sel(b.Ne(word(sumMode), b.I32(0)), b.I32(1), b.Sel(done, b.I32(0), b.I32(2))))
	}
	// total sets word i to the sum over the devices of their word j(e).
	total := func(i int64, j func() ir.Expr) {
		b.Decl("all", ir.I64, b.I64(0))
		b.Loop("e", b.I32(0), b.Builtin(ir.NumDevices), b.I32(1), func() {
			b.Set("all", b.Add(b.V("all"), b.Conv(ir.I64, b.Ld("sum", b.ctrOf(b.V("e"), j())))))
		})
		b.Store("sumw", at(i), b.V("all"))
	}
	// W processors a device, as many as slots in use together, up to
	// PROCS, rounded up to WorldGrain.
	g := int64(ir.WorldGrain)
	used := b.Conv(ir.I32, b.Min(b.CallExpr("trs_used"), b.Conv(ir.I64, b.P(pProcs))))
	per := b.Bin(ir.Div, b.Add(used, b.Sub(b.Builtin(ir.NumDevices), b.I32(1))), b.Builtin(ir.NumDevices))
	wd := b.Mul(b.Bin(ir.Div, b.Add(per, b.I32(g-1)), b.I32(g)), b.I32(g))
	b.Decl("sump", ir.I32, b.Mul(b.Builtin(ir.NumDevices), b.Max(wd, b.I32(g))))
	region := func(body func()) {
		b.Emit(&ir.Region{Pos: b.Pos, Procs: b.V("sump"), Body: b.Nest(body), World: true})
	}
	region(func() {
		b.If(first(), func() {
			b.Store("wl0", b.I32(0), b.I32(root))
			b.Store("up", b.S(root), b.S(-2))
		})
		b.If(mine(), func() {
			b.Decl("d0", ir.I32, b.Sel(b.Eq(b.Builtin(ir.DeviceID), b.I32(0)), b.I32(1), b.I32(0)))
			for _, w := range [][2]int64{{sumLo, 0}, {sumRounds, 0}, {sumFold, 0}, {sumLen, 0}, {sumNext, 0}, {sumNextOdd, 0}, {sumDone, 0}} {
				b.Store("sum", at(w[0]), b.I32(w[1]))
			}
			for _, w := range [][2]int64{{sumTotal, 1}, {sumPrev, 0}, {sumFlen, 0}} {
				b.Store("sumw", at(w[0]), b.I64(w[1]))
			}
			b.Store("sum", at(sumHi), b.V("d0"))
			b.Store("sum", at(sumCount), b.V("d0"))
			decide()
		})
	})
	// The host's reads: device 0's copy of the decision, one a region.
	b.Decl("sg", ir.I32, b.Ld("sum", b.I32(sumGo)))
	b.While(b.Eq(b.V("sg"), b.I32(1)), func() {
		region(func() {
			b.Loop("j", b.I32(0), b.P(pSumSteps), b.I32(1), func() {
				// A marking round, or a folding round once the marking
				// is done: the two guards never hold together.
				b.If(markOn(), func() { b.Call("trs_mark", q(), w()) })
				b.If(foldOn(), func() { b.Call("trs_fold", q(), w()) })
				b.Barrier(true)
				b.If(foldOn(), func() { b.Call("trs_settle", q(), w()) })
				b.Barrier(true)
				b.If(mine(), func() {
					b.Decl("mk", ir.Bool, markOn())
					b.Decl("fo", ir.Bool, foldOn())
					b.If(b.V("mk"), func() {
						b.Store("sum", at(sumLo), word(sumHi))
						b.Store("sum", at(sumHi), word(sumCount))
						b.Store("sum", at(sumLen), word(sumCount))
						b.Store("sumw", at(sumPrev), wordw(sumTotal))
						total(sumTotal, func() ir.Expr { return b.I32(sumCount) })
						b.Store("sumw", at(sumFlen), wordw(sumTotal))
						bump(sumRounds)
					})
					b.If(b.V("fo"), func() {
						b.Decl("r", ir.I32, word(sumFold))
						b.Store("sum", at(sumLen), b.Ld("sum", b.ctr(b.nextCount(b.V("r")))))
						total(sumFlen, func() ir.Expr { return b.nextCount(b.V("r")) })
						b.Store("sum", b.ctr(b.nextCount(b.Add(b.V("r"), b.I32(1)))), b.I32(0))
						bump(sumFold)
						bump(sumRounds)
					})
					decide()
				})
				b.Barrier(true)
			})
		})
		b.Set("sg", b.Ld("sum", b.I32(sumGo)))
	})
	b.If(b.Eq(b.V("sg"), b.I32(0)), func() {
		region(func() {
			b.If(first(), func() {
				b.Store("sum", at(sumDone), b.I32(1))
				b.Store("sumv", b.I32(0), b.load64("wl1", "jc", b.S(root)))
				b.Store("sumv", b.I32(1), b.load64("fl", "rc", b.S(root)))
			})
		})
	})
}

// Note [A world's summary decides on the device]
//
// The summary's rounds in a world used to be host loops: a world launch a
// round and three or four read-backs of device 0's words for the loop's
// condition, with a world barrier on the stream before and after. Tree
// merge sort has about 37 rounds at depth 10 (the interpreter: 158 host
// reads a device on 2, 66 with one read a round), about two more a
// level: most of the 260 read-backs a device that depth 23 made on 4
// GPUs (docs/BENCHMARKS.md, "world7"), each a synchronous copy that
// drains the stream, where barriers and launches on it do not. Now
// a round's end (its first processor a device, as before) also writes
// the host's decision, sum[sumGo]: 0 where the summary is done, 2 where
// SUMROUNDS ran out, else 1. The host reads that one word of device 0
// after a region, and a region runs SUMSTEPS rounds (default 16): a loop
// with world barriers (in one cooperative kernel where the grid fits),
// each phase guarded by the device's own copy of the words, the same on
// every device, so that steps after the end do nothing. A step is three
// phases, a marking or a folding round's (their guards exclude each
// other), the settling, and the books. The rounds, their order and
// their results are the host loops'; only where they run moves.
// One device's summary is unchanged.
