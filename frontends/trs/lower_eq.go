package trs

import (
	"fmt"

	"gpuc/ir"
)

// Note [A comparison without recursion]
//
// trs_eq(a, b) compares two terms in normal form, for rules that repeat a
// variable on the left. It used to recurse on every argument but the
// last, which kept the stop after a fault in every kernel that reaches
// it (Note [Going on after a fault] in backends/abi: a recursion's depth
// depends on the values loaded). It is now one loop over a stack of
// pending pairs held in eqDepth pairs of locals: at a compound pair it
// goes on into the first arguments and pushes the others (the last
// first, so the second comes back first), and at an equal pair it pops
// the next one. Lists and numbers cost one entry at most, as before; a
// term nested more than eqDepth deep in arguments other than the last
// cannot be compared, and the host then raises msgEq (the bit ovEq of the
// overflow word), a capacity error as a full store is, never a wrong
// answer. The results are those of the recursion otherwise.
//
// Two counters bound the loop: fuel, the path's length from the pair last
// popped, which a correct run never spends (a path visits each slot at
// most once, as the recursion's loop did with its own fuel), and whose
// end is msgWalk as for every walk (Note [Checked walk bounds]); and
// turns, an i64 that every turn takes one from, so that the loop ends
// whatever the loads return (a cyclic store could push and pop forever)
// and `gpuc check --termination` proves it. turns starts at 2^62, which
// no run reaches.

// eqDepth is the number of pending pairs trs_eq holds.
const eqDepth = 8

// msgEq is the host's error where trs_eq's stack was too small.
var msgEq = fmt.Sprintf("capacity: a repeated variable compared terms nested more than %d deep in arguments other than the last (the limit of the comparison's stack)", eqDepth)

// eqFunc: trs_eq(a, b), Note [A comparison without recursion].
func (l *lowerer) eqFunc() {
	b := l.newFunc(ir.DeviceFunc, "trs_eq", ir.Bool, param{"a", l.id}, param{"b", l.id})
	const (
		running = iota
		equal
		differ
		spent
		deep
	)
	sx := func(j int) string { return fmt.Sprintf("s%dx", j) }
	sy := func(j int) string { return fmt.Sprintf("s%dy", j) }
	b.Decl("x", l.id, b.V("a"))
	b.Decl("y", l.id, b.V("b"))
	b.Decl("sp", ir.I32, b.I32(0))
	for j := 0; j < eqDepth; j++ {
		b.Decl(sx(j), l.id, b.S(0))
		b.Decl(sy(j), l.id, b.S(0))
	}
	b.Decl("res", ir.I32, b.I32(running))
	b.Decl("fuel", l.id, l.storeSlots(b))
	b.Decl("turns", ir.I64, b.I64(1<<62))
	b.While(b.And(b.Eq(b.V("res"), b.I32(running)), b.Lt(b.I64(0), b.V("turns"))), func() {
		b.Set("turns", b.Sub(b.V("turns"), b.I64(1)))
		b.IfElse(b.Eq(b.V("x"), b.V("y")), func() {
			// This pair is equal: pop the next one, with a new path.
			b.IfElse(b.Eq(b.V("sp"), b.I32(0)), func() { b.Set("res", b.I32(equal)) }, func() {
				b.Set("sp", b.Sub(b.V("sp"), b.I32(1)))
				for j := 0; j < eqDepth; j++ {
					b.If(b.Eq(b.V("sp"), b.I32(int64(j))), func() {
						b.Set("x", b.V(sx(j)))
						b.Set("y", b.V(sy(j)))
					})
				}
				b.Set("fuel", l.storeSlots(b))
			})
		}, func() {
			b.IfElse(b.Bin(ir.Le, b.V("fuel"), b.S(0)), func() { b.Set("res", b.I32(spent)) }, func() {
				b.Set("fuel", b.Sub(b.V("fuel"), b.S(1)))
				h := b.Decl("h", ir.I32, l.head(b, b.V("x")))
				b.IfElse(b.Ne(h, l.head(b, b.V("y"))), func() { b.Set("res", b.I32(differ)) }, func() {
					// A constant on both sides: equal, popped next turn.
					b.If(b.Lt(b.V("h"), b.I32(l.start[1])), func() { b.Set("x", b.V("y")) })
				})
				for a := 1; a <= l.k; a++ {
					if l.start[a] == l.start[a+1] {
						continue
					}
					in := b.And(b.Eq(b.V("res"), b.I32(running)),
						b.And(b.Ge(b.V("h"), b.I32(l.start[a])), b.Lt(b.V("h"), b.I32(l.start[a+1]))))
					b.If(in, func() {
						if a > 1 {
							b.IfElse(b.Lt(b.I32(int64(eqDepth-(a-1))), b.V("sp")), func() { b.Set("res", b.I32(deep)) }, func() {
								for i := a - 1; i >= 1; i-- {
									for j := 0; j < eqDepth; j++ {
										b.If(b.Eq(b.V("sp"), b.I32(int64(j))), func() {
											b.Set(sx(j), l.arg(b, i, b.V("x")))
											b.Set(sy(j), l.arg(b, i, b.V("y")))
										})
									}
									b.Set("sp", b.Add(b.V("sp"), b.I32(1)))
								}
							})
						}
						b.If(b.Eq(b.V("res"), b.I32(running)), func() {
							b.Set("x", l.arg(b, 0, b.V("x")))
							b.Set("y", l.arg(b, 0, b.V("y")))
						})
					})
				}
			})
		})
	})
	b.If(b.Eq(b.V("res"), b.I32(deep)), func() {
		b.Atomic("", ir.AtomicOr, "status", b.ctr(b.I32(stOverflow)), b.I32(ovEq))
	})
	b.If(b.Bin(ir.LogOr, b.Eq(b.V("res"), b.I32(spent)), b.Eq(b.V("res"), b.I32(running))), func() {
		l.walkSpent(b)
	})
	b.Return(b.Eq(b.V("res"), b.I32(equal)))
}
