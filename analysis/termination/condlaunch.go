package termination

import (
	"math/big"
	"sort"

	"gpuc/analysis/its"
)

// Note [Conditions through products]
// A loop bound computed as a product of run values (shoc's reduce: block_start = group *
// region_size, region_size = n / 4 / num_groups * 4) stays below the parameter over the
// integers, but proving that needs the nonlinear fact region_size * num_groups <= n, which no
// bitvector solver decides (z3 and cvc5 both time out at 50 s). A bound on the parameter alone
// does not stop the product wrapping: the group id is up to 2^31. So where the values a stuck
// loop reads are computed through a product of two non-constant factors, the condition search
// (Engine.conditional) may also bound the launch sizes those factors read (a thread or block id
// through its fact `id < size`), starting at 2^10 and weakened like the parameters' bounds. With
// every factor bounded, the interval analysis bounds the product and the solver checks it with
// no nonlinear reasoning; the condition printed says which launch it needs (`gdim.x <= 1024`).
// Sizes the launch facts already bound by 2^10 (the block size) are left alone, and no size is
// bounded where a witness runs forever with some launch size above 2^10: a grid-stride loop whose
// stride `bdim * gdim` wraps to 0 stays FALSE rather than TRUE under a bound on the grid. A
// witness through a parameter (reduce spins for n near 2^31 with one group) is what the
// parameter's bound excludes, as for any condition.

// productLaunchVars gives the launch sizes that the factors of a nonlinear product in the cone
// of read (variables, closed under updates) read, directly or through a thread or block id, and
// allowed, which says whether the condition search may bound them: wit gives the witness of the
// stuck loops, if any, and allowed calls it, so the search asks only when it comes to bound a
// size (Note [Conditions before witnesses]).
func productLaunchVars(sys *its.System, read map[string]bool, wit func() *Witness) (out []its.Var, allowed func() bool) {
	factors := map[string]bool{}
	visit := func(e its.Expr) {
		its.Walk(e, func(x its.Expr) {
			b, ok := x.(*its.Binary)
			if !ok || b.Op != its.Mul || isConstExpr(b.X) || isConstExpr(b.Y) {
				return
			}
			for v := range its.FreeVars(b) {
				factors[v] = true
			}
		})
	}
	for _, t := range sys.Trans {
		for k, e := range t.Update {
			if read[k] {
				visit(e)
			}
		}
	}
	for _, f := range sys.Facts {
		// Hoisted definitions `v == e` of a value the loop reads.
		if b, ok := f.Expr.(*its.Binary); ok && b.Op == its.Eq {
			if r, ok := b.X.(*its.Ref); ok && read[r.Var.Name] {
				visit(b.Y)
			}
		}
	}
	thread, param := map[string]bool{}, map[string]bool{}
	for _, v := range sys.ThreadVars {
		thread[v] = true
	}
	for _, v := range sys.Params {
		param[v] = true
	}
	inFacts := map[string]bool{}
	for _, f := range sys.Facts {
		for v := range its.FreeVars(f.Expr) {
			inFacts[v] = true
		}
	}
	sizes := map[string]bool{}
	for v := range factors {
		switch {
		case thread[v]:
			// id < size
			for _, f := range sys.Facts {
				if b, ok := f.Expr.(*its.Binary); ok && (b.Op == its.Ult || b.Op == its.Slt) {
					x, okx := b.X.(*its.Ref)
					y, oky := b.Y.(*its.Ref)
					if okx && oky && x.Var.Name == v && !thread[y.Var.Name] && !param[y.Var.Name] {
						sizes[y.Var.Name] = true
					}
				}
			}
		case inFacts[v] && !param[v]:
			sizes[v] = true
		}
	}
	env := ienv{}
	for _, f := range sys.Facts {
		irefine(f.Expr, env)
	}
	limit := big.NewInt(1 << 10)
	for name := range sizes {
		v, ok := sys.Var(name)
		if !ok || v.Sort.IsBool() || v.Sort.Width < 3 {
			continue
		}
		// The search's first bound on it (Engine.conditional): no use where the facts have one.
		first := new(big.Int).Lsh(big.NewInt(1), uint(min(10, v.Sort.Width-2)))
		if reread(env.get(v), v.Sort, false).hi.Cmp(first) <= 0 {
			continue
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, nil
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	allowed = func() bool {
		if w := wit(); w != nil {
			for name, val := range w.Launch {
				x, ok := new(big.Int).SetString(val, 10)
				if sizes[name] && (!ok || x.Cmp(limit) > 0) {
					return false
				}
			}
		}
		return true
	}
	return out, allowed
}

func isConstExpr(e its.Expr) bool {
	return its.ReadsOnly(e, func(string) bool { return false })
}
