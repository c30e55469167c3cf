package trs

import (
	"fmt"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// Note [Rewriting on the device]
//
// The generated program follows the TRS paper's topology-driven rewriter:
// threads own term slots, rewrite innermost until nothing changes, keep
// terms in structure-of-arrays buffers, take new slots from a free list
// or a fresh counter and collect garbage by reference counts. The term
// store is
//
//	hd[i]           the head symbol of slot i (Note [Symbol numbers])
//	arg0[i] ...     its arguments, as slot numbers
//	rc[i]           references to slot i: from arguments, and 1 for the root
//	pn[i], pnw[i]   1 while slot i may not be in normal form (pending);
//	                pn is read during a step, pnw written (Note [Phases])
//	up[i]           where a walk came from into slot i (Note [Local normalisation])
//
// and one iteration of the fixpoint loop has two phases, each ended by a
// grid barrier:
//
//   - derive (trs_derive, trs_step): every pending slot whose arguments
//     are in normal form is rewritten in place by the first rule of its
//     head that matches, and so are the new subterms the rewrite makes
//     (Note [Local normalisation]). A right-hand side shares its
//     variables' subterms; its new subterms take slots from the free ring
//     or the fresh counter; the reference counts of what a slot gains and
//     loses change atomically, and a count that drops to zero puts the
//     slot on the garbage list.
//   - commit (trs_commit): pending flags written in the derive phase
//     become visible and the pending slots are counted; garbage slots
//     release their arguments, whose counts may drop to zero in turn
//     (collected in the next iteration), and go to the free ring;
//     processor 0 keeps the books (Note [Counters]).
//
// The loop is written at the SPMD level, `while fits { derive; barrier
// grid; commit; barrier grid }` in a region with a processor per listed
// slot, up to PROCS, each taking slots in a grid-stride loop; the passes
// make it one cooperative kernel where the device holds that many
// threads, or host loops of launches otherwise (Notes [Host loops] and
// [Grid sync] in package passes). The loop leaves the region when the
// worklist outgrows it or shrinks well below it, and the host starts one
// of the new size (regionBody). When few slots are pending, the host
// launches trs_small instead, one block that runs the same two phases
// with block barriers (Note [Low parallelism]).
//
// With WORKLIST=1 (the default) the derive phase visits only the listed
// slots, kept in a compacted worklist that each step appends to; with
// WORKLIST=0 it scans all slots for a flag, as the paper does.
//
// Capacity is checked where a slot is taken: a step that finds the store
// full is not applied, the loop stops at the end of the iteration, and
// the host raises "term store full"; a walk that runs out of fuel does
// the same with an internal error (Note [Checked walk bounds]). Nothing
// in device code raises, so no thread leaves a cooperative kernel early.
//
// Note [Local normalisation]
//
// A thread that rewrites a slot keeps rewriting it, in registers, while
// the result is again a redex whose arguments are all in normal form:
// A() -> B() -> ... -> End() takes one step of the loop, not 27. It goes
// further: when a rewrite leaves one pending new subterm, as
// S(Plus(X, Y)) does, the thread walks into it, rewrites it, and comes
// back up (up[] records the way), so that a sequential computation such
// as Plus over a long number takes one iteration, and the chain of S it
// builds is in normal form at the end of it, rather than one level per
// iteration. Such subterms belong to the thread: they were free slots
// when the phase began (pn 0), and no other thread can reach them. Where
// a rewrite leaves two or more, the walk forks (Note [Forks]).
//
// Each walk may take LOCAL rewrite steps; one that runs out stops where
// it is, so that a long walk cannot hold up an iteration of many short
// ones, nor a rule like A() = A() a thread forever: the slot it stopped at
// goes on the next worklist, and the slots above it wait for it. This is
// still innermost rewriting, with the rewrites in an order that the
// sequential rewriter could take, and the same count.
//
// Note [Forks]
//
// A rewrite that leaves several pending subterms, such as
// Node(Expand(D), Expand2(D)), could be walked depth first by its thread,
// but then the threads of a warp walk trees of different shapes, each at
// its own symbol, and a warp runs about four of its 32 lanes at a time.
// With FORK=1 (the default) the walk stops there instead: the subterms go
// on the next worklist, each for a thread of its own, so that a whole
// level of a tree is rewritten at once, every lane at the same symbol.
// The transformation tree at depth 26 took 73 ms of kernels walking
// depth first and 20 ms forking, tree merge sort at depth 23 1301 and
// 314 ms (docs/BENCHMARKS.md), at the price of more slots in use at once,
// since all the leaves of a tree are then at the same stage of their work.
//
// The slot left behind waits for its pending arguments without taking a
// place on any worklist: jc[a] counts them, and up[c] of each points back
// to a. A walk from c that brings c to normal form drops jc[up[c]], and
// the walk that drops it to zero lists a for the next iteration, whose
// pending flags then say that its arguments are in normal form. A walk
// that stops inside the term it walked (out of fuel, store full, or at a
// fork) leaves every slot on its way back up to its first waiting in the
// same way, and lists the pending arguments it did not visit (trs_leave,
// trs_wait). So every pending slot is on exactly one worklist, waits, or
// lies below such a slot in subterms that one thread made in one walk
// and that the walk from there will visit (their pn is 0); no worklist
// holds a slot twice or one in normal form.
//
// Slots of the input may share pending subterms, which have no single
// slot to wait for them. Their up is -1, and a walk from an input slot
// whose argument was pending before the phase (pn 1) puts the slot back
// on the next worklist, to try again.
//
// WORKLIST=0 keeps the lists as flags, one per slot, in the list
// buffers, and scans every slot for them; the schedule is the same.
//
// Note [Settling]
//
// A walk that runs out of fuel deep in a sequential computation, as
// Plus(S(S(...)), Y) = S(Plus(...)) does over a long number, leaves a
// chain of slots waiting above it, most of them constructors such as
// S(...) that need no rewrite. Listed one at a time, as a waiting slot
// is when its last pending argument reaches normal form, each took an
// iteration of its own: factorial 9 of the REC benchmarks took 405858
// iterations for 409222 rewrites. Instead, the walk that brings a waiting
// slot's last pending argument to normal form settles the slot at once if
// its head is a constructor: it writes the slot's pnw and pn 0 and goes
// on to the slot above in the same way. Only the slot's head, up and jc
// are read, which no one writes while it waits, and no one else reads its
// flags in this phase: its one parent waits for it, and no list holds it.
// The phase stays race-free (Note [Phases]) except for the input's slots,
// which several parents may share and whose pending flags the walks from
// those parents read (Note [Forks]); an input slot whose pn is 1, like a
// slot with rules, is listed as before. Factorial 9 then takes 1611
// iterations (LOCAL=256), merge sort of 50 28 rather than 106.
//
// Walks settle only in iterations with fewer than SETTLE slots pending
// (4096, as SMALL), where an iteration is a few walks long. Where many
// are, a level of a tree of waiting slots is as cheap to list as to
// settle: on an H100, settling in every iteration took the
// transformation tree at depth 26 from 20.4 to 14.5 ms but tree merge
// sort at depth 23 from 181 to 268 ms, and merge sort of 50 from 2.88 to
// 2.59 ms either way. The condition depends on the iteration alone, not
// on whether the region or the one-block kernel runs it, so both still
// take the same schedule (Note [Low parallelism]). SETTLE=0 lists every
// waiting slot.

// Note [Phases]
//
// The phases are race-free: within one phase no two processors touch one
// address unless both use atomics. In the derive phase a slot's fields
// are written only by the thread that rewrites it, and read by others only
// once pn says it is in normal form, which it cannot become in the same
// phase: a slot that reaches normal form writes pnw, and commit copies
// pnw to pn for the slots of both worklists (Note [Forks]). A new term
// takes a free slot, which no term references, whose pn is 0 and stays 0
// until a worklist holds it; only its thread reads its pnw (an argument
// is in normal form if its pn and pnw are both 0, and pn 0 makes pnw
// stable). A walk writes jc and up of the slots it leaves, which threads
// of later phases read, and changes jc of a waiting slot only by atomics.
// Garbage is only listed in the derive phase and freed in the commit
// phase, after every thread has stopped reading it; a slot whose count
// drops to zero cannot gain a reference in the same phase, since no term
// refers to it and nothing reads a pending slot's arguments but its own
// thread. In the commit phase the two loops over the worklists write pn
// under disjoint conditions on pnw, and a slot appears at most once in
// each list.
//
// Note [Counters]
//
// Counters that one phase adds to and a later phase reads are kept per
// iteration k in three rotating sets, k % 3: wlen (the length of the
// worklist of iteration k+1, stale entries included), pc (the slots
// pending after iteration k, counted in its commit phase), glen (the
// garbage list of iteration k, which the derive phase of k and the
// commit phase of k-1 fill), slots and steps (walks that rewrote and
// rewrite steps). The commit phase of k reads sets k and k+1 and clears
// set k+2, which nothing reads until the derive phase of k+1 adds to it.
// Lists alternate between two buffers by k % 2.
//
// The free ring fl holds free slots at positions free[0] (head) to
// free[2] (tail), modulo CAPACITY. Derive takes from the head with atomic
// adds, and may overshoot the tail; commit adds at the tail (Note [Free
// ring positions]), and processor 0 then pulls the head back to the tail
// as it was in the derive phase (free[3]). free[1] is the head as the
// derive phase starts, nfresh[1] the fresh counter (at most CAPACITY), so
// that no one reads a counter that others change in the same phase.
//
// Note [Free ring positions]
//
// The commit phase of iteration k frees exactly the glen[k % 3] entries
// of its garbage list, and nothing else moves the ring's tail in it, so
// entry g goes to position free[3] + g (the tail as in the derive phase)
// with no atomic, and processor 0 sets the tail to free[3] + glen in its
// books. An atomic add at the tail, one per freed slot on one counter,
// was the costliest instruction of the host build on two cores (a quarter
// to a half of trs_free's time, docs/BENCHMARKS.md). Which free slot a new term gets
// never shows in the output (Note [Sharing]).
//
// Note [Fresh slots first]
//
// A new term takes a fresh slot, from the counter nfresh[0], while the
// store has them, and a freed one from the free ring only once they run
// out (FRESH=1, the default). The warp-combined counter hands a warp's
// new terms consecutive slots, so their heads, arguments and counts are
// written in whole DRAM sectors; the ring hands out slots in the order
// they were freed, scattered over the store, and every field written
// there costs a sector read and written back for four bytes. On tree
// merge sort at depth 23 this took the rewriting kernels from 290 to 178
// ms (docs/BENCHMARKS.md). The price is memory touched, not memory
// needed: the store fills up before it is reused, and a run fails for
// want of slots exactly when the paper's order, freed slots first
// (FRESH=0), would, since both take from the same two sources. The
// counter is an i64: in the phase that empties it, every allocation
// still adds to it. Later phases see it at most CAPACITY in nfresh[1]
// (Note [Counters]) and, with FRESH=1, leave it alone; with FRESH=0 it
// overshoots only in a phase that fills the store, the last.
//
// Note [Low parallelism]
//
// An iteration costs the region two grid-wide synchronisations, and on
// the relaunch path three launches and a read-back, however few slots are
// pending. Below SMALL pending slots, the host launches trs_small: one
// block of SMALLB threads that runs iterations back to back, with block
// barriers, no launch and no read-back between them, until the count
// reaches 4*SMALL or zero. Both paths run the same phases, so the
// iteration count and every statistic are the same whichever runs.
//
// Note [Symbol numbers]
//
// Symbols are numbered by arity, so that the symbols of arity a are the
// range ArityStart(a) to ArityStart(a+1)-1, and `hd[i] >= ArityStart(a)`
// says that slot i has an a-th argument: reading, copying, freeing and
// printing a slot need no table of arities.
//
// Note [Sharing]
//
// The store is a graph: a right-hand side refers to its variables'
// slots, twice if it repeats one; a subterm of the right-hand side that is
// a copy of a matched subterm of the left (S(X) in Fact(S(X)) =
// Times(S(X), Fact(X))) refers to that subterm's slot rather than being
// built anew; a subterm that the right-hand side repeats and that still
// has work in it is built once, by a let (Note [Repeated subterms]); and
// the input's identical subterms share a slot. A rewrite overwrites its
// slot, so every term that refers to it sees the result. Since innermost rewriting evaluates every argument
// before its parent, the normal form of a term does not depend on the
// order of the rewrites (rules of one head are tried in file order, so
// each step is determined), and sharing changes the work but not the
// result. The CPU rewriter (package rewrite) rewrites the same graph and
// counts the same rewrites.

// Note [Input slots]
//
// The input's slots, 0 to nodes-1, keep no reference counts: no rule adds
// or drops a reference to one, and none is ever garbage. Its subterms in
// normal form are what a workload shares most, such as the numbers that
// every list of tree merge sort holds and the Suc^k(Zero()) that a whole
// level of the transformation tree refers to, and their counts would be
// atomics that thousands of threads aim at a few addresses at once. The
// price is that input slots that become garbage are not reused, at most
// the size of the input.

// Note [TRS on several devices]
//
// Without --world the lowering makes one device's program, which
// `gpuc run --devices k` runs as k replicas (Note [Devices] in
// ir/interp) and which the distribute-world pass (ir.DistributeWorld)
// can spread, placing slots by index: then a store fills device 0 first,
// and 42-63% of all accesses are remote. With --world (Options.World) it
// makes the world program, placed by owner, never by hash, in the IR of
// Note [World] in package ir (world.go); nothing of it appears without
// --world, so that one device's programs keep their IR, bytes and speed.
//
// Store. hd, the argument arrays, rc, pn, pnw, up, jc and rg are
// distributed buffers of DEVICES*per elements, per = CAPACITY rounded
// down to ir.WorldGrain, so that WorldPart(DEVICES*per, DEVICES) = per
// and slot id s = d*per + i names local slot i of device d. CAPACITY is
// per device, fitted to each device's memory: the 2^30 cap is a cap per
// device. Slot ids are u32, and the world has at most 2^32-256 slots
// (Note [Slot words]), unless --capacity makes maxWorldDevices devices'
// slots fit in an i32 (wideIDs; the program then refuses
// DEVICES*CAPACITY > 2^31-1). The free ring and the lists hold only their
// device's slots, as local indices, i32. Every access to the store costs
// the test of gpuc_dist (Note [World accesses] in backends/cuda), and
// owner and local index take the calling device's slots without a
// division (fn.owner, fn.local).
//
// Input. The input's slots are device 0's. Those in normal form never
// change and keep no counts (Note [Input slots]), so every device reads
// their heads, arguments and flags from its own copy of the static input
// buffer (trs_hd, trs_argA, trs_pnw, trs_normal): the numbers that every
// list of tree merge sort holds are read locally everywhere. Which input
// slots are pending is known when lowering; up to 64 input slots, a
// constant mask says so, without a load. The input's
// pending slots are rewritten in place, on device 0.
//
// Counters and lists. nfresh, free, wlen, glen, pc, slots, steps,
// status, total, wpc and wmax are distributed buffers with WorldGrain
// words a device: device d's word j is d*WorldGrain + j (fn.ctr), so
// that others can reach them, which the IR's symmetric space cannot
// offer. Each device has its own fresh counter, free ring, worklists and
// garbage lists (Note [Counters] per device), the lists as parts of
// distributed wl0, wl1, gl0 and gl1.
//
// Iterations. Each iteration is a world region of DEVICES*W processors,
// W the longest device's list (wmax) rounded up to WorldGrain, up to
// PROCS: processor q of device d takes d's own lists as processor q of W
// would on one device, so every rewrite runs on its slot's owner. Its
// phases are derive, commit and a third that keeps the books
// (worldAccountFunc): after a world barrier every device's first
// processor reads all devices' counts of the iteration, now final, and
// writes the world's sums into its own copy: rewrites, slots rewritten,
// pending slots (wpc) and the most on one device (wmax), the overflow
// flag (an OR), the trace. So the trace and the statistics are the same
// for every k, and the phases read the world's counts locally. The host
// runs the loop and the summary's rounds, reading device 0's copy: a
// loop inside the region would have every processor evaluate its
// condition, and a condition the passes can see is the same for all may
// not read each device's own copy, so the other devices' processors
// would read device 0's remotely. The one-block loop (Note [Low
// parallelism]) and WORKLIST=0 are one device's: a world program runs
// every iteration as a region (the trace's mode column says grid) and
// refuses WORKLIST=0.
//
// Placement at forks. Each slot carries a range of devices [lo, hi) in
// the distributed rg (lo | hi<<16); the input's are [0, DEVICES). A
// world of one device keeps none (fn.several). Where a
// rewrite leaves m >= 2 pending new arguments at its root (Note [Forks]),
// argument j and the new subterms below it take their slots on the first
// device of [lo + j*(hi-lo)/m, lo + (j+1)*(hi-lo)/m), a remote atomic on
// that device's fresh counter (or its free ring's head), and that part
// becomes their range; where the part is empty, they stay with the
// parent, with the parent's device alone as their range. Other new terms
// keep the parent's range and device. So the top log2(k) levels of a
// tree split across the devices and everything below stays local
// (allocWorld). trs_enlist lists a slot on its owner's next worklist.
//
// References. A reference count of a remote slot changes by a remote
// atomic on the distributed rc; a count that drops to zero lists the slot
// on its owner's garbage list, and only the owner frees it, into its own
// ring. Matching reads the heads of a rule's arguments, remote only where
// a parent at the top levels refers to a child placed elsewhere; join
// counts and settling of a remote parent are remote atomics and stores,
// which Note [Phases] already allows.
//
// Summary (Note [Summary on the device]). Each device marks and folds
// its own slots in its own lists; a child on another device goes on that
// device's order list. The round's words are kept per device, brought up
// to date by each device's first processor from all devices' counts.
//
// Checks: TestExamplesOnDevices in internal/driver runs a sample of the
// examples at --devices 2..4 as world programs, with the trace and the
// statistics compared line by line with one device's (but for the mode
// column), and docs/BENCHMARKS.md records the remote share of the
// interpreter's counters (target: at most 1% on tree merge sort and the
// transformation tree).

// lowerer builds the module of a System.
type lowerer struct {
	stepDecls []ir.Stmt // locals declared at trs_step's start (garbageLocal)
	sys       *System
	opts      Options
	m         *ir.Module
	pos       ir.Pos
	k         int      // argument arrays: the largest arity
	start     []int64  // start[a] = sys.ArityStart(a), for a = 0..k+1
	graph     *Graph   // the input
	nodes     int64    // slots the input takes
	queue     []int32  // the input's pending slots
	args      []string // the argument arrays' names
	world     bool     // opts.World: the owner-placed store (Note [TRS on several devices])
	id        ir.Type  // slot ids: i32, or u32 where a world needs them (Note [Slot words])
}

// Lower builds the SPMD-level module of a checked system.
func Lower(sys *System, opts Options) (m *ir.Module, err error) {
	if opts.Print != "" {
		if err := new(PrintMode).Set(string(opts.Print)); err != nil {
			return nil, fmt.Errorf("--print=%s: %v", opts.Print, err)
		}
	}
	pos := diag.Pos{File: sys.Name + ".trs"}
	if sys.Input != nil {
		pos = sys.Input.Pos
	}
	l := &lowerer{sys: sys, opts: opts, m: &ir.Module{Pos: pos, Name: sys.Name}, pos: pos, k: sys.MaxArity, world: opts.World, id: ir.I32}
	if wideIDs(opts) {
		l.id = ir.U32
	}
	for a := 0; a <= l.k+1; a++ {
		l.start = append(l.start, int64(sys.ArityStart(a)))
	}
	for i := 0; i < l.k; i++ {
		l.args = append(l.args, fmt.Sprintf("arg%d", i))
	}
	l.graph = sys.Graph(sys.Input)
	l.nodes = int64(len(l.graph.Head))
	for i, p := range sys.Pending(l.graph) {
		if p {
			l.queue = append(l.queue, int32(i))
		}
	}
	l.params()
	l.buffers()
	l.inputFuncs()
	l.usedFunc()
	l.helpers()
	l.stepFunc()
	l.phases()
	l.summaryFuncs()
	l.initKernel()
	l.output()
	l.mainFunc()
	if err := l.splitOne(); err != nil { // Note [Wide and one-processor steps]
		return nil, err
	}
	return l.m, nil
}

// Parameters of the generated program; each is NAME=VALUE on its command
// line.
const (
	pCapacity = "CAPACITY" // term slots
	pProcs    = "PROCS"    // processors of the region
	pSmall    = "SMALL"    // pending slots below which one block runs (Note [Low parallelism])
	pSmallB   = "SMALLB"   // that block's threads
	pWorklist = "WORKLIST" // 1: visit the worklist; 0: scan all slots
	pLocal    = "LOCAL"    // rewrite steps per worklist entry and iteration (Note [Local normalisation])
	pFork     = "FORK"     // 1: a walk stops where a rewrite leaves two or more pending subterms (Note [Forks])
	pFresh    = "FRESH"    // 1: new terms take fresh slots before freed ones (Note [Fresh slots first])
	pSettle   = "SETTLE"   // pending slots below which walks settle waiting constructor slots (Note [Settling])
	pMaxIter  = "MAXITER"  // iterations before giving up; 0: no limit
	pPrint    = "PRINT"    // 0: the normal form; 1: its size and hash
	pStats    = "STATS"    // 1: print statistics; 2: as JSON
	pTrace    = "TRACE"    // 1: print the per-iteration trace
	pTraceCap = "TRACECAP" // iterations the trace records
	// pHybridIter bounds the iterations that the one-block loop or a
	// region runs before main's loop comes back to its hybrid point
	// (Note [Hybrid points] in ir/expr.go), where a hybrid program may
	// move; 0: no bound. Hybrid programs are built with it set.
	pHybridIter = ir.HybridIterParam
	// pWorldSteps is the iterations a world runs for each of its host's
	// decisions (Note [A world's host decides once]); worlds only.
	pWorldSteps = "WORLDSTEPS"
)

// StatsJSON is the argument that makes a program with --stats print its
// statistics as one JSON object (docs/TOOLKIT.md).
const StatsJSON = pStats + "=2"

func (l *lowerer) params() {
	capacity, fit := l.opts.Capacity, 0.0
	if capacity <= 0 {
		capacity, fit = MaxCapacity, CapacityFit
		if l.world {
			capacity = maxWorldCapacity
		}
	}
	flag := func(b bool) int64 {
		if b {
			return 1
		}
		return 0
	}
	// PROCS bounds the region, which has a processor per listed slot
	// (regionBody). The walks are bound by latency and diverge
	// (docs/BENCHMARKS.md), and more processors than a device holds at
	// once, relaunched per phase, hid more of it: tree merge sort 23 took
	// 461 ms with 2^20, 362 ms with 2^22 and 315 ms with 2^24 or more.
	for _, p := range []struct {
		name string
		def  int64
	}{
		{pCapacity, capacity}, {pProcs, 1 << 24}, {pSmall, 4096}, {pSmallB, 512},
		{pWorklist, 1}, {pLocal, 256}, {pFork, 1}, {pFresh, 1}, {pSettle, 4096}, {pMaxIter, 0},
		{pPrint, flag(l.opts.Print == "summary")}, {pStats, flag(l.opts.Stats)}, {pTrace, flag(l.opts.Trace)},
		{pTraceCap, 65536}, {pSumRounds, 1024}, {pHybridIter, 0},
	} {
		l.m.Params = append(l.m.Params, &ir.Param{Pos: l.pos, Name: p.name, Type: ir.I32, Default: p.def})
	}
	l.oneParams()
	l.m.Param(pCapacity).Fit = fit
	if l.world {
		l.m.Params = append([]*ir.Param{{Pos: l.pos, Name: ir.DevicesParam, Type: ir.I32, Default: 1}}, l.m.Params...)
		l.m.Params = append(l.m.Params, &ir.Param{Pos: l.pos, Name: pWorldSteps, Type: ir.I32, Default: 1},
			&ir.Param{Pos: l.pos, Name: pSumSteps, Type: ir.I32, Default: 16})
	}
}

// buffers declares the term store (Note [Rewriting on the device]), the
// counters (Note [Counters]), the input and the host's copies.
func (l *lowerer) buffers() {
	var capacity ir.Expr = &ir.ParamRef{Pos: l.pos, Name: pCapacity, T: ir.I32}
	space := ir.Global
	if l.world {
		// Note [TRS on several devices]: the store and the lists are
		// distributed, per slots a device; the counters too, a device's
		// own in its part, so that others may reach them.
		capacity, space = l.worldLen(), ir.Distributed
	}
	buf := func(name string, t ir.Type, n ir.Expr) {
		l.m.Buffers = append(l.m.Buffers, &ir.Buffer{Pos: l.pos, Name: name, Elem: t, Len: n, Space: space, Role: ir.Scratch})
	}
	small := func(n int64) ir.Expr {
		if l.world {
			return l.ctrLen()
		}
		return ir.IntConst(ir.I32, n)
	}
	buf("hd", ir.I32, capacity)
	for _, a := range l.args {
		buf(a, l.id, ir.CloneExpr(capacity))
	}
	buf("rc", ir.I32, ir.CloneExpr(capacity))
	buf("pn", ir.U8, ir.CloneExpr(capacity))
	buf("pnw", ir.U8, ir.CloneExpr(capacity))
	buf("up", l.id, ir.CloneExpr(capacity))
	buf("jc", ir.I32, ir.CloneExpr(capacity))
	if l.world {
		// A world of one keeps no ranges (fn.several).
		b := &fn{Builder: ir.NewBuilder(l.m, l.pos, nil), id: l.id, world: true}
		buf("rg", ir.I32, b.Sel(b.Lt(b.P(ir.DevicesParam), b.I32(2)), b.I64(1), ir.CloneExpr(capacity)))
	}
	// The free ring and the lists hold only their device's slots, as
	// local indices (fn.local): i32 in any world.
	buf("fl", ir.I32, ir.CloneExpr(capacity))
	for _, name := range []string{"wl0", "wl1", "gl0", "gl1"} {
		buf(name, ir.I32, ir.CloneExpr(capacity))
	}
	buf("nfresh", ir.I64, small(2))
	buf("free", ir.I64, small(4))
	buf("wlen", ir.I32, small(3))
	buf("glen", ir.I32, small(3))
	buf("pc", ir.I32, small(3))
	buf("slots", ir.I32, small(3))
	buf("steps", ir.I64, small(3))
	buf("status", ir.I32, small(5))
	if l.world {
		buf("wpc", ir.I32, small(3))
		buf("wmax", ir.I32, small(3))
	}
	buf("total", ir.I64, small(1))
	l.m.Buffer("total").Progress = "rewrites" // Note [Progress counters] in package ir
	if !l.world {
		// wlen and glen carry no bound: their loops clamp them (Note
		// [List lengths]).
		// The arguments and the garbage lists hold slot ids: a checked
		// fact that elides the checks of their loads' uses as indices
		// (Note [Bounded buffers] in package ir).
		for _, name := range append([]string{"gl0", "gl1"}, l.args...) {
			b := l.m.Buffer(name)
			b.Bound, b.Below = pCapacity, true
		}
	}
	traceCap := &ir.ParamRef{Pos: l.pos, Name: pTraceCap, T: ir.I32}
	if l.world {
		b := &fn{Builder: ir.NewBuilder(l.m, l.pos, nil), id: l.id, world: true}
		buf("tr", ir.I64, b.Mul(b.P(ir.DevicesParam), l.traceWords(b)))
	} else {
		buf("tr", ir.I64, &ir.Binary{Pos: l.pos, Op: ir.Mul, X: small(4), Y: traceCap})
	}
	l.inputBuffer()
	l.summaryBuffers()
	arr := func(name string, t ir.Type, n ir.Expr) {
		l.m.Arrays = append(l.m.Arrays, &ir.Array{Pos: l.pos, Name: name, Elem: t, Len: ir.CloneExpr(n)})
	}
	arr("h_hd", ir.I32, capacity)
	for _, a := range l.args {
		arr("h_"+a, l.id, capacity)
	}
	arr("h_size", ir.U64, capacity)
	arr("h_hash", ir.U64, capacity)
	arr("h_mark", ir.U8, capacity)
	arr("h_stack", l.id, capacity)
	arr("h_live", ir.I64, small(1))
	// The host's copy of the trace is one device's: 4*TRACECAP words in
	// a world too, where small(4) would be DEVICES*worldWords*TRACECAP
	// (512 MiB on four devices).
	arr("h_tr", ir.I64, &ir.Binary{Pos: l.pos, Op: ir.Mul, X: ir.IntConst(ir.I32, 4), Y: ir.CloneExpr(traceCap)})
}

// Status words (status[i]) and free-ring words (free[i]).
const (
	stIter     = 0 // iterations run
	stOverflow = 1 // set by a step that found the store full
	stPeak     = 2 // most worklist entries rewritten in one iteration
	stPhase    = 3 // the iteration whose derive phase ran last, for its commit phase
	stOnDev    = 4 // iterations run where the device held the data (Note [Where iterations ran])

	frHead  = 0 // next free-ring position to take
	frHead0 = 1 // the head as the derive phase starts
	frTail  = 2 // next free-ring position to fill
	frTailA = 3 // the tail during the derive phase
)

// record is the number of words per input node in the input buffer:
// head, arguments, reference count, pending flag.
func (l *lowerer) record() int64 {
	if l.world {
		return int64(l.k) + 3 + inputSumWords
	}
	return int64(l.k) + 3
}

// inputBuffer holds the input graph (Note [Sharing]) and its pending
// slots, the first worklist.
func (l *lowerer) inputBuffer() {
	g := l.graph
	refs := g.Refs()
	pending := l.sys.Pending(g)
	var init []ir.Bits
	word := func(v int64) { init = append(init, ir.IntBits(ir.I32, v)) }
	for i := range g.Head {
		word(int64(g.Head[i]))
		for a := 0; a < l.k; a++ {
			if a < len(g.Args[i]) {
				word(int64(g.Args[i][a]))
			} else {
				word(0)
			}
		}
		word(int64(refs[i]))
		if pending[i] {
			word(1)
		} else {
			word(0)
		}
		if l.world {
			// The slot's summary, for the summary's fold (Note [Shared
			// slots in the summary's marking]); read only where it is in
			// normal form.
			sum := Summarize(g, int32(i))
			for _, v := range []uint64{sum.Size, sum.Hash} {
				word(int64(int32(uint32(v))))
				word(int64(int32(uint32(v >> 32))))
			}
		}
	}
	for _, q := range l.queue {
		word(int64(q))
	}
	n := ir.IntConst(ir.I32, int64(len(init)))
	l.m.Buffers = append(l.m.Buffers, &ir.Buffer{Pos: l.pos, Name: "input", Elem: ir.I32, Len: n, Space: ir.Global, Role: ir.Static, Init: init})
}
