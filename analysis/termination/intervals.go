package termination

import (
	"math/big"

	"gpuc/analysis/its"
)

// Note [Interval candidates]
// An interval analysis over the bitvector values (abstract interpretation: guards narrow, updates
// are evaluated in interval arithmetic, and any operation that may wrap gives the whole range of
// its sort) finds a bound for each counter at each location, with widening to the sort's range
// at loop heads and then descending rounds that narrow it again. In a loop nest whose bounds are
// split by min/max (Note [Conditional splitting] in analysis/fromllvm) the available compares
// (Note [Invariants for free]) lose a counter's bound where two paths bring two different ones
// (c2 <= conv12 on one, c2 <= (c1 | 30) on the other); the intervals keep the hull of both, which
// is what rules out the wrap of c2 + 32. The bounds are only candidates: Houdini checks them in
// bitvector semantics like any other (Note [Invariants by Houdini]), so a flaw here costs a proof,
// never soundness. Since they are a post-fixpoint of the transitions, one query per transition
// usually keeps them all.

// ival is a closed interval of values as a sort reads them.
type ival struct{ lo, hi *big.Int }

func full(s its.Sort) ival { return ival{s.Min(), s.Max()} }

func point(v *big.Int) ival { return ival{v, v} }

func (a ival) within(s its.Sort) bool { return a.lo.Cmp(s.Min()) >= 0 && a.hi.Cmp(s.Max()) <= 0 }

// fit gives a (exact integer values) in sort s, or the whole range of s where a may not fit.
func fit(a ival, s its.Sort) ival {
	if a.within(s) {
		return a
	}
	return full(s)
}

// fitWrap is fit for a sum: where every value of a wraps by the same multiple of 2^w, the
// wrapped interval is exact (SimpleConvolution's `maskWidth - 1` reads as maskWidth + 2^32 - 1).
func fitWrap(a ival, s its.Sort) ival {
	if a.within(s) {
		return a
	}
	mod := new(big.Int).Lsh(big.NewInt(1), uint(s.Width))
	lo, hi := new(big.Int).Sub(a.lo, s.Min()), new(big.Int).Sub(a.hi, s.Min())
	k := new(big.Int).Div(lo, mod) // floor
	if k.Cmp(new(big.Int).Div(hi, mod)) != 0 {
		return full(s)
	}
	k.Mul(k, mod)
	return ival{new(big.Int).Sub(a.lo, k), new(big.Int).Sub(a.hi, k)}
}

// reread gives the values of a (read as sort s reads them) as the other signedness reads them.
func reread(a ival, s its.Sort, signed bool) ival {
	t := its.Sort{Width: s.Width, Signed: signed}
	if signed == s.Signed || a.within(t) {
		return a
	}
	mod := new(big.Int).Lsh(big.NewInt(1), uint(s.Width))
	if signed && a.lo.Cmp(t.Max()) > 0 { // all at or above 2^(w-1): all negative when signed
		return ival{new(big.Int).Sub(a.lo, mod), new(big.Int).Sub(a.hi, mod)}
	}
	if !signed && a.hi.Sign() < 0 { // all negative: all at or above 2^(w-1) when unsigned
		return ival{new(big.Int).Add(a.lo, mod), new(big.Int).Add(a.hi, mod)}
	}
	return full(t)
}

func (a ival) join(b ival) ival {
	lo, hi := a.lo, a.hi
	if b.lo.Cmp(lo) < 0 {
		lo = b.lo
	}
	if b.hi.Cmp(hi) > 0 {
		hi = b.hi
	}
	return ival{lo, hi}
}

func (a ival) meet(b ival) (ival, bool) {
	lo, hi := a.lo, a.hi
	if b.lo.Cmp(lo) > 0 {
		lo = b.lo
	}
	if b.hi.Cmp(hi) < 0 {
		hi = b.hi
	}
	return ival{lo, hi}, lo.Cmp(hi) <= 0
}

func (a ival) eq(b ival) bool { return a.lo.Cmp(b.lo) == 0 && a.hi.Cmp(b.hi) == 0 }

// ienv maps variables to intervals; a missing variable has the whole range of its sort.
type ienv map[string]ival

func (e ienv) get(v its.Var) ival {
	if a, ok := e[v.Name]; ok {
		return a
	}
	return full(v.Sort)
}

func (e ienv) copy() ienv {
	c := ienv{}
	for k, v := range e {
		c[k] = v
	}
	return c
}

// ieval gives the interval of a bitvector expression, as its sort reads it.
func ieval(x its.Expr, env ienv) ival {
	return withGuarded(x, env, ievalPlain(x, env))
}

// ievalPlain is ieval without the guarded expressions (Note [Guarded expression intervals]).
func ievalPlain(x its.Expr, env ienv) ival {
	s := its.SortOf(x)
	if s.IsBool() {
		return full(s)
	}
	switch x := x.(type) {
	case *its.Const:
		return point(x.Val)
	case *its.Ref:
		return env.get(x.Var)
	case *its.Unary:
		a := ieval(x.X, env)
		switch x.Op {
		case its.Neg:
			return fit(ival{new(big.Int).Neg(a.hi), new(big.Int).Neg(a.lo)}, s)
		case its.BNot:
			// ~x is -1 - x when read signed and Max - x when read unsigned: never wraps.
			top := big.NewInt(-1)
			if !s.Signed {
				top = s.Max()
			}
			return ival{new(big.Int).Sub(top, a.hi), new(big.Int).Sub(top, a.lo)}
		}
	case *its.Binary:
		return ievalBinary(x, s, env)
	case *its.Cast:
		from := its.SortOf(x.X)
		a := ieval(x.X, env)
		switch x.Op {
		case its.ZExt:
			return fit(reread(a, from, false), x.To)
		case its.SExt:
			return fit(reread(a, from, true), x.To)
		case its.Trunc:
			return fit(a, x.To)
		}
	case *its.Ite:
		return iteInterval(x, env)
	}
	return full(s)
}

func ievalBinary(x *its.Binary, s its.Sort, env ienv) ival {
	a, b := ieval(x.X, env), ieval(x.Y, env)
	c, isConst := x.Y.(*its.Const)
	switch x.Op {
	case its.Add:
		return fitWrap(ival{new(big.Int).Add(a.lo, b.lo), new(big.Int).Add(a.hi, b.hi)}, s)
	case its.Sub:
		return fitWrap(ival{new(big.Int).Sub(a.lo, b.hi), new(big.Int).Sub(a.hi, b.lo)}, s)
	case its.Mul:
		ps := []*big.Int{new(big.Int).Mul(a.lo, b.lo), new(big.Int).Mul(a.lo, b.hi), new(big.Int).Mul(a.hi, b.lo), new(big.Int).Mul(a.hi, b.hi)}
		lo, hi := ps[0], ps[0]
		for _, p := range ps[1:] {
			if p.Cmp(lo) < 0 {
				lo = p
			}
			if p.Cmp(hi) > 0 {
				hi = p
			}
		}
		return fit(ival{lo, hi}, s)
	case its.And:
		// x & c with c >= 0 is in [0, c], and at most x where x >= 0.
		if isConst && c.Val.Sign() >= 0 {
			hi := c.Val
			if a.lo.Sign() >= 0 && a.hi.Cmp(hi) < 0 {
				hi = a.hi
			}
			return ival{new(big.Int), hi}
		}
	case its.Or:
		// x | c with c >= 0 sets bits worth at most c: x <= x | c <= x + c, read either way.
		if isConst && c.Val.Sign() >= 0 {
			return fit(ival{a.lo, new(big.Int).Add(a.hi, c.Val)}, s)
		}
	case its.Shl:
		if isConst && c.Val.Sign() >= 0 && c.Val.Cmp(big.NewInt(int64(s.Width))) < 0 {
			k := uint(c.Val.Int64())
			return fit(ival{new(big.Int).Lsh(a.lo, k), new(big.Int).Lsh(a.hi, k)}, s)
		}
	case its.LShr, its.AShr:
		if isConst && c.Val.Sign() >= 0 && c.Val.Cmp(big.NewInt(int64(s.Width))) < 0 {
			k := uint(c.Val.Int64())
			r := reread(a, s, x.Op == its.AShr)
			// big.Int's Rsh is arithmetic (floor), as AShr; LShr reads the bits unsigned.
			return fit(ival{new(big.Int).Rsh(r.lo, k), new(big.Int).Rsh(r.hi, k)}, s)
		}
	case its.UDiv:
		if isConst && c.Val.Sign() > 0 {
			r := reread(a, s, false)
			return fit(ival{new(big.Int).Quo(r.lo, c.Val), new(big.Int).Quo(r.hi, c.Val)}, s)
		}
		// A divisor y >= 1 (x /u 0 is all ones in SMT-LIB): x.lo / y.hi <= x /u y <= x.hi / y.lo.
		if xu, yu := reread(a, s, false), reread(b, s, false); yu.lo.Sign() > 0 {
			return fit(ival{new(big.Int).Quo(xu.lo, yu.hi), new(big.Int).Quo(xu.hi, yu.lo)}, s)
		}
	case its.SDiv:
		if isConst && c.Val.Sign() > 0 {
			r := reread(a, s, true)
			return fit(ival{new(big.Int).Quo(r.lo, c.Val), new(big.Int).Quo(r.hi, c.Val)}, s)
		}
	case its.URem:
		if isConst && c.Val.Sign() > 0 {
			return fit(ival{new(big.Int), new(big.Int).Sub(c.Val, big.NewInt(1))}, s)
		}
		// x %u y is at most x (x %u 0 = x in SMT-LIB) and below y where y >= 1: SimpleConvolution's
		// gid % width.
		xu, yu := reread(a, s, false), reread(b, s, false)
		hi := xu.hi
		if yu.lo.Sign() > 0 && yu.hi.Cmp(hi) <= 0 {
			hi = new(big.Int).Sub(yu.hi, big.NewInt(1))
		}
		return fit(ival{new(big.Int), hi}, s)
	case its.SRem:
		if isConst && c.Val.Sign() > 0 {
			m := new(big.Int).Sub(c.Val, big.NewInt(1))
			if reread(a, s, true).lo.Sign() >= 0 {
				return fit(ival{new(big.Int), m}, s)
			}
			return fit(ival{new(big.Int).Neg(m), m}, s)
		}
	}
	return full(s)
}

// irefine narrows env by guard g (which holds); false where g cannot hold.
func irefine(g its.Expr, env ienv) bool {
	switch g := g.(type) {
	case *its.Const:
		return g.Val.Sign() != 0
	case *its.Unary:
		if g.Op == its.Not {
			if b, ok := g.X.(*its.Binary); ok && b.Op.IsCompare() {
				return irefine(its.B(negate(b.Op), b.X, b.Y), env)
			}
		}
		return true
	case *its.Binary:
		if g.Op == its.LAnd {
			return irefine(g.X, env) && irefine(g.Y, env)
		}
		if g.Op == its.LOr {
			return irefineOr(g, env)
		}
		if !g.Op.IsCompare() || its.HasNondet(g) {
			return true
		}
		return irefineSide(g.Op, g.X, g.Y, env) && irefineSide(flip(g.Op), g.Y, g.X, env)
	}
	return true
}

// irefineSide narrows the variable under x (if any) by "x op y".
func irefineSide(op its.Op, x, y its.Expr, env ienv) bool {
	xs := its.SortOf(x)
	var signed bool
	switch op {
	case its.Slt, its.Sle, its.Sgt, its.Sge:
		signed = true
	case its.Ult, its.Ule, its.Ugt, its.Uge:
		signed = false
	case its.Eq, its.Ne:
		signed = xs.Signed
	default:
		return true
	}
	if !irefineOffset(op, x, y, signed, env) { // Note [Guards on a counter plus a constant]
		return false
	}
	// The variable under casts that keep its value as this compare reads it.
	v, ok := refVar(x, signed)
	if !ok {
		if v, ok = exprVar(x, env); !ok {
			return true
		}
	}
	b := reread(ieval(y, env), its.SortOf(y), signed)
	cur := reread(env.get(v), v.Sort, signed)
	one := big.NewInt(1)
	lo, hi := cur.lo, cur.hi
	switch op {
	case its.Slt, its.Ult:
		hi = minBig(hi, new(big.Int).Sub(b.hi, one))
	case its.Sle, its.Ule:
		hi = minBig(hi, b.hi)
	case its.Sgt, its.Ugt:
		lo = maxBig(lo, new(big.Int).Add(b.lo, one))
	case its.Sge, its.Uge:
		lo = maxBig(lo, b.lo)
	case its.Eq:
		if xs.Width != its.SortOf(y).Width {
			return true
		}
		lo, hi = maxBig(lo, b.lo), minBig(hi, b.hi)
	case its.Ne:
		if b.lo.Cmp(b.hi) == 0 {
			if lo.Cmp(b.lo) == 0 {
				lo = new(big.Int).Add(lo, one)
			} else if hi.Cmp(b.lo) == 0 {
				hi = new(big.Int).Sub(hi, one)
			}
		}
	}
	if lo.Cmp(hi) > 0 {
		return false
	}
	n := reread(ival{lo, hi}, its.Sort{Width: v.Sort.Width, Signed: signed}, v.Sort.Signed)
	if m, ok := env.get(v).meet(n); ok {
		env[v.Name] = m
	} else {
		return false
	}
	return true
}

// refVar finds the variable that x reads, through casts that keep its value as a compare of the
// given signedness reads it: same-width casts, sign extension under a signed compare and zero
// extension under an unsigned one.
func refVar(x its.Expr, signed bool) (its.Var, bool) {
	switch x := x.(type) {
	case *its.Ref:
		return x.Var, !x.Var.Sort.IsBool()
	case *its.Cast:
		from := its.SortOf(x.X)
		if from.Width == x.To.Width || (x.Op == its.SExt && signed) || (x.Op == its.ZExt && !signed) {
			return refVar(x.X, signed)
		}
	}
	return its.Var{}, false
}

func negate(op its.Op) its.Op {
	switch op {
	case its.Eq:
		return its.Ne
	case its.Ne:
		return its.Eq
	case its.Ult:
		return its.Uge
	case its.Ule:
		return its.Ugt
	case its.Ugt:
		return its.Ule
	case its.Uge:
		return its.Ult
	case its.Slt:
		return its.Sge
	case its.Sle:
		return its.Sgt
	case its.Sgt:
		return its.Sle
	case its.Sge:
		return its.Slt
	}
	return op
}

// flip gives the operator with its sides swapped (x < y is y > x).
func flip(op its.Op) its.Op {
	switch op {
	case its.Ult:
		return its.Ugt
	case its.Ule:
		return its.Uge
	case its.Ugt:
		return its.Ult
	case its.Uge:
		return its.Ule
	case its.Slt:
		return its.Sgt
	case its.Sle:
		return its.Sge
	case its.Sgt:
		return its.Slt
	case its.Sge:
		return its.Sle
	}
	return op
}

func minBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) < 0 {
		return a
	}
	return b
}

func maxBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) > 0 {
		return a
	}
	return b
}

// ipost gives the state after t from env, or nil where t cannot fire.
func ipost(sys *its.System, t its.Transition, env ienv) ienv {
	pre := env.copy()
	// Twice: a guard may narrow an expression that an earlier guard reads.
	for range 2 {
		for _, g := range t.Guard {
			if !irefine(g, pre) {
				return nil
			}
		}
	}
	post := pre.copy()
	for _, k := range its.SortedUpdates(t) {
		post[k] = ieval(t.Update[k], pre)
	}
	dropGuarded(post)
	for _, h := range t.Havoc {
		delete(post, h)
	}
	refineUpdated(sys, t, post)
	return post
}

// refineUpdated narrows a variable that t sets to an expression e by the guard compares of e
// against values t does not change: `cond29 := y + h` under `y + h <u height` (a min split into
// cases, Note [Conditional splitting] in analysis/fromllvm) gives cond29 < height, which the
// interval of y + h alone loses.
func refineUpdated(sys *its.System, t its.Transition, post ienv) {
	set := map[string]bool{}
	for k := range t.Update {
		set[k] = true
	}
	for _, h := range t.Havoc {
		set[h] = true
	}
	unchanged := func(e its.Expr) bool {
		return its.ReadsOnly(e, func(name string) bool { return !set[name] })
	}
	for _, k := range its.SortedUpdates(t) {
		e := t.Update[k]
		if _, ok := e.(*its.Ref); ok {
			continue
		}
		v, ok := sys.Var(k)
		if !ok || v.Sort != its.SortOf(e) {
			continue
		}
		es := e.String()
		for _, g := range t.Guard {
			for _, c := range conjuncts(g) {
				b, ok := c.(*its.Binary)
				if !ok || !b.Op.IsCompare() || its.HasNondet(b) {
					continue
				}
				switch {
				case b.X.String() == es && unchanged(b.Y):
					irefine(its.B(b.Op, its.R(v), b.Y), post)
				case b.Y.String() == es && unchanged(b.X):
					irefine(its.B(b.Op, b.X, its.R(v)), post)
				}
			}
		}
	}
}

// intervals runs the analysis; nil at a location means unreached.
func intervals(sys *its.System) []ienv {
	init := ienv{}
	for _, f := range sys.Facts {
		if !irefine(f.Expr, init) {
			return make([]ienv, len(sys.Locs)) // the facts cannot hold: nothing is reached
		}
	}
	// Facts may narrow one variable through another: a second pass.
	for _, f := range sys.Facts {
		irefine(f.Expr, init)
	}
	dropGuarded(init)
	state := make([]ienv, len(sys.Locs))
	state[sys.Entry] = init
	order := bfsOrder(sys)
	locs := make([]int, len(sys.Locs))
	for i := range locs {
		locs[i] = i
	}
	sortByOrder(locs, order)
	visits := make([]int, len(sys.Locs))
	cyclic := cycleUpdated(sys) // Note [Widening what a loop changes]
	joinInto := func(l int, e ienv, widen bool) bool {
		if state[l] == nil {
			state[l] = e.copy()
			return true
		}
		changed := false
		for _, v := range sys.Vars {
			if v.Sort.IsBool() {
				continue
			}
			old, nw := state[l].get(v), e.get(v)
			j := old.join(nw)
			if j.eq(old) {
				continue
			}
			if widen && cyclic[l][v.Name] {
				j = widenTo(j, old, v.Sort)
			}
			state[l][v.Name] = j
			changed = true
		}
		return changed
	}
	// Ascending rounds, widening at a location after its third change.
	for round, changed := 0, true; changed && round < 400; round++ {
		changed = false
		for _, l := range locs {
			if state[l] == nil {
				continue
			}
			for _, t := range sys.Trans {
				if t.From != l {
					continue
				}
				if p := ipost(sys, t, state[l]); p != nil {
					if joinInto(t.To, p, visits[t.To] >= 3) {
						visits[t.To]++
						changed = true
					}
				}
			}
		}
	}
	// Descending rounds: each location becomes the join of what its transitions bring (and the
	// facts at the entry), met with what it was; from a post-fixpoint this stays one.
	for round := 0; round < 8; round++ {
		changed := false
		for _, l := range locs {
			if state[l] == nil {
				continue
			}
			var acc ienv
			if l == sys.Entry {
				acc = init.copy()
			}
			for _, t := range sys.Trans {
				if t.To != l || state[t.From] == nil {
					continue
				}
				p := ipost(sys, t, state[t.From])
				if p == nil {
					continue
				}
				if acc == nil {
					acc = p
					continue
				}
				for _, v := range sys.Vars {
					if !v.Sort.IsBool() {
						acc[v.Name] = acc.get(v).join(p.get(v))
					}
				}
			}
			if acc == nil {
				continue
			}
			for _, v := range sys.Vars {
				if v.Sort.IsBool() {
					continue
				}
				old := state[l].get(v)
				if m, ok := old.meet(acc.get(v)); ok && !m.eq(old) {
					state[l][v.Name] = m
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	return state
}

// widenTo widens a bound of j that moved past old to the next threshold, 2^k - 1 above and
// -2^k or 0 below: a counter stepping by 32 under a bound near 2^31 settles at 2^32 - 1, where
// widening straight to the sort's range would make its step wrap and lose the bound for good.
func widenTo(j, old ival, s its.Sort) ival {
	if j.hi.Cmp(old.hi) > 0 {
		hi := s.Max()
		for k := 1; k <= s.Width; k++ {
			t := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(k)), big.NewInt(1))
			if t.Cmp(j.hi) >= 0 && t.Cmp(hi) < 0 {
				hi = t
				break
			}
		}
		// Three quarters of the range before all of it (Note [Guards on a counter plus a
		// constant]): a counter up to a bound of 2^(w-2) plus a stride settles there.
		if hi.Cmp(s.Max()) == 0 {
			q := new(big.Int).Rsh(new(big.Int).Mul(s.Max(), big.NewInt(3)), 2)
			if q.Cmp(j.hi) >= 0 {
				hi = q
			}
		}
		j.hi = hi
	}
	if j.lo.Cmp(old.lo) < 0 {
		lo := s.Min()
		if j.lo.Sign() >= 0 {
			lo = new(big.Int)
		} else {
			for k := 0; k < s.Width; k++ {
				t := new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(k)))
				if t.Cmp(j.lo) <= 0 && t.Cmp(lo) > 0 {
					lo = t
					break
				}
			}
		}
		j.lo = lo
	}
	return j
}

func sortByOrder(locs []int, order []int) {
	for i := 1; i < len(locs); i++ {
		for j := i; j > 0 && order[locs[j]] < order[locs[j-1]]; j-- {
			locs[j], locs[j-1] = locs[j-1], locs[j]
		}
	}
}

// intervalCandidates gives, at each location, the bounds v >= lo and v <= hi that the interval
// analysis finds for the variables some transition changes (Note [Interval candidates]).
func intervalCandidates(sys *its.System) map[int][]its.Expr {
	changed := map[string]bool{}
	for _, t := range sys.Trans {
		for k := range t.Update {
			changed[k] = true
		}
		for _, h := range t.Havoc {
			changed[h] = true
		}
	}
	state := intervals(sys)
	out := map[int][]its.Expr{}
	for l, env := range state {
		if env == nil || l == sys.Entry {
			continue
		}
		for _, v := range sys.Vars {
			if v.Sort.IsBool() || !changed[v.Name] {
				continue
			}
			a, f := env.get(v), full(v.Sort)
			le, ge := its.Ule, its.Uge
			if v.Sort.Signed {
				le, ge = its.Sle, its.Sge
			}
			if a.lo.Cmp(f.lo) > 0 {
				out[l] = append(out[l], its.B(ge, its.R(v), &its.Const{Val: a.lo, Sort: v.Sort}))
			}
			if a.hi.Cmp(f.hi) < 0 {
				out[l] = append(out[l], its.B(le, its.R(v), &its.Const{Val: a.hi, Sort: v.Sort}))
			}
		}
	}
	return out
}
