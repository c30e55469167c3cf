package termination

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"gpuc/analysis/its"
)

// Note [Products of a counter and a constant]
// carve.fork scans `for (p = $; p * GAP + 64 <= N; p += PROCS)` in 64 bits. It is FALSE as it
// stands (for N = 2^63 - 1 the product wraps before it passes N), and the natural condition
// bounds N and GAP; but with p * GAP in the guard no linear ranking function exists over p, and
// bounding the parameters does not bound p (Note [Conditions through products] covers products
// of launch sizes, which the launch facts bound). Where a guard or update multiplies a counter p
// by a value c that no transition changes (a parameter, a launch size, a value read once), the
// condition search (Engine.conditional) tries again on a copy of the system with a fresh
// variable `p*c` that stands for the product: every transition that sets p := p + d sets
// p*c := p*c + d*c (p - d likewise), one that sets p := e sets p*c := e*c, and the product is
// read as the variable everywhere. In w-bit arithmetic (p + d)*c = p*c + d*c exactly, and c is
// constant, so every run of the original system is a run of the copy with p*c equal to the
// product from the first step on (the copy starts p*c at any value, which only adds runs): a
// ranking function of the copy ends every run of the original. The copy's guard `p*c + 64 <= N`
// is linear, and `d*c` is a product of values that the condition bounds (PROCS * GAP), which the
// interval analysis bounds with no nonlinear reasoning; it is a variable too, set on the way out
// of the entry, where d reads only constants. Witnesses are searched on the original
// system only (a run of the copy need not be a run of the original), so a FALSE stays a real
// witness; the TRUE verdict is conditional, its certificate's obligations are about the copy,
// and productObligations adds that each transition keeps the copy's variables equal to their
// products. The search on the copy keeps every bound it starts with and only loosens the upper
// ones (the factors need a lower bound of 1: a zero GAP never moves the product), and it has a
// processor-time budget of its own, the kernel's: after the proof and the witness search, the
// failing tries of the weakening spend the rest (carve's kernel went from TRUE under the
// strongest condition, N <= 1024, to N <= 2^62).

// reduceProducts gives a copy of sys in which each product p * c in a guard, of a counter p
// (stepped by p := p + d somewhere) and a constant c, reads a fresh variable (Note [Products of a counter and a constant]), or nil when
// sys has no such product.
func reduceProducts(sys *its.System) (*its.System, map[string]its.Expr) {
	consts := constants(sys)
	havoced := map[string]bool{}
	for _, t := range sys.Trans {
		for _, h := range t.Havoc {
			havoced[h] = true
		}
	}
	type product struct {
		p    its.Var
		c    its.Expr
		name string
	}
	var prods []product
	seen := map[string]bool{}
	constant := func(e its.Expr) bool {
		if isConstExpr(e) || its.HasNondet(e) {
			return false
		}
		ok := true
		its.Walk(e, func(x its.Expr) {
			if _, l := x.(*its.Load); l {
				ok = false
			}
		})
		return ok && its.ReadsOnly(e, func(n string) bool { return consts[n] })
	}
	// Counters: variables some transition steps by p := p + d or p - d.
	counter := map[string]bool{}
	for _, t := range sys.Trans {
		for k, e := range t.Update {
			if b, ok := e.(*its.Binary); ok && (b.Op == its.Add || b.Op == its.Sub) {
				if r, ok := b.X.(*its.Ref); ok && r.Var.Name == k {
					counter[k] = true
				}
			}
		}
	}
	// Products in guards, outside load addresses (an address is no bound).
	var consider func(e its.Expr)
	consider = func(e its.Expr) {
		switch x := e.(type) {
		case *its.Load, *its.Nondet, *its.Const, *its.Ref:
			return
		case *its.Unary:
			consider(x.X)
		case *its.Cast:
			consider(x.X)
		case *its.Ite:
			consider(x.C)
			consider(x.T)
			consider(x.E)
		case *its.Binary:
			if x.Op == its.Mul {
				for _, pc := range [][2]its.Expr{{x.X, x.Y}, {x.Y, x.X}} {
					r, ok := pc[0].(*its.Ref)
					if !ok || !counter[r.Var.Name] || havoced[r.Var.Name] || !constant(pc[1]) {
						continue
					}
					name := r.Var.Name + "*" + pc[1].String()
					if _, clash := sys.Var(name); clash {
						continue
					}
					if !seen[name] {
						seen[name] = true
						prods = append(prods, product{r.Var, pc[1], name})
					}
					return
				}
			}
			consider(x.X)
			consider(x.Y)
		}
	}
	for _, t := range sys.Trans {
		for _, g := range t.Guard {
			consider(g)
		}
	}
	if len(prods) == 0 {
		return nil, nil
	}
	defs := map[string]its.Expr{}
	c := *sys
	c.Vars = append([]its.Var(nil), sys.Vars...)
	c.Trans = make([]its.Transition, len(sys.Trans))
	vars := make([]its.Var, len(prods))
	for i, pr := range prods {
		vars[i] = its.Var{Name: pr.name, Sort: pr.p.Sort}
		c.Vars = append(c.Vars, vars[i])
		defs[pr.name] = its.B(its.Mul, its.R(pr.p), pr.c)
	}
	// read replaces each product by its variable.
	read := func(e its.Expr) its.Expr {
		return its.Rewrite(e, func(e its.Expr) (its.Expr, bool) {
			if x, ok := e.(*its.Binary); ok && x.Op == its.Mul {
				for i, pr := range prods {
					if sameProduct(x, pr.p.Name, pr.c) {
						return its.R(vars[i]), true
					}
				}
			}
			return nil, false
		})
	}
	// A stride d*c of constants is a variable too, set on the way out of the entry (which no
	// transition enters): the solver then multiplies nowhere in the loop.
	hoist := true
	for _, t := range sys.Trans {
		hoist = hoist && t.To != sys.Entry
	}
	strideVars := map[string]its.Var{}
	var strideNames []string
	strideExpr := map[string]its.Expr{}
	stride := func(d, k its.Expr) its.Expr {
		m := its.B(its.Mul, d, k)
		if !hoist || !constant(d) {
			return read(m)
		}
		name := d.String() + "*" + k.String()
		if v, ok := strideVars[name]; ok {
			return its.R(v)
		}
		if _, clash := sys.Var(name); clash {
			return read(m)
		}
		v := its.Var{Name: name, Sort: its.SortOf(d)}
		strideVars[name] = v
		strideNames = append(strideNames, name)
		strideExpr[name] = m
		defs[name] = m
		c.Vars = append(c.Vars, v)
		return its.R(v)
	}
	for ti, t := range sys.Trans {
		nt := t.Map(read)
		for i, pr := range prods {
			e, ok := t.Update[pr.p.Name]
			if !ok {
				continue
			}
			q := its.R(vars[i])
			if b, ok := e.(*its.Binary); ok && (b.Op == its.Add || b.Op == its.Sub) {
				if r, ok := b.X.(*its.Ref); ok && r.Var.Name == pr.p.Name {
					nt.Update[pr.name] = its.B(b.Op, q, stride(b.Y, pr.c))
					continue
				}
				if r, ok := b.Y.(*its.Ref); ok && r.Var.Name == pr.p.Name && b.Op == its.Add {
					nt.Update[pr.name] = its.B(its.Add, q, stride(b.X, pr.c))
					continue
				}
			}
			nt.Update[pr.name] = its.B(its.Mul, read(e), pr.c)
		}
		c.Trans[ti] = nt
	}
	for ti := range c.Trans {
		if c.Trans[ti].From != sys.Entry {
			continue
		}
		// Every way out of the entry sets every product, so that each holds at every other
		// location (productObligations).
		for _, pr := range prods {
			if _, ok := c.Trans[ti].Update[pr.name]; !ok {
				c.Trans[ti].Update[pr.name] = its.B(its.Mul, its.R(pr.p), pr.c)
			}
		}
		for _, name := range strideNames {
			c.Trans[ti].Update[name] = strideExpr[name]
		}
	}
	return &c, defs
}

// productObligations states, for each transition of the copy red, that it keeps every variable
// of defs equal to its definition (assumed before): the
// certificate of a proof on the copy carries the reduction itself (Note [Products of a counter
// and a constant]).
func productObligations(red *its.System, defs map[string]its.Expr) []Obligation {
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Obligation
	for ti, t := range red.Trans {
		q := newQuery(red)
		pre := q.state("0")
		// The definitions hold before every transition, the entry's too: the copy starts its
		// new variables at any value, so a run of the original is the copy's run that starts
		// them at their definitions. The definitions themselves, not equalities: z3 proves
		// (p + d)*c = p*c + d*c in 64 bits at once, but not through equalities in its
		// incremental mode.
		ps := q.newScope(pre)
		for _, n := range names {
			pre[n] = q.term(defs[n], ps)
		}
		// The post-state as terms too (a havocked variable is a fresh constant).
		pc := q.newScope(pre)
		post := map[string]string{}
		for k, v := range pre {
			post[k] = v
		}
		for _, k := range its.SortedUpdates(t) {
			post[k] = q.term(t.Update[k], pc)
		}
		for _, h := range t.Havoc {
			v, _ := red.Var(h)
			post[h] = q.declare(h+"@1", v.Sort)
		}
		sc := q.newScope(post)
		var eqs []string
		for _, n := range names {
			eqs = append(eqs, "(= "+post[n]+" "+q.term(defs[n], sc)+")")
		}
		q.assert("(not " + and(eqs) + ")")
		out = append(out, Obligation{
			What:   fmt.Sprintf("transition %d keeps %s equal to their products", ti, strings.Join(names, ", ")),
			Script: q.script(),
		})
	}
	return out
}

// sameProduct reports whether m is p * c or c * p.
func sameProduct(m *its.Binary, p string, c its.Expr) bool {
	is := func(x, y its.Expr) bool {
		r, ok := x.(*its.Ref)
		return ok && r.Var.Name == p && y.String() == c.String()
	}
	return is(m.X, m.Y) || is(m.Y, m.X)
}

// Note [Guards on a counter plus a constant]
// A guard `x + c <= y` (carve's `p*GAP + 64 <= N` after Note [Products of a counter and a
// constant]) bounds x itself where x + c cannot wrap: over x's whole interval, x + c stays in
// the range that the compare reads, so x <= y - c over the integers. The interval analysis
// narrows x so (and the compound x + c as before, Note [Guarded expression intervals]); without
// it the counter's interval at the loop head widened to its sort's range, and the loop's step
// wrapped in every candidate bound.

// irefineOffset narrows v by "v + c op y" (or v - c) where v + c cannot wrap over v's interval
// as the compare reads it; false where the guard cannot hold.
func irefineOffset(op its.Op, x, y its.Expr, signed bool, env ienv) bool {
	b, ok := x.(*its.Binary)
	if !ok || (b.Op != its.Add && b.Op != its.Sub) || op == its.Ne {
		return true
	}
	k, ok := b.Y.(*its.Const)
	r, okr := b.X.(*its.Ref)
	if !ok || !okr || r.Var.Sort.IsBool() || r.Var.Sort != k.Sort {
		return true
	}
	v := r.Var
	rs := its.Sort{Width: v.Sort.Width, Signed: signed}
	c := reread(point(k.Val), k.Sort, signed).lo
	if b.Op == its.Sub {
		c = new(big.Int).Neg(c)
	}
	cur := reread(env.get(v), v.Sort, signed)
	if !(ival{new(big.Int).Add(cur.lo, c), new(big.Int).Add(cur.hi, c)}).within(rs) {
		return true
	}
	bound := reread(ieval(y, env), its.SortOf(y), signed)
	lo, hi := cur.lo, cur.hi
	one := big.NewInt(1)
	switch op {
	case its.Slt, its.Ult:
		hi = minBig(hi, new(big.Int).Sub(new(big.Int).Sub(bound.hi, c), one))
	case its.Sle, its.Ule:
		hi = minBig(hi, new(big.Int).Sub(bound.hi, c))
	case its.Sgt, its.Ugt:
		lo = maxBig(lo, new(big.Int).Add(new(big.Int).Sub(bound.lo, c), one))
	case its.Sge, its.Uge:
		lo = maxBig(lo, new(big.Int).Sub(bound.lo, c))
	case its.Eq:
		if its.SortOf(y).Width != v.Sort.Width {
			return true
		}
		lo, hi = maxBig(lo, new(big.Int).Sub(bound.lo, c)), minBig(hi, new(big.Int).Sub(bound.hi, c))
	default:
		return true
	}
	if lo.Cmp(hi) > 0 {
		return false
	}
	n := reread(ival{lo, hi}, rs, v.Sort.Signed)
	m, ok := env.get(v).meet(n)
	if !ok {
		return false
	}
	env[v.Name] = m
	return true
}
