package abi

import (
	"math"

	"gpuc/ir"
)

// Note [Going on after a fault]
//
// A failed device check records its fault as Note [Checks] says (the
// first wins, with its two values) and then, where the function goes on
// (GoOn), does not stop: the access takes index 0 and the division
// divisor 1, and the thread runs on to its next stop point: the end of
// its kernel, or the test after a barrier. In a kernel with barriers the
// error word is tested after each barrier and where the kernel returns
// or ends, and a fault stops the whole kernel there (a trap), since the
// others would wait at the next barrier for a thread that left: a thread
// that faulted passes one of these points before any other thread can
// wait for it forever, as barriers of any site count together (CUDA's
// grid sync and __syncthreads). The host reports the recorded fault when
// the launch ends, as before. A stop reachable from every check doubles the registers of
// TRS's rewriting kernels (docs/BENCHMARKS.md, "the checks' cost by
// part"); a check that goes on costs its compare and a cold store.
//
// Going on must neither hang nor touch memory out of range. Index 0 is
// in the storage of every global buffer, even one of length 0 (the pool
// gives each 256 bytes at least, gpuc_pool_add); accesses to shared
// buffers keep the stop. A value written into a buffer with a below
// bound becomes 0, so that the loads that rely on the bound stay in
// range. For hangs, a function goes on only where every loop of it and of
// every function it calls ends whatever values its loads return, and no
// kernel that reaches it calls one that does not (a garbage value
// returned to a caller that loops on it could spin). A loop ends so
// where it
//
//   - counts: the hoisted loops' shape (Note [Check placement]) with an
//     invariant bound and a step of constant 1 under `<` (or the
//     inclusive bound a constant below the type's maximum), or an i64
//     counter whose bound and step are 32-bit values widened, the step a
//     positive constant or max(x, c) with c >= 1: no wrap;
//   - burns fuel: a local F, assigned in the body once, at its top level,
//     by F = F - c with c >= 1, before any continue of the loop, and the
//     loop test is a conjunction holding 0 < F (or F > 0, F >= 1), or a
//     top-level `if F <= 0 { ... break }` comes before the decrement:
//     TRS's walks and CHR's partner searches;
//   - runs once: its body ends in break or return and holds no continue
//     of its own;
//   - strides: a strided cooperative kernel's loop over its processors,
//     `v < B` stepped by max(min(X, B - v), 1), which neither wraps nor
//     stands still (strides);
//   - holds a barrier at its top level: the test after it stops a faulted
//     kernel (BarrierStops).
//
// A function that calls itself, directly or not, keeps the stop: its
// depth depends on values. Both GPU paths go on (CUDA: gpuc_idx_go,
// gpuc_divisor_go, gpuc_fault_halt; NVPTX: a select after the check);
// the host target does not, where a fault already ends the launch (Note
// [Raise on the CPU] in backends/llvm), nor NVRTC's kernels, whose error
// word a trap would lose, nor world programs. The criterion is syntactic and local, like
// the placement's; `gpuc check --termination` proves more kernels
// thread-modularly, and the test compares the two on the TRS examples.

// GoOn reports whether the failed checks of device function or kernel f
// record and go on (Note [Going on after a fault]).
func (c *Conv) GoOn(f *ir.Func) bool {
	if c.goOn == nil {
		c.goOn = goOnFuncs(c.m, c.use)
	}
	return c.goOn[f]
}

// BarrierStops reports whether kernel f tests the error word after each
// barrier, and where it returns or ends, and stops there where a fault
// was recorded: f goes on and holds barriers.
func (c *Conv) BarrierStops(f *ir.Func) bool {
	return f.Kind == ir.KernelFunc && c.GoOn(f) && ir.HasBarrier(f.Body, false)
}

// goOnFuncs computes GoOn for every kernel and device function of m.
func goOnFuncs(m *ir.Module, use map[*ir.Func]*usage) map[*ir.Func]bool {
	const (
		unknown = iota
		visiting
		safe
		unsafe
	)
	state := map[*ir.Func]int{}
	var visit func(f *ir.Func) bool
	visit = func(f *ir.Func) bool {
		switch state[f] {
		case visiting: // recursion
			return false
		case safe:
			return true
		case unsafe:
			return false
		}
		state[f] = visiting
		ok := use[f] != nil && loopsEnd(m, f)
		if ok {
			for g := range use[f].callees {
				if !visit(g) {
					ok = false
				}
			}
		}
		// A function in a cycle was met while visiting: unsafe.
		if ok && state[f] == visiting {
			state[f] = safe
		} else {
			state[f] = unsafe
		}
		return ok
	}
	reach := map[*ir.Func]bool{} // device functions that some kernel reaching them makes unsafe
	var mark func(f *ir.Func)
	mark = func(f *ir.Func) {
		if reach[f] {
			return
		}
		reach[f] = true
		for g := range use[f].callees {
			mark(g)
		}
	}
	for _, f := range m.Funcs {
		if f.Kind == ir.KernelFunc && !visit(f) {
			mark(f)
		}
	}
	out := map[*ir.Func]bool{}
	for _, f := range m.Funcs {
		if f.Kind != ir.HostFunc && !reach[f] && visit(f) {
			out[f] = true
		}
	}
	return out
}

// loopsEnd reports whether every loop of f ends whatever its loads
// return.
func loopsEnd(m *ir.Module, f *ir.Func) bool {
	pl := &planner{m: m, f: f, p: &CheckPlan{}}
	pl.singles = singleDefs(f.Body)
	ok := true
	ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
		switch s.(type) {
		case *ir.While, *ir.For:
			ok = ok && pl.loopEnds(s)
		}
		return ok
	})
	return ok
}

// loopEnds reports whether loop s ends whatever its loads return.
func (pl *planner) loopEnds(s ir.Stmt) bool {
	body := ir.SubBodies(s)[0]
	if len(body) == 0 {
		return false
	}
	for _, t := range body {
		if _, ok := t.(*ir.Barrier); ok {
			return true
		}
	}
	switch body[len(body)-1].(type) {
	case *ir.Break, *ir.Return:
		if !continues(body) {
			return true
		}
	}
	return pl.counts(s) || pl.strides(s) || burnsFuel(s, body)
}

// strides reports whether s is the loop of a strided cooperative kernel
// (Note [Strided cooperative kernels] in package passes): `for v = v0;
// v < B; v = v + max(min(X, B - v), 1)`, with B invariant and v set by
// the post only. Each step is at least 1 and at most B - v where B - v
// does not wrap (where it wraps it is negative, and the step is 1), so v
// grows to B without passing it.
func (pl *planner) strides(s ir.Stmt) bool {
	f, ok := s.(*ir.For)
	if !ok || f.Init == nil {
		return false
	}
	post, ok := f.Post.(*ir.Assign)
	if !ok {
		return false
	}
	v, step := increment(post)
	c, ok := f.Cond.(*ir.Binary)
	if v == nil || !v.T.IsInt() || !ok || c.Op != ir.Lt || !isVar(c.X, v.Name) || countAssigns(f.Body, v.Name) != 0 {
		return false
	}
	set := map[string]bool{v.Name: true}
	for _, n := range assignedIn(f.Body) {
		set[n] = true
	}
	if !pl.safe(c.Y, &loopShape{set: set}) {
		return false
	}
	mx, ok := step.(*ir.Builtin)
	if !ok || mx.Op != ir.Max || len(mx.Args) != 2 {
		return false
	}
	for i := range 2 {
		one, ok1 := mx.Args[1-i].(*ir.Const)
		mn, ok2 := mx.Args[i].(*ir.Builtin)
		if !ok1 || !one.T.IsInt() || one.Int() != 1 || !ok2 || mn.Op != ir.Min || len(mn.Args) != 2 {
			continue
		}
		for j := range 2 {
			d, ok := mn.Args[j].(*ir.Binary)
			if ok && d.Op == ir.Sub && isVar(d.Y, v.Name) && ir.PrintExpr(d.X) == ir.PrintExpr(c.Y) && pl.safe(mn.Args[1-j], nil) {
				return true
			}
		}
	}
	return false
}

// continues reports whether body holds a continue of its own loop.
func continues(body []ir.Stmt) bool {
	return ir.AnyStmtOutside(body, isLoop, func(s ir.Stmt) bool { _, ok := s.(*ir.Continue); return ok })
}

func isLoop(s ir.Stmt) bool {
	switch s.(type) {
	case *ir.While, *ir.For:
		return true
	}
	return false
}

// counts reports whether s is a counted loop that cannot wrap.
func (pl *planner) counts(s ir.Stmt) bool {
	sh := pl.shape(s)
	if sh == nil {
		return false
	}
	if w, ok := s.(*ir.While); ok && continues(w.Body) {
		return false // a continue would skip the increment
	}
	if k, ok := sh.step.(*ir.Const); ok && k.T.IsInt() && k.Int() == 1 {
		if !sh.incl {
			return true
		}
		b, ok := sh.bound.(*ir.Const)
		return ok && b.T.IsInt() && b.Int() < maxOf(sh.v.T)
	}
	return sh.v.T == ir.I64 && !sh.incl && narrow(sh.bound) && narrow(sh.step) && positive(sh.step)
}

// maxOf is the largest value of integer type t, as an int64.
func maxOf(t ir.Type) int64 {
	switch t {
	case ir.I8:
		return math.MaxInt8
	case ir.U8:
		return math.MaxUint8
	case ir.I32:
		return math.MaxInt32
	case ir.U32:
		return math.MaxUint32
	}
	return math.MaxInt64
}

// narrow reports whether e is a 32-bit (or narrower) value widened, or a
// constant that fits 32 bits.
func narrow(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Convert:
		t := e.X.Type()
		return t == ir.I32 || t == ir.U32 || t == ir.I8 || t == ir.U8 || t == ir.Bool
	case *ir.Const:
		return e.T.IsInt() && e.Int() >= math.MinInt32 && e.Int() <= math.MaxUint32
	}
	return false
}

// positive reports whether e is at least 1: a constant, or max(x, c)
// with c >= 1, under conversions.
func positive(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Convert:
		return positive(e.X)
	case *ir.Const:
		return e.T.IsInt() && e.Int() >= 1
	case *ir.Builtin:
		if e.Op == ir.Max && len(e.Args) == 2 {
			return positive(e.Args[0]) || positive(e.Args[1])
		}
	}
	return false
}

// burnsFuel reports whether loop s is bounded by fuel (Note [Going on
// after a fault]).
func burnsFuel(s ir.Stmt, body []ir.Stmt) bool {
	var cond ir.Expr
	switch s := s.(type) {
	case *ir.While:
		cond = s.Cond
	case *ir.For:
		cond = s.Cond
	}
	for i, t := range body {
		a, ok := t.(*ir.Assign)
		if !ok {
			continue
		}
		d, ok := a.Value.(*ir.Binary)
		if !ok || d.Op != ir.Sub || !isVar(d.X, a.Name) || !d.X.Type().IsInt() {
			continue
		}
		if k, ok := d.Y.(*ir.Const); !ok || !k.T.IsInt() || k.Int() < 1 {
			continue
		}
		if countAssigns(body, a.Name) != 1 || continues(body[:i]) {
			return false
		}
		if fuelTest(cond, a.Name, true) {
			return true
		}
		for _, g := range body[:i] {
			if fuelGuard(g, a.Name) {
				return true
			}
		}
		return false
	}
	return false
}

// fuelTest reports whether e, a conjunction, holds 0 < name (pos) or
// name <= 0 (!pos).
func fuelTest(e ir.Expr, name string, pos bool) bool {
	b, ok := e.(*ir.Binary)
	if !ok {
		if u, ok := e.(*ir.Unary); ok && u.Op == ir.Not && !pos {
			return fuelTest(u.X, name, true)
		}
		return false
	}
	zero := func(x ir.Expr) bool { k, ok := x.(*ir.Const); return ok && k.T.IsInt() && k.Int() == 0 }
	one := func(x ir.Expr) bool { k, ok := x.(*ir.Const); return ok && k.T.IsInt() && k.Int() == 1 }
	switch {
	case pos && b.Op == ir.LogAnd:
		return fuelTest(b.X, name, true) || fuelTest(b.Y, name, true)
	case !pos && b.Op == ir.LogOr:
		return fuelTest(b.X, name, false) || fuelTest(b.Y, name, false)
	case pos:
		return b.Op == ir.Lt && zero(b.X) && isVar(b.Y, name) || b.Op == ir.Gt && isVar(b.X, name) && zero(b.Y) ||
			b.Op == ir.Ge && isVar(b.X, name) && one(b.Y) || b.Op == ir.Le && one(b.X) && isVar(b.Y, name)
	default:
		return b.Op == ir.Le && isVar(b.X, name) && zero(b.Y) || b.Op == ir.Ge && zero(b.X) && isVar(b.Y, name) ||
			b.Op == ir.Lt && isVar(b.X, name) && one(b.Y) || b.Op == ir.Gt && one(b.X) && isVar(b.Y, name)
	}
}

// fuelGuard reports whether s is `if name <= 0 { ... break }` (or return).
func fuelGuard(s ir.Stmt, name string) bool {
	i, ok := s.(*ir.If)
	if !ok || len(i.Then) == 0 || !fuelTest(i.Cond, name, false) {
		return false
	}
	switch i.Then[len(i.Then)-1].(type) {
	case *ir.Break, *ir.Return:
		return true
	}
	return false
}
