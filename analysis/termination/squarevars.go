package termination

import (
	"math/big"

	"gpuc/analysis/its"
)

// Note [Squares as counters]
// sieve's `for (p = 2; p * p < N; p++)`, with a farm loop inside that steps by p, is TRUE only
// under a bound on N (Note [Squares that do not wrap]), and the condition search did not find
// one in its budget: every query over the loop carried the 32-bit square, and the candidate
// `p <= 46340` is inductive only through it (a second or more a query; with the limits lifted
// the proof under N <= 2^30 took 17 s). In w-bit arithmetic (p + k)^2 = p^2 + 2k*p + k^2
// exactly, as (p + d)*c = p*c + d*c is (Note [Products of a counter and a constant]). So the
// condition search's copy of the system also gets a variable `p*p` for each square of a counter
// p in a guard, where every update of p is p + k or p - k with k a constant, or any expression e
// (then `p*p := e*e`): p + k sets `p*p := p*p + 2k*p + k^2`, and every way out of the entry sets
// it to p*p. The guard reads the variable, the copy is linear, and its runs are the original's
// with `p*p` equal to the square from the first step on (productObligations states it in the
// certificate). What bounds p then is the relation `p*p >= p + p` (p^2 >= 2p for p >= 2, kept
// by the step: p^2 + 2p + 1 >= 2p + 2 where p >= 1), a Houdini candidate the copy's square
// variables propose (squareCandidates): with `p*p < N <= 2^30` it gives 2p + 1 <= 2^30, so
// neither `p*p + 2p + 1` nor `p + 1` wraps, and `N - p*p` ranks the loop.

// reduceSquares gives a copy of sys in which each square p * p in a guard, of a counter p
// stepped by constants, reads a fresh variable (Note [Squares as counters]), with the
// variables' definitions; nil when sys has none.
func reduceSquares(sys *its.System) (*its.System, map[string]its.Expr) {
	havoced := map[string]bool{}
	for _, t := range sys.Trans {
		for _, h := range t.Havoc {
			havoced[h] = true
		}
	}
	var sq []its.Var // the counters whose squares the guards read
	seen := map[string]bool{}
	for _, t := range sys.Trans {
		for _, g := range t.Guard {
			its.Walk(g, func(e its.Expr) {
				if p, ok := squareOf(e); ok && !seen[p.Name] && !havoced[p.Name] && !p.Sort.IsBool() {
					seen[p.Name] = true
					if _, clash := sys.Var(squareName(p)); !clash && steppedByConstants(sys, p.Name) {
						sq = append(sq, p)
					}
				}
			})
		}
	}
	if len(sq) == 0 {
		return nil, nil
	}
	c := *sys
	c.Vars = append([]its.Var(nil), sys.Vars...)
	c.Trans = make([]its.Transition, len(sys.Trans))
	defs := map[string]its.Expr{}
	vars := map[string]its.Var{}
	for _, p := range sq {
		v := its.Var{Name: squareName(p), Sort: p.Sort}
		vars[p.Name] = v
		c.Vars = append(c.Vars, v)
		defs[v.Name] = its.B(its.Mul, its.R(p), its.R(p))
	}
	read := func(e its.Expr) its.Expr {
		return its.Rewrite(e, func(e its.Expr) (its.Expr, bool) {
			if p, ok := squareOf(e); ok {
				if v, ok := vars[p.Name]; ok {
					return its.R(v), true
				}
			}
			return nil, false
		})
	}
	for ti, t := range sys.Trans {
		nt := t.Map(read)
		for _, p := range sq {
			v := vars[p.Name]
			e, ok := t.Update[p.Name]
			switch {
			case !ok && t.From == sys.Entry:
				// Every way out of the entry sets the square (productObligations).
				nt.Update[v.Name] = defs[v.Name]
			case !ok:
			default:
				if k, ok := constantStep(e, p.Name); ok {
					// (p + k)^2 = p^2 + 2k*p + k^2 in p's width.
					twice := &its.Const{Val: p.Sort.Norm(new(big.Int).Lsh(k, 1)), Sort: p.Sort}
					kk := &its.Const{Val: p.Sort.Norm(new(big.Int).Mul(k, k)), Sort: p.Sort}
					nt.Update[v.Name] = its.B(its.Add, its.B(its.Add, its.R(v), its.B(its.Mul, twice, its.R(p))), kk)
				} else {
					x := read(e)
					nt.Update[v.Name] = its.B(its.Mul, x, x)
				}
			}
		}
		c.Trans[ti] = nt
	}
	return &c, defs
}

// reduceNonlinear gives the copy of sys that the condition search tries first: squares of
// counters (Note [Squares as counters]), then products of a counter and a constant (Note
// [Products of a counter and a constant]), as variables; nil where sys has neither. keep says
// that the search must keep the lower bounds it starts with: a product's factors need theirs
// (a zero factor never moves the product), a square needs none.
func reduceNonlinear(sys *its.System) (red *its.System, defs map[string]its.Expr, keep bool) {
	sqs, sdefs := reduceSquares(sys)
	base := sys
	if sqs != nil {
		base = sqs
	}
	red, defs = reduceProducts(base)
	if red == nil {
		return sqs, sdefs, false
	}
	for k, e := range sdefs {
		defs[k] = e
	}
	return red, defs, true
}

// squareOf reports whether e is p * p for a variable p.
func squareOf(e its.Expr) (its.Var, bool) {
	b, ok := e.(*its.Binary)
	if !ok || b.Op != its.Mul {
		return its.Var{}, false
	}
	x, okx := b.X.(*its.Ref)
	y, oky := b.Y.(*its.Ref)
	if !okx || !oky || x.Var != y.Var {
		return its.Var{}, false
	}
	return x.Var, true
}

func squareName(p its.Var) string { return p.Name + "*" + p.Name }

// steppedByConstants reports whether some transition steps p by a constant (p is a counter).
func steppedByConstants(sys *its.System, p string) bool {
	for _, t := range sys.Trans {
		if e, ok := t.Update[p]; ok {
			if _, ok := constantStep(e, p); ok {
				return true
			}
		}
	}
	return false
}

// constantStep gives k where e is p + k, k + p or p - k (as -k) with k a constant.
func constantStep(e its.Expr, p string) (*big.Int, bool) {
	b, ok := e.(*its.Binary)
	if !ok || (b.Op != its.Add && b.Op != its.Sub) {
		return nil, false
	}
	isP := func(x its.Expr) bool { r, ok := x.(*its.Ref); return ok && r.Var.Name == p }
	k, okk := b.Y.(*its.Const)
	switch {
	case okk && isP(b.X):
		v := k.Sort.Norm(k.Val) // as the sort reads it
		if b.Op == its.Sub {
			v = new(big.Int).Neg(v)
		}
		return v, true
	case b.Op == its.Add && isP(b.Y):
		if k, ok := b.X.(*its.Const); ok {
			return k.Sort.Norm(k.Val), true
		}
	}
	return nil, false
}
