package termination

import (
	"math/big"
	"strings"

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

// squareVarCandidates proposes `p*p >= p + p` and `p*p >= p` for each square variable of the
// condition search's copy (Note [Squares as counters]).
func squareVarCandidates(sys *its.System) []its.Expr {
	var out []its.Expr
	byName := map[string]its.Var{}
	for _, v := range sys.Vars {
		if strings.Contains(v.Name, "*") {
			byName[v.Name] = v
		}
	}
	if len(byName) == 0 {
		return nil
	}
	for _, p := range sys.Vars {
		if v, ok := byName[squareName(p)]; ok && p.Sort == v.Sort && !p.Sort.IsBool() {
			ge := its.Uge
			if p.Sort.Signed {
				ge = its.Sge
			}
			out = append(out, its.B(ge, its.R(v), its.B(its.Add, its.R(p), its.R(p))), its.B(ge, its.R(v), its.R(p)))
		}
	}
	return out
}

// squareGuard reports whether a guard of one of the transitions ts, or of a transition into or
// out of their sources (the way into an inner loop), compares a square `v * v` with a value
// that no transition of the system changes: the square's candidate holds only under a bound on
// that value, which only the condition search supplies (Note [Squares that do not wrap]), so
// the Houdini stages of the proof without a condition cannot help.
func squareGuard(sys *its.System, ts []int) bool {
	changed := changedVars(sys.Trans...)
	at := map[int]bool{}
	for _, ti := range ts {
		at[sys.Trans[ti].From] = true
	}
	found := false
	for _, t := range sys.Trans {
		if !at[t.From] && !at[t.To] {
			continue
		}
		for _, g := range t.Guard {
			its.Walk(g, func(e its.Expr) {
				b, ok := e.(*its.Binary)
				if !ok || !b.Op.IsCompare() || its.HasNondet(b) {
					return
				}
				for _, sides := range [][2]its.Expr{{b.X, b.Y}, {b.Y, b.X}} {
					if _, sq := squareOf(sides[0]); sq && its.ReadsOnly(sides[1], func(n string) bool { return !changed[n] }) {
						found = true
					}
				}
			})
		}
	}
	return found
}
