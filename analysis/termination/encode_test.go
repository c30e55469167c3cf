package termination

import (
	"fmt"
	"testing"

	"gpuc/analysis/its"
	"gpuc/analysis/smt"
)

// TestPowerOfTwoDivision checks Note [Division by powers of two] against the solver's own
// bvudiv, bvurem, bvsdiv and bvsrem, for every x, at widths 8 and 16 (the encoding is the same
// at every width; a 64-bit divider is too slow for the solver to compare) and several divisors.
func TestPowerOfTwoDivision(t *testing.T) {
	e := engine(t, "z3")
	for _, s := range []its.Sort{{Width: 8, Signed: true}, {Width: 8}, {Width: 16, Signed: true}} {
		x := its.Var{Name: "x", Sort: s}
		sys := &its.System{Vars: []its.Var{x}}
		for _, op := range []its.Op{its.UDiv, its.URem, its.SDiv, its.SRem} {
			for _, dv := range []int64{2, 4, 32, -2, -32, 64, 3} {
				if s.Width == 8 && dv > 32 {
					continue
				}
				ex := its.B(op, its.R(x), its.C(dv, s))
				q := newQuery(sys)
				sc := q.newScope(q.state("0"))
				rewritten, ok := q.byPowerOfTwo(ex, sc)
				unsigned := op == its.UDiv || op == its.URem
				if dv == 3 || (dv < 0 && unsigned) {
					// No power of two as the operator reads the bits.
					if ok {
						t.Errorf("%s %s: rewritten although the divisor is no power of two", s, ex)
					}
					continue
				}
				if !ok {
					t.Errorf("%s %s: not rewritten", s, ex)
					continue
				}
				plain := "(" + binOps[op] + " " + q.term(ex.X, sc) + " " + q.term(ex.Y, sc) + ")"
				q.assert(fmt.Sprintf("(distinct %s %s)", rewritten, plain))
				if r, _, err := e.solver.Check(q.script()); err != nil || r != smt.Unsat {
					t.Errorf("%s %s: the shift form differs from %s (%v %v)", s, ex, binOps[op], r, err)
				}
			}
		}
	}
}

// TestConstantDivision checks Note [Division by other constants] against the solver's own
// operators, for every x at width 8 (the encoding is the same at every width; wider dividers are
// slow for the solver to compare), with divisors of both signs up to the width's limit.
func TestConstantDivision(t *testing.T) {
	e := engine(t, "z3")
	for _, s := range []its.Sort{{Width: 8, Signed: true}, {Width: 8}} {
		x := its.Var{Name: "x", Sort: s}
		sys := &its.System{Vars: []its.Var{x}}
		for _, op := range []its.Op{its.UDiv, its.URem, its.SDiv, its.SRem} {
			for _, dv := range []int64{3, -3, 7, 100, -100, 127, -127, 4, 1} {
				ex := its.B(op, its.R(x), its.C(dv, s))
				q := newQuery(sys)
				sc := q.newScope(q.state("0"))
				rewritten, ok := q.byConstant(ex, sc)
				if dv == 4 || dv == 1 {
					if ok {
						t.Errorf("%s %s: rewritten although the divisor is a power of two", s, ex)
					}
					continue
				}
				if !ok {
					t.Errorf("%s %s: not rewritten", s, ex)
					continue
				}
				plain := "(" + binOps[op] + " " + q.term(ex.X, sc) + " " + q.term(ex.Y, sc) + ")"
				q.assert(fmt.Sprintf("(distinct %s %s)", rewritten, plain))
				if r, _, err := e.solver.Check(q.script()); err != nil || r != smt.Unsat {
					t.Errorf("%s %s: the quotient form differs from %s (%v %v)", s, ex, binOps[op], r, err)
				}
			}
		}
	}
}
