package passes

import (
	"fmt"
	"sort"
	"strings"

	"gpuc/ir"
)

// Note [Static prefilters]
//
// A matcher specialized on its table (partial-eval, then Note [Guard
// switches]) still pays, at every position, for a dispatch on the first
// byte and a test of each entry that a switch cannot hold, such as a
// header whose first bytes are wildcards: on an H100, carve.fork's scan
// over 67 headers ran at 2.5% of the streaming bandwidth, and the lanes
// of a warp, each at its own position, mostly diverge into different
// cases only to fail at the next byte. Almost every position of real
// data matches nothing, so the pass puts a cheap test in front that
// rejects most of them with a few instructions and no divergence.
//
// In a list of statements, a run whose every effect is guarded by
// tests of bytes of one buffer at constant offsets from one base,
// `(B[base + k] & 255) == v`, can have an effect only where one of those
// guards holds. Each guard (an alternative: the tests on the way to one
// effect) takes two of its tests, at offsets a < b; greedy set cover
// picks few offset pairs that serve all alternatives. For each pair, a
// table of 2^16 bits marks the value pairs (B[base+a], B[base+b]) that
// some alternative needs, and the run becomes
//
//	if !(0 <= base && base + K < len(B)) || T0[key0] || T1[key1] ... { run }
//
// where K is the largest offset of a load that the run evaluates before
// knowing whether a guard holds. When the bounds hold, every such load is
// in range and cannot fail, and if no table admits the bytes, no guard
// holds, so skipping the run skips nothing that it would have done; near
// the ends of B, the run runs as before. What the run evaluates on the
// way to its guards must be such loads or expressions that cannot fail
// (no calls, no division), and the locals it declares or assigns, other
// than in guarded code, must be its own.
//
// The tables are a static global buffer that each kernel reaching the
// function copies into shared memory as it starts (one barrier), 8 KiB a
// pair, at most maxPrefilterTables; a run of fewer than
// minPrefilterBlocks alternatives is left alone. On an H100 it took the
// scan of a 4 GiB image for the corpus's 67 headers from 55.3 to 15.6 ms
// (four tables; docs/BENCHMARKS.md). Run-time specialization does not
// prefilter: the program sizes the shared memory of the kernels it
// specializes again by the module as partial-eval received it.

const (
	minPrefilterBlocks = 8
	maxPrefilterTables = 4
	pairWords          = 1 << 16 / 32 // words of one table of byte pairs
)

// byteAt is an expression `B[base + off] & 255` (the load maybe converted
// first), or a load of an unsigned byte: the byte of buffer B at a
// constant offset from base.
type byteAt struct {
	buf  string
	elem ir.Type
	base ir.Expr
	key  string // base, printed
	off  int64
}

// pfLit is a test `byte == val`.
type pfLit struct {
	at  byteAt
	val int64
}

// loadAt splits a load's index into base + off, off a constant >= 0.
func loadAt(l *ir.Load) (byteAt, bool) {
	at := byteAt{buf: l.Buf, elem: l.T, base: l.Index}
	if b, ok := l.Index.(*ir.Binary); ok && b.Op == ir.Add {
		if c, ok := b.Y.(*ir.Const); ok && c.T.IsInt() {
			at.base, at.off = b.X, c.Int()
		}
	}
	if at.off < 0 {
		return byteAt{}, false
	}
	at.key = ir.PrintExpr(at.base)
	return at, true
}

// asByte recognizes `B[i] & 255` and `(T)B[i] & 255`, either way round,
// and a load of an unsigned byte, converted or not.
func asByte(e ir.Expr) (byteAt, bool) {
	if c, ok := e.(*ir.Convert); ok && c.T.IsInt() {
		e = c.X
	}
	if l, ok := e.(*ir.Load); ok && l.T == ir.U8 {
		return loadAt(l)
	}
	b, ok := e.(*ir.Binary)
	if !ok || b.Op != ir.And || !b.Type().IsInt() {
		return byteAt{}, false
	}
	x, y := b.X, b.Y
	if _, ok := x.(*ir.Const); ok {
		x, y = y, x
	}
	if c, ok := y.(*ir.Const); !ok || c.Int() != 255 {
		return byteAt{}, false
	}
	if c, ok := x.(*ir.Convert); ok && c.T.IsInt() && c.X.Type().IsInt() {
		x = c.X
	}
	if l, ok := x.(*ir.Load); ok {
		return loadAt(l)
	}
	return byteAt{}, false
}

// asLit recognizes `byte == v` and `v == byte`, 0 <= v <= 255.
func asLit(e ir.Expr) (pfLit, bool) {
	b, ok := e.(*ir.Binary)
	if !ok || b.Op != ir.Eq {
		return pfLit{}, false
	}
	x, y := b.X, b.Y
	if _, ok := x.(*ir.Const); ok {
		x, y = y, x
	}
	c, ok := y.(*ir.Const)
	if !ok || !c.T.IsInt() || c.Int() < 0 || c.Int() > 255 {
		return pfLit{}, false
	}
	at, ok := asByte(x)
	return pfLit{at: at, val: c.Int()}, ok
}

// pfScan analyses a run of statements (Note [Static prefilters]).
type pfScan struct {
	at     *byteAt        // the buffer and base, from the first load seen
	maxOff int64          // the largest offset of an exposed load
	locals map[string]int // the run's own locals in scope
	alts   [][]pfLit
	seen   map[string]bool
}

func newScan() *pfScan { return &pfScan{locals: map[string]int{}, seen: map[string]bool{}} }

// same reports whether at is a byte of the run's buffer and base, which
// the first one seen sets.
func (s *pfScan) same(at byteAt) bool {
	if s.at == nil {
		s.at = &at
	}
	return at.buf == s.at.buf && at.key == s.at.key
}

// exposed reports whether e, which the run evaluates before knowing
// whether a guard holds, cannot fail: its loads are of the run's buffer
// at base + k, k >= 0, which the filter's bounds keep in range.
func (s *pfScan) exposed(e ir.Expr) bool {
	ok := true
	ir.WalkExpr(e, func(x ir.Expr) bool {
		switch x := x.(type) {
		case *ir.Load:
			at, fine := loadAt(x)
			if ok = fine && s.same(at); ok && at.off > s.maxOff {
				s.maxOff = at.off
			}
		case *ir.Binary:
			ok = x.Op != ir.Div && x.Op != ir.Rem
		case *ir.Call:
			ok = false
		}
		return ok
	})
	return ok
}

// lit returns e as a test of a byte of the run's buffer and base.
func (s *pfScan) lit(e ir.Expr) (pfLit, bool) {
	l, ok := asLit(e)
	return l, ok && s.same(l.at)
}

func (s *pfScan) list(l []ir.Stmt, ctx []pfLit) bool {
	var declared []string
	defer func() { s.forget(declared) }()
	for _, st := range l {
		if !s.next(st, ctx, &declared) {
			return false
		}
	}
	return true
}

// next analyses st, the next statement of a list, under the tests ctx,
// adding the local it declares, if any, to declared.
func (s *pfScan) next(st ir.Stmt, ctx []pfLit, declared *[]string) bool {
	if d, ok := st.(*ir.Decl); ok {
		if d.Init != nil && !s.exposed(d.Init) {
			return false
		}
		s.locals[d.Name]++
		*declared = append(*declared, d.Name)
		return true
	}
	return s.stmt(st, ctx)
}

// forget ends the scope of the locals declared.
func (s *pfScan) forget(declared []string) {
	for _, n := range declared {
		s.locals[n]--
	}
}

// with is ctx and l, in a new slice.
func with(ctx []pfLit, l pfLit) []pfLit {
	return append(append([]pfLit{}, ctx...), l)
}

// stmt analyses st under the tests ctx: its guards add to ctx, and each
// effect under them is an alternative. It reports false if st evaluates
// something that could fail before a guard decides, or has an effect
// that fewer than two tests guard.
func (s *pfScan) stmt(st ir.Stmt, ctx []pfLit) bool {
	switch st := st.(type) {
	case *ir.If:
		if !s.exposed(st.Cond) {
			return false
		}
		inner := ctx
		for _, c := range conjuncts(st.Cond) {
			if l, ok := s.lit(c); ok {
				inner = with(inner, l)
			}
		}
		return s.list(st.Then, inner) && s.list(st.Else, ctx)
	case *ir.Switch:
		if !s.exposed(st.X) {
			return false
		}
		at, isByte := asByte(st.X)
		isByte = isByte && s.same(at)
		for _, c := range st.Cases {
			if !isByte {
				if !s.list(c.Body, ctx) {
					return false
				}
				continue
			}
			for _, v := range c.Values {
				if v >= 0 && v <= 255 && !s.list(c.Body, with(ctx, pfLit{at: at, val: v})) {
					return false
				}
			}
		}
		return s.list(st.Default, ctx)
	case *ir.Assign:
		if s.locals[st.Name] > 0 {
			return s.exposed(st.Value)
		}
	}
	return s.effect(ctx)
}

// effect records ctx as an alternative, if it has tests at two offsets.
func (s *pfScan) effect(ctx []pfLit) bool {
	offs := map[int64]bool{}
	var key []string
	for _, l := range ctx {
		offs[l.at.off] = true
		key = append(key, fmt.Sprintf("%d=%d", l.at.off, l.val))
	}
	if len(offs) < 2 {
		return false
	}
	sort.Strings(key)
	if k := strings.Join(key, ","); !s.seen[k] {
		s.seen[k] = true
		s.alts = append(s.alts, ctx)
	}
	return true
}

// pfPair is a table: the byte pairs at offsets a < b that its
// alternatives need.
type pfPair struct {
	a, b int64
	keys []int // v_a << 8 | v_b
}

// cover picks offset pairs for alts, greedily, at most max of them; nil
// if that is not enough.
func cover(alts [][]pfLit, max int) []*pfPair {
	type ab struct{ a, b int64 }
	pairsOf := func(alt []pfLit) map[ab]int {
		out := map[ab]int{}
		for i, x := range alt {
			for _, y := range alt[i+1:] {
				if x.at.off == y.at.off {
					continue
				}
				if x.at.off > y.at.off {
					x, y = y, x
				}
				out[ab{x.at.off, y.at.off}] = int(x.val<<8 | y.val)
			}
		}
		return out
	}
	left := make([]map[ab]int, len(alts))
	for i, alt := range alts {
		left[i] = pairsOf(alt)
	}
	var out []*pfPair
	for remaining := len(alts); remaining > 0; {
		if len(out) == max {
			return nil
		}
		count := map[ab]int{}
		for _, ps := range left {
			for p := range ps {
				count[p]++
			}
		}
		var best ab
		n := 0
		for p, c := range count {
			if c > n || c == n && (p.b-p.a < best.b-best.a || p.b-p.a == best.b-best.a && p.a < best.a) {
				best, n = p, c
			}
		}
		t := &pfPair{a: best.a, b: best.b}
		for i, ps := range left {
			if k, ok := ps[best]; ok {
				t.keys = append(t.keys, k)
				left[i] = nil
				remaining--
			}
		}
		out = append(out, t)
	}
	return out
}

// prefilter is one filtered run: its tables, in the global buffer table
// and, as each block starts, in the shared buffer shared.
type prefilter struct {
	fn            *ir.Func
	at            byteAt // the buffer and base of its tests
	table, shared string
	pairs         []*pfPair
}

// prefilterFunc filters the runs that Note [Static prefilters] allows in
// f's statement lists, outermost first, naming their tables with names.
func prefilterFunc(m *ir.Module, f *ir.Func, names *namer, rep *Report) []*prefilter {
	lists := []*[]ir.Stmt{&f.Body}
	ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
		lists = append(lists, nestedLists(s)...)
		return true
	})
	var out []*prefilter
	inside := map[*[]ir.Stmt]bool{}
	for _, body := range lists {
		if inside[body] {
			continue
		}
		pf := filterRun(m, body, names)
		if pf == nil {
			continue
		}
		pf.fn = f
		out = append(out, pf)
		ir.WalkStmts(*body, func(s ir.Stmt) bool {
			for _, l := range nestedLists(s) {
				inside[l] = true
			}
			return true
		})
		var at []string
		for _, p := range pf.pairs {
			at = append(at, fmt.Sprintf("(%d, %d)", p.a, p.b))
		}
		rep.note(f.Pos, "%s %s: a prefilter on the bytes of %s[%s + k] at offsets %s skips the positions where no guarded block can run (%s, %d KiB of shared memory)",
			f.Kind, f.Name, pf.at.buf, pf.at.key, strings.Join(at, ", "), plural(len(pf.pairs), "table")+" of byte pairs", len(pf.pairs)*pairWords*4/1024)
	}
	return out
}

// nestedLists are the statement lists directly in s.
func nestedLists(s ir.Stmt) []*[]ir.Stmt {
	switch s := s.(type) {
	case *ir.If:
		return []*[]ir.Stmt{&s.Then, &s.Else}
	case *ir.For:
		return []*[]ir.Stmt{&s.Body}
	case *ir.While:
		return []*[]ir.Stmt{&s.Body}
	case *ir.Switch:
		out := []*[]ir.Stmt{&s.Default}
		for _, c := range s.Cases {
			out = append(out, &c.Body)
		}
		return out
	}
	return nil
}

// filterRun wraps the first run of body that can be filtered, with
// enough alternatives and few enough tables, and returns its filter.
func filterRun(m *ir.Module, body *[]ir.Stmt, names *namer) *prefilter {
	l := *body
	for i := 0; i < len(l); i++ {
		s := newScan()
		var declared []string
		j := i
		for j < len(l) && s.next(l[j], nil, &declared) {
			j++
		}
		if s.at == nil || len(s.alts) < minPrefilterBlocks || !baseStable(*s.at, l[i:j]) || usedAfter(declared, l[j:]) {
			continue
		}
		pairs := cover(s.alts, maxPrefilterTables)
		if pairs == nil {
			continue
		}
		pf := &prefilter{at: *s.at, table: names.fresh("pf_" + s.at.buf), shared: names.fresh("pfs_" + s.at.buf), pairs: pairs}
		pos := l[i].At()
		run := append([]ir.Stmt{}, l[i:j]...)
		guarded := &ir.If{Pos: pos, Cond: filterCond(m, pf, s.maxOff, pos), Then: run}
		*body = append(append(append([]ir.Stmt{}, l[:i]...), guarded), l[j:]...)
		return pf
	}
	return nil
}

// baseStable reports whether run leaves the bytes at base alone: it
// assigns no local that base reads and does not write the buffer, so the
// filter, evaluated before it, sees what its tests see.
func baseStable(at byteAt, run []ir.Stmt) bool {
	return stable(&ir.Load{Pos: at.base.At(), Buf: at.buf, Index: at.base, T: at.elem}, run)
}

// usedAfter reports whether rest mentions one of names.
func usedAfter(names []string, rest []ir.Stmt) bool {
	for _, n := range names {
		if mentionsIn(n, rest) {
			return true
		}
	}
	return false
}

// pfByte is `i32(B[base + off]) & 255`, without the mask for unsigned
// bytes.
func pfByte(b *ir.Builder, at byteAt, off int64) ir.Expr {
	idx := ir.CloneExpr(at.base)
	if off != 0 {
		idx = b.Add(idx, b.Int(at.base.Type(), off))
	}
	x := b.Ld(at.buf, idx)
	if at.elem != ir.I32 {
		x = b.Conv(ir.I32, x)
	}
	if at.elem == ir.U8 {
		return x
	}
	return b.Bin(ir.And, x, b.I32(255))
}

// filterCond is `!(0 <= base && base + K < len(B)) || T0 admits ... ||
// ...` (Note [Static prefilters]).
func filterCond(m *ir.Module, pf *prefilter, maxOff int64, pos ir.Pos) ir.Expr {
	b := ir.NewBuilder(m, pos, nil)
	wide := func(e ir.Expr) ir.Expr { // not b.Conv, which would fold a constant length
		if e.Type() == ir.I64 {
			return e
		}
		return &ir.Convert{Pos: pos, T: ir.I64, X: e}
	}
	base := wide(ir.CloneExpr(pf.at.base))
	inRange := b.And(b.Bin(ir.Le, b.I64(0), base),
		b.Lt(b.Add(ir.CloneExpr(base), b.I64(maxOff)), wide(ir.CloneExpr(m.Buffer(pf.at.buf).Len))))
	cond := b.Not(inRange)
	for g, p := range pf.pairs {
		key := b.Bin(ir.Or, b.Bin(ir.Shl, pfByte(b, pf.at, p.a), b.I32(8)), pfByte(b, pf.at, p.b))
		index := b.Bin(ir.Shr, key, b.I32(5))
		if g > 0 {
			index = b.Add(b.I32(int64(g*pairWords)), index)
		}
		// The shared copy is declared with the filters, after this.
		word := &ir.Load{Pos: pos, Buf: pf.shared, Index: index, T: ir.U32}
		bit := b.Bin(ir.And, b.Bin(ir.Shr, word, b.Conv(ir.U32, b.Bin(ir.And, ir.CloneExpr(key), b.I32(31)))), b.Int(ir.U32, 1))
		cond = b.Or(cond, b.Ne(bit, b.Int(ir.U32, 0)))
	}
	return cond
}

// installPrefilters declares the filters' tables, and has every kernel
// that reaches a filtered function copy its tables into shared memory as
// it starts.
func installPrefilters(m *ir.Module, pfs []*prefilter) {
	for _, pf := range pfs {
		n := len(pf.pairs) * pairWords
		words := make([]uint32, n)
		for g, p := range pf.pairs {
			for _, k := range p.keys {
				words[g*pairWords+k/32] |= 1 << (k % 32)
			}
		}
		init := make([]ir.Bits, n)
		for i, w := range words {
			init[i] = ir.IntBits(ir.U32, int64(w))
		}
		b := ir.NewBuilder(m, pf.fn.Pos, nil)
		m.Buffers = append(m.Buffers,
			&ir.Buffer{Pos: b.Pos, Name: pf.table, Elem: ir.U32, Len: b.I32(int64(n)), Space: ir.Global, Role: ir.Static, Init: init},
			&ir.Buffer{Pos: b.Pos, Name: pf.shared, Elem: ir.U32, Len: b.I32(int64(n)), Space: ir.Shared, Role: ir.Scratch})
		names := newNamer(m)
		for _, k := range m.Funcs {
			if k.Kind == ir.KernelFunc && reaches(m, k, pf.fn) {
				k.Body = append(copyTable(m, pf, n, names.fresh("pf_j"), k.Pos), k.Body...)
			}
		}
	}
}

// copyTable is `for j = tid(); j < n; j = j + bdim() { shared[j] = table[j] } barrier;`.
func copyTable(m *ir.Module, pf *prefilter, n int, j string, pos ir.Pos) []ir.Stmt {
	var out []ir.Stmt
	b := ir.NewBuilder(m, pos, &out)
	b.Loop(j, b.Builtin(ir.ThreadID), b.I32(int64(n)), b.Builtin(ir.BlockDim), func() {
		b.Store(pf.shared, b.V(j), b.Ld(pf.table, b.V(j)))
	})
	b.Barrier(false)
	return out
}

// reaches reports whether kernel k is f or calls it, directly or through
// other functions.
func reaches(m *ir.Module, k, f *ir.Func) bool {
	seen := map[*ir.Func]bool{}
	var visit func(g *ir.Func) bool
	visit = func(g *ir.Func) bool {
		if g == f {
			return true
		}
		if seen[g] {
			return false
		}
		seen[g] = true
		return ir.AnyExprIn(g.Body, func(e ir.Expr) bool {
			if c, ok := e.(*ir.Call); ok {
				h := m.Func(c.Func)
				return h != nil && visit(h)
			}
			return false
		})
	}
	return visit(k)
}
