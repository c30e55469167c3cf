package termination

import (
	"math/big"

	"gpuc/analysis/its"
)

// Note [Squares that do not wrap]
// `for (p = 2; p * p < N; p++)` (sieve) ends over the integers, but at 32 bits p * p wraps once
// p passes 46340, to a negative value that is below every N: for N above 46340^2 the loop runs
// on (for N = 2^31 - 1 it never ends, since no square is 2^31 - 1 modulo 2^32). A guard compare
// with a side `v * v` proposes the candidate `v <= r`, r the largest value whose square does not
// wrap (46340 signed at 32 bits, 65535 unsigned): it is inductive where the guard fails at
// v = r, which is a bound on the other side (N <= 46340^2), so Houdini keeps it under the
// condition search's bounds on N and drops it without them. With it `v + 1` does not wrap and
// the counter ranks. The candidate is checked like any other: it can make nothing TRUE that
// does not end.

// squareCandidates proposes `v <= r` for every guard compare with a side `v * v`.
func squareCandidates(sys *its.System) []its.Expr {
	var out []its.Expr
	for _, a := range guardAtoms(sys) {
		for _, side := range []its.Expr{a.x, a.y} {
			b, ok := side.(*its.Binary)
			if !ok || b.Op != its.Mul {
				continue
			}
			x, okx := b.X.(*its.Ref)
			y, oky := b.Y.(*its.Ref)
			if !okx || !oky || x.Var != y.Var || x.Var.Sort.IsBool() {
				continue
			}
			s := x.Var.Sort
			w := s.Width
			if s.Signed {
				w--
			}
			top := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(w)), big.NewInt(1))
			r := new(big.Int).Sqrt(top)
			le := its.Ule
			if s.Signed {
				le = its.Sle
			}
			out = append(out, its.B(le, its.R(x.Var), &its.Const{Val: r, Sort: s}))
		}
	}
	return out
}
