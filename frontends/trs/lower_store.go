package trs

import "gpuc/ir"

// helpers adds the device functions that the step and the phases share.
func (l *lowerer) helpers() {
	l.pushFunc()
	l.releaseFunc()
	l.freeFunc()
	l.eqFunc()
	l.collapseFunc()
}

// forArgs emits body(a, arg) for each argument position a that slot
// slot's head h has: `if h >= ArityStart(a+1) { ... }` (Note [Symbol
// numbers]).
func (l *lowerer) forArgs(b *fn, h ir.Expr, body func(a int, arr string)) {
	for a := 0; a < l.k; a++ {
		b.if_(b.ge(ir.CloneExpr(h), b.i32(l.start[a+1])), func() { body(a, l.args[a]) })
	}
}

// pushFunc: trs_push(i, x, k) stores x at position i of the worklist of
// iteration k+1 (Note [Counters]).
func (l *lowerer) pushFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_push", ir.Void, param{"i", ir.I32}, param{"x", ir.I32}, param{"k", ir.I32})
	b.ifElse(b.eq(b.bin(ir.And, b.v("k"), b.i32(1)), b.i32(0)),
		func() { b.store("wl1", b.v("i"), b.v("x")) },
		func() { b.store("wl0", b.v("i"), b.v("x")) })
}

// listed reads entry i of the list pair (list0, list1) that iteration k
// uses: list0 for even k.
func (b *fn) listed(list0, list1 string, k, i ir.Expr) ir.Expr {
	even := b.eq(b.bin(ir.And, k, b.i32(1)), b.i32(0))
	return b.sel(even, b.ld(list0, i), b.ld(list1, ir.CloneExpr(i)))
}

// addRef adds n references to slot x, unless x holds part of the input
// (Note [Input slots]).
func (l *lowerer) addRef(b *fn, x ir.Expr, n int64) {
	b.if_(b.ge(x, b.i32(l.nodes)), func() { b.atomic("", ir.AtomicAdd, "rc", ir.CloneExpr(x), b.i32(n)) })
}

// releaseFunc: trs_release(x, k) drops a reference to slot x and, if it
// was the last, lists x as garbage of iteration k. The input's slots keep
// no counts (Note [Input slots]).
func (l *lowerer) releaseFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_release", ir.Void, param{"x", ir.I32}, param{"k", ir.I32})
	b.if_(b.lt(b.v("x"), b.i32(l.nodes)), func() { b.ret(nil) })
	b.decl("old", ir.I32, b.i32(0))
	b.atomic("old", ir.AtomicSub, "rc", b.v("x"), b.i32(1))
	b.if_(b.eq(b.v("old"), b.i32(1)), func() {
		b.decl("j", ir.I32, b.i32(0))
		b.atomic("j", ir.AtomicAdd, "glen", b.rem(b.v("k"), b.i32(3)), b.i32(1))
		b.ifElse(b.eq(b.bin(ir.And, b.v("k"), b.i32(1)), b.i32(0)),
			func() { b.store("gl0", b.v("j"), b.v("x")) },
			func() { b.store("gl1", b.v("j"), b.v("x")) })
	})
}

// freeFunc: trs_free(g, k) frees garbage slot g in the commit phase of
// iteration k: its arguments lose a reference, and those that become
// garbage are freed in iteration k+1; g goes to the free ring.
func (l *lowerer) freeFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_free", ir.Void, param{"g", ir.I32}, param{"k", ir.I32})
	h := b.decl("h", ir.I32, b.ld("hd", b.v("g")))
	l.forArgs(b, h, func(_ int, arr string) {
		b.call("trs_release", b.ld(arr, b.v("g")), b.add(b.v("k"), b.i32(1)))
	})
	b.decl("at", ir.I64, b.i64(0))
	b.atomic("at", ir.AtomicAdd, "free", b.i32(frTail), b.i64(1))
	b.store("fl", b.rem(b.v("at"), b.conv(ir.I64, b.p(pCapacity))), b.v("g"))
}

// eqFunc: trs_eq(a, b) compares two terms in normal form, for rules that
// repeat a variable on the left. It follows the last argument in a loop
// and recurses on the others, so that lists and numbers cost no stack.
func (l *lowerer) eqFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_eq", ir.Bool, param{"a", ir.I32}, param{"b", ir.I32})
	b.decl("x", ir.I32, b.v("a"))
	b.decl("y", ir.I32, b.v("b"))
	b.while(b.ne(b.v("x"), b.v("y")), func() {
		h := b.decl("h", ir.I32, b.ld("hd", b.v("x")))
		b.if_(b.bin(ir.LogOr, b.ne(h, b.ld("hd", b.v("y"))), b.lt(b.v("h"), b.i32(l.start[1]))), func() {
			b.ret(b.eq(b.v("h"), b.ld("hd", b.v("y"))))
		})
		for a := 1; a <= l.k; a++ {
			if l.start[a] == l.start[a+1] {
				continue
			}
			in := b.and(b.ge(b.v("h"), b.i32(l.start[a])), b.lt(b.v("h"), b.i32(l.start[a+1])))
			b.if_(in, func() {
				for i := 0; i < a-1; i++ {
					same := b.callExpr("trs_eq", b.ld(l.args[i], b.v("x")), b.ld(l.args[i], b.v("y")))
					b.if_(b.not(same), func() { b.ret(b.boolean(false)) })
				}
				b.set("x", b.ld(l.args[a-1], b.v("x")))
				b.set("y", b.ld(l.args[a-1], b.v("y")))
			})
		}
	})
	b.ret(b.boolean(true))
}

// collapseFunc: trs_collapse(s, v) overwrites slot s with the root of the
// term in slot v, for a rule whose right-hand side is a variable; s takes
// references to v's arguments.
func (l *lowerer) collapseFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_collapse", ir.Void, param{"s", ir.I32}, param{"v", ir.I32})
	h := b.decl("h", ir.I32, b.ld("hd", b.v("v")))
	b.store("hd", b.v("s"), h)
	l.forArgs(b, h, func(a int, arr string) {
		c := b.decl("c", ir.I32, b.ld(arr, b.v("v")))
		b.store(arr, b.v("s"), c)
		l.addRef(b, c, 1)
	})
}
