package abi

import (
	"slices"
	"strings"

	"gpuc/ir"
)

// Note [Range facts]
//
// The elision of Note [Check placement] is a forward must-analysis over
// a device function's structured statements. At each point it holds
// facts about values that are locals, parameters, constants and
// builtins, never loads: `0 <= x` (n nil) or `x < n`. They come from
//
//   - an access b[x] that went before on every path: it would have
//     failed first, so 0 <= x < len(b) after it, for every buffer of
//     that length. A term id loaded from the store (all of whose arrays
//     have CAPACITY elements) is checked at its first use; every later
//     use of it is elided, in any statement list, for as long as the
//     local is not set again.
//   - a load from a buffer with a below bound B whose length is B
//     (Note [Bounded buffers] in package ir): `x = ids[i]` gives
//     0 <= x < B, and ids[i] itself indexes a buffer of B elements
//     unchecked; so do TRS's argument ids (arg0[t], ...) at every use.
//     A checked or proven store of x into such a buffer gives the same.
//   - a condition: an if's or a loop's, the left operand of && (or ||)
//     for its right one, a select's for its arms; `x < n`, `x >= 0`
//     and their negations where the condition is false.
//   - an assignment: `y = x` copies x's facts to y; `y = 0` gives
//     0 <= y < n for each n known positive, and `y = -1` y < n.
//
// Paths meet at the end of an if or a switch and at a loop's exit
// (its condition's false side and its breaks): what holds on all of
// them. A loop's head holds what holds before it and at its back edges
// (its end and its continues): the walk repeats the body from the facts
// before the loop until they stop shrinking (at most maxPasses times,
// then only those facts before it whose locals the loop never sets),
// and only the last pass counts the accesses. Setting a local ends the
// facts that read it. Only && and ||, ?:, and statements order the
// evaluation of C; the operands of other operators are unordered, so
// no check of one of them relies on another.
//
// An index x + c is also in range under a fact about x + d, the end of
// a window that one test bounds (Note [Offset facts]).
//
// Since an elided check is one that cannot fail, a faulting program
// still faults at the access the interpreter reports.

// fact is 0 <= x (n nil) or x < n, with x stripped of conversions that
// keep its value (strip); key is their printed forms, vars the locals
// they read.
type fact struct {
	x, n ir.Expr
	key  string
	vars []string
	le   bool // x <= n, not x < n: only offsets read it (Note [Offset facts])
}

func newFact(x, n ir.Expr) fact {
	x = strip(x)
	f := fact{x: x, n: n, key: ir.PrintExpr(x) + "\x00"}
	if n != nil {
		f.key += ir.PrintExpr(strip(n))
	}
	for v := range varsOf(x) {
		f.vars = append(f.vars, v)
	}
	if n != nil {
		for v := range varsOf(n) {
			f.vars = append(f.vars, v)
		}
	}
	return f
}

// kx is the printed x of f.
func (f fact) kx() string { return f.key[:strings.IndexByte(f.key, 0)] }

// known is a persistent list of facts, newest first; nil holds none.
// Lists share their tails, so that adding a fact copies nothing.
type known struct {
	f    fact
	next *known
	n    int // the length
}

func (k *known) len() int {
	if k == nil {
		return 0
	}
	return k.n
}

func (k *known) push(f fact) *known { return &known{f: f, next: k, n: k.len() + 1} }

// has reports whether k holds a fact of key.
func (k *known) has(key string) bool {
	for ; k != nil; k = k.next {
		if k.f.key == key {
			return true
		}
	}
	return false
}

// add is k with those of fs it does not hold.
func (k *known) add(fs ...fact) *known {
	for _, f := range fs {
		if !k.has(f.key) {
			k = k.push(f)
		}
	}
	return k
}

// since is the facts of k added after base, which k extends, oldest first.
func (k *known) since(base *known) []fact {
	var out []fact
	for ; k != base && k != nil; k = k.next {
		out = append(out, k.f)
	}
	slices.Reverse(out)
	return out
}

// state is what holds at a point; dead where no path reaches it (after a
// break, continue, return or raise).
type state struct {
	k    *known
	dead bool
}

// jumps are the states at a loop's breaks and continues.
type jumps struct{ breaks, conts []state }

// maxPasses bounds the passes over a loop's body that find its head's facts.
const maxPasses = 4

// meet is what holds where paths from a and b join: their common tail,
// and the facts of a's own part that b's own part holds too.
func meet(a, b state) state {
	switch {
	case a.dead:
		return b
	case b.dead:
		return a
	}
	x, y := a.k, b.k
	for x.len() > y.len() {
		x = x.next
	}
	for y.len() > x.len() {
		y = y.next
	}
	for x != y {
		x, y = x.next, y.next
	}
	in := map[string]bool{}
	for _, f := range b.k.since(y) {
		in[f.key] = true
	}
	out := x
	for _, f := range a.k.since(x) {
		if in[f.key] {
			out = out.add(f)
		}
	}
	return state{k: out}
}

func meetAll(s state, more []state) state {
	for _, m := range more {
		s = meet(s, m)
	}
	return s
}

func sameFacts(a, b *known) bool {
	if a == b {
		return true
	}
	ka, kb := map[string]bool{}, map[string]bool{}
	for k := a; k != nil; k = k.next {
		ka[k.f.key] = true
	}
	for k := b; k != nil; k = k.next {
		if !ka[k.f.key] {
			return false
		}
		kb[k.f.key] = true
	}
	return len(ka) == len(kb)
}

// kill drops the facts that read one of names.
func kill(k *known, names ...string) *known {
	if len(names) == 0 {
		return k
	}
	var cut *known // the last fact killed
	for n := k; n != nil; n = n.next {
		if readsAny(n.f, names) {
			cut = n
		}
	}
	if cut == nil {
		return k
	}
	var above []fact
	for n := k; n != cut; n = n.next {
		if !readsAny(n.f, names) {
			above = append(above, n.f)
		}
	}
	out := cut.next
	for i := len(above) - 1; i >= 0; i-- {
		out = out.push(above[i])
	}
	return out
}

func readsAny(f fact, names []string) bool {
	for _, v := range f.vars {
		if slices.Contains(names, v) {
			return true
		}
	}
	return false
}

func reads(e ir.Expr, name string) bool {
	return ir.AnyExpr(e, func(x ir.Expr) bool { v, ok := x.(*ir.Var); return ok && v.Name == name })
}

// stable reports whether e's value can only change where a local it
// reads is set: no load, no call.
func stable(e ir.Expr) bool {
	return !ir.AnyExpr(e, func(x ir.Expr) bool {
		switch x.(type) {
		case *ir.Load, *ir.Call:
			return true
		}
		return false
	})
}

// block walks body from st and returns the state after it.
func (pl *planner) block(body []ir.Stmt, st state, j *jumps) state {
	for _, s := range body {
		if st.dead {
			// Unreachable: count its accesses, prove nothing.
			pl.stmt(s, state{}, &jumps{})
			continue
		}
		st = pl.stmt(s, st, j)
	}
	return st
}

// stmt walks s from st and returns the state after it.
func (pl *planner) stmt(s ir.Stmt, st state, j *jumps) state {
	k := st.k
	switch s := s.(type) {
	case *ir.Decl:
		return state{k: pl.assign(s.Name, s.Init, k)}
	case *ir.Assign:
		return state{k: pl.assign(s.Name, s.Value, k)}
	case *ir.Store:
		return state{k: pl.write(s, pl.access(s, s.Buf, s.Index, k, pl.exprs(k, s.Index, s.Value)))}
	case *ir.Atomic:
		after := pl.access(s, s.Buf, s.Index, k, pl.exprs(k, append([]ir.Expr{s.Index}, s.Args...)...))
		if s.Dst != "" {
			after = kill(after, s.Dst)
		}
		return state{k: after}
	case *ir.If:
		_, onTrue, onFalse := pl.branch(s.Cond, k)
		return meet(pl.block(s.Then, state{k: onTrue}, j), pl.block(s.Else, state{k: onFalse}, j))
	case *ir.Switch:
		after := pl.expr(s.X, k)
		out := state{dead: true}
		for _, c := range s.Cases {
			out = meet(out, pl.block(c.Body, state{k: after}, j))
		}
		if s.Default != nil {
			return meet(out, pl.block(s.Default, state{k: after}, j))
		}
		return meet(out, state{k: after})
	case *ir.While:
		return pl.loop(s, st, s.Cond, s.Body, nil, nil)
	case *ir.For:
		if s.Init != nil {
			st = pl.stmt(s.Init, st, j)
		}
		return pl.loop(s, st, s.Cond, s.Body, s.Post, countedFacts(s))
	case *ir.Break:
		if j != nil {
			j.breaks = append(j.breaks, st)
		}
		return state{dead: true}
	case *ir.Continue:
		if j != nil {
			j.conts = append(j.conts, st)
		}
		return state{dead: true}
	case *ir.Return:
		pl.expr(s.Value, k)
		return state{dead: true}
	case *ir.Raise:
		return state{dead: true}
	}
	// Any other statement: its expressions unordered, its bodies from
	// the facts it cannot end, as the state where it jumps out and after.
	keep := kill(pl.exprs(k, ir.StmtExprs(s)...), assignedIn([]ir.Stmt{s})...)
	for _, sub := range ir.SubBodies(s) {
		pl.block(sub, state{k: keep}, &jumps{})
		if j != nil && ir.JumpsOut(sub, true) {
			j.breaks = append(j.breaks, state{k: keep})
		}
		if j != nil && ir.JumpsOut(sub, false) {
			j.conts = append(j.conts, state{k: keep})
		}
	}
	return state{k: keep}
}

// assign walks `name = value` (value nil: a declaration without one).
func (pl *planner) assign(name string, value ir.Expr, k *known) *known {
	if value == nil {
		return kill(k, name)
	}
	after := pl.expr(value, k)
	out := kill(after, name)
	v := &ir.Var{Name: name, T: value.Type()}
	if n := pl.below(value); n != nil {
		// The load's range, whatever its index: x = arg0[x] too.
		out = out.add(newFact(v, nil), newFact(v, n))
	}
	if reads(value, name) {
		return out
	}
	if c, ok := value.(*ir.Const); ok && c.T.IsInt() {
		if !c.T.IsSigned() || c.Int() >= 0 {
			out = out.push(newFact(v, nil))
		}
		if c.T.IsSigned() && c.Int() <= 0 || !c.T.IsSigned() && c.Bits == 0 {
			for _, n := range pl.positive(after) {
				if !reads(n, name) {
					out = out.push(newFact(v, n))
				}
			}
		}
		return out
	}
	if nonNegative(value) {
		out = out.push(newFact(v, nil))
	}
	kx := ir.PrintExpr(strip(value))
	for n := after; n != nil; n = n.next {
		if n.f.kx() == kx && n.f.le {
			out = out.add(newLeFact(v, n.f.n))
		} else if n.f.kx() == kx {
			out = out.add(newFact(v, n.f.n))
		}
	}
	return out
}

// positive is the lengths that k shows to be at least 1: n in
// 0 <= x < n.
func (pl *planner) positive(k *known) []ir.Expr {
	nonNeg := map[string]bool{}
	for n := k; n != nil; n = n.next {
		if n.f.n == nil {
			nonNeg[n.f.kx()] = true
		}
	}
	var out []ir.Expr
	seen := map[string]bool{}
	for n := k; n != nil; n = n.next {
		f := n.f
		if f.n == nil || f.le || seen[f.key] {
			continue
		}
		if nonNeg[f.kx()] || nonNegative(substitute(f.x, pl.singles)) {
			seen[f.key] = true
			out = append(out, f.n)
		}
	}
	return out
}

// nonNeg reports whether x (printed stripped as kx) is not negative.
func (pl *planner) nonNeg(x ir.Expr, kx string, k *known) bool {
	return nonNegative(substitute(x, pl.singles)) || k.has(kx+"\x00")
}

// loop walks a while (post nil) or a for from its Init on: the passes
// of Note [Range facts], of which only the last one's checks count.
// extra holds in the body.
func (pl *planner) loop(s ir.Stmt, pre state, cond ir.Expr, body []ir.Stmt, post ir.Stmt, extra []fact) state {
	head := pre.k
	for pass := 0; ; pass++ {
		mark := len(pl.log)
		if pass == maxPasses {
			_, exit := pl.iterate(kill(pre.k, assignedIn([]ir.Stmt{s})...), cond, body, post, extra)
			return exit
		}
		back, exit := pl.iterate(head, cond, body, post, extra)
		next := meet(pre, back).k
		if sameFacts(next, head) {
			return exit
		}
		pl.log = pl.log[:mark]
		head = next
	}
}

// iterate walks one pass of a loop from the facts at its head and
// returns the states at its back edge and at its exit.
func (pl *planner) iterate(head *known, cond ir.Expr, body []ir.Stmt, post ir.Stmt, extra []fact) (back, exit state) {
	_, onTrue, onFalse := pl.branch(cond, head)
	j := &jumps{}
	end := pl.block(body, state{k: onTrue.add(extra...)}, j)
	back = meetAll(end, j.conts)
	if post != nil && !back.dead {
		back = pl.stmt(post, back, j)
	}
	out := state{k: onFalse}
	if c, ok := cond.(*ir.Const); ok && c.T == ir.Bool && c.Bits != 0 {
		out = state{dead: true}
	}
	return back, meetAll(out, j.breaks)
}

// exprs walks es, which are not ordered among themselves, from k, and
// returns what holds after all of them.
func (pl *planner) exprs(k *known, es ...ir.Expr) *known {
	out := k
	for _, e := range es {
		out = out.add(pl.expr(e, k).since(k)...)
	}
	return out
}

// expr walks e from k and returns what holds after it, which extends k.
func (pl *planner) expr(e ir.Expr, k *known) *known {
	after, _, _ := pl.branch(e, k)
	return after
}

// branch walks e from k and returns what holds after it, after it where
// it is true, and where it is false. Each extends k.
func (pl *planner) branch(e ir.Expr, k *known) (after, onTrue, onFalse *known) {
	switch x := e.(type) {
	case nil:
		return k, k, k
	case *ir.Binary:
		switch x.Op {
		case ir.LogAnd:
			a, aT, aF := pl.branch(x.X, k)
			_, bT, bF := pl.branch(x.Y, aT)
			return a, bT, meet(state{k: aF}, state{k: bF}).k
		case ir.LogOr:
			a, aT, aF := pl.branch(x.X, k)
			_, bT, bF := pl.branch(x.Y, aF)
			return a, meet(state{k: aT}, state{k: bT}).k, bF
		}
		if CheckedDivisor(x) {
			pl.note(x, pl.divides(x.Y, k))
		}
	case *ir.Unary:
		if x.Op == ir.Not {
			a, t, f := pl.branch(x.X, k)
			return a, f, t
		}
	case *ir.Select:
		a, t, f := pl.branch(x.Cond, k)
		pl.expr(x.X, t)
		pl.expr(x.Y, f)
		return a, a, a
	case *ir.Load:
		a := pl.expr(x.Index, k)
		a = pl.access(x, x.Buf, x.Index, a, a)
		return a, a, a
	case *ir.Var:
		if d := pl.singles[x.Name]; d != nil && x.T == ir.Bool && len(varsOf(d)) == 0 && stable(d) {
			return k, k.add(pl.cond(d, true)...), k.add(pl.cond(d, false)...)
		}
	}
	after = pl.exprs(k, ir.SubExprs(e)...)
	return after, after.add(pl.cond(e, true)...), after.add(pl.cond(e, false)...)
}

// cond is the facts of a comparison e where it is v: x < n, 0 <= x.
func (pl *planner) cond(e ir.Expr, v bool) []fact {
	b, ok := e.(*ir.Binary)
	if !ok || !b.X.Type().IsInt() {
		return nil
	}
	x, y := b.X, b.Y
	op := b.Op
	switch op { // y op' x, so that x is on the left
	case ir.Gt:
		x, y, op = y, x, ir.Lt
	case ir.Ge:
		x, y, op = y, x, ir.Le
	}
	// Now x < y or x <= y, or where !v, y <= x or y < x.
	var mins []fact // Note [Derived range facts]
	switch {
	case op == ir.Lt && v:
		mins = minFacts(x, y)
	case op == ir.Le && !v:
		mins = minFacts(y, x)
	}
	if !stable(x) || !stable(y) {
		return mins
	}
	switch {
	case op == ir.Lt && v:
		return append([]fact{newFact(x, y)}, mins...)
	case op == ir.Lt && atLeast(y, 0):
		return []fact{newFact(x, nil)}
	case op == ir.Le && v && atLeast(x, 0):
		return []fact{newFact(y, nil)}
	case op == ir.Le && v:
		if _, d, ok := offset(x); ok && d >= 1 {
			return []fact{newLeFact(x, y)}
		}
	case op == ir.Le && !v:
		out := append([]fact{newFact(y, x)}, mins...)
		if atLeast(y, -1) {
			out = append(out, newFact(x, nil))
		}
		return out
	}
	return nil
}

// atLeast reports whether e is a signed integer constant of at least k.
func atLeast(e ir.Expr, k int64) bool {
	c, ok := e.(*ir.Const)
	return ok && c.T.IsInt() && c.T.IsSigned() && c.Int() >= k
}

// access notes the check of node, an access at index of buf, under k
// (what holds before it), and returns after with what it adds.
func (pl *planner) access(node any, buf string, index ir.Expr, k, after *known) *known {
	b := pl.m.Buffer(buf)
	if b == nil || index == nil {
		return after
	}
	pl.note(node, pl.inBounds(b, index, k))
	if !stable(index) {
		return after
	}
	return after.add(newFact(index, nil), newFact(index, b.Len))
}

func (pl *planner) note(node any, proven bool) {
	pl.log = append(pl.log, occurrence{node, proven})
}

// inBounds reports whether index is proven in range for b under k.
func (pl *planner) inBounds(b *ir.Buffer, index ir.Expr, k *known) bool {
	return pl.inRange(index, b.Len, k)
}

// inRange reports whether x is proven in [0, length) under k.
func (pl *planner) inRange(index, length ir.Expr, k *known) bool {
	if n := pl.below(index); n != nil && pl.sameLength(n, length) || pl.constInRange(index, length) {
		return true
	}
	kx := ir.PrintExpr(strip(index))
	if pl.nonNeg(index, kx, k) {
		for n := k; n != nil; n = n.next {
			if n.f.n != nil && !n.f.le && n.f.kx() == kx && pl.sameLength(n.f.n, length) {
				return true
			}
		}
	}
	return pl.offsetInRange(index, length, k) || pl.remInRange(index, length, k)
}

// divides reports whether divisor y is not zero under k: a length known
// to be positive.
func (pl *planner) divides(y ir.Expr, k *known) bool {
	for _, n := range pl.positive(k) {
		if pl.sameLength(n, y) {
			return true
		}
	}
	return false
}
