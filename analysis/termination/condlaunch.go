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
// stride `bdim * gdim` wraps to 0 stays FALSE rather than TRUE under a bound on the grid (the
// witness search after the proof applies this: Note [Conditions before witnesses]). A
// witness through a parameter (reduce spins for n near 2^31 with one group) is what the
// parameter's bound excludes, as for any condition.

// productLaunchVars gives the launch sizes that the factors of a nonlinear product in the cone
// of read (variables, closed under updates) read, directly or through a thread or block id.
func productLaunchVars(sys *its.System, read map[string]bool) []its.Var {
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
	var out []its.Var
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
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func isConstExpr(e its.Expr) bool {
	return its.ReadsOnly(e, func(string) bool { return false })
}

// Note [Launch sizes first where only they bound the loops]
// The joint strongest try bounds the parameters alone first, and the launch sizes that a
// product reads only where that fails (Note [Conditions through products]). In shoc
// scan/reduce the loop runs to block_stop = bid * region_size + region_size, which no bound on
// n keeps from wrapping (bid is up to 2^31), so that try cannot prove; but it does not fail
// quickly: it ran Houdini's stages to the end of its share, half of the kernel's solver effort
// (5.1 of its 8.85 million resource units, the kernel's 4.4 to 9.5 s on this machine), before
// the try with gdim.x <= 1024 proved in 0.2 million. The interval analysis (no solver) tells the
// two apart beforehand: under the strongest condition without launch sizes a side of a compare
// in the stuck loops' guards spans its whole sort, and with them it does not. There the search
// starts with the launch sizes bounded. The weakening that follows still tries to drop each
// size's bound, with the rankings found first (Note [Rankings of a stronger condition
// first]), which fails quickly where the bound is needed. AMD SimpleConvolution's products
// are the launch facts' bid * bdim, and its loops compare values that the width bounds: its
// search still starts without launch sizes.

// sizesBoundLoops says whether a side of a compare in the guards of the stuck loops spans its
// whole sort under the facts without but not under with (Note [Launch sizes first where only
// they bound the loops]).
func sizesBoundLoops(sys *its.System, stuck [][]int, without, with []its.Fact) bool {
	envs := func(facts []its.Fact) []ienv {
		c := *sys
		c.Facts = append(append([]its.Fact(nil), sys.Facts...), facts...)
		return intervals(&c)
	}
	a, b := envs(without), envs(with)
	for _, comp := range stuck {
		in := map[int]bool{}
		for _, l := range locsOf(sys, comp) {
			in[l] = true
		}
		for _, t := range sys.Trans {
			if !in[t.From] || a[t.From] == nil || b[t.From] == nil {
				continue
			}
			for _, g := range t.Guard {
				for _, c := range conjuncts(g) {
					x, ok := c.(*its.Binary)
					if !ok || !x.Op.IsCompare() {
						continue
					}
					for _, side := range []its.Expr{x.X, x.Y} {
						s := its.SortOf(side)
						if !s.IsBool() && ieval(side, a[t.From]).eq(full(s)) && !ieval(side, b[t.From]).eq(full(s)) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}
