package trs

import "gpuc/ir"

// phases adds the two phases of an iteration (Note [Rewriting on the
// device]), the books that processor 0 keeps, and the one-block kernel of
// Note [Low parallelism].
func (l *lowerer) phases() {
	l.deriveFunc()
	l.accountFunc()
	l.commitFunc()
	l.smallKernel()
}

// deriveFunc: trs_derive(k, p, np) is the derive phase of iteration k for
// processor p of np: its share of the worklist, or of all slots. Its
// walks settle waiting slots if fewer than SETTLE slots are pending
// (Note [Settling]).
func (l *lowerer) deriveFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_derive", ir.Void, param{"k", ir.I32}, param{"p", ir.I32}, param{"np", ir.I32})
	k, p, np := b.v("k"), b.v("p"), b.v("np")
	b.decl("settle", ir.Bool, b.lt(b.ld("pc", b.rem(k, b.i32(3))), b.p(pSettle)))
	b.decl("c0", ir.I32, b.rem(k, b.i32(3)))
	b.if_(b.eq(p, b.i32(0)), func() {
		b.store("free", b.i32(frTailA), b.ld("free", b.i32(frTail)))
		b.store("status", b.i32(stPhase), b.v("k"))
	})
	b.decl("favail", ir.I64, b.sub(b.ld("free", b.i32(frTail)), b.ld("free", b.i32(frHead0))))
	b.decl("nsteps", ir.I64, b.i64(0))
	b.decl("nslots", ir.I32, b.i32(0))
	visit := func(s ir.Expr) {
		r := b.decl("r", ir.I64, b.callExpr("trs_step", s, b.v("k"), b.v("favail"), b.v("settle")))
		b.if_(b.lt(b.i64(0), r), func() {
			b.set("nsteps", b.add(b.v("nsteps"), b.v("r")))
			b.set("nslots", b.add(b.v("nslots"), b.i32(1)))
		})
	}
	b.ifElse(b.ne(b.p(pWorklist), b.i32(0)), func() {
		b.decl("cnt", ir.I32, b.ld("wlen", b.v("c0")))
		b.loop("i", p, b.v("cnt"), np, func() {
			visit(b.listed("wl0", "wl1", b.v("k"), b.v("i")))
		})
	}, func() {
		b.decl("top", ir.I32, b.conv(ir.I32, b.ld("nfresh", b.i32(1))))
		b.loop("s", b.v("p"), b.v("top"), b.v("np"), func() {
			b.if_(b.ne(b.listed("wl0", "wl1", b.v("k"), b.v("s")), b.i32(0)), func() { visit(b.v("s")) })
		})
	})
	b.if_(b.lt(b.i64(0), b.v("nsteps")), func() {
		b.atomic("", ir.AtomicAdd, "steps", b.v("c0"), b.v("nsteps"))
		b.atomic("", ir.AtomicAdd, "slots", b.v("c0"), b.v("nslots"))
	})
}

// commitFunc: trs_commit(k, p, np, mode) is the commit phase of iteration
// k: pending flags, and the count of slots pending after the iteration;
// garbage; and the books, by processor 0. mode is 0 in the region and 1
// in the one-block kernel, for the trace.
func (l *lowerer) commitFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_commit", ir.Void, param{"k", ir.I32}, param{"p", ir.I32}, param{"np", ir.I32}, param{"mode", ir.I32})
	k, p, np := b.v("k"), b.v("p"), b.v("np")
	b.decl("c0", ir.I32, b.rem(k, b.i32(3)))
	b.decl("c1", ir.I32, b.rem(b.add(b.v("k"), b.i32(1)), b.i32(3)))
	b.decl("npend", ir.I32, b.i32(0))
	b.ifElse(b.ne(b.p(pWorklist), b.i32(0)), func() {
		// Slots of this iteration's list that reached normal form, and
		// the pending slots of the next list.
		b.decl("n0", ir.I32, b.ld("wlen", b.v("c0")))
		b.loop("i", p, b.v("n0"), np, func() {
			s := b.decl("s", ir.I32, b.listed("wl0", "wl1", b.v("k"), b.v("i")))
			b.if_(b.eq(b.ld("pnw", s), b.u8(0)), func() { b.store("pn", b.v("s"), b.u8(0)) })
		})
		b.decl("n1", ir.I32, b.ld("wlen", b.v("c1")))
		b.loop("j", b.v("p"), b.v("n1"), b.v("np"), func() {
			x := b.decl("x", ir.I32, b.listed("wl1", "wl0", b.v("k"), b.v("j")))
			b.if_(b.ne(b.ld("pnw", x), b.u8(0)), func() {
				b.store("pn", b.v("x"), b.u8(1))
				b.set("npend", b.add(b.v("npend"), b.i32(1)))
			})
		})
	}, func() {
		// The same, with the lists kept as flags per slot (trs_enlist).
		b.decl("top", ir.I32, b.used())
		b.loop("s", b.v("p"), b.v("top"), b.v("np"), func() {
			b.if_(b.ne(b.listed("wl0", "wl1", b.v("k"), b.v("s")), b.i32(0)), func() {
				b.call("trs_push", b.v("s"), b.i32(0), b.add(b.v("k"), b.i32(1)))
				b.if_(b.eq(b.ld("pnw", b.v("s")), b.u8(0)), func() { b.store("pn", b.v("s"), b.u8(0)) })
			})
			b.if_(b.ne(b.listed("wl1", "wl0", b.v("k"), b.v("s")), b.i32(0)), func() {
				b.store("pn", b.v("s"), b.u8(1))
				b.set("npend", b.add(b.v("npend"), b.i32(1)))
			})
		})
	})
	b.if_(b.lt(b.i32(0), b.v("npend")), func() {
		b.atomic("", ir.AtomicAdd, "pc", b.v("c1"), b.v("npend"))
	})
	b.decl("ng", ir.I32, b.ld("glen", b.v("c0")))
	b.loop("g", b.v("p"), b.v("ng"), b.v("np"), func() {
		b.call("trs_free", b.listed("gl0", "gl1", b.v("k"), b.v("g")), b.v("k"))
	})
	b.if_(b.eq(b.v("p"), b.i32(0)), func() { b.call("trs_account", b.v("k"), b.v("mode")) })
}

// accountFunc: trs_account(k, mode) keeps the books at the end of
// iteration k (Note [Counters]): totals and trace, the free ring's head,
// and the counters of iteration k+2. The pending count of iteration k is
// still being added up, so the trace gets that of iteration k-1.
func (l *lowerer) accountFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_account", ir.Void, param{"k", ir.I32}, param{"mode", ir.I32})
	k := b.v("k")
	c0 := b.decl("c0", ir.I32, b.rem(k, b.i32(3)))
	b.decl("c2", ir.I32, b.rem(b.add(b.v("k"), b.i32(2)), b.i32(3)))
	ns := b.decl("ns", ir.I32, b.ld("slots", c0))
	st := b.decl("st", ir.I64, b.ld("steps", b.v("c0")))
	b.store("total", b.i32(0), b.add(b.ld("total", b.i32(0)), st))
	b.if_(b.lt(b.ld("status", b.i32(stPeak)), ns), func() { b.store("status", b.i32(stPeak), b.v("ns")) })
	at := func(i, j int64) ir.Expr { return b.add(b.mul(b.i32(4), b.add(b.v("k"), b.i32(i))), b.i32(j)) }
	b.if_(b.lt(b.v("k"), b.p(pTraceCap)), func() {
		b.store("tr", at(0, 0), b.conv(ir.I64, b.v("ns")))
		b.store("tr", at(0, 1), b.v("st"))
		b.store("tr", at(0, 3), b.conv(ir.I64, b.v("mode")))
	})
	b.if_(b.and(b.lt(b.i32(0), b.v("k")), b.lt(b.v("k"), b.add(b.p(pTraceCap), b.i32(1)))), func() {
		b.store("tr", at(-1, 2), b.conv(ir.I64, b.ld("pc", b.v("c0"))))
	})
	b.store("status", b.i32(stIter), b.add(b.v("k"), b.i32(1)))
	head := b.decl("head", ir.I64, b.min(b.ld("free", b.i32(frHead)), b.ld("free", b.i32(frTailA))))
	b.store("free", b.i32(frHead), head)
	b.store("free", b.i32(frHead0), b.v("head"))
	// The fresh counter may have overshot CAPACITY (Note [Fresh slots first]).
	b.store("nfresh", b.i32(1), b.min(b.ld("nfresh", b.i32(0)), b.conv(ir.I64, b.p(pCapacity))))
	for _, c := range []string{"wlen", "glen", "slots", "pc"} {
		b.store(c, b.v("c2"), b.i32(0))
	}
	b.store("steps", b.v("c2"), b.i64(0))
}

// used is the number of slots the fresh counter has handed out: every
// slot above it is unused. The counter may overshoot CAPACITY in the
// phase that empties it, so it is an i64 (Note [Fresh slots first]).
func (b *fn) used() ir.Expr {
	return b.conv(ir.I32, b.min(b.ld("nfresh", b.i32(0)), b.conv(ir.I64, b.p(pCapacity))))
}

// running is the condition to run iteration k: slots are pending after
// iteration k-1, the store did not fill, and MAXITER allows it.
func (b *fn) running(k ir.Expr) ir.Expr {
	pending := b.lt(b.i32(0), b.ld("pc", b.rem(k, b.i32(3))))
	ok := b.eq(b.ld("status", b.i32(stOverflow)), b.i32(0))
	allowed := b.bin(ir.LogOr, b.eq(b.p(pMaxIter), b.i32(0)), b.lt(ir.CloneExpr(k), b.p(pMaxIter)))
	return b.and(b.and(pending, ok), allowed)
}

// smallKernel: trs_small(it0) runs iterations from it0 in one block while
// fewer than 4*SMALL slots are pending (Note [Low parallelism]).
func (l *lowerer) smallKernel() {
	b := l.newFunc(ir.KernelFunc, "trs_small", ir.Void, param{"it0", ir.I32})
	b.decl("k", ir.I32, b.v("it0"))
	few := b.lt(b.ld("pc", b.rem(b.v("k"), b.i32(3))), b.mul(b.i32(4), b.p(pSmall)))
	b.while(b.and(b.running(b.v("k")), few), func() {
		b.call("trs_derive", b.v("k"), b.builtin(ir.ThreadID), b.builtin(ir.BlockDim))
		b.barrier(false)
		b.call("trs_commit", b.v("k"), b.builtin(ir.ThreadID), b.builtin(ir.BlockDim), b.i32(1))
		b.barrier(false)
		b.set("k", b.add(b.v("k"), b.i32(1)))
	})
}

// initKernel: trs_init loads the input graph into the store and its
// pending slots into the first worklist.
func (l *lowerer) initKernel() {
	b := l.newFunc(ir.KernelFunc, "trs_init", ir.Void)
	i := b.decl("i", ir.I32, b.builtin(ir.GlobalID))
	rec := l.record()
	word := func(off int64) ir.Expr { return b.ld("input", b.add(b.mul(b.v("i"), b.i32(rec)), b.i32(off))) }
	b.if_(b.lt(i, b.i32(l.nodes)), func() {
		b.store("hd", b.v("i"), word(0))
		for a, arr := range l.args {
			b.store(arr, b.v("i"), word(int64(a)+1))
		}
		b.store("rc", b.v("i"), word(int64(l.k)+1))
		b.store("up", b.v("i"), b.i32(-1))
		p := b.decl("p", ir.U8, b.conv(ir.U8, word(int64(l.k)+2)))
		b.store("pn", b.v("i"), p)
		b.store("pnw", b.v("i"), b.v("p"))
	})
	b.if_(b.lt(b.v("i"), b.i32(int64(len(l.queue)))), func() {
		q := b.decl("q", ir.I32, b.ld("input", b.add(b.i32(l.nodes*rec), b.v("i"))))
		b.ifElse(b.ne(b.p(pWorklist), b.i32(0)), func() { b.store("wl0", b.v("i"), q) }, func() { b.store("wl0", b.v("q"), b.i32(1)) })
	})
	b.if_(b.eq(b.v("i"), b.i32(0)), func() {
		b.store("nfresh", b.i32(0), b.i64(l.nodes))
		b.store("nfresh", b.i32(1), b.i64(l.nodes))
		b.store("wlen", b.i32(0), b.i32(int64(len(l.queue))))
		b.store("pc", b.i32(0), b.i32(int64(len(l.queue))))
	})
}
