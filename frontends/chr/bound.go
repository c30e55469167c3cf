package chr

import (
	"fmt"
	"math"

	"gpuc/ir"
)

// Note [Guard bounds]
//
// A guard conjunct that a partner head h completes, its one variable V
// not yet bound being an integer argument of h, is tested on every
// candidate of h. When the conjunct is monotone in V (V occurs once in
// it, under + and - only, and it is an order comparison without
// integer division), it holds for some candidate only if it holds with
// V at its least (or greatest) value over the store's live
// constraints. Phase B computes that value each step, as an extremum's
// least key, and the thread tests the conjunct with it before searching
// h: where it fails, no candidate of h can pass, and the search of h
// is skipped. Floyd–Warshall's D3 > D1 + D2 becomes D3 > D1 + min D2
// for each edge(I,K,D1), tested on values already in registers (D3 the
// chained owner's current one), and the probe of edge(K,J,D2) follows
// only where it passes: at 1024 nodes for 6%, 13% and 18% of the pairs
// of its three steps (docs/BENCHMARKS.md).
//
// The bound never changes what a search finds: a skipped search would
// have found no candidate passing the conjunct. That holds where the
// guard's arithmetic does not wrap around; gpuc's integers have 64
// bits and SWI-Prolog's none, so a program whose guards overflow
// differs from SWI-Prolog already.
//
// An extremum used only as a bound needs no slots and no next key, so
// no pass after the build: phase B takes the atomic minimum of its
// keys into boundCells cells a cache line apart (by slot), not one
// word that a million insertions would queue on, and each thread folds
// the cells once per claim round, before its loop over owners.

// boundCells is the number of cells of a bound-only extremum, and
// boundStride their distance in i64 elements (128 bytes).
const (
	boundCells  = 32
	boundStride = 16
)

// guardBound is a guard conjunct tested with its variable v at the
// extremum x of v's argument (Note [Guard bounds]).
type guardBound struct {
	cmp *comparison
	v   *ruleVar
	x   *extremum
}

// guardBounds finds the conjuncts of gs, which head h completes, that
// can be tested before h is searched; before holds the variables bound
// ahead of h.
func (l *lowerer) guardBounds(r *rule, h *head, before map[*ruleVar]bool, gs []*comparison) []*guardBound {
	var out []*guardBound
	for _, g := range gs {
		if g.op != "<" && g.op != ">" && g.op != "=<" && g.op != ">=" {
			continue
		}
		if !faultFree([]*comparison{g}) || typeOf(g.x) != ir.I64 || typeOf(g.y) != ir.I64 {
			continue
		}
		free := map[*ruleVar]bool{}
		collectFree(g.x, before, free)
		collectFree(g.y, before, free)
		if len(free) != 1 {
			continue
		}
		var v *ruleVar
		for fv := range free {
			v = fv
		}
		pos := -1
		for i, a := range h.args {
			if av, ok := a.(*variable); ok && av.name == v.name && h.ct.args[i] == ir.I64 {
				pos = i
				break
			}
		}
		cx, okx := coefficient(g.x, v)
		cy, oky := coefficient(g.y, v)
		slope := cx - cy
		if pos < 0 || !okx || !oky || slope == 0 {
			continue
		}
		// X - Y grows with V when slope > 0; > and >= want it large.
		isMax := (g.op == ">" || g.op == ">=") == (slope > 0)
		out = append(out, &guardBound{cmp: g, v: v, x: l.boundOn(l.stores[h.ct], pos, isMax)})
	}
	return out
}

// collectFree adds the variables of a that are not in bound to free.
func collectFree(a arith, bound, free map[*ruleVar]bool) {
	switch a := a.(type) {
	case *aVar:
		if !bound[a.v] {
			free[a.v] = true
		}
	case *aOp:
		for _, x := range a.args {
			collectFree(x, bound, free)
		}
	}
}

// coefficient returns the sign (1, -1, or 0 where v does not occur)
// with which v enters a; ok is false unless v occurs at most once and
// only under + and - (binary or negation).
func coefficient(a arith, v *ruleVar) (c int, ok bool) {
	switch a := a.(type) {
	case *aVar:
		if a.v == v {
			return 1, true
		}
		return 0, true
	case *aNum:
		return 0, true
	case *aOp:
		if !usesVar(a, v) {
			return 0, true
		}
		if a.op != "+" && a.op != "-" && a.op != "neg" {
			return 0, false
		}
		for i, x := range a.args {
			cx, ok := coefficient(x, v)
			if !ok || cx != 0 && c != 0 {
				return 0, false
			}
			if a.op == "neg" || a.op == "-" && i == 1 {
				cx = -cx
			}
			if cx != 0 {
				c = cx
			}
		}
		return c, true
	}
	return 0, false
}

// boundOn returns an extremum of s at position pos for a bound, making
// a bound-only one where none exists.
func (l *lowerer) boundOn(s *store, pos int, isMax bool) *extremum {
	for _, x := range s.exts {
		if x.pos == pos && x.max == isMax {
			return x
		}
	}
	b := l.builder()
	x := &extremum{s: s, pos: pos, max: isMax, buf: l.name(fmt.Sprintf("%s_x%d", s.base, len(s.exts)))}
	x.b = l.buffer(x.buf, ir.I64, b.I32(boundCells*boundStride), ir.Scratch)
	s.exts = append(s.exts, x)
	return x
}

// keyCell is the cell of a bound-only extremum that slot i's key goes
// to in phase B.
func (x *extremum) keyCell(b *ir.Builder, i ir.Expr) ir.Expr {
	return b.Bin(ir.Mul, b.Bin(ir.And, i, b.I32(boundCells-1)), b.I32(boundStride))
}

// initCells returns the statements that reset the extremum's cells in
// phase A.
func (l *lowerer) initCells(b *ir.Builder, x *extremum) []ir.Stmt {
	if x.search {
		var out []ir.Stmt
		for cellNo, v := range []int64{math.MaxInt64, math.MaxInt64, -1, math.MaxInt64} {
			out = append(out, &ir.Store{Pos: b.Pos, Buf: x.buf, Index: b.I32(int64(cellNo)), Value: b.I64(v)})
		}
		return out
	}
	c := l.locals.fresh("bc")
	return []ir.Stmt{l.forCells(b, c, 0, &ir.Store{Pos: b.Pos, Buf: x.buf,
		Index: b.Bin(ir.Mul, b.Local(c, ir.I32), b.I32(boundStride)), Value: b.I64(math.MaxInt64)})}
}

// forCells is a loop of local c over the cells from..boundCells-1 of a
// bound-only extremum.
func (l *lowerer) forCells(b *ir.Builder, c string, from int64, body ...ir.Stmt) ir.Stmt {
	cv := b.Local(c, ir.I32)
	return &ir.For{Pos: b.Pos,
		Init: &ir.Decl{Pos: b.Pos, Name: c, T: ir.I32, Init: b.I32(from)},
		Cond: b.Bin(ir.Lt, cv, b.I32(boundCells)),
		Post: &ir.Assign{Pos: b.Pos, Name: c, Value: b.Bin(ir.Add, cv, b.I32(1))},
		Body: body}
}

// loadBounds declares, in b, the value of each extremum that the plan's
// bounds read (Note [Guard bounds]).
func (l *lowerer) loadBounds(b *block, p *rulePlan) map[*extremum]string {
	out := map[*extremum]string{}
	for _, st := range p.steps {
		for _, gb := range st.bounds {
			x := gb.x
			if _, done := out[x]; done {
				continue
			}
			key := b.decl(l.locals.fresh("bkey"), ir.I64, b.Ld(x.buf, b.I32(0)))
			if !x.search {
				c := l.locals.fresh("bc")
				cell := b.Bin(ir.Mul, b.Local(c, ir.I32), b.I32(boundStride))
				b.Emit(l.forCells(b.Builder, c, 1, &ir.Assign{Pos: b.Pos, Name: key.Name,
					Value: b.Builtin(ir.Min, key, b.Ld(x.buf, cell))}))
			}
			out[x] = b.decl(l.locals.fresh("bound"), ir.I64, x.keyOf(b.Builder, key)).Name
		}
	}
	return out
}

// boundTest is the conjunction of step k's bounds, nil if it has none.
func (m *matcher) boundTest(b *ir.Builder, k int) ir.Expr {
	if k >= len(m.p.steps) {
		return nil
	}
	var c ir.Expr
	for _, gb := range m.p.steps[k].bounds {
		vn := varNames{}
		for rv, n := range m.vn {
			vn[rv] = n
		}
		vn[gb.v] = m.bounds[gb.x]
		c = b.And(c, vn.test(b, gb.cmp))
	}
	return c
}
