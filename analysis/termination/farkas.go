package termination

import (
	"math/big"

	"gpuc/analysis/its"
)

// Note [Farkas ranking]
// Each transition is relaxed to a conjunction of linear inequalities over the integers, in the
// pre-state x, the post-state x' and auxiliary quotients: linear guards and invariants, linear
// updates as equalities, shifts right and divisions by a constant c as c*x' <= e <= c*x' + c-1,
// and nothing for the rest (a havoc). The sorts' ranges are left out: a ranking function needs no
// bound below here (Note [Lexicographic ranking, checked bit-precisely]), and their large
// constants only slow the exact arithmetic down. A disjunction (!=, ||) splits the
// transition into copies, at most maxCopies. By Farkas' lemma, A z <= b implies
// f_l'(x') - f_l(x) <= -delta iff some lambda >= 0 has lambda A = (-c_l, c_l', 0) and
// lambda b <= d_l - d_l' - delta. One LP over all the component's transitions asks for the
// coefficients c_l, d_l (free), the multipliers, and 0 <= delta_t <= 1, maximizing the sum of
// the deltas: the transitions with delta_t > 0 are the strict ones. The answer is only a
// candidate; Note [Lexicographic ranking, checked bit-precisely] says what makes it count.

// Limits on the LPs tried: past them, the exact simplex costs more than it is likely to find.
const (
	maxCopies  = 8
	maxLPVars  = 16
	maxLPTrans = 12
	maxPivots  = 400
)

// lincons is sum Coef[col] * z_col <= RHS over the columns of one transition copy.
type lincons struct {
	coef map[int]*big.Int
	rhs  *big.Int
}

// relaxation of one transition: columns 0..n-1 are x, n..2n-1 are x', 2n.. are auxiliaries.
type relaxation struct {
	copies [][]lincons
	naux   int
}

func (a *analyzer) relax(inv Invariants, ti int, vars []its.Var) *relaxation {
	sys := a.sys
	t := sys.Trans[ti]
	n := len(vars)
	idx := map[string]int{}
	for i, v := range vars {
		idx[v.Name] = i
	}
	rel := &relaxation{}
	var base []lincons
	leq := func(f *Linear, off int) (lincons, bool) { // f <= 0 over columns offset by off
		c := lincons{coef: map[int]*big.Int{}, rhs: new(big.Int).Neg(f.Const)}
		for name, k := range f.Coef {
			if k.Sign() == 0 {
				continue
			}
			i, ok := idx[name]
			if !ok {
				return c, false
			}
			c.coef[i+off] = new(big.Int).Set(k)
		}
		return c, true
	}
	// Atoms: guards over x; invariants at the source over x.
	var disj [][][]lincons // each disjunctive atom: alternatives, each a conjunction
	addAtom := func(e its.Expr) {
		alts := atomCons(e)
		var conv [][]lincons
		for _, alt := range alts {
			var cs []lincons
			ok := true
			for _, f := range alt {
				c, good := leq(f, 0)
				if !good {
					ok = false
					break
				}
				cs = append(cs, c)
			}
			if !ok {
				return // mentions a variable outside the relaxation: drop the atom
			}
			conv = append(conv, cs)
		}
		switch len(conv) {
		case 0:
		case 1:
			base = append(base, conv[0]...)
		default:
			disj = append(disj, conv)
		}
	}
	for _, g := range t.Guard {
		for _, c := range conjuncts(g) {
			addAtom(c)
		}
	}
	for _, e := range inv[t.From] {
		for _, c := range conjuncts(e) {
			addAtom(c)
		}
	}
	// Updates.
	havoc := map[string]bool{}
	for _, h := range t.Havoc {
		havoc[h] = true
	}
	for i, v := range vars {
		e, upd := t.Update[v.Name]
		switch {
		case havoc[v.Name]:
			continue
		case !upd:
			// x' - x = 0
			c1 := lincons{coef: map[int]*big.Int{n + i: big.NewInt(1), i: big.NewInt(-1)}, rhs: new(big.Int)}
			c2 := lincons{coef: map[int]*big.Int{n + i: big.NewInt(-1), i: big.NewInt(1)}, rhs: new(big.Int)}
			base = append(base, c1, c2)
			continue
		}
		if f := lin(e); f != nil {
			// f <= 0 reads sum k x <= -const, so c.rhs = -const: x' - sum k x <= const and
			// sum k x - x' <= -const.
			if c, ok := leq(f, 0); ok {
				up := lincons{coef: map[int]*big.Int{n + i: big.NewInt(1)}, rhs: new(big.Int).Neg(c.rhs)}
				dn := lincons{coef: map[int]*big.Int{n + i: big.NewInt(-1)}, rhs: new(big.Int).Set(c.rhs)}
				for col, k := range c.coef {
					up.coef[col] = new(big.Int).Neg(k)
					dn.coef[col] = new(big.Int).Set(k)
				}
				base = append(base, up, dn)
			}
			continue
		}
		if b, ok := e.(*its.Binary); ok {
			var div *big.Int
			if c, ok := b.Y.(*its.Const); ok && c.Val.Sign() > 0 {
				switch b.Op {
				case its.UDiv, its.SDiv:
					div = new(big.Int).Set(c.Val)
				case its.LShr, its.AShr:
					if c.Val.Cmp(big.NewInt(63)) <= 0 {
						div = new(big.Int).Lsh(big.NewInt(1), uint(c.Val.Int64()))
					}
				}
			}
			if f := lin(b.X); div != nil && f != nil {
				if c, ok := leq(f, 0); ok {
					// Rounding down (f >= 0, or a shift): div*x' - f <= 0 and f - div*x' <= div-1.
					// bvsdiv rounds toward zero, so for f < 0 it is f - div*x' <= 0 and
					// div*x' - f <= div-1: the two sign cases are alternatives.
					bound := func(k0, k1 *big.Int) (lincons, lincons) {
						lo := lincons{coef: map[int]*big.Int{n + i: new(big.Int).Set(div)}, rhs: new(big.Int).Sub(k0, c.rhs)}
						hi := lincons{coef: map[int]*big.Int{n + i: new(big.Int).Neg(div)}, rhs: new(big.Int).Add(c.rhs, k1)}
						for col, k := range c.coef {
							lo.coef[col] = new(big.Int).Neg(k)
							hi.coef[col] = new(big.Int).Set(k)
						}
						return lo, hi
					}
					dm1 := new(big.Int).Sub(div, big.NewInt(1))
					lo, hi := bound(new(big.Int), dm1)
					if b.Op != its.SDiv {
						base = append(base, lo, hi)
					} else {
						// With f = F - c.rhs (F its variable part): f >= 0 reads -F <= -c.rhs,
						// f <= -1 reads F <= c.rhs - 1.
						nonneg := lincons{coef: map[int]*big.Int{}, rhs: new(big.Int).Neg(c.rhs)}
						neg := lincons{coef: map[int]*big.Int{}, rhs: new(big.Int).Sub(c.rhs, big.NewInt(1))}
						for col, k := range c.coef {
							nonneg.coef[col] = new(big.Int).Neg(k)
							neg.coef[col] = new(big.Int).Set(k)
						}
						nlo, nhi := bound(dm1, new(big.Int))
						disj = append(disj, [][]lincons{{nonneg, lo, hi}, {neg, nlo, nhi}})
					}
				}
			}
		}
	}
	// Split disjunctions.
	copies := [][]lincons{base}
	for _, d := range disj {
		if len(copies)*len(d) > maxCopies {
			continue
		}
		var next [][]lincons
		for _, c := range copies {
			for _, alt := range d {
				next = append(next, append(append([]lincons(nil), c...), alt...))
			}
		}
		copies = next
	}
	rel.copies = copies
	return rel
}

// conjuncts flattens LAnd.
func conjuncts(e its.Expr) []its.Expr {
	if b, ok := e.(*its.Binary); ok && b.Op == its.LAnd {
		return append(conjuncts(b.X), conjuncts(b.Y)...)
	}
	return []its.Expr{e}
}

// atomCons reads a comparison as alternatives, each a conjunction of f <= 0; nil when the
// atom is not linear or its signedness differs from its operands' sort.
func atomCons(e its.Expr) [][]*Linear {
	neg := false
	if u, ok := e.(*its.Unary); ok && u.Op == its.Not {
		neg = true
		e = u.X
	}
	if b, ok := e.(*its.Binary); ok && b.Op == its.LOr && !neg {
		var out [][]*Linear
		for _, x := range []its.Expr{b.X, b.Y} {
			alts := atomCons(x)
			if alts == nil {
				return nil
			}
			out = append(out, alts...)
		}
		return out
	}
	b, ok := e.(*its.Binary)
	if !ok || !b.Op.IsCompare() || its.HasNondet(b) {
		return nil
	}
	x, y := lin(b.X), lin(b.Y)
	if x == nil || y == nil {
		return nil
	}
	op := b.Op
	signed := its.SortOf(b.X).Signed
	if (op >= its.Ult && op <= its.Uge && signed) || (op >= its.Slt && op <= its.Sge && !signed) {
		return nil
	}
	if neg {
		op = map[its.Op]its.Op{its.Eq: its.Ne, its.Ne: its.Eq, its.Ult: its.Uge, its.Ule: its.Ugt, its.Ugt: its.Ule,
			its.Uge: its.Ult, its.Slt: its.Sge, its.Sle: its.Sgt, its.Sgt: its.Sle, its.Sge: its.Slt}[op]
	}
	one := big.NewInt(1)
	xmy := x.add(y, big.NewInt(-1)) // x - y
	ymx := y.add(x, big.NewInt(-1))
	plus1 := func(f *Linear) *Linear { g := f.scale(one); g.Const.Add(g.Const, one); return g }
	switch op {
	case its.Ult, its.Slt:
		return [][]*Linear{{plus1(xmy)}}
	case its.Ule, its.Sle:
		return [][]*Linear{{xmy}}
	case its.Ugt, its.Sgt:
		return [][]*Linear{{plus1(ymx)}}
	case its.Uge, its.Sge:
		return [][]*Linear{{ymx}}
	case its.Eq:
		return [][]*Linear{{xmy, ymx}}
	case its.Ne:
		return [][]*Linear{{plus1(xmy)}, {plus1(ymx)}}
	}
	return nil
}

// farkas searches a ranking function for the component by linear programming; nil if none.
func (a *analyzer) farkas(inv Invariants, comp []int) map[int]*Linear {
	sys := a.sys
	// The variables the component reads or writes.
	used := map[string]bool{}
	for _, ti := range comp {
		t := sys.Trans[ti]
		readVars(t, used)
		for k := range t.Update {
			used[k] = true
		}
	}
	var vars []its.Var
	for _, v := range sys.Vars {
		if used[v.Name] && !v.Sort.IsBool() {
			vars = append(vars, v)
		}
	}
	if len(vars) == 0 || len(vars) > maxLPVars || len(comp) > maxLPTrans {
		return nil
	}
	n := len(vars)
	locs := locsOf(sys, comp)
	p := &lp{Obj: map[int]*big.Rat{}}
	cvar := map[int][]int{}
	dvar := map[int]int{}
	for _, l := range locs {
		for range vars {
			cvar[l] = append(cvar[l], p.newVar(true))
		}
		dvar[l] = p.newVar(true)
	}
	one := big.NewRat(1, 1)
	for _, ti := range comp {
		t := sys.Trans[ti]
		rel := a.relax(inv, ti, vars)
		delta := p.newVar(false)
		p.Obj[delta] = one
		p.Rows = append(p.Rows, lpRow{Coef: map[int]*big.Rat{delta: one}, Op: '<', RHS: one})
		for _, cons := range rel.copies {
			lam := make([]int, len(cons))
			for i := range cons {
				lam[i] = p.newVar(false)
			}
			ncols := 2 * n
			for _, c := range cons {
				for col := range c.coef {
					if col+1 > ncols {
						ncols = col + 1
					}
				}
			}
			rows := make([]map[int]*big.Rat, ncols)
			for col := range rows {
				rows[col] = map[int]*big.Rat{}
			}
			for i, c := range cons {
				for col, k := range c.coef {
					rows[col][lam[i]] = new(big.Rat).SetInt(k)
				}
			}
			for j := 0; j < n; j++ {
				// lambda A_x + c_from = 0; lambda A_x' - c_to = 0.
				rx := rows[j]
				rx[cvar[t.From][j]] = addRat(rx[cvar[t.From][j]], one)
				p.Rows = append(p.Rows, lpRow{Coef: rx, Op: '=', RHS: new(big.Rat)})
				ry := rows[n+j]
				ry[cvar[t.To][j]] = addRat(ry[cvar[t.To][j]], new(big.Rat).Neg(one))
				p.Rows = append(p.Rows, lpRow{Coef: ry, Op: '=', RHS: new(big.Rat)})
			}
			for col := 2 * n; col < ncols; col++ {
				p.Rows = append(p.Rows, lpRow{Coef: rows[col], Op: '=', RHS: new(big.Rat)})
			}
			// lambda b - d_from + d_to + delta <= 0
			rb := map[int]*big.Rat{}
			for i, c := range cons {
				if c.rhs.Sign() != 0 {
					rb[lam[i]] = new(big.Rat).SetInt(c.rhs)
				}
			}
			rb[dvar[t.From]] = addRat(rb[dvar[t.From]], new(big.Rat).Neg(one))
			rb[dvar[t.To]] = addRat(rb[dvar[t.To]], one)
			rb[delta] = addRat(rb[delta], one)
			p.Rows = append(p.Rows, lpRow{Coef: rb, Op: '<', RHS: new(big.Rat)})
		}
	}
	st, x := p.solve(maxPivots, a.work.deadline)
	if st != lpOptimal {
		return nil
	}
	// Scale every location's function by one common denominator.
	lcm := big.NewInt(1)
	for _, l := range locs {
		for _, j := range append(append([]int(nil), cvar[l]...), dvar[l]) {
			d := x[j].Denom()
			g := new(big.Int).GCD(nil, nil, lcm, d)
			lcm.Mul(lcm, new(big.Int).Quo(d, g))
		}
	}
	fn := map[int]*Linear{}
	nonzero := false
	for _, l := range locs {
		f := &Linear{Coef: map[string]*big.Int{}, Const: ratToInt(x[dvar[l]], lcm)}
		for j, v := range vars {
			c := ratToInt(x[cvar[l][j]], lcm)
			if c.Sign() != 0 {
				f.Coef[v.Name] = c
				nonzero = true
			}
		}
		fn[l] = f
	}
	if !nonzero {
		return nil
	}
	return fn
}

func addRat(a, b *big.Rat) *big.Rat {
	if a == nil {
		return new(big.Rat).Set(b)
	}
	return new(big.Rat).Add(a, b)
}

func ratToInt(r *big.Rat, scale *big.Int) *big.Int {
	v := new(big.Rat).Mul(r, new(big.Rat).SetInt(scale))
	return new(big.Int).Quo(v.Num(), v.Denom())
}
