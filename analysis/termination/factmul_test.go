package termination

import (
	"fmt"
	"strings"
	"testing"

	"gpuc/analysis/its"
	"gpuc/analysis/smt"
)

// TestProductsBoundedByFacts checks Note [Products bounded by the facts]: a conjunction whose
// compares bound a product's factors encodes the product over the factors' bits, and the
// rewritten conjunction is the same formula as the plain one (the solver finds no assignment
// where they differ); a factor the compares leave unbounded, or bounds only through a product,
// keeps the product whole.
func TestProductsBoundedByFacts(t *testing.T) {
	e := engine(t, "z3")
	// 16 bits, so that the solver decides the equivalence of the two multipliers at once.
	u16 := its.Sort{Width: 16}
	v := func(n string) its.Var { return its.Var{Name: n, Sort: u16} }
	tid, bdim, bid, gdim, gid, z := v("tid"), v("bdim"), v("bid"), v("gdim"), v("gid"), v("z")
	sys := &its.System{Vars: []its.Var{tid, bdim, bid, gdim, gid, z}}
	c := func(k int64) its.Expr { return its.C(k, u16) }
	launch := []its.Expr{
		its.B(its.Ult, its.R(tid), its.R(bdim)),
		its.B(its.LAnd, its.B(its.Ule, c(1), its.R(bdim)), its.B(its.Ule, its.R(bdim), c(16))),
		its.B(its.Ult, its.R(bid), its.R(gdim)),
		its.B(its.Ule, its.R(gdim), c(127)),
		its.B(its.Eq, its.R(gid), its.B(its.Add, its.B(its.Mul, its.R(bid), its.R(bdim)), its.R(tid))),
	}
	for _, tc := range []struct {
		name   string
		es     []its.Expr
		narrow string // the multiplier's width, "" where the product stays whole
	}{
		{"launch", launch, "11"}, // 126 * 16 < 2^11
		{"bounded block", append(append([]its.Expr(nil), launch...), its.B(its.Ule, its.R(bid), c(16))), "9"}, // 16 * 16 = 2^8
		{"unbounded factor", append(append([]its.Expr(nil), launch[:2]...), launch[4]), ""},
		// z's bound comes only through a product: it bounds no factor.
		{"through a product", []its.Expr{its.B(its.Ule, its.R(bdim), c(8)), its.B(its.Ule, its.B(its.Mul, its.R(z), its.R(bdim)), c(100)), its.B(its.Eq, its.R(gid), its.B(its.Mul, its.R(z), its.R(bdim)))}, ""},
	} {
		q := newQuery(sys)
		x0 := q.state("0")
		narrowed := conjTerm(q, tc.es, x0)
		var plain []string
		sc := q.newScope(x0)
		for _, x := range tc.es {
			plain = append(plain, q.term(x, sc))
		}
		got := ""
		if i := strings.Index(narrowed, "(bvmul ((_ zero_extend"); i >= 0 {
			// The multiplier's width: the extension's width plus the factor's bits.
			var ext, hi int
			if _, err := fmt.Sscanf(narrowed[i:], "(bvmul ((_ zero_extend %d) ((_ extract %d 0)", &ext, &hi); err == nil {
				got = fmt.Sprint(ext + hi + 1)
			}
		}
		if got != tc.narrow {
			t.Errorf("%s: multiplier of %q bits, want %q:\n%s", tc.name, got, tc.narrow, narrowed)
		}
		script := q.decls.String() + q.body.String() + fmt.Sprintf("(assert (distinct %s %s))\n", narrowed, and(plain))
		if r, _, err := e.solver.Check(script); err != nil || r != smt.Unsat {
			t.Errorf("%s: the rewritten conjunction differs from the plain one (%v %v):\n%s", tc.name, r, err, script)
		}
	}
}
