package termination

import (
	"fmt"
	"strings"
	"testing"

	"gpuc/analysis/its"
	"gpuc/analysis/smt"
)

// TestExactProductFacts checks Note [Products that cannot wrap]: for every value of the factors,
// the true product meets the facts the encoding states (the solver finds no factors where it
// breaks one), and products that may wrap, or that have a constant factor, stay bvmul.
func TestExactProductFacts(t *testing.T) {
	e := engine(t, "z3")
	ext := func(op its.Op, v its.Var, w int) its.Expr {
		return &its.Cast{Op: op, X: its.R(v), To: its.Sort{Width: w, Signed: true}}
	}
	s8, u8, s9 := its.Var{Name: "x", Sort: its.Sort{Width: 8, Signed: true}}, its.Var{Name: "y", Sort: its.Sort{Width: 8}}, its.Var{Name: "z", Sort: its.Sort{Width: 9, Signed: true}}
	s8b := its.Var{Name: "w", Sort: its.Sort{Width: 8, Signed: true}}
	sys := &its.System{Vars: []its.Var{s8, u8, s9, s8b}}
	for _, c := range []struct {
		x, y  its.Expr
		exact bool
	}{
		{ext(its.SExt, s8, 16), ext(its.SExt, s8b, 16), true},
		{ext(its.SExt, s8, 16), ext(its.SExt, s8, 16), true},
		{ext(its.ZExt, u8, 16), ext(its.ZExt, u8, 16), false}, // 255^2 passes the signed 16-bit range
		{ext(its.ZExt, u8, 24), ext(its.ZExt, u8, 24), true},
		{ext(its.SExt, s8, 16), ext(its.ZExt, u8, 16), true},
		{ext(its.ZExt, u8, 16), ext(its.SExt, s8, 16), true},
		{ext(its.SExt, s8, 12), ext(its.SExt, s8b, 12), false}, // 2^14 does not fit 12 bits
		{ext(its.SExt, s9, 16), ext(its.SExt, s9, 16), false},  // (-256)^2 = 2^16 wraps
		{ext(its.SExt, s8, 16), its.C(3, its.Sort{Width: 16, Signed: true}), false},
		{its.R(s8), its.R(s8b), false},
	} {
		m := its.B(its.Mul, c.x, c.y)
		q := newQuery(sys)
		sc := q.newScope(q.state("0"))
		v, ok := q.byExactProduct(m, sc)
		if ok != c.exact {
			t.Errorf("%s: rewritten %v, want %v", m, ok, c.exact)
			continue
		}
		if !ok {
			continue
		}
		plain := "(bvmul " + q.term(c.x, sc) + " " + q.term(c.y, sc) + ")"
		var facts []string
		for _, l := range strings.Split(q.body.String(), "\n") {
			if f, found := strings.CutPrefix(l, "(assert "); found {
				facts = append(facts, strings.ReplaceAll(strings.TrimSuffix(f, ")"), v, plain))
			}
		}
		if len(facts) < 13 {
			t.Errorf("%s: %d facts, want the range and 12 sign cases", m, len(facts))
		}
		script := q.decls.String() + fmt.Sprintf("(assert (not (and %s)))\n", strings.Join(facts, " "))
		if r, _, err := e.solver.Check(script); err != nil || r != smt.Unsat {
			t.Errorf("%s: the true product breaks a fact (%v %v):\n%s", m, r, err, script)
		}
		if !strings.Contains(q.script(), productsMarker) || strings.Contains(withoutExactProducts(q.script()), "bvmul") {
			t.Errorf("%s: the exact definition is not cut off:\n%s", m, q.script())
		}
	}
}
