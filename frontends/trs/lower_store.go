package trs

import "gpuc/ir"

// helpers adds the device functions that the step and the phases share.
func (l *lowerer) helpers() {
	l.pushFunc()
	l.releaseFunc()
	l.freeFunc()
	l.reuseFunc()
	l.eqFunc()
	l.collapseFunc()
}

// forArgs emits body(a, arg) for each argument position a that slot
// slot's head h has: `if h >= ArityStart(a+1) { ... }` (Note [Symbol
// numbers]).
func (l *lowerer) forArgs(b *fn, h ir.Expr, body func(a int, arr string)) {
	for a := 0; a < l.k; a++ {
		b.If(b.Ge(ir.CloneExpr(h), b.I32(l.start[a+1])), func() { body(a, l.args[a]) })
	}
}

// pushFunc: trs_push(i, x, k) stores x at position i of the worklist of
// iteration k+1 (Note [Counters]).
func (l *lowerer) pushFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_push", ir.Void, param{"i", l.id}, param{"x", l.id}, param{"k", ir.I32})
	b.IfElse(b.Eq(b.Bin(ir.And, b.V("k"), b.I32(1)), b.I32(0)),
		func() { b.Store("wl1", b.V("i"), b.local(b.V("x"))) },
		func() { b.Store("wl0", b.V("i"), b.local(b.V("x"))) })
}

// listed reads entry i of the list pair (list0, list1) that iteration k
// uses: list0 for even k.
func (b *fn) listed(list0, list1 string, k, i ir.Expr) ir.Expr {
	even := b.Eq(b.Bin(ir.And, k, b.I32(1)), b.I32(0))
	return b.ownSlot(b.Sel(even, b.Ld(list0, i), b.Ld(list1, ir.CloneExpr(i))))
}

// addRef adds n references to slot x, unless x holds part of the input
// (Note [Input slots]).
func (l *lowerer) addRef(b *fn, x, n ir.Expr) {
	b.If(b.Ge(x, b.S(l.nodes)), func() { b.Atomic("", ir.AtomicAdd, "rc", ir.CloneExpr(x), n) })
}

// releaseFunc: trs_release(x, k) drops a reference to slot x and, if it
// was the last, lists x as garbage of iteration k. The input's slots keep
// no counts (Note [Input slots]).
func (l *lowerer) releaseFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_release", ir.Void, param{"x", l.id}, param{"k", ir.I32})
	b.If(b.Lt(b.V("x"), b.S(l.nodes)), func() { b.Return(nil) })
	b.Decl("old", ir.I32, b.I32(0))
	b.Atomic("old", ir.AtomicSub, "rc", b.V("x"), b.I32(1))
	b.If(b.Eq(b.V("old"), b.I32(1)), func() {
		b.Decl("j", ir.I32, b.I32(0))
		if !l.world {
			b.Atomic("j", ir.AtomicAdd, "glen", b.Rem(b.V("k"), b.I32(3)), b.I32(1))
			b.IfElse(b.Eq(b.Bin(ir.And, b.V("k"), b.I32(1)), b.I32(0)),
				func() { b.Store("gl0", b.V("j"), b.V("x")) },
				func() { b.Store("gl1", b.V("j"), b.V("x")) })
			return
		}
		// The owner's garbage list: only the owner frees.
		o := b.Decl("o", ir.I32, b.owner(b.V("x")))
		b.Atomic("j", ir.AtomicAdd, "glen", b.ctrOf(o, b.Rem(b.V("k"), b.I32(3))), b.I32(1))
		at := b.Decl("at", l.id, b.slotOn(b.V("o"), b.Conv(l.id, b.V("j"))))
		b.IfElse(b.Eq(b.Bin(ir.And, b.V("k"), b.I32(1)), b.I32(0)),
			func() { b.Store("gl0", at, b.local(b.V("x"))) },
			func() { b.Store("gl1", b.V("at"), b.local(b.V("x"))) })
	})
}

// freeFunc: trs_free(g, at, k) frees garbage slot g in the commit phase
// of iteration k: its arguments lose a reference, and those that become
// garbage are freed in iteration k+1; g goes to position at of the free
// ring (Note [Free ring positions]).
func (l *lowerer) freeFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_free", ir.Void, param{"g", l.id}, param{"at", ir.I64}, param{"k", ir.I32})
	h := b.Decl("h", ir.I32, b.Ld("hd", b.V("g")))
	l.forArgs(b, h, func(_ int, arr string) {
		b.Call("trs_release", b.Ld(arr, b.V("g")), b.Add(b.V("k"), b.I32(1)))
	})
	if l.world {
		// The device's own ring, of its own slots.
		b.Store("fl", b.slotOn(b.Builtin(ir.DeviceID), b.Conv(l.id, b.Rem(b.V("at"), b.Conv(ir.I64, b.per())))), b.local(b.V("g")))
		return
	}
	b.Store("fl", b.Rem(b.V("at"), b.Conv(ir.I64, b.P(pCapacity))), b.V("g"))
}

// eqFunc: trs_eq(a, b) compares two terms in normal form, for rules that
// repeat a variable on the left. It follows the last argument in a loop
// and recurses on the others, so that lists and numbers cost no stack.
func (l *lowerer) eqFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_eq", ir.Bool, param{"a", l.id}, param{"b", l.id})
	b.Decl("x", l.id, b.V("a"))
	b.Decl("y", l.id, b.V("b"))
	differ := func() ir.Expr { return b.Ne(b.V("x"), b.V("y")) }
	spent := l.fueled(b, "fuel", l.id, l.storeSlots(b), differ, func() {
		h := b.Decl("h", ir.I32, l.head(b, b.V("x")))
		b.If(b.Bin(ir.LogOr, b.Ne(h, l.head(b, b.V("y"))), b.Lt(b.V("h"), b.I32(l.start[1]))), func() {
			b.Return(b.Eq(b.V("h"), l.head(b, b.V("y"))))
		})
		for a := 1; a <= l.k; a++ {
			if l.start[a] == l.start[a+1] {
				continue
			}
			in := b.And(b.Ge(b.V("h"), b.I32(l.start[a])), b.Lt(b.V("h"), b.I32(l.start[a+1])))
			b.If(in, func() {
				for i := 0; i < a-1; i++ {
					same := b.CallExpr("trs_eq", l.arg(b, i, b.V("x")), l.arg(b, i, b.V("y")))
					b.If(b.Not(same), func() { b.Return(b.Bool(false)) })
				}
				b.Set("x", l.arg(b, a-1, b.V("x")))
				b.Set("y", l.arg(b, a-1, b.V("y")))
			})
		}
	})
	b.If(spent, func() {
		l.walkSpent(b)
		b.Return(b.Bool(false))
	})
	b.Return(b.Bool(true))
}

// collapseFunc: trs_collapse(s, v) overwrites slot s with the root of the
// term in slot v, for a rule whose right-hand side is a variable; s takes
// references to v's arguments.
func (l *lowerer) collapseFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_collapse", ir.Void, param{"s", l.id}, param{"v", l.id})
	h := b.Decl("h", ir.I32, l.head(b, b.V("v")))
	b.Store("hd", b.V("s"), h)
	l.forArgs(b, h, func(a int, arr string) {
		c := b.Decl("c", l.id, l.arg(b, a, b.V("v")))
		b.Store(arr, b.V("s"), c)
		l.addRef(b, c, b.I32(1))
	})
}
