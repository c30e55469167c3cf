package trs

import (
	"strings"
	"testing"
)

// rulesOf prints the rules of the symbol called name and of the let
// symbols they lead to, one per line.
func rulesOf(sys *System, name string) string {
	var b strings.Builder
	var show func(s *Sym)
	show = func(s *Sym) {
		for _, r := range s.Rules {
			b.WriteString(sys.Format(r.LHS) + " -> " + sys.Format(r.RHS) + "\n")
			if r.RHS.Sym != nil && r.RHS.Sym.Aux {
				show(r.RHS.Sym)
			}
		}
	}
	show(sys.Lookup(name))
	return b.String()
}

// Repeated pending subterms of a right-hand side are let, the smallest
// first, and what the right-hand side shares stays shared (Note
// [Repeated subterms]); repeats in normal form when made are not let.
func TestShareRepeats(t *testing.T) {
	sys := mustLoad(t, `(VAR x y)
(RULES
  g(0) -> 0
  g(s(x)) -> h(g(x), g(x))
  h(x, y) -> s(x)
  f(s(x)) -> c(g(s(x)), g(s(x)), s(x))
  k(x) -> c(g(g(x)), g(g(x)), g(x))
  n(x) -> c(s(s(x)), s(s(x)), x)
)`, "g(s(s(0)))")
	for name, want := range map[string]string{
		"g": "g(0) -> 0\ng(s(x)) -> g.let.6(g(x))\ng.let.6(Z0) -> h(Z0, Z0)\n",
		// s(x), a copy of the left-hand side's subterm, is passed on.
		"f": "f(s(x)) -> f.let.7(g(s(x)), s(x))\nf.let.7(Z0, Z1) -> c(Z0, Z0, Z1)\n",
		"k": "k(x) -> k.let.8(g(x))\nk.let.8(Z0) -> k.let.9(g(Z0), Z0)\nk.let.9(Z0, Z1) -> c(Z0, Z0, Z1)\n",
		"n": "n(x) -> c(s(s(x)), s(s(x)), x)\n",
	} {
		if got := rulesOf(sys, name); got != want {
			t.Errorf("%s:\n%swant\n%s", name, got, want)
		}
	}
}

// A let takes along the largest pending subterms that hold no repeat, so
// that they are rewritten beside the repeats (Note [Repeated subterms]);
// what holds a repeat stays in the let's rule.
func TestShareIndependent(t *testing.T) {
	sys := mustLoad(t, `(VAR x y)
(RULES
  g(0) -> 0
  g(s(x)) -> s(g(x))
  h(x, y) -> s(x)
  m(x) -> c(g(x), g(x), s(g(s(x))))
  p(x) -> c(h(g(x), g(s(x))), g(x), x)
  q(x) -> c(h(g(g(x)), g(s(x))), g(g(x)), g(x))
)`, "g(s(s(0)))")
	for name, want := range map[string]string{
		"m": "m(x) -> m.let.6(g(x), s(g(s(x))))\nm.let.6(Z0, Z1) -> c(Z0, Z0, Z1)\n",
		"p": "p(x) -> p.let.7(g(x), g(s(x)), x)\np.let.7(Z0, Z1, Z2) -> c(h(Z0, Z1), Z0, Z2)\n",
		// g(s(x)) goes along with g(x), the first repeat, and h(...)
		// waits for the second, g(g(x)).
		"q": "q(x) -> q.let.8(g(x), g(s(x)))\nq.let.8(Z0, Z1) -> q.let.9(g(Z0), Z1, Z0)\nq.let.9(Z0, Z1, Z2) -> c(h(Z0, Z1), Z0, Z2)\n",
	} {
		if got := rulesOf(sys, name); got != want {
			t.Errorf("%s:\n%swant\n%s", name, got, want)
		}
	}
}
