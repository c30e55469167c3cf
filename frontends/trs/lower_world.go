package trs

import (
	"fmt"
	"math"

	"gpuc/ir"
)

// The owner-placed world store of Note [TRS on several devices]: its
// index arithmetic, the reads that the input's replica serves, and the
// books of an iteration in a world.

// worldWords is how many words of each counter buffer a device holds in
// a world: one WorldGrain, so that word j of device d is d*worldWords+j.
const worldWords = ir.WorldGrain

// maxWorldDevices bounds DEVICES for a world program with i32 slot ids,
// with which it is built where --capacity makes that many devices' slots
// fit in an i32 (wideIDs); it refuses DEVICES*CAPACITY > 2^31-1.
const maxWorldDevices = 8

// maxWorldCapacity is the most slots a device of a world holds, where
// CAPACITY is fitted: slot ids are u32 there, and the transformation
// tree at depth 30 on two devices needs a few more than 2^30 on device 0,
// which holds the root and the input besides half the tree.
const maxWorldCapacity = math.MaxInt32 / ir.WorldGrain * ir.WorldGrain

// maxWorldSlots bounds the slots of a whole world whose store keeps slot
// ids as u32 words (Note [Slot words]): the top WorldGrain values are
// never slots, so that up's marks -1 and -2 read back as themselves.
const maxWorldSlots = 1<<32 - ir.WorldGrain

// worldShifts: a world of up to 2^worldShifts devices, as many as
// world.h in backends/cuda and the interpreter allow, divides
// maxWorldSlots among them.
const worldShifts = 6

// wideIDs says whether slot ids need u32 (Note [Slot words]): a world
// whose slots may number more than 2^31-1, as a fitted CAPACITY (up to
// maxWorldCapacity a device) allows on two devices.
func wideIDs(opts Options) bool {
	return opts.World && (opts.Capacity <= 0 || opts.Capacity*maxWorldDevices > math.MaxInt32)
}

// Note [Slot words]
//
// A world whose slots may number more than 2^31-1 (wideIDs) has u32 slot
// ids, in its store (the argument arrays, up, the host's copies h_argA)
// and in registers: the walks are bound by memory latency and traffic,
// and the i64 ids of the first version doubled both for every argument
// read (tree merge sort's Merge2 has five), took 86 bytes a slot where
// 62 do, and widened the registers of every walk. A world then has at
// most maxWorldSlots slots: per (fn.per) is CAPACITY rounded down to
// WorldGrain, and at most maxWorldSlots over DEVICES rounded up to a
// power of two (no division in the index arithmetic), so that a fitted
// CAPACITY on four H200s, which would give each 1.8e9 slots, gives each
// 2^30 - 256 (tree merge sort at depth 25 needs about 5.5e8 a device).
// The marks that i32 ids write as negatives, -1 (no parent, no pending
// argument) and -2 (marked, Note [Summary on the device]), are 2^32-1
// and 2^32-2, which no slot reaches: fn.isSlot tells a slot from a mark
// by sign for i32 ids and by maxWorldSlots for u32 ones. Worlds whose
// --capacity makes ids i32, and one device's programs, keep i32 ids.

// isSlot says whether slot id x is a slot, not a mark (-1, -2).
func (b *fn) isSlot(x ir.Expr) ir.Expr {
	if b.id == ir.U32 {
		return b.Lt(x, b.S(maxWorldSlots))
	}
	return b.Ge(x, b.S(0))
}

// S is a slot id constant.
func (b *fn) S(v int64) ir.Expr { return b.Int(b.id, v) }

// ctr is word j of a counter buffer, the calling device's own in a
// world; device code only.
func (b *fn) ctr(j ir.Expr) ir.Expr {
	if !b.world {
		return j
	}
	return b.ctrOf(b.Builtin(ir.DeviceID), j)
}

// ctrOf is word j of device dev's counters.
func (b *fn) ctrOf(dev, j ir.Expr) ir.Expr {
	return b.Add(b.Mul(dev, b.I32(worldWords)), j)
}

// per is the slots of one device, a slot id: CAPACITY rounded down to
// WorldGrain, so that a distributed buffer of DEVICES*per elements puts
// slot d*per+i on device d.
func (b *fn) per() ir.Expr {
	g := b.I32(ir.WorldGrain)
	grains := b.Bin(ir.Div, b.P(pCapacity), g)
	if b.id == ir.U32 {
		// At most maxWorldSlots in the world (Note [Slot words]): the
		// most grains over the next power of two of DEVICES, a chain of
		// selects rather than a division in every index.
		most := b.I32(maxWorldSlots / ir.WorldGrain >> worldShifts)
		for s := worldShifts - 1; s >= 0; s-- {
			most = b.Sel(b.Bin(ir.Le, b.P(ir.DevicesParam), b.I32(1<<s)), b.I32(maxWorldSlots/ir.WorldGrain>>s), most)
		}
		grains = b.Min(grains, most)
	}
	return b.Conv(b.id, b.Mul(grains, b.I32(ir.WorldGrain)))
}

// owner is the device that holds slot x: the calling device, tested
// without a division, for almost every slot (Note [World accesses]).
func (b *fn) owner(x ir.Expr) ir.Expr {
	return b.Sel(b.isMine(x), b.Builtin(ir.DeviceID), b.Conv(ir.I32, b.Bin(ir.Div, ir.CloneExpr(x), b.per())))
}

// isMine says whether the calling device owns slot x: x - dev*per in
// [0, per).
func (b *fn) isMine(x ir.Expr) ir.Expr {
	off := b.Sub(x, b.Mul(b.Conv(b.id, b.Builtin(ir.DeviceID)), b.per()))
	return b.And(b.Ge(off, b.S(0)), b.Lt(ir.CloneExpr(off), b.per()))
}

// slotOn is the id of local index i (a slot id) of device dev.
func (b *fn) slotOn(dev, i ir.Expr) ir.Expr {
	return b.Add(b.Mul(b.Conv(b.id, dev), b.per()), i)
}

// worldLen is the length of a world store buffer: per slots a device.
func (l *lowerer) worldLen() ir.Expr {
	b := &fn{Builder: ir.NewBuilder(l.m, l.pos, nil), id: l.id, world: true}
	return b.Mul(b.Conv(ir.I64, b.P(ir.DevicesParam)), b.Conv(ir.I64, b.per()))
}

// ctrLen is the length of a world counter buffer.
func (l *lowerer) ctrLen() ir.Expr {
	return &ir.Binary{Pos: l.pos, Op: ir.Mul, X: &ir.ParamRef{Pos: l.pos, Name: ir.DevicesParam, T: ir.I32}, Y: ir.IntConst(ir.I32, worldWords)}
}

// World status words, besides those of one device (status[i]).
const (
	stWOverflow = 5 // some device's store filled: the world's overflow flag
	stWNext     = 6 // the host's decision: 0 to stop, else wmax (Note [A world's host decides once])
	stWords     = 7
)

// Note [A world's host decides once]
//
// A world's host loop used to read device 0's iteration count, pending
// count (wpc), overflow flag and longest list (wmax) at each iteration:
// four synchronous read-backs a device and iteration, over NVLink on
// every device but 0, where one device's program reads one word
// (docs/BENCHMARKS.md: 431 read-backs of ~20 us a device at tree merge
// sort 23 on 2). trs_account now decides on the device what the host
// would: status word stWNext is 0 where the loop stops (nothing
// pending, a store full, MAXITER reached) and else wmax, at least 1;
// trs_init writes the first. The host reads that one word a decision.
//
// And it decides once for WORLDSTEPS iterations (default 1): the region
// of the W of its one read runs that many iterations, a loop with a
// world barrier after each (inside one cooperative kernel where the grid
// fits, else three launches an iteration), each phase guarded on the
// device by its own copy of stWNext (the same on every device, the
// world's), so that iterations after the loop's end do nothing, and the
// trace and the statistics stay those of one decision an iteration. W
// is the decision's: the phases' loops are strided, so any W rewrites
// the whole list, but a list that grew takes more turns a processor.

// Note [The world's first decision]
//
// trs_init is a launch that every device runs on its own, not a world
// launch, so no world barrier ends it; the host then reads status
// word stWNext, which device 0 owns and trs_init writes. Every other
// device's host reads it from device 0's memory (a copy from peer memory
// on its own stream), which waits for its own trs_init but not for device
// 0's: without a barrier the read raced with device 0's write (Note
// [World] in package ir: nothing orders a device's accesses to another
// device's elements but world barriers). A device that read the zeroed
// word left the loop at once and raised "no normal form within MAXITER
// iterations" on device 0's pending count, while device 0 went on: the
// flaky world of Rubio_04__enno (docs/BENCHMARKS.md, 2026-11-27 02:58).
// mainFunc puts a world_barrier after trs_init in a world program. The
// loop's later reads follow a world launch, which ends with a barrier.

// next is the host's decision after iteration k (stWNext): wmax if
// iteration k+1 runs (slots pending, no store full, MAXITER allows it),
// else 0. np and mx are the world's pending count and longest list, ov
// its overflow flag.
func (b *fn) next(k1, np, mx, ov ir.Expr) ir.Expr {
	allowed := b.Bin(ir.LogOr, b.Eq(b.P(pMaxIter), b.I32(0)), b.Lt(k1, b.P(pMaxIter)))
	run := b.And(b.And(b.Lt(b.I32(0), np), b.Eq(ov, b.I32(0))), allowed)
	return b.Sel(run, b.Max(mx, b.I32(1)), b.I32(0))
}

// head is the head of slot s, and arg its a-th argument: in a world the
// input's slots in normal form, which never change (Note [Input slots]),
// are read from each device's copy of the input.
func (l *lowerer) head(b *fn, s ir.Expr) ir.Expr {
	if !l.world {
		return b.Ld("hd", s)
	}
	return b.CallExpr("trs_hd", s)
}

func (l *lowerer) arg(b *fn, a int, s ir.Expr) ir.Expr {
	if !l.world {
		return b.Ld(l.args[a], s)
	}
	return b.CallExpr("trs_arg"+fmt.Sprint(a), s)
}

// normal says whether slot x is in normal form: neither pending before
// the phase (pn) nor written pending in it (pnw).
func (l *lowerer) normal(b *fn, x ir.Expr) ir.Expr {
	if !l.world {
		return b.And(b.Eq(b.Ld("pn", x), b.U8(0)), b.Eq(b.Ld("pnw", ir.CloneExpr(x)), b.U8(0)))
	}
	return b.CallExpr("trs_normal", x)
}

// inputFuncs adds, in a world, trs_hd, trs_argA and trs_normal, which
// read the replica of the input's slots in normal form.
func (l *lowerer) inputFuncs() {
	if !l.world {
		return
	}
	rec := l.record()
	// fixed(b, body): body(word) for an input slot s in normal form, whose
	// record's words word(j) the input buffer holds.
	// Which input slots are pending is known here: up to 64 of them, a
	// mask tells, and the reads of the input's numbers, which matching
	// makes on every comparison, load only the word they want.
	var mask uint64
	for i, p := range l.sys.Pending(l.graph) {
		if p && i < 64 {
			mask |= 1 << i
		}
	}
	fixed := func(b *fn, body func(word func(j int64) ir.Expr)) {
		b.If(b.Lt(b.V("s"), b.S(l.nodes)), func() {
			at := b.Decl("at", ir.I32, b.Mul(b.Conv(ir.I32, b.V("s")), b.I32(rec)))
			normal := b.Eq(b.Ld("input", b.Add(at, b.I32(int64(l.k)+2))), b.I32(0))
			if l.nodes <= 64 {
				normal = b.Eq(b.Bin(ir.And, b.Bin(ir.Shr, b.U64(mask), b.Conv(ir.U64, b.V("s"))), b.U64(1)), b.U64(0))
			}
			b.If(normal, func() {
				body(func(j int64) ir.Expr { return b.Ld("input", b.Add(b.V("at"), b.I32(j))) })
			})
		})
	}
	b := l.newFunc(ir.DeviceFunc, "trs_hd", ir.I32, param{"s", l.id})
	fixed(b, func(word func(int64) ir.Expr) { b.Return(word(0)) })
	b.Return(b.Ld("hd", b.V("s")))
	for a, arr := range l.args {
		b := l.newFunc(ir.DeviceFunc, "trs_arg"+fmt.Sprint(a), l.id, param{"s", l.id})
		fixed(b, func(word func(int64) ir.Expr) { b.Return(b.Conv(l.id, word(int64(a)+1))) })
		b.Return(b.Ld(arr, b.V("s")))
	}
	b = l.newFunc(ir.DeviceFunc, "trs_pnw", ir.U8, param{"s", l.id})
	fixed(b, func(func(int64) ir.Expr) { b.Return(b.U8(0)) })
	b.Return(b.Ld("pnw", b.V("s")))
	b = l.newFunc(ir.DeviceFunc, "trs_normal", ir.Bool, param{"s", l.id})
	fixed(b, func(func(int64) ir.Expr) { b.Return(b.Bool(true)) })
	b.Return(b.And(b.Eq(b.Ld("pn", b.V("s")), b.U8(0)), b.Eq(b.Ld("pnw", b.V("s")), b.U8(0))))
	// The summary's fold: whether slot s is folded (pn set), its size
	// and its hash, which an input slot in normal form has in each
	// device's copy of the input (Note [Shared slots in the summary's
	// marking]).
	b = l.newFunc(ir.DeviceFunc, "trs_folded", ir.Bool, param{"s", l.id})
	fixed(b, func(func(int64) ir.Expr) { b.Return(b.Bool(true)) })
	b.Return(b.Ne(b.Ld("pn", b.V("s")), b.U8(0)))
	u64 := func(word func(int64) ir.Expr, j int64) ir.Expr {
		half := func(x ir.Expr) ir.Expr { return b.Conv(ir.U64, b.Conv(ir.U32, x)) }
		return b.Bin(ir.Or, half(word(j)), b.Bin(ir.Shl, half(word(j+1)), b.U64(32)))
	}
	at := int64(l.k) + 3
	b = l.newFunc(ir.DeviceFunc, "trs_fsize", ir.U64, param{"s", l.id})
	fixed(b, func(word func(int64) ir.Expr) { b.Return(u64(word, at)) })
	b.Return(b.load64("wl1", "jc", b.V("s")))
	b = l.newFunc(ir.DeviceFunc, "trs_fhash", ir.U64, param{"s", l.id})
	fixed(b, func(word func(int64) ir.Expr) { b.Return(u64(word, at+2)) })
	b.Return(b.load64("fl", "rc", b.V("s")))
}

// inputSumWords is the words of an input slot's summary in a world's
// input record: its size and hash, low half first.
const inputSumWords = 4

// worldAccountFunc: trs_account(k, mode) in a world, run by each
// device's first processor after the commit phase of iteration k and a
// world barrier: the device's own books (its free ring's head, its fresh
// counter, its counters of iteration k+2) as on one device, and the
// world's, which every device computes alike from all devices' counters
// of iteration k, now final: the rewrites, the slots pending after k
// (wpc, and the most on one device, wmax), the trace, the overflow flag.
func (l *lowerer) worldAccountFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_account", ir.Void, param{"k", ir.I32}, param{"mode", ir.I32})
	k := b.V("k")
	b.Decl("c0", ir.I32, b.Rem(k, b.I32(3)))
	b.Decl("c1", ir.I32, b.Rem(b.Add(b.V("k"), b.I32(1)), b.I32(3)))
	b.Decl("c2", ir.I32, b.Rem(b.Add(b.V("k"), b.I32(2)), b.I32(3)))
	b.Decl("ns", ir.I32, b.I32(0))
	b.Decl("st", ir.I64, b.I64(0))
	b.Decl("np", ir.I32, b.I32(0))
	b.Decl("mx", ir.I32, b.I32(0))
	b.Decl("ov", ir.I32, b.I32(0))
	b.Loop("e", b.I32(0), b.Builtin(ir.NumDevices), b.I32(1), func() {
		at := func(j ir.Expr) ir.Expr { return b.ctrOf(b.V("e"), j) }
		b.Set("ns", b.Add(b.V("ns"), b.Ld("slots", at(b.V("c0")))))
		b.Set("st", b.Add(b.V("st"), b.Ld("steps", at(b.V("c0")))))
		p := b.Decl("p", ir.I32, b.Ld("pc", at(b.V("c1"))))
		b.Set("np", b.Add(b.V("np"), p))
		b.Set("mx", b.Max(b.V("mx"), b.V("p")))
		b.Set("ov", b.Bin(ir.Or, b.V("ov"), b.Ld("status", at(b.I32(stOverflow)))))
	})
	b.Store("wpc", b.ctr(b.V("c1")), b.V("np"))
	b.Store("wmax", b.ctr(b.V("c1")), b.V("mx"))
	b.Store("status", b.ctr(b.I32(stWOverflow)), b.V("ov"))
	b.Store("status", b.ctr(b.I32(stWNext)), b.next(b.Add(b.V("k"), b.I32(1)), b.V("np"), b.V("mx"), b.V("ov")))
	b.Store("total", b.ctr(b.I32(0)), b.Add(b.Ld("total", b.ctr(b.I32(0))), b.V("st")))
	b.If(b.Lt(b.Ld("status", b.ctr(b.I32(stPeak))), b.V("ns")), func() { b.Store("status", b.ctr(b.I32(stPeak)), b.V("ns")) })
	tr := func(j int64) ir.Expr {
		return b.Add(b.Mul(b.Builtin(ir.DeviceID), l.traceWords(b)), b.Add(b.Mul(b.I32(4), b.V("k")), b.I32(j)))
	}
	b.If(b.Lt(b.V("k"), b.P(pTraceCap)), func() {
		b.Store("tr", tr(0), b.Conv(ir.I64, b.V("ns")))
		b.Store("tr", tr(1), b.V("st"))
		b.Store("tr", tr(2), b.Conv(ir.I64, b.V("np")))
		b.Store("tr", tr(3), b.Conv(ir.I64, b.V("mode")))
	})
	b.Store("status", b.ctr(b.I32(stIter)), b.Add(b.V("k"), b.I32(1)))
	b.Store("status", b.ctr(b.I32(stOnDev)), b.Add(b.Ld("status", b.ctr(b.I32(stOnDev))), b.Bin(ir.Div, b.V("mode"), b.I32(2))))
	head := b.Decl("head", ir.I64, b.Min(b.Ld("free", b.ctr(b.I32(frHead))), b.Ld("free", b.ctr(b.I32(frTailA)))))
	b.Store("free", b.ctr(b.I32(frHead)), head)
	b.Store("free", b.ctr(b.I32(frHead0)), b.V("head"))
	b.Store("free", b.ctr(b.I32(frTail)), b.Add(b.Ld("free", b.ctr(b.I32(frTailA))), b.Conv(ir.I64, b.Ld("glen", b.ctr(b.V("c0"))))))
	b.Store("nfresh", b.ctr(b.I32(1)), b.Min(b.Ld("nfresh", b.ctr(b.I32(0))), b.Conv(ir.I64, b.per())))
	for _, c := range []string{"wlen", "glen", "slots", "pc"} {
		b.Store(c, b.ctr(b.V("c2")), b.I32(0))
	}
	b.Store("steps", b.ctr(b.V("c2")), b.I64(0))
}

// traceWords is the words of the trace that each device keeps in a
// world: 4*TRACECAP rounded up to WorldGrain, so that device d's copy
// starts at d*traceWords.
func (l *lowerer) traceWords(b *fn) ir.Expr {
	g := int64(ir.WorldGrain)
	return b.Mul(b.Bin(ir.Div, b.Add(b.Mul(b.I32(4), b.P(pTraceCap)), b.I32(g-1)), b.I32(g)), b.I32(g))
}

// usedFunc: trs_used() in a world, on the host: the slots that the
// devices' fresh counters have handed out, together.
func (l *lowerer) usedFunc() {
	if !l.world {
		return
	}
	b := l.newFunc(ir.HostFunc, "trs_used", ir.I64)
	b.Decl("n", ir.I64, b.I64(0))
	b.Loop("e", b.I32(0), b.Builtin(ir.NumDevices), b.I32(1), func() {
		b.Set("n", b.Add(b.V("n"), b.Min(b.Ld("nfresh", b.ctrOf(b.V("e"), b.I32(0))), b.Conv(ir.I64, b.per()))))
	})
	b.Return(b.V("n"))
}

// pnw is slot x's pending flag as written in this phase; in a world the
// input's slots in normal form read 0 without a load.
func (l *lowerer) pnw(b *fn, x ir.Expr) ir.Expr {
	if !l.world {
		return b.Ld("pnw", x)
	}
	return b.CallExpr("trs_pnw", x)
}

// forkGroups splits a rule's new subterms in a world (Note [TRS on
// several devices]): where the right-hand side's root has m >= 2 pending
// new arguments (a fork, Note [Forks]), group j+1 holds argument j and
// the new subterms below it; group 0 holds the rest. Each new term's rg
// names its group's range local at the site (allocWorld).
func (l *lowerer) forkGroups(p *rulePlan) [][]*newTerm {
	r := p.ms.rule
	var forks []*Term
	for _, a := range r.RHS.Args {
		for _, nt := range p.news {
			if nt.t == a && !nt.normal {
				forks = append(forks, a)
			}
		}
	}
	if len(forks) < 2 {
		forks = nil
	}
	group := make([][]*newTerm, len(forks)+1) // 0: the caller's; j+1: fork j's
	for _, nt := range p.news {
		g := 0
		for j, f := range forks {
			if within(nt.t, f) {
				g = j + 1
			}
		}
		group[g] = append(group[g], nt)
		nt.rg = "rg" + siteAt
		if g > 0 {
			nt.rg = "rg" + forkTag(g-1)
		}
	}
	return group
}

// allocWorld is the allocation site in a world (Note [One allocation
// site]). Group 0 takes its slots on the calling device (the slot's
// owner) in the slot's range; group j+1, of fork j of the rule's nfork,
// on the first device of the j-th of nfork parts of the slot's device
// range, and that part becomes its range; where the part is empty, or
// FORK is 0, it stays on the calling device, in the range of that device
// alone. It returns a local that is false if any group found its store
// full.
func (l *lowerer) allocWorld(b *fn, sa *stepAlloc) ir.Expr {
	rg := "rg" + siteAt
	b.Decl(rg, ir.I32, b.Sel(b.several(), b.Ld("rg", b.V("t")), b.I32(1<<16)))
	ok := l.alloc(b, siteAt, b.V(lNeed), nil)
	if sa.forks == 0 {
		return ok
	}
	lo := b.Decl("lo"+siteAt, ir.I32, b.Bin(ir.And, b.V(rg), b.I32(0xffff)))
	n := b.Decl("n"+siteAt, ir.I32, b.Sub(b.Bin(ir.Shr, b.V(rg), b.I32(16)), lo))
	m := b.Decl("m"+siteAt, ir.I32, b.Max(b.V(lNFork), b.I32(1)))
	fork := b.Ne(b.P(pFork), b.I32(0))
	for j := 0; j < sa.forks; j++ {
		jt := forkTag(j)
		part := func(j int64) ir.Expr {
			return b.Add(ir.CloneExpr(lo), b.Bin(ir.Div, b.Mul(ir.CloneExpr(n), b.I32(j)), ir.CloneExpr(m)))
		}
		clo := b.Decl("clo"+jt, ir.I32, part(int64(j)))
		chi := b.Decl("chi"+jt, ir.I32, part(int64(j)+1))
		split := b.Decl("sp"+jt, ir.Bool, b.And(ir.CloneExpr(fork), b.Lt(clo, chi)))
		dev := b.Decl("dv"+jt, ir.I32, b.Sel(split, ir.CloneExpr(clo), b.Builtin(ir.DeviceID)))
		own := b.Bin(ir.Or, dev, b.Bin(ir.Shl, b.Add(ir.CloneExpr(dev), b.I32(1)), b.I32(16)))
		b.Decl("rg"+jt, ir.I32, b.Sel(ir.CloneExpr(split), b.Bin(ir.Or, ir.CloneExpr(clo), b.Bin(ir.Shl, ir.CloneExpr(chi), b.I32(16))),
			b.Sel(ir.CloneExpr(fork), own, b.V(rg))))
		ok = b.And(ok, l.alloc(b, jt, b.V(needOf(j)), b.V("dv"+jt)))
	}
	return ok
}

// several says whether the world has more than one device. A world of
// one keeps no device ranges: every part of its only range is the
// device itself, so rg is neither read nor written, and holds one
// element, not a slot's four bytes (a tenth of what a rewrite writes).
func (b *fn) several() ir.Expr { return b.Lt(b.I32(1), b.Builtin(ir.NumDevices)) }

// within says whether t is f or a subterm of it.
func within(t, f *Term) bool {
	if t == f {
		return true
	}
	for _, a := range f.Args {
		if within(t, a) {
			return true
		}
	}
	return false
}

// worldIteration is the region of one iteration in a world (Note [TRS on
// several devices]): W processors a device, processor q of device d
// taking d's own lists as processor q of W would on one device; a third
// phase keeps the books once every device's counts are in. The host
// runs the loop, reading device 0's copy of the world's counts: a loop
// in the region would have every processor read them, remotely on the
// other devices, since a condition the passes can see is the same for
// all cannot read each device's own copy.
func (l *lowerer) worldIteration(b *fn) []ir.Stmt {
	return b.Nest(func() {
		w := func() ir.Expr { return b.Bin(ir.Div, b.Builtin(ir.NumProcs), b.Builtin(ir.NumDevices)) }
		q := func() ir.Expr { return b.Sub(b.Builtin(ir.ProcID), b.Mul(b.Builtin(ir.DeviceID), w())) }
		// WORLDSTEPS iterations, each phase run while the world's loop
		// runs (Note [A world's host decides once]).
		on := func() ir.Expr { return b.Ne(b.Ld("status", b.ctr(b.I32(stWNext))), b.I32(0)) }
		b.Loop("j", b.I32(0), b.P(pWorldSteps), b.I32(1), func() {
			b.If(on(), func() { b.Call("trs_derive", b.Ld("status", b.ctr(b.I32(stIter))), q(), w()) })
			b.Barrier(true)
			b.If(on(), func() { b.Call("trs_commit", b.Ld("status", b.ctr(b.I32(stPhase))), q(), w()) })
			b.Barrier(true)
			// Mode grid, on the device: world programs stay on the GPU
			// (Note [Where iterations ran]).
			b.If(b.And(b.Eq(q(), b.I32(0)), on()), func() { b.Call("trs_account", b.Ld("status", b.ctr(b.I32(stPhase))), b.I32(2)) })
			b.Barrier(true)
		})
	})
}

// local is slot x as the free ring and the lists hold it, which hold
// only their device's slots: its index on its owner, an i32.
func (b *fn) local(x ir.Expr) ir.Expr {
	if !b.world {
		return x
	}
	off := b.Sub(x, b.Mul(b.Conv(b.id, b.Builtin(ir.DeviceID)), b.per()))
	return b.Conv(ir.I32, b.Sel(b.isMine(ir.CloneExpr(x)), off, b.Rem(ir.CloneExpr(x), b.per())))
}

// ownSlot is the slot of local index v of the calling device, as read
// from its own ring or lists.
func (b *fn) ownSlot(v ir.Expr) ir.Expr {
	if !b.world {
		return v
	}
	return b.slotOn(b.Builtin(ir.DeviceID), b.Conv(b.id, v))
}
