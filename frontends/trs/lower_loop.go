package trs

import "gpuc/ir"

// phases adds the two phases of an iteration (Note [Rewriting on the
// device]), the books that processor 0 keeps, and the one-block kernel of
// Note [Low parallelism].
func (l *lowerer) phases() {
	l.deriveFunc()
	if l.world {
		l.worldAccountFunc()
	} else {
		l.accountFunc()
	}
	l.commitFunc()
	if !l.world {
		l.smallKernel() // one device's (Note [TRS on several devices])
	}
}

// pending is the buffer of the slots pending after each iteration, the
// world's in a world (Note [TRS on several devices]).
func (b *fn) pending() string {
	if b.world {
		return "wpc"
	}
	return "pc"
}

// mine is position i (an i32) of the calling device's part of a list: i
// itself on one device.
func (b *fn) mine(i ir.Expr) ir.Expr {
	if !b.world {
		return i
	}
	return b.slotOn(b.Builtin(ir.DeviceID), b.Conv(b.id, i))
}

// deriveFunc: trs_derive(k, p, np) is the derive phase of iteration k for
// processor p of np: its share of the worklist, or of all slots. Its
// walks settle waiting slots if fewer than SETTLE slots are pending
// (Note [Settling]).
func (l *lowerer) deriveFunc() {
	params := []param{{"k", ir.I32}, {"p", ir.I32}, {"np", ir.I32}}
	if !l.world {
		params = append(params, param{"one", ir.Bool}) // Note [One processor's walks]
	}
	b := l.newFunc(ir.DeviceFunc, "trs_derive", ir.Void, params...)
	k, p, np := b.V("k"), b.V("p"), b.V("np")
	b.Decl("settle", ir.Bool, b.Lt(b.Ld(b.pending(), b.ctr(b.Rem(k, b.I32(3)))), b.P(pSettle)))
	b.Decl("c0", ir.I32, b.Rem(k, b.I32(3)))
	b.If(b.Eq(p, b.I32(0)), func() {
		b.Store("free", b.ctr(b.I32(frTailA)), b.Ld("free", b.ctr(b.I32(frTail))))
		b.Store("status", b.ctr(b.I32(stPhase)), b.V("k"))
	})
	b.Decl("favail", ir.I64, b.Sub(b.Ld("free", b.ctr(b.I32(frTail))), b.Ld("free", b.ctr(b.I32(frHead0)))))
	b.Decl("nsteps", ir.I64, b.I64(0))
	b.Decl("nslots", ir.I32, b.I32(0))
	visit := func(s ir.Expr) {
		args := []ir.Expr{s, b.V("k"), b.V("favail"), b.V("settle")}
		if !l.world {
			args = append(args, b.V("one"))
		}
		r := b.Decl("r", ir.I64, b.CallExpr("trs_step", args...))
		b.If(b.Lt(b.I64(0), r), func() {
			b.Set("nsteps", b.Add(b.V("nsteps"), b.V("r")))
			b.Set("nslots", b.Add(b.V("nslots"), b.I32(1)))
		})
	}
	b.IfElse(b.Ne(b.P(pWorklist), b.I32(0)), func() {
		b.Decl("cnt", ir.I32, b.listLen("wlen", b.V("c0")))
		l.strided(b, "i", p, b.V("cnt"), np, func() {
			visit(b.listed("wl0", "wl1", b.V("k"), b.mine(b.V("i"))))
		})
	}, func() {
		if l.world {
			return // main refuses WORKLIST=0 in a world
		}
		b.Decl("top", ir.I32, b.Conv(ir.I32, b.Ld("nfresh", b.I32(1))))
		l.strided(b, "si", b.V("p"), b.V("top"), b.V("np"), func() {
			b.Decl("s", ir.I32, b.Conv(ir.I32, b.V("si")))
			b.If(b.Ne(b.listed("wl0", "wl1", b.V("k"), b.V("s")), b.I32(0)), func() { visit(b.V("s")) })
		})
	})
	b.If(b.Lt(b.I64(0), b.V("nsteps")), func() {
		b.Atomic("", ir.AtomicAdd, "steps", b.ctr(b.V("c0")), b.V("nsteps"))
		b.Atomic("", ir.AtomicAdd, "slots", b.ctr(b.V("c0")), b.V("nslots"))
	})
}

// commitFunc: trs_commit(k, p, np, mode) is the commit phase of iteration
// k: pending flags, and the count of slots pending after the iteration;
// garbage; and the books, by processor 0. mode is 0 in the region and 1
// in the one-block kernel, plus 2 where the device holds the data, for
// the trace and the statistics (Note [Where iterations ran]).
func (l *lowerer) commitFunc() {
	params := []param{{"k", ir.I32}, {"p", ir.I32}, {"np", ir.I32}, {"mode", ir.I32}}
	if l.world {
		params = params[:3] // the books are kept apart (worldAccountFunc)
	}
	b := l.newFunc(ir.DeviceFunc, "trs_commit", ir.Void, params...)
	k, p, np := b.V("k"), b.V("p"), b.V("np")
	b.Decl("c0", ir.I32, b.Rem(k, b.I32(3)))
	b.Decl("c1", ir.I32, b.Rem(b.Add(b.V("k"), b.I32(1)), b.I32(3)))
	b.Decl("npend", ir.I32, b.I32(0))
	b.IfElse(b.Ne(b.P(pWorklist), b.I32(0)), func() {
		// Slots of this iteration's list that reached normal form, and
		// the pending slots of the next list.
		b.Decl("n0", ir.I32, b.listLen("wlen", b.V("c0")))
		l.strided(b, "i", p, b.V("n0"), np, func() {
			s := b.Decl("s", l.id, b.listed("wl0", "wl1", b.V("k"), b.mine(b.V("i"))))
			b.If(b.Eq(b.Ld("pnw", s), b.U8(0)), func() { b.Store("pn", b.V("s"), b.U8(0)) })
		})
		b.Decl("n1", ir.I32, b.listLen("wlen", b.V("c1")))
		l.strided(b, "j", b.V("p"), b.V("n1"), b.V("np"), func() {
			x := b.Decl("x", l.id, b.listed("wl1", "wl0", b.V("k"), b.mine(b.V("j"))))
			b.If(b.Ne(b.Ld("pnw", x), b.U8(0)), func() {
				b.Store("pn", b.V("x"), b.U8(1))
				b.Set("npend", b.Add(b.V("npend"), b.I32(1)))
			})
		})
	}, func() {
		if l.world {
			return // main refuses WORKLIST=0 in a world
		}
		// The same, with the lists kept as flags per slot (trs_enlist).
		b.Decl("top", ir.I32, b.used())
		l.strided(b, "si", b.V("p"), b.V("top"), b.V("np"), func() {
			b.Decl("s", ir.I32, b.Conv(ir.I32, b.V("si")))
			b.If(b.Ne(b.listed("wl0", "wl1", b.V("k"), b.V("s")), b.I32(0)), func() {
				b.Call("trs_push", b.V("s"), b.I32(0), b.Add(b.V("k"), b.I32(1)))
				b.If(b.Eq(b.Ld("pnw", b.V("s")), b.U8(0)), func() { b.Store("pn", b.V("s"), b.U8(0)) })
			})
			b.If(b.Ne(b.listed("wl1", "wl0", b.V("k"), b.V("s")), b.I32(0)), func() {
				b.Store("pn", b.V("s"), b.U8(1))
				b.Set("npend", b.Add(b.V("npend"), b.I32(1)))
			})
		})
	})
	b.If(b.Lt(b.I32(0), b.V("npend")), func() {
		b.Atomic("", ir.AtomicAdd, "pc", b.ctr(b.V("c1")), b.V("npend"))
	})
	// Garbage entry g goes to free-ring position tail + g (Note [Free ring
	// positions]); trs_account moves the tail past them.
	b.Decl("ng", ir.I32, b.listLen("glen", b.V("c0")))
	b.Decl("tail", ir.I64, b.Ld("free", b.ctr(b.I32(frTailA))))
	l.strided(b, "g", b.V("p"), b.V("ng"), b.V("np"), func() {
		b.Call("trs_free", b.listed("gl0", "gl1", b.V("k"), b.mine(b.V("g"))), b.Add(b.V("tail"), b.V("g")), b.V("k"))
	})
	if l.world {
		return // the books wait for every device's counts (regionBody)
	}
	b.If(b.Eq(b.V("p"), b.I32(0)), func() { b.Call("trs_account", b.V("k"), b.V("mode")) })
}

// accountFunc: trs_account(k, mode) keeps the books at the end of
// iteration k (Note [Counters]): totals and trace, the free ring's head,
// and the counters of iteration k+2. The pending count of iteration k is
// still being added up, so the trace gets that of iteration k-1.
func (l *lowerer) accountFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_account", ir.Void, param{"k", ir.I32}, param{"mode", ir.I32})
	k := b.V("k")
	c0 := b.Decl("c0", ir.I32, b.Rem(k, b.I32(3)))
	b.Decl("c2", ir.I32, b.Rem(b.Add(b.V("k"), b.I32(2)), b.I32(3)))
	ns := b.Decl("ns", ir.I32, b.Ld("slots", c0))
	st := b.Decl("st", ir.I64, b.Ld("steps", b.V("c0")))
	b.Store("total", b.I32(0), b.Add(b.Ld("total", b.I32(0)), st))
	b.If(b.Lt(b.Ld("status", b.I32(stPeak)), ns), func() { b.Store("status", b.I32(stPeak), b.V("ns")) })
	b.Store("status", b.I32(stOnDev), b.Add(b.Ld("status", b.I32(stOnDev)), b.Bin(ir.Div, b.V("mode"), b.I32(2))))
	at := func(i, j int64) ir.Expr { return b.Add(b.Mul(b.I32(4), b.Add(b.V("k"), b.I32(i))), b.I32(j)) }
	b.If(b.Lt(b.V("k"), b.P(pTraceCap)), func() {
		b.Store("tr", at(0, 0), b.Conv(ir.I64, b.V("ns")))
		b.Store("tr", at(0, 1), b.V("st"))
		b.Store("tr", at(0, 3), b.Conv(ir.I64, b.V("mode")))
	})
	b.If(b.And(b.Lt(b.I32(0), b.V("k")), b.Lt(b.V("k"), b.Add(b.P(pTraceCap), b.I32(1)))), func() {
		b.Store("tr", at(-1, 2), b.Conv(ir.I64, b.Ld("pc", b.V("c0"))))
	})
	b.Store("status", b.I32(stIter), b.Add(b.V("k"), b.I32(1)))
	head := b.Decl("head", ir.I64, b.Min(b.Ld("free", b.I32(frHead)), b.Ld("free", b.I32(frTailA))))
	b.Store("free", b.I32(frHead), head)
	b.Store("free", b.I32(frHead0), b.V("head"))
	b.Store("free", b.I32(frTail), b.Add(b.Ld("free", b.I32(frTailA)), b.Conv(ir.I64, b.Ld("glen", b.V("c0")))))
	// The fresh counter may have overshot CAPACITY (Note [Fresh slots first]).
	b.Store("nfresh", b.I32(1), b.Min(b.Ld("nfresh", b.I32(0)), b.Conv(ir.I64, b.P(pCapacity))))
	for _, c := range []string{"wlen", "glen", "slots", "pc"} {
		b.Store(c, b.V("c2"), b.I32(0))
	}
	b.Store("steps", b.V("c2"), b.I64(0))
}

// used is the number of slots the fresh counter has handed out: every
// slot above it is unused. The counter may overshoot CAPACITY in the
// phase that empties it, so it is an i64 (Note [Fresh slots first]).
func (b *fn) used() ir.Expr {
	return b.Conv(ir.I32, b.Min(b.Ld("nfresh", b.I32(0)), b.Conv(ir.I64, b.P(pCapacity))))
}

// listLen is the length of worklist or garbage list c (wlen, glen), as the
// loops over the list read it: clamped to CAPACITY outside a world (Note
// [List lengths]).
func (b *fn) listLen(counter string, c ir.Expr) ir.Expr {
	n := b.Ld(counter, b.ctr(c))
	if b.world {
		return n
	}
	return b.Min(n, b.P(pCapacity))
}

// Note [List lengths]
//
// wlen and glen count a worklist's and a garbage list's entries, each
// advanced by an atomic add whose old value indexes a list of CAPACITY
// entries (trs_push, trs_release). They used to carry `bound "CAPACITY"`
// (Note [Bounded buffers] in package ir), but the add writes old + 1
// before the index is checked, so a count could pass CAPACITY by one per
// thread that overflows the list, and go on doing so where a failed check
// goes on (Note [Going on after a fault] in backends/abi): the fact was
// not true of every write. The loops over the lists read the count through
// min(count, CAPACITY) instead, a bound that holds by construction and
// that the termination analysis reads as it reads any min. Where no list
// overflows, which is every run that ends without a fault, the minimum is
// the count itself: output and error messages are those of before.

// running is the condition to run iteration k: slots are pending after
// iteration k-1, the store did not fill, and MAXITER allows it.
//
// In a world the counts are the world's, as device code finds them in its
// device's counters and host code in device 0's (host).
func (b *fn) running(k ir.Expr, host bool) ir.Expr {
	at := b.ctr
	overflow := int64(stOverflow)
	if b.world {
		overflow = stWOverflow
	}
	if host {
		at = func(j ir.Expr) ir.Expr { return j }
	}
	pending := b.Lt(b.I32(0), b.Ld(b.pending(), at(b.Rem(k, b.I32(3)))))
	ok := b.Eq(b.Ld("status", at(b.I32(overflow))), b.I32(0))
	allowed := b.Bin(ir.LogOr, b.Eq(b.P(pMaxIter), b.I32(0)), b.Lt(ir.CloneExpr(k), b.P(pMaxIter)))
	return b.And(b.And(pending, ok), allowed)
}

// withinHybrid is the condition that iteration k, of a loop that started
// at it0, may run before main's hybrid point: HYBRIDITER is 0 or more
// than k - it0.
func (b *fn) withinHybrid(k, it0 ir.Expr) ir.Expr {
	return b.Bin(ir.LogOr, b.Eq(b.P(pHybridIter), b.I32(0)), b.Lt(b.Sub(k, it0), b.P(pHybridIter)))
}

// smallKernel: trs_small(it0, on) runs iterations from it0 in one block
// while fewer than 4*SMALL slots are pending (Note [Low parallelism]); on
// is ondevice(), for the books (Note [Where iterations ran]).
func (l *lowerer) smallKernel() {
	b := l.newFunc(ir.KernelFunc, "trs_small", ir.Void, param{"it0", ir.I32}, param{"on", ir.I32})
	b.Decl("k", ir.I32, b.V("it0"))
	few := b.Lt(b.Ld("pc", b.Rem(b.V("k"), b.I32(3))), b.Mul(b.I32(4), b.P(pSmall)))
	b.While(b.And(b.And(b.running(b.V("k"), false), few), b.withinHybrid(b.V("k"), b.V("it0"))), func() {
		// The block of one thread is one processor (Note [One processor's walks]).
		b.Call("trs_derive", b.V("k"), b.Builtin(ir.ThreadID), b.Builtin(ir.BlockDim), b.Eq(b.Builtin(ir.BlockDim), b.I32(1)))
		b.Barrier(false)
		b.Call("trs_commit", b.V("k"), b.Builtin(ir.ThreadID), b.Builtin(ir.BlockDim), b.Add(b.I32(1), b.Mul(b.I32(2), b.V("on"))))
		b.Barrier(false)
		b.Set("k", b.Add(b.V("k"), b.I32(1)))
	})
}

// initKernel: trs_init loads the input graph into the store and its
// pending slots into the first worklist.
func (l *lowerer) initKernel() {
	b := l.newFunc(ir.KernelFunc, "trs_init", ir.Void)
	i := b.Decl("i", ir.I32, b.Builtin(ir.GlobalID))
	rec := l.record()
	word := func(off int64) ir.Expr { return b.Ld("input", b.Add(b.Mul(b.V("i"), b.I32(rec)), b.I32(off))) }
	// In a world the input goes to device 0's slots, and its pending
	// slots to device 0's list (Note [TRS on several devices]).
	slot := func(v ir.Expr) ir.Expr {
		if l.world {
			return b.Conv(l.id, v)
		}
		return v
	}
	load := func() {
		b.If(b.Lt(i, b.I32(l.nodes)), func() {
			b.Store("hd", slot(b.V("i")), word(0))
			for a, arr := range l.args {
				b.Store(arr, slot(b.V("i")), slot(word(int64(a)+1)))
			}
			b.Store("rc", slot(b.V("i")), word(int64(l.k)+1))
			b.Store("up", slot(b.V("i")), b.S(-1))
			p := b.Decl("p", ir.U8, b.Conv(ir.U8, word(int64(l.k)+2)))
			b.Store("pn", slot(b.V("i")), p)
			b.Store("pnw", slot(b.V("i")), b.V("p"))
			if l.world {
				b.If(b.several(), func() { b.Store("rg", slot(b.V("i")), b.Bin(ir.Shl, b.Builtin(ir.NumDevices), b.I32(16))) })
			}
		})
		b.If(b.Lt(b.V("i"), b.I32(int64(len(l.queue)))), func() {
			q := b.Decl("q", ir.I32, b.Ld("input", b.Add(b.I32(l.nodes*rec), b.V("i"))))
			if l.world {
				b.Store("wl0", slot(b.V("i")), q)
				return
			}
			b.IfElse(b.Ne(b.P(pWorklist), b.I32(0)), func() { b.Store("wl0", b.V("i"), q) }, func() { b.Store("wl0", b.V("q"), b.I32(1)) })
		})
	}
	if !l.world {
		load()
	} else {
		b.If(b.Eq(b.Builtin(ir.DeviceID), b.I32(0)), load)
		b.If(b.Eq(b.V("i"), b.I32(0)), func() {
			mine := func(v int64) ir.Expr {
				return b.Sel(b.Eq(b.Builtin(ir.DeviceID), b.I32(0)), b.Int(ir.I64, v), b.I64(0))
			}
			b.Store("nfresh", b.ctr(b.I32(0)), mine(l.nodes))
			b.Store("nfresh", b.ctr(b.I32(1)), mine(l.nodes))
			n := int64(len(l.queue))
			b.Store("wlen", b.ctr(b.I32(0)), b.Conv(ir.I32, mine(n)))
			b.Store("pc", b.ctr(b.I32(0)), b.Conv(ir.I32, mine(n)))
			b.Store("wpc", b.ctr(b.I32(0)), b.I32(n))
			b.Store("wmax", b.ctr(b.I32(0)), b.I32(n))
			b.Store("status", b.ctr(b.I32(stWNext)), b.next(b.I32(0), b.I32(n), b.I32(n), b.I32(0)))
		})
		return
	}
	b.If(b.Eq(b.V("i"), b.I32(0)), func() {
		b.Store("nfresh", b.I32(0), b.I64(l.nodes))
		b.Store("nfresh", b.I32(1), b.I64(l.nodes))
		b.Store("wlen", b.I32(0), b.I32(int64(len(l.queue))))
		b.Store("pc", b.I32(0), b.I32(int64(len(l.queue))))
	})
}
