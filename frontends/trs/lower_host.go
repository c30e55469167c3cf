package trs

import "gpuc/ir"

// Messages of the generated program's errors.
const (
	msgFull  = "term store full: the rewrite needs more than CAPACITY term slots; set a larger CAPACITY (gpuc --capacity)"
	msgIter  = "no normal form within MAXITER iterations"
	msgProcs = "PROCS and SMALLB must be at least 1"
)

// mainFunc builds the host program: load the input, run the fixpoint
// loop in a region sized to the worklist or, when few slots are pending,
// in the one-block kernel (Note [Low parallelism]), then print.
func (l *lowerer) mainFunc() {
	b := l.newFunc(ir.HostFunc, "main", ir.Void)
	b.if_(b.bin(ir.LogOr, b.lt(b.p(pProcs), b.i32(1)), b.lt(b.p(pSmallB), b.i32(1))), func() { b.raise(msgProcs) })
	b.if_(b.lt(b.p(pCapacity), b.i32(l.nodes)), func() { b.raise(msgFull) })
	n := max(l.nodes, int64(len(l.queue)))
	b.emit(&ir.Launch{Pos: b.pos, Kernel: "trs_init", Grid: b.i32((n + 255) / 256), Block: b.i32(256)})
	b.decl("go", ir.Bool, b.boolean(true))
	b.while(b.v("go"), func() {
		b.decl("it0", ir.I32, b.ld("status", b.i32(stIter)))
		b.set("go", b.running(b.v("it0")))
		b.if_(b.v("go"), func() {
			b.decl("listed", ir.I32, b.ld("pc", b.rem(b.v("it0"), b.i32(3))))
			b.ifElse(b.lt(b.v("listed"), b.p(pSmall)), func() {
				b.emit(&ir.Launch{Pos: b.pos, Kernel: "trs_small", Args: []ir.Expr{b.v("it0")}, Grid: b.i32(1), Block: b.p(pSmallB)})
			}, func() {
				procs := b.max(b.min(b.v("listed"), b.p(pProcs)), b.i32(1))
				b.emit(&ir.Region{Pos: b.pos, Procs: procs, Body: l.regionBody(b)})
			})
		})
	})
	b.if_(b.ne(b.ld("status", b.i32(stOverflow)), b.i32(0)), func() { b.raise(msgFull) })
	b.if_(b.lt(b.i32(0), b.ld("pc", b.rem(b.ld("status", b.i32(stIter)), b.i32(3)))), func() { b.raise(msgIter) })
	b.call("trs_output")
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
	return b.nest(func() {
		iter := func() ir.Expr { return b.ld("status", b.i32(stIter)) }
		listed := func() ir.Expr { return b.ld("pc", b.rem(iter(), b.i32(3))) }
		np := func() ir.Expr { return b.builtin(ir.NumProcs) }
		fits := b.and(
			b.bin(ir.LogOr, b.ge(np(), b.p(pProcs)), b.ge(np(), b.bin(ir.Div, listed(), b.i32(2)))),
			b.ge(listed(), b.bin(ir.Div, np(), b.i32(8))))
		cond := b.and(b.and(b.running(iter()), b.ge(listed(), b.p(pSmall))), fits)
		b.while(cond, func() {
			b.decl("k", ir.I32, iter())
			b.call("trs_derive", b.v("k"), b.builtin(ir.ProcID), b.builtin(ir.NumProcs))
			b.barrier(true)
			b.decl("kc", ir.I32, b.ld("status", b.i32(stPhase)))
			b.call("trs_commit", b.v("kc"), b.builtin(ir.ProcID), b.builtin(ir.NumProcs), b.i32(0))
			b.barrier(true)
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
	summary := func() ir.Expr { return b.bin(ir.LogOr, b.ne(b.p(pPrint), b.i32(0)), b.ne(b.p(pStats), b.i32(0))) }
	b.decl("dev", ir.Bool, b.boolean(false))
	b.if_(summary(), func() {
		b.emit(l.summaryRegion(b, root))
		b.copyIn("h_sum", "sum", b.i32(sumWords))
		b.copyIn("h_sumv", "sumv", b.i32(2))
		b.set("dev", b.eq(b.ld("h_sum", b.i32(sumDone)), b.i32(1)))
	})
	b.ifElse(b.v("dev"), func() {
		b.store("h_live", b.i32(0), b.conv(ir.I64, b.ld("h_sum", b.i32(sumCount))))
		b.store("h_size", b.i32(root), b.ld("h_sumv", b.i32(0)))
		b.store("h_hash", b.i32(root), b.ld("h_sumv", b.i32(1)))
	}, func() {
		// The host folds what the device could not (Note [Summary on the device]).
		l.copyStore(b, "n")
		b.if_(summary(), func() { b.call("trs_sum", b.i32(root), b.i32(0)) })
	})
	b.if_(b.and(b.v("dev"), b.eq(b.p(pPrint), b.i32(0))), func() { l.copyStore(b, "m") })
	b.ifElse(b.eq(b.p(pPrint), b.i32(0)), func() {
		b.call("trs_print", b.i32(root))
		b.printf("\n")
	}, func() {
		b.printf("term size %lu, hash %lu\n", b.ld("h_size", b.i32(root)), b.ld("h_hash", b.i32(root)))
	})
	b.if_(b.ne(b.p(pStats), b.i32(0)), func() { b.call("trs_stats") })
	b.if_(b.ne(b.p(pTrace), b.i32(0)), func() { b.call("trs_trace") })
}

// copyStore copies the heads and arguments of the slots in use to the
// host's arrays, counting them in a new local n.
func (l *lowerer) copyStore(b *fn, n string) {
	b.decl(n, ir.I32, b.used())
	b.copyIn("h_hd", "hd", b.v(n))
	for _, a := range l.args {
		b.copyIn("h_"+a, a, b.v(n))
	}
}

// nameFunc: trs_name(h) prints a symbol's name.
func (l *lowerer) nameFunc() {
	b := l.newFunc(ir.HostFunc, "trs_name", ir.Void, param{"h", ir.I32})
	sw := &ir.Switch{Pos: b.pos, X: b.v("h")}
	for _, s := range l.sys.Syms {
		if s.Aux {
			continue // never in a normal form (Notes [Conditional rules], [Repeated subterms])
		}
		name := s.Name
		if s.Arity == 0 && !l.sys.Bare() {
			name += "()"
		}
		sw.Cases = append(sw.Cases, &ir.Case{Pos: s.Pos, Values: []int64{int64(s.Index)},
			Body: b.nest(func() { b.printf("%s", b.str(name)) })})
	}
	b.emit(sw)
}

// byArity emits body(a) under a test that the local h, a head symbol, has
// arity a, for each arity a > 0 that some symbol has.
func (l *lowerer) byArity(b *fn, body func(a int)) {
	for a := 1; a <= l.k; a++ {
		if l.start[a] == l.start[a+1] {
			continue
		}
		in := b.and(b.ge(b.v("h"), b.i32(l.start[a])), b.lt(b.v("h"), b.i32(l.start[a+1])))
		b.if_(in, func() { body(a) })
	}
}

// printFunc: trs_print(t) prints the term at slot t from the host's copy
// of the store. It follows the last argument in a loop and recurses on
// the others, so that lists and numbers cost no stack.
func (l *lowerer) printFunc() {
	b := l.newFunc(ir.HostFunc, "trs_print", ir.Void, param{"t0", ir.I32})
	b.decl("t", ir.I32, b.v("t0"))
	b.decl("open", ir.I32, b.i32(0))
	b.decl("more", ir.Bool, b.boolean(true))
	b.while(b.v("more"), func() {
		b.decl("h", ir.I32, b.ld("h_hd", b.v("t")))
		b.call("trs_name", b.v("h"))
		b.set("more", b.boolean(false))
		l.byArity(b, func(a int) {
			b.printf("(")
			for i := 0; i < a-1; i++ {
				b.call("trs_print", b.ld("h_"+l.args[i], b.v("t")))
				b.printf(", ")
			}
			b.set("t", b.ld("h_"+l.args[a-1], b.v("t")))
			b.set("open", b.add(b.v("open"), b.i32(1)))
			b.set("more", b.boolean(true))
		})
	})
	b.loop("i", b.i32(0), b.v("open"), b.i32(1), func() { b.printf(")") })
}

// summaryFunc: trs_sum(t, sp) computes the size and hash (Note [Summary])
// of the term at slot t and of every slot below it, once each, into
// h_size and h_hash, marking them in h_mark and counting them in
// h_live[0]. It descends the chain of last arguments, stacking it at
// h_stack[sp], recursing on the other arguments, then computes the chain
// bottom up.
func (l *lowerer) summaryFunc() {
	b := l.newFunc(ir.HostFunc, "trs_sum", ir.Void, param{"t0", ir.I32}, param{"sp", ir.I32})
	b.decl("t", ir.I32, b.v("t0"))
	b.decl("top", ir.I32, b.v("sp"))
	b.decl("more", ir.Bool, b.boolean(true))
	b.while(b.and(b.v("more"), b.eq(b.ld("h_mark", b.v("t")), b.u8(0))), func() {
		b.store("h_stack", b.v("top"), b.v("t"))
		b.set("top", b.add(b.v("top"), b.i32(1)))
		b.decl("h", ir.I32, b.ld("h_hd", b.v("t")))
		b.set("more", b.boolean(false))
		l.byArity(b, func(a int) {
			for i := 0; i < a-1; i++ {
				b.call("trs_sum", b.ld("h_"+l.args[i], b.v("t")), b.v("top"))
			}
			b.set("t", b.ld("h_"+l.args[a-1], b.v("t")))
			b.set("more", b.boolean(true))
		})
	})
	b.while(b.lt(b.v("sp"), b.v("top")), func() {
		b.set("top", b.sub(b.v("top"), b.i32(1)))
		u := b.decl("u", ir.I32, b.ld("h_stack", b.v("top")))
		b.decl("h", ir.I32, b.ld("h_hd", u))
		b.decl("size", ir.U64, b.u64(1))
		b.decl("hash", ir.U64, b.mul(b.conv(ir.U64, b.add(b.v("h"), b.i32(1))), b.u64(hashSeed)))
		l.forArgs(b, b.v("h"), func(_ int, arr string) {
			c := b.decl("c", ir.I32, b.ld("h_"+arr, b.v("u")))
			b.set("size", b.add(b.v("size"), b.ld("h_size", c)))
			b.set("hash", b.mul(b.bin(ir.Xor, b.v("hash"), b.ld("h_hash", b.v("c"))), b.u64(hashPrime)))
			b.set("hash", b.bin(ir.Xor, b.v("hash"), b.bin(ir.Shr, b.v("hash"), b.u64(32))))
		})
		b.store("h_size", b.v("u"), b.v("size"))
		b.store("h_hash", b.v("u"), b.v("hash"))
		b.store("h_mark", b.v("u"), b.u8(1))
		b.store("h_live", b.i32(0), b.add(b.ld("h_live", b.i32(0)), b.i64(1)))
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
	b.ifElse(b.eq(b.p(pStats), b.i32(2)), func() {
		b.eprintf("{\"iterations\": %d, \"rewrites\": %ld, \"live_terms\": %ld, \"peak_parallelism\": %d, \"store_slots_used\": %d}\n",
			b.ld("status", b.i32(stIter)), b.ld("total", b.i32(0)), b.ld("h_live", b.i32(0)), b.ld("status", b.i32(stPeak)), b.used())
	}, func() {
		b.eprintf("iterations: %d\n", b.ld("status", b.i32(stIter)))
		b.eprintf("rewrites: %ld\n", b.ld("total", b.i32(0)))
		b.eprintf("live terms: %ld\n", b.ld("h_live", b.i32(0)))
		b.eprintf("peak parallelism: %d\n", b.ld("status", b.i32(stPeak)))
		b.eprintf("store slots used: %d\n", b.used())
	})
}

// traceFunc: trs_trace prints the per-iteration trace as CSV.
func (l *lowerer) traceFunc() {
	b := l.newFunc(ir.HostFunc, "trs_trace", ir.Void)
	b.decl("n", ir.I32, b.min(b.ld("status", b.i32(stIter)), b.p(pTraceCap)))
	b.emit(&ir.Copy{Pos: b.pos, Dst: "h_tr", DstOff: b.i32(0), Src: "tr", SrcOff: b.i32(0), Count: b.mul(b.i32(4), b.v("n"))})
	// The pending count of the last iteration, which no later one records.
	last := b.decl("last", ir.I32, b.ld("status", b.i32(stIter)))
	b.if_(b.and(b.lt(b.i32(0), last), b.ge(b.p(pTraceCap), b.v("last"))), func() {
		b.store("h_tr", b.add(b.mul(b.i32(4), b.sub(b.v("last"), b.i32(1))), b.i32(2)), b.conv(ir.I64, b.ld("pc", b.rem(b.v("last"), b.i32(3)))))
	})
	b.printf(TraceHeader + "\n")
	b.loop("i", b.i32(0), b.v("n"), b.i32(1), func() {
		at := func(j int64) ir.Expr { return b.ld("h_tr", b.add(b.mul(b.i32(4), b.v("i")), b.i32(j))) }
		b.printf("%d,%ld,%ld,%ld,", b.v("i"), at(0), at(1), at(2))
		b.ifElse(b.eq(at(3), b.i64(0)), func() { b.printf("grid\n") }, func() { b.printf("block\n") })
	})
}

// TraceHeader is the first line of the trace: the columns are the
// iteration, the worklist entries rewritten in it (its parallelism, each
// a walk of Note [Local normalisation]), the rewrite steps they took, the
// slots pending after it, and whether the region (grid) or the one-block
// kernel (block) ran it.
const TraceHeader = "iteration,rewritten,rewrites,pending,mode"
