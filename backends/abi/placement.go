package abi

import (
	"fmt"

	"gpuc/ir"
)

// Note [Check placement]
//
// Device code checks each access and divisor (Note [Checks]) unless the
// check is proven needless or is hoisted out of a loop. PlanChecks
// decides, per device function, for both backends:
//
//   - elided: the index is a constant in range (IndexInRange), or the
//     range facts that hold there (Note [Range facts]) put it in
//     [0, n), where n is the buffer's length: the same expression, up
//     to conversions that keep the value, or a kernel parameter that
//     every launch of the kernel sets to it. A value is not negative
//     where it is a thread id, an unsigned value, a constant, the
//     counter of `for v = v0; v < n; v = v + 1` with v0 not negative,
//     or a fact says so. A divisor is elided where it is such a length
//     known to be at least 1. An index is also in range where it is a
//     load from a buffer whose values lie below its own length, which
//     is n (a below bound, Note [Bounded buffers] in package ir), or
//     where constants bound it below a constant n (Note [Constant
//     ranges]). The value that a store writes into a buffer with a
//     below bound B is checked too (WriteCheck, BelowFault), and elided
//     where the facts put it in [0, B).
//   - hoisted: the access is in a loop `v < B` (or `<=`) stepped by
//     `v = v + s`, with s > 0, and its index is A*v + R, with A, R, B and s
//     invariant in the loop and safe to evaluate early (no call, no
//     division by a variable, loads only at constant indices in range of
//     buffers the loop does not write). One test before the loop
//     (Hoist.Pre) checks the first and the last value of every such index:
//     the index is monotone in v, so both ends in range put every value in
//     range. The backend emits the loop twice, `if (Pre) loop-unchecked
//     else loop-checked`: where Pre fails, the checked loop runs and the
//     first faulting access raises exactly as before, and where the loop
//     would stop first, nothing is raised. Pre also checks that v + s does
//     not wrap, and that each invariant divisor of the loop is not zero.
//     i32 and u32 indices are computed exactly in i64: wrapping arithmetic
//     agrees with it modulo 2^32, so an exact value in [0, length) that
//     fits the index's type is the index. An i64 index is hoisted only
//     where it is v plus a small constant, u64 ones not at all. Loops
//     with a barrier are not versioned: their threads could take
//     different copies. Nor is a loop around two levels of versioned
//     loops, whose innermost would be emitted eight times.
//   - kept: everything else.
//
// The counts are per function, each check counted once where it is
// written; backends print them (`checks: N kept (L in loops), M hoisted,
// K elided`).

// CheckPlan is PlanChecks' decision for one function.
type CheckPlan struct {
	elided  map[any]bool
	hoists  map[ir.Stmt]*Hoist
	covered map[any]bool
	// Kept, Hoisted and Elided count the checks of the function;
	// KeptInLoops those of Kept that are in a loop.
	Kept, KeptInLoops, Hoisted, Elided int
}

// Hoist is the test that lets one loop run without some of its checks.
type Hoist struct {
	Pre     ir.Expr // true: the covered checks of the loop cannot fail
	covered map[any]bool
}

// Elide reports whether the check of node (a *ir.Load, *ir.Store,
// *ir.Atomic or *ir.Binary) can go everywhere.
func (p *CheckPlan) Elide(node any) bool { return p != nil && p.elided[node] }

// Settled reports whether the plan elides the check of node, or one of
// active, the tests before the loops being emitted unchecked, covers it.
func (p *CheckPlan) Settled(node any, active []*Hoist) bool {
	if p.Elide(node) {
		return true
	}
	for _, h := range active {
		if h.Covers(node) {
			return true
		}
	}
	return false
}

// Hoist returns the hoisted test of loop (a *ir.While or *ir.For), or nil.
func (p *CheckPlan) Hoist(loop ir.Stmt) *Hoist {
	if p == nil {
		return nil
	}
	return p.hoists[loop]
}

// Covers reports whether Pre covers the check of node in h's loop.
func (h *Hoist) Covers(node any) bool { return h != nil && h.covered[node] }

// String is the comment line of the counts.
func (p *CheckPlan) String() string {
	return fmt.Sprintf("checks: %d kept (%d in loops), %d hoisted, %d elided", p.Kept, p.KeptInLoops, p.Hoisted, p.Elided)
}

// PlanChecks plans the checks of device function f of m. Host functions
// check in place with positions and get an empty plan.
func PlanChecks(m *ir.Module, f *ir.Func) *CheckPlan {
	p := &CheckPlan{elided: map[any]bool{}, hoists: map[ir.Stmt]*Hoist{}, covered: map[any]bool{}}
	if f.Kind == ir.HostFunc {
		return p
	}
	pl := &planner{m: m, f: f, p: p}
	pl.singles = singleDefs(f.Body)
	pl.block(f.Body, state{}, nil)
	seen, proven := map[any]int{}, map[any]int{}
	for _, o := range pl.log {
		seen[o.node]++
		if o.proven {
			proven[o.node]++
		}
	}
	for n, c := range seen {
		if proven[n] == c {
			p.elided[n] = true
		}
	}
	pl.hoistAll(f.Body)
	p.countIn(m, f.Body, false)
	return p
}

// countIn counts the checks of body, inLoop where body is in a loop.
func (p *CheckPlan) countIn(m *ir.Module, body []ir.Stmt, inLoop bool) {
	for _, s := range body {
		switch s := s.(type) {
		case *ir.Store:
			p.count(m, s, s.Buf, s.Index, inLoop)
			if CheckedWrite(m.Buffer(s.Buf)) && s.Value != nil {
				p.tally(writeOf{s}, inLoop)
			}
		case *ir.Atomic:
			p.count(m, s, s.Buf, s.Index, inLoop)
		}
		_, loop := s.(*ir.For)
		if _, w := s.(*ir.While); w {
			loop = true
		}
		for _, e := range ir.StmtExprs(s) {
			ir.WalkExpr(e, func(x ir.Expr) bool {
				switch x := x.(type) {
				case *ir.Load:
					p.count(m, x, x.Buf, x.Index, inLoop || loop)
				case *ir.Binary:
					if CheckedDivisor(x) {
						p.tally(x, inLoop || loop)
					}
				}
				return true
			})
		}
		for _, sub := range ir.SubBodies(s) {
			p.countIn(m, sub, inLoop || loop)
		}
	}
}

func (p *CheckPlan) count(m *ir.Module, node any, buf string, index ir.Expr, inLoop bool) {
	if b := m.Buffer(buf); b != nil && index != nil && !IndexInRange(b, index) {
		p.tally(node, inLoop)
	}
}

func (p *CheckPlan) tally(node any, inLoop bool) {
	switch {
	case p.elided[node]:
		p.Elided++
	case p.covered[node]:
		p.Hoisted++
	default:
		p.Kept++
		if inLoop {
			p.KeptInLoops++
		}
	}
}

type planner struct {
	m       *ir.Module
	f       *ir.Func
	p       *CheckPlan
	singles map[string]ir.Expr // locals set once, by their declaration
	log     []occurrence       // the checks met, in the passes kept
}

// occurrence is one check met by the walk, and whether it was proven.
type occurrence struct {
	node   any
	proven bool
}

// singleDefs maps each local of body that is declared with a value and
// never assigned to that value.
func singleDefs(body []ir.Stmt) map[string]ir.Expr {
	defs, assigned := map[string]ir.Expr{}, map[string]bool{}
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Decl:
			if _, dup := defs[s.Name]; dup || s.Init == nil {
				assigned[s.Name] = true
			}
			defs[s.Name] = s.Init
		case *ir.For:
			for _, n := range assignedIn([]ir.Stmt{s}) {
				assigned[n] = true
			}
		default:
			for _, n := range ir.Assigned(s) {
				assigned[n] = true
			}
		}
		return true
	})
	for n := range assigned {
		delete(defs, n)
	}
	return defs
}

// assignedIn is every local that body sets, nested statements included.
func assignedIn(body []ir.Stmt) []string {
	var out []string
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		out = append(out, ir.Assigned(s)...)
		return true
	})
	return out
}

// varsOf is the locals e reads.
func varsOf(e ir.Expr) map[string]bool {
	out := map[string]bool{}
	ir.WalkExpr(e, func(x ir.Expr) bool {
		if v, ok := x.(*ir.Var); ok {
			out[v.Name] = true
		}
		return true
	})
	return out
}

// countedFacts are the facts in the body of `for v = v0; v < n; v = v +
// 1`, with v0 not negative and v not set in the body: 0 <= v < n. The
// step of one cannot carry v past the largest value of its type.
func countedFacts(s *ir.For) []fact {
	post, ok := s.Post.(*ir.Assign)
	if !ok {
		return nil
	}
	v, step := increment(post)
	k, isConst := step.(*ir.Const)
	if v == nil || !isConst || k.Int() != 1 || countAssigns(s.Body, v.Name) != 0 {
		return nil
	}
	var v0 ir.Expr
	switch in := s.Init.(type) {
	case *ir.Decl:
		if in.Name == v.Name {
			v0 = in.Init
		}
	case *ir.Assign:
		if in.Name == v.Name {
			v0 = in.Value
		}
	}
	c, ok := s.Cond.(*ir.Binary)
	if v0 == nil || !nonNegative(v0) || !ok || c.Op != ir.Lt || !isVar(c.X, v.Name) {
		return nil
	}
	if len(varsOf(c.Y)) > 0 {
		return nil // n could change in the body
	}
	return []fact{newFact(v, nil), newFact(v, c.Y)}
}

// nonNegative reports whether e is known not to be negative.
func nonNegative(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Const:
		return !e.T.IsSigned() || e.Int() >= 0
	case *ir.Builtin:
		switch e.Op {
		case ir.ThreadID, ir.BlockID, ir.BlockDim, ir.GridDim, ir.GlobalID:
			return true
		}
	case *ir.Convert:
		return e.T.IsInt() && e.X.Type().IsInt() && e.T.Size() >= e.X.Type().Size() && nonNegative(e.X)
	}
	return e.Type() == ir.U32 || e.Type() == ir.U64
}

// strip removes conversions that keep every value of their operand: a
// widening to a signed type, and a round trip through a wider type.
func strip(e ir.Expr) ir.Expr {
	c, ok := e.(*ir.Convert)
	if !ok || !c.T.IsInt() || !c.X.Type().IsInt() {
		return e
	}
	from := c.X.Type()
	if inner, ok := c.X.(*ir.Convert); ok && inner.X.Type() == c.T && inner.T.IsInt() && inner.T.Size() >= c.T.Size() {
		return strip(inner.X)
	}
	if c.T.IsSigned() && c.T.Size() > from.Size() {
		return strip(c.X)
	}
	return e
}

// sameLength reports whether n is the length len: the same expression, or
// a parameter of a kernel that every launch of it sets to len.
func (pl *planner) sameLength(n, length ir.Expr) bool {
	want := ir.PrintExpr(strip(length))
	if ir.PrintExpr(strip(n)) == want {
		return true
	}
	v, ok := n.(*ir.Var)
	if !ok || pl.f.Kind != ir.KernelFunc {
		return false
	}
	arg := -1
	for i, prm := range pl.f.Params {
		if prm.Name == v.Name {
			arg = i
		}
	}
	if arg < 0 || pl.assigns(v.Name) {
		return false
	}
	launches := 0
	for _, h := range pl.m.Funcs {
		if h.Kind != ir.HostFunc {
			continue
		}
		singles := singleDefs(h.Body)
		ok := true
		ir.WalkStmts(h.Body, func(s ir.Stmt) bool {
			if l, isL := s.(*ir.Launch); isL && l.Kernel == pl.f.Name {
				launches++
				if arg >= len(l.Args) || ir.PrintExpr(strip(substitute(l.Args[arg], singles))) != want {
					ok = false
				}
			}
			return true
		})
		if !ok {
			return false
		}
	}
	return launches > 0
}

func (pl *planner) assigns(name string) bool {
	for _, n := range assignedIn(pl.f.Body) {
		if n == name {
			return true
		}
	}
	return false
}

// substitute replaces locals set once by their values, outside and inside
// conversions, so that i32(procs) with procs = i64(N * N) reads N * N.
func substitute(e ir.Expr, singles map[string]ir.Expr) ir.Expr {
	switch x := e.(type) {
	case *ir.Var:
		if d := singles[x.Name]; d != nil {
			return substitute(d, singles)
		}
	case *ir.Convert:
		return &ir.Convert{Pos: x.Pos, T: x.T, X: substitute(x.X, singles)}
	}
	return e
}
