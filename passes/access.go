package passes

import (
	"strconv"

	"gpuc/ir"
)

// Note [Cross-processor conflicts]
//
// Two accesses to device memory by different processors between the same
// two synchronisation points conflict if they touch one buffer, at least
// one writes, they are not both atomics of one commutative family (two
// adds, two maxes; an exchange or compare-and-swap commutes with nothing),
// and their addresses may be equal. Multiprefix atomics and priority stores
// are resolved per barrier interval, so two of them on one buffer always
// conflict, even from the same processor: merging their intervals would
// change which processor wins.
//
// Addresses are compared by their index expressions. An index in owner
// form, c*K + r with K the processor's own id (pid() outside forks, gid()
// anywhere), c a non-zero constant and r invariant (the same value on every
// processor, throughout the region), names a different element on each
// processor; two owner-form indices with the same c and r never meet across
// processors. Two constant indices meet only if equal. Anything else may
// meet.

// Note [Fork on several devices]
//
// `gpuc run --world --devices K x.fork` (fork.Options.World) makes a Fork
// program for a world of DEVICES devices (Note [World] in package ir):
// every start is a world region, whose processor p runs on device
// p / WorldPart(P, K), and every buffer that code writes (the sh
// variables, and the frontend's own per-processor and per-subgroup
// arrays) is distributed, one storage for the world, so the program
// means what it means on one device; CI runs every Fork example so, race
// checker on, and compares the bytes. Element p of a distributed array
// of P elements lies on processor p's device, so an access in owner form
// (above) with c = 1 and r = 0, the processor's own element, is always
// local; with r invariant but not 0, or c != 1, it is local for all but
// the processors within |r| (or the factor c) of a part's edge; a
// constant index (a shared counter) is remote for all devices but one.
// The counters of `gpuc run --json` measure it: an example's remote
// share is what its data layout costs on K GPUs (sieve, whose processors
// stride over the array, has three remote accesses in four at K = 4;
// paper_fig1 none).
//
// Not built yet: a pass that reports, per access, what the owner form
// proves local (from this analysis) in --report; arrays that only one
// processor or subgroup uses kept global on its device instead of
// distributed; and on the GPU, the world-wide barrier that a subgroup
// spanning a part's edge needs. Multiprefix operations in a world region
// are refused by the passes until the scan across devices exists
// (lower-multiprefix); `gpuc run` runs them.

type accessKind uint8

const (
	readAccess accessKind = iota
	writeAccess
	atomicAccess  // an ordinary atomic read-modify-write
	orderedAccess // a multiprefix atomic or a priority store
)

// access is one read or write of a device buffer by one atom.
type access struct {
	buf   string
	index ir.Expr // nil: unknown (inside a called function)
	kind  accessKind
	op    ir.AtomicOp // for atomicAccess
}

// commute reports whether two atomic operations may run in either order
// and leave the same memory: operations of one commutative family.
func commute(a, b ir.AtomicOp) bool {
	family := func(op ir.AtomicOp) int {
		switch op {
		case ir.AtomicAdd, ir.AtomicSub:
			return 1
		case ir.AtomicMin, ir.AtomicMax, ir.AtomicAnd, ir.AtomicOr, ir.AtomicXor:
			return 2 + int(op)
		}
		return 0 // exch, cas and inc depend on order
	}
	return family(a) != 0 && family(a) == family(b)
}

func (a access) writes() bool { return a.kind != readAccess }

// accessInfo computes accesses of atoms, with summaries of the device
// functions they call.
type accessInfo struct {
	m       *ir.Module
	summary map[string][]access
	inv     invariants
}

func newAccessInfo(m *ir.Module, body []ir.Stmt) *accessInfo {
	a := &accessInfo{m: m, summary: map[string][]access{}}
	a.inv = findInvariants(body)
	return a
}

// of returns the accesses an atom makes to device buffers.
func (a *accessInfo) of(n *node) []access {
	var out []access
	for _, e := range n.exprs {
		out = a.exprAccesses(e, out)
	}
	switch s := n.stmt.(type) {
	case *ir.Store:
		if n.kind == atomNode && a.m.Buffer(s.Buf) != nil {
			k := writeAccess
			if s.Priority {
				k = orderedAccess
			}
			out = append(out, access{buf: s.Buf, index: s.Index, kind: k})
		}
	case *ir.Atomic:
		k := atomicAccess
		if s.Op.IsMultiprefix() {
			k = orderedAccess
		}
		out = append(out, access{buf: s.Buf, index: s.Index, kind: k, op: s.Op})
	}
	return out
}

func (a *accessInfo) exprAccesses(e ir.Expr, out []access) []access {
	ir.WalkExpr(e, func(x ir.Expr) bool {
		switch x := x.(type) {
		case *ir.Load:
			if a.m.Buffer(x.Buf) != nil {
				out = append(out, access{buf: x.Buf, index: x.Index, kind: readAccess})
			}
		case *ir.Call:
			out = append(out, a.callSummary(x.Func)...)
		}
		return true
	})
	return out
}

// callSummary is every buffer access a device function may make,
// transitively, with unknown indices.
func (a *accessInfo) callSummary(name string) []access {
	if s, ok := a.summary[name]; ok {
		return s
	}
	a.summary[name] = nil // recursion: the fixpoint below completes it
	seen := map[string]accessKind{}
	var visit func(string)
	visited := map[string]bool{}
	visit = func(fn string) {
		if visited[fn] {
			return
		}
		visited[fn] = true
		f := a.m.Func(fn)
		if f == nil {
			return
		}
		note := func(buf string, k accessKind) {
			if old, ok := seen[buf]; !ok || k > old {
				seen[buf] = k
			}
		}
		kinds := [...]accessKind{ir.UseRead: readAccess, ir.UseWrite: writeAccess, ir.UseAtomic: atomicAccess}
		ir.WalkBufferUses(f.Body, func(buf string, use ir.BufferUse) { note(buf, kinds[use]) })
		ir.WalkAllExprs(f.Body, func(x ir.Expr) bool {
			if c, ok := x.(*ir.Call); ok {
				visit(c.Func)
			}
			return true
		})
	}
	visit(name)
	var out []access
	for buf, k := range seen {
		if a.m.Buffer(buf) != nil {
			// A plain write inside a function may race with an atomic
			// elsewhere: record the strongest kind, as a write.
			if k == atomicAccess {
				k = writeAccess
			}
			out = append(out, access{buf: buf, kind: k})
		}
	}
	a.summary[name] = out
	return out
}

// conflict reports whether a and b, made by two processors between the
// same two synchronisation points, may conflict.
func (a *accessInfo) conflict(x, y access, inFork bool) bool {
	switch {
	case x.buf != y.buf:
		return false
	case x.kind == orderedAccess && y.kind == orderedAccess:
		return true
	case !x.writes() && !y.writes():
		return false
	case x.kind == atomicAccess && y.kind == atomicAccess && commute(x.op, y.op):
		return false
	}
	return a.mayMeet(x.index, y.index, inFork)
}

// mayMeet reports whether indices i and j, evaluated by two different
// processors, may be equal.
func (a *accessInfo) mayMeet(i, j ir.Expr, inFork bool) bool {
	if i == nil || j == nil {
		return true
	}
	ci, iok := i.(*ir.Const)
	cj, jok := j.(*ir.Const)
	if iok && jok {
		return ci.Bits == cj.Bits
	}
	fi, ok1 := a.ownerForm(i, inFork)
	fj, ok2 := a.ownerForm(j, inFork)
	if ok1 && ok2 && fi.coef == fj.coef && fi.rest == fj.rest {
		return false
	}
	return true
}

// owner is an index in owner form: coef*K + rest.
type owner struct {
	key  ir.BuiltinOp
	coef int64
	rest string // the printed invariant remainder
}

// ownerForm decomposes e as coef*K + rest, with K pid() (outside forks) or
// gid() and rest invariant.
func (a *accessInfo) ownerForm(e ir.Expr, inFork bool) (owner, bool) {
	e = foldRowMajor(a.inv.expand(e, 4))
	var terms []term
	if !linearTerms(e, 1, &terms) {
		return owner{}, false
	}
	var o owner
	var rest []string
	var konst int64
	for _, t := range terms {
		if c, ok := t.x.(*ir.Const); ok && c.T.IsInt() {
			konst += t.coef * c.Int()
			continue
		}
		if b, ok := t.x.(*ir.Builtin); ok && (b.Op == ir.GlobalID || (b.Op == ir.ProcID && !inFork)) {
			if o.coef != 0 && o.key != b.Op {
				return owner{}, false
			}
			o.key, o.coef = b.Op, o.coef+t.coef
			continue
		}
		if !a.inv.expr(t.x) {
			return owner{}, false
		}
		rest = append(rest, printTerm(t))
	}
	if o.coef == 0 {
		return owner{}, false
	}
	if konst != 0 {
		rest = append(rest, strconv.FormatInt(konst, 10))
	}
	o.rest = joinSorted(rest)
	return o, true
}

// term is coef * x in a linear decomposition.
type term struct {
	coef int64
	x    ir.Expr
}

// linearTerms splits e into a sum of constant multiples of leaves.
func linearTerms(e ir.Expr, coef int64, out *[]term) bool {
	switch e := e.(type) {
	case *ir.Binary:
		switch e.Op {
		case ir.Add:
			return linearTerms(e.X, coef, out) && linearTerms(e.Y, coef, out)
		case ir.Sub:
			return linearTerms(e.X, coef, out) && linearTerms(e.Y, -coef, out)
		case ir.Mul:
			if c, ok := e.X.(*ir.Const); ok && c.T.IsInt() {
				return linearTerms(e.Y, coef*c.Int(), out)
			}
			if c, ok := e.Y.(*ir.Const); ok && c.T.IsInt() {
				return linearTerms(e.X, coef*c.Int(), out)
			}
		}
	}
	*out = append(*out, term{coef: coef, x: e})
	return true
}
