package trs

import "gpuc/ir"

// Messages of the generated program's errors.
const (
	msgFull  = "term store full: the rewrite needs more than CAPACITY term slots; set a larger CAPACITY (gpuc --capacity)"
	msgIter  = "no normal form within MAXITER iterations"
	msgProcs = "PROCS and SMALLB must be at least 1"
	// In a world (Note [TRS on several devices]).
	msgSteps    = "WORLDSTEPS must be at least 1"
	msgSumSteps = "SUMSTEPS must be at least 1"
	msgScan     = "WORKLIST=0 scans one device's store; a world program (--world) keeps worklists"
	msgIDs      = "DEVICES*CAPACITY term slots do not fit the 32-bit slot ids this program was built with (--capacity); build it without --capacity for 64-bit ids"
)

// mainFunc builds the host program: load the input, run the fixpoint
// loop in a region sized to the worklist or, when few slots are pending,
// in the one-block kernel (Note [Low parallelism]), then print.
func (l *lowerer) mainFunc() {
	b := l.newFunc(ir.HostFunc, "main", ir.Void)
	b.If(b.Bin(ir.LogOr, b.Lt(b.P(pProcs), b.I32(1)), b.Lt(b.P(pSmallB), b.I32(1))), func() { b.Raise(msgProcs) })
	if l.world {
		b.If(b.Eq(b.P(pWorklist), b.I32(0)), func() { b.Raise(msgScan) })
		b.If(b.Lt(b.P(pWorldSteps), b.I32(1)), func() { b.Raise(msgSteps) })
		b.If(b.Lt(b.P(pSumSteps), b.I32(1)), func() { b.Raise(msgSumSteps) })
		if l.id == ir.I32 {
			slots := b.Mul(b.Conv(ir.I64, b.P(ir.DevicesParam)), b.Conv(ir.I64, b.P(pCapacity)))
			b.If(b.Lt(b.I64(1<<31-1), slots), func() { b.Raise(msgIDs) })
		}
		// Device 0 holds the input.
		b.If(b.Lt(b.per(), b.S(l.nodes)), func() { b.Raise(msgFull) })
	} else {
		b.If(b.Lt(b.P(pCapacity), b.I32(l.nodes)), func() { b.Raise(msgFull) })
	}
	n := max(l.nodes, int64(len(l.queue)))
	b.Emit(&ir.Launch{Pos: b.Pos, Kernel: "trs_init", Grid: b.I32((n + 255) / 256), Block: b.I32(256)})
	if l.world {
		// trs_init is no world launch: a world barrier orders device 0's
		// first decision before every device's read of it (Note [The
		// world's first decision]).
		b.Emit(&ir.WorldBarrier{Pos: b.Pos})
	}
	b.Decl("go", ir.Bool, b.Bool(true))
	b.While(b.V("go"), func() {
		if l.world {
			// One read a decision, for WORLDSTEPS iterations (Note [A
			// world's host decides once]): W processors a device, at
			// least the longest of the devices' lists, up to PROCS.
			b.Decl("nx", ir.I32, b.Ld("status", b.I32(stWNext)))
			b.Set("go", b.Lt(b.I32(0), b.V("nx")))
			b.If(b.V("go"), func() {
				g := int64(ir.WorldGrain)
				w := b.Max(b.Min(b.V("nx"), b.P(pProcs)), b.I32(1))
				b.Decl("w", ir.I32, b.Mul(b.Bin(ir.Div, b.Add(w, b.I32(g-1)), b.I32(g)), b.I32(g)))
				b.Emit(&ir.Region{Pos: b.Pos, Procs: b.Mul(b.Builtin(ir.NumDevices), b.V("w")), Body: l.worldIteration(b), World: true})
			})
			return
		}
		b.Decl("it0", ir.I32, b.Ld("status", b.I32(stIter)))
		b.Set("go", b.running(b.V("it0"), true))
		b.If(b.V("go"), func() {
			// A hybrid point: the iteration's parallelism is the slots
			// listed, and no store slot at or above those handed out was
			// written (Note [Hybrid points] in ir/expr.go).
			b.Decl("listed", ir.I32, b.Builtin(ir.Hybrid, b.Ld("pc", b.Rem(b.V("it0"), b.I32(3))), b.used()))
			b.Decl("on", ir.I32, b.Builtin(ir.OnDevice)) // Note [Where iterations ran]
			b.IfElse(b.Lt(b.V("listed"), b.P(pSmall)), func() {
				// With hybrid points (HYBRIDITER > 0) the block fits the list,
				// in warps: the loop comes back to the point soon. Where the
				// host holds the data then (ondevice() 0: a hybrid program
				// on its CPU, a host build) one worker runs the block's
				// threads one after another, phase by phase, so the block is
				// one thread: its loops over the list are strided, and one
				// thread does the iteration's work without the idle ones'
				// turns. Without hybrid points the block is SMALLB, a
				// default that nvcc's __launch_bounds__ reads (abi.MaxBlock).
				fit := b.Min(b.P(pSmallB), b.Max(b.I32(32), b.Mul(b.Bin(ir.Div, b.Add(b.V("listed"), b.I32(31)), b.I32(32)), b.I32(32))))
				block := b.Sel(b.Lt(b.I32(0), b.P(pHybridIter)), b.Sel(b.Eq(b.V("on"), b.I32(0)), b.I32(1), fit), b.P(pSmallB))
				b.Emit(&ir.Launch{Pos: b.Pos, Kernel: "trs_small", Args: []ir.Expr{b.V("it0"), b.V("on")}, Grid: b.I32(1), Block: block})
			}, func() {
				procs := b.Max(b.Min(b.V("listed"), b.P(pProcs)), b.I32(1))
				b.Emit(&ir.Region{Pos: b.Pos, Procs: procs, Body: l.regionBody(b)})
			})
		})
	})
	overflow := int64(stOverflow)
	if l.world {
		overflow = stWOverflow
	}
	b.If(b.Ne(b.Bin(ir.And, b.Ld("status", b.I32(overflow)), b.I32(ovWalk)), b.I32(0)), func() { b.Raise(msgWalk) })
	b.If(b.Ne(b.Ld("status", b.I32(overflow)), b.I32(0)), func() { b.Raise(msgFull) })
	b.If(b.Lt(b.I32(0), b.Ld(b.pending(), b.Rem(b.Ld("status", b.I32(stIter)), b.I32(3)))), func() { b.Raise(msgIter) })
	b.Call("trs_output")
}

// regionBody is the fixpoint loop at the SPMD level, which the passes
// lower (Note [Rewriting on the device]). The region has a processor per
// listed slot, up to PROCS, and its loop runs while that size suits the
// worklist: until the list outgrows twice the processors (short of
// PROCS) or shrinks below an eighth of them, when main starts a region
// of the new size. Nothing private outlives a barrier, so the region's
// size may depend on the list: each phase reads the iteration from
// status.
func (l *lowerer) regionBody(b *fn) []ir.Stmt {
	return b.Nest(func() {
		iter := func() ir.Expr { return b.Ld("status", b.I32(stIter)) }
		listed := func() ir.Expr { return b.Ld("pc", b.Rem(iter(), b.I32(3))) }
		np := func() ir.Expr { return b.Builtin(ir.NumProcs) }
		fits := b.And(
			b.Bin(ir.LogOr, b.Ge(np(), b.P(pProcs)), b.Ge(np(), b.Bin(ir.Div, listed(), b.I32(2)))),
			b.Ge(listed(), b.Bin(ir.Div, np(), b.I32(8))))
		// turns counts the loop's iterations, so that MAXITER bounds it
		// in a thread's own view too (Note [Checked walk bounds]).
		b.Decl("turns", ir.I32, b.I32(0))
		turnsOK := b.Or(b.Eq(b.P(pMaxIter), b.I32(0)), b.Lt(b.V("turns"), b.P(pMaxIter)))
		cond := b.And(b.And(b.And(b.And(b.running(iter(), false), turnsOK), b.Ge(listed(), b.P(pSmall))), fits), b.withinHybrid(iter(), b.V("it0")))
		b.While(cond, func() {
			b.Decl("k", ir.I32, iter())
			// Never one processor's walks: the region's schedule is the
			// one-block loop's (Note [One processor's walks]).
			b.Call("trs_derive", b.V("k"), b.Builtin(ir.ProcID), b.Builtin(ir.NumProcs), b.Bool(false))
			b.Barrier(true)
			b.Decl("kc", ir.I32, b.Ld("status", b.I32(stPhase)))
			b.Call("trs_commit", b.V("kc"), b.Builtin(ir.ProcID), b.Builtin(ir.NumProcs), b.Mul(b.I32(2), b.V("on")))
			b.Barrier(true)
			b.Set("turns", b.Add(b.V("turns"), b.I32(1)))
		})
	})
}

// output adds the host functions that print: the normal form or its
// summary, then the statistics and the trace if asked.
func (l *lowerer) output() {
	l.nameFunc()
	l.printFunc()
	l.summaryFunc()
	l.statsFunc()
	l.traceFunc()
	b := l.newFunc(ir.HostFunc, "trs_output", ir.Void)
	root := l.nodes - 1
	summary := func() ir.Expr { return b.Bin(ir.LogOr, b.Ne(b.P(pPrint), b.I32(0)), b.Ne(b.P(pStats), b.I32(0))) }
	b.Decl("dev", ir.Bool, b.Bool(false))
	// The device's summary where the device holds the store; on a CPU
	// (Note [Hybrid points] in ir/expr.go) the host's fold is faster.
	b.If(b.And(summary(), b.Ne(b.Builtin(ir.OnDevice), b.I32(0))), func() {
		if l.world {
			l.worldSummary(b, root)
		} else {
			b.Emit(l.summaryRegion(b, root))
		}
		b.CopyIn("h_sum", "sum", b.I32(sumWords))
		b.CopyIn("h_sumv", "sumv", b.I32(2))
		b.Set("dev", b.Eq(b.Ld("h_sum", b.I32(sumDone)), b.I32(1)))
	})
	b.IfElse(b.V("dev"), func() {
		if l.world {
			b.Store("h_live", b.I32(0), b.Ld("sumw", b.I32(sumTotal)))
		} else {
			b.Store("h_live", b.I32(0), b.Conv(ir.I64, b.Ld("h_sum", b.I32(sumCount))))
		}
		b.Store("h_size", b.S(root), b.Ld("h_sumv", b.I32(0)))
		b.Store("h_hash", b.S(root), b.Ld("h_sumv", b.I32(1)))
	}, func() {
		// The host folds what the device could not (Note [Summary on the device]).
		l.copyStore(b, "n")
		b.If(summary(), func() { b.Call("trs_sum", b.S(root), b.S(0)) })
	})
	b.If(b.And(b.V("dev"), b.Eq(b.P(pPrint), b.I32(0))), func() { l.copyStore(b, "m") })
	b.IfElse(b.Eq(b.P(pPrint), b.I32(0)), func() {
		b.Call("trs_print", b.S(root))
		b.Printf("\n")
	}, func() {
		b.Printf("term size %lu, hash %lu\n", b.Ld("h_size", b.S(root)), b.Ld("h_hash", b.S(root)))
	})
	b.If(b.Ne(b.P(pStats), b.I32(0)), func() { b.Call("trs_stats") })
	b.If(b.Ne(b.P(pTrace), b.I32(0)), func() { b.Call("trs_trace") })
}

// copyStore copies the heads and arguments of the slots in use to the
// host's arrays, counting them in a new local n.
//
// In a world each device's part is copied, up to what its fresh counter
// handed out, to the same place in the host's arrays.
func (l *lowerer) copyStore(b *fn, n string) {
	if l.world {
		b.Loop(n+"d", b.I32(0), b.Builtin(ir.NumDevices), b.I32(1), func() {
			at := b.Decl(n+"at", l.id, b.slotOn(b.V(n+"d"), b.S(0)))
			cnt := b.Decl(n, l.id, b.Conv(l.id, b.Min(b.Ld("nfresh", b.ctrOf(b.V(n+"d"), b.I32(0))), b.Conv(ir.I64, b.per()))))
			for _, a := range append([]string{"hd"}, l.args...) {
				b.Emit(&ir.Copy{Pos: b.Pos, Dst: "h_" + a, DstOff: ir.CloneExpr(at), Src: a, SrcOff: ir.CloneExpr(at), Count: ir.CloneExpr(cnt)})
			}
		})
		return
	}
	b.Decl(n, ir.I32, b.used())
	b.CopyIn("h_hd", "hd", b.V(n))
	for _, a := range l.args {
		b.CopyIn("h_"+a, a, b.V(n))
	}
}

// nameFunc: trs_name(h) prints a symbol's name.
func (l *lowerer) nameFunc() {
	b := l.newFunc(ir.HostFunc, "trs_name", ir.Void, param{"h", ir.I32})
	sw := &ir.Switch{Pos: b.Pos, X: b.V("h")}
	for _, s := range l.sys.Syms {
		if s.Aux {
			continue // never in a normal form (Notes [Conditional rules], [Repeated subterms])
		}
		name := s.Name
		if s.Arity == 0 && !l.sys.Bare() {
			name += "()"
		}
		sw.Cases = append(sw.Cases, &ir.Case{Pos: s.Pos, Values: []int64{int64(s.Index)},
			Body: b.Nest(func() { b.Printf("%s", b.Str(name)) })})
	}
	b.Emit(sw)
}

// byArity emits body(a) under a test that the local h, a head symbol, has
// arity a, for each arity a > 0 that some symbol has.
func (l *lowerer) byArity(b *fn, body func(a int)) {
	for a := 1; a <= l.k; a++ {
		if l.start[a] == l.start[a+1] {
			continue
		}
		in := b.And(b.Ge(b.V("h"), b.I32(l.start[a])), b.Lt(b.V("h"), b.I32(l.start[a+1])))
		b.If(in, func() { body(a) })
	}
}

// printFunc: trs_print(t) prints the term at slot t from the host's copy
// of the store. It follows the last argument in a loop and recurses on
// the others, so that lists and numbers cost no stack.
func (l *lowerer) printFunc() {
	b := l.newFunc(ir.HostFunc, "trs_print", ir.Void, param{"t0", l.id})
	b.Decl("t", l.id, b.V("t0"))
	b.Decl("open", ir.I32, b.I32(0))
	b.Decl("more", ir.Bool, b.Bool(true))
	b.While(b.V("more"), func() {
		b.Decl("h", ir.I32, b.Ld("h_hd", b.V("t")))
		b.Call("trs_name", b.V("h"))
		b.Set("more", b.Bool(false))
		l.byArity(b, func(a int) {
			b.Printf("(")
			for i := 0; i < a-1; i++ {
				b.Call("trs_print", b.Ld("h_"+l.args[i], b.V("t")))
				b.Printf(", ")
			}
			b.Set("t", b.Ld("h_"+l.args[a-1], b.V("t")))
			b.Set("open", b.Add(b.V("open"), b.I32(1)))
			b.Set("more", b.Bool(true))
		})
	})
	b.Loop("i", b.I32(0), b.V("open"), b.I32(1), func() { b.Printf(")") })
}

// summaryFunc: trs_sum(t, sp) computes the size and hash (Note [Summary])
// of the term at slot t and of every slot below it, once each, into
// h_size and h_hash, marking them in h_mark and counting them in
// h_live[0]. It descends the chain of last arguments, stacking it at
// h_stack[sp], recursing on the other arguments, then computes the chain
// bottom up.
func (l *lowerer) summaryFunc() {
	b := l.newFunc(ir.HostFunc, "trs_sum", ir.Void, param{"t0", l.id}, param{"sp", l.id})
	b.Decl("t", l.id, b.V("t0"))
	b.Decl("top", l.id, b.V("sp"))
	b.Decl("more", ir.Bool, b.Bool(true))
	b.While(b.And(b.V("more"), b.Eq(b.Ld("h_mark", b.V("t")), b.U8(0))), func() {
		b.Store("h_stack", b.V("top"), b.V("t"))
		b.Set("top", b.Add(b.V("top"), b.S(1)))
		b.Decl("h", ir.I32, b.Ld("h_hd", b.V("t")))
		b.Set("more", b.Bool(false))
		l.byArity(b, func(a int) {
			for i := 0; i < a-1; i++ {
				b.Call("trs_sum", b.Ld("h_"+l.args[i], b.V("t")), b.V("top"))
			}
			b.Set("t", b.Ld("h_"+l.args[a-1], b.V("t")))
			b.Set("more", b.Bool(true))
		})
	})
	b.While(b.Lt(b.V("sp"), b.V("top")), func() {
		b.Set("top", b.Sub(b.V("top"), b.S(1)))
		u := b.Decl("u", l.id, b.Ld("h_stack", b.V("top")))
		b.Decl("h", ir.I32, b.Ld("h_hd", u))
		b.Decl("size", ir.U64, b.U64(1))
		b.Decl("hash", ir.U64, b.Mul(b.Conv(ir.U64, b.Add(b.V("h"), b.I32(1))), b.U64(hashSeed)))
		l.forArgs(b, b.V("h"), func(_ int, arr string) {
			c := b.Decl("c", l.id, b.Ld("h_"+arr, b.V("u")))
			b.Set("size", b.Add(b.V("size"), b.Ld("h_size", c)))
			b.Set("hash", b.Mul(b.Bin(ir.Xor, b.V("hash"), b.Ld("h_hash", b.V("c"))), b.U64(hashPrime)))
			b.Set("hash", b.Bin(ir.Xor, b.V("hash"), b.Bin(ir.Shr, b.V("hash"), b.U64(32))))
		})
		b.Store("h_size", b.V("u"), b.V("size"))
		b.Store("h_hash", b.V("u"), b.V("hash"))
		b.Store("h_mark", b.V("u"), b.U8(1))
		b.Store("h_live", b.I32(0), b.Add(b.Ld("h_live", b.I32(0)), b.I64(1)))
	})
}

// statsFunc: trs_stats prints the statistics of --stats: iterations, rewrite
// steps, the distinct terms of the normal form (as trs_sum counted them),
// the most worklist entries rewritten in one iteration, and the store's
// high-water mark; with STATS=2, as one JSON object on a line
// (docs/TOOLKIT.md). They go to standard error, apart from the program's
// output.
func (l *lowerer) statsFunc() {
	b := l.newFunc(ir.HostFunc, "trs_stats", ir.Void)
	used, d := b.used(), "%d"
	if l.world {
		used, d = b.CallExpr("trs_used"), "%ld"
	}
	b.IfElse(b.Eq(b.P(pStats), b.I32(2)), func() {
		b.Eprintf("{\"iterations\": %d, \"iterations_gpu\": %d, \"rewrites\": %ld, \"live_terms\": %ld, \"peak_parallelism\": %d, \"store_slots_used\": "+d+"}\n",
			b.Ld("status", b.I32(stIter)), b.Ld("status", b.I32(stOnDev)), b.Ld("total", b.I32(0)), b.Ld("h_live", b.I32(0)), b.Ld("status", b.I32(stPeak)), used)
	}, func() {
		b.Eprintf("iterations: %d\n", b.Ld("status", b.I32(stIter)))
		b.Eprintf("iterations on the CPU: %d, on the GPU: %d\n", b.Sub(b.Ld("status", b.I32(stIter)), b.Ld("status", b.I32(stOnDev))), b.Ld("status", b.I32(stOnDev)))
		b.Eprintf("rewrites: %ld\n", b.Ld("total", b.I32(0)))
		b.Eprintf("live terms: %ld\n", b.Ld("h_live", b.I32(0)))
		b.Eprintf("peak parallelism: %d\n", b.Ld("status", b.I32(stPeak)))
		b.Eprintf("store slots used: "+d+"\n", ir.CloneExpr(used))
	})
}

// traceFunc: trs_trace prints the per-iteration trace as CSV.
func (l *lowerer) traceFunc() {
	b := l.newFunc(ir.HostFunc, "trs_trace", ir.Void)
	b.Decl("n", ir.I32, b.Min(b.Ld("status", b.I32(stIter)), b.P(pTraceCap)))
	b.Emit(&ir.Copy{Pos: b.Pos, Dst: "h_tr", DstOff: b.I32(0), Src: "tr", SrcOff: b.I32(0), Count: b.Mul(b.I32(4), b.V("n"))})
	// The pending count of the last iteration, which no later one records.
	last := b.Decl("last", ir.I32, b.Ld("status", b.I32(stIter)))
	b.If(b.And(b.Lt(b.I32(0), last), b.Ge(b.P(pTraceCap), b.V("last"))), func() {
		b.Store("h_tr", b.Add(b.Mul(b.I32(4), b.Sub(b.V("last"), b.I32(1))), b.I32(2)), b.Conv(ir.I64, b.Ld(b.pending(), b.Rem(b.V("last"), b.I32(3)))))
	})
	b.Printf(TraceHeader + "\n")
	b.Loop("i", b.I32(0), b.V("n"), b.I32(1), func() {
		at := func(j int64) ir.Expr { return b.Ld("h_tr", b.Add(b.Mul(b.I32(4), b.V("i")), b.I32(j))) }
		b.Printf("%d,%ld,%ld,%ld,", b.V("i"), at(0), at(1), at(2))
		b.IfElse(b.Eq(b.Bin(ir.Rem, at(3), b.I64(2)), b.I64(0)), func() { b.Printf("grid,") }, func() { b.Printf("block,") })
		b.IfElse(b.Lt(at(3), b.I64(2)), func() { b.Printf("cpu\n") }, func() { b.Printf("gpu\n") })
	})
}

// TraceHeader is the first line of the trace: the columns are the
// iteration, the worklist entries rewritten in it (its parallelism, each
// a walk of Note [Local normalisation]), the rewrite steps they took, the
// slots pending after it, whether the region (grid) or the one-block
// kernel (block) ran it, and on which side (cpu or gpu, Note [Where
// iterations ran]).
const TraceHeader = "iteration,rewritten,rewrites,pending,mode,on"

// Note [Where iterations ran]
//
// A hybrid program (Note [Hybrid points] in ir/expr.go) runs each
// iteration where the data is: main reads ondevice() after its hybrid
// point and passes it, as on, to the region and the one-block kernel,
// which add 2*on to the trace's mode word; trs_account counts the
// iterations with on set in status[stOnDev]. --stats prints them as
// "iterations on the CPU: C, on the GPU: G", --trace's column on says
// cpu or gpu, and gpuc plot shades the GPU's iterations. The device is
// what ondevice() says it is: the interpreter and GPU-only programs count
// every iteration on the GPU, a host build without moves every one on the
// CPU, and the host build's stand-in device (HYBRID_DEVICE=copy,
// HYBRID_MIGRATE=every) counts as the GPU. Only these two figures differ
// between the ways a program runs; the rest of the statistics and trace
// are the same bytes.
