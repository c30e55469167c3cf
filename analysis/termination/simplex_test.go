package termination

import (
	"math/big"
	"testing"
	"time"
)

func r(n, d int64) *big.Rat { return big.NewRat(n, d) }

// TestSimplex solves small LPs with known optima, including dependent equality rows (where a
// float64 simplex reports a singular basis) and free variables.
func TestSimplex(t *testing.T) {
	// maximize x + y  s.t.  x + 2y <= 4, 3x + y <= 6, x + y = x + y (twice, dependent), x, y >= 0
	// optimum at x = 8/5, y = 6/5, value 14/5.
	p := &lp{Obj: map[int]*big.Rat{}}
	x, y := p.newVar(false), p.newVar(false)
	p.Obj[x], p.Obj[y] = r(1, 1), r(1, 1)
	p.Rows = append(p.Rows,
		lpRow{Coef: map[int]*big.Rat{x: r(1, 1), y: r(2, 1)}, Op: '<', RHS: r(4, 1)},
		lpRow{Coef: map[int]*big.Rat{x: r(3, 1), y: r(1, 1)}, Op: '<', RHS: r(6, 1)},
		lpRow{Coef: map[int]*big.Rat{x: r(1, 1), y: r(-1, 1)}, Op: '=', RHS: r(2, 5)},
		lpRow{Coef: map[int]*big.Rat{x: r(2, 1), y: r(-2, 1)}, Op: '=', RHS: r(4, 5)},
	)
	st, sol := p.solve(100, time.Time{})
	if st != lpOptimal {
		t.Fatalf("status %d", st)
	}
	if sol[x].Cmp(r(8, 5)) != 0 || sol[y].Cmp(r(6, 5)) != 0 {
		t.Errorf("got x=%s y=%s, want 8/5 and 6/5", sol[x], sol[y])
	}
	// A free variable: maximize -z s.t. z >= -3 (z free): z = -3.
	q := &lp{Obj: map[int]*big.Rat{}}
	z := q.newVar(true)
	q.Obj[z] = r(-1, 1)
	q.Rows = append(q.Rows, lpRow{Coef: map[int]*big.Rat{z: r(1, 1)}, Op: '>', RHS: r(-3, 1)})
	if st, sol := q.solve(100, time.Time{}); st != lpOptimal || sol[z].Cmp(r(-3, 1)) != 0 {
		t.Errorf("free variable: status %d, z = %v", st, sol)
	}
	// Infeasible: x >= 2, x <= 1.
	u := &lp{Obj: map[int]*big.Rat{}}
	w := u.newVar(false)
	u.Rows = append(u.Rows, lpRow{Coef: map[int]*big.Rat{w: r(1, 1)}, Op: '>', RHS: r(2, 1)},
		lpRow{Coef: map[int]*big.Rat{w: r(1, 1)}, Op: '<', RHS: r(1, 1)})
	if st, _ := u.solve(100, time.Time{}); st != lpInfeasible {
		t.Errorf("infeasible LP: status %d", st)
	}
	// Unbounded: maximize x with x >= 0 only.
	v := &lp{Obj: map[int]*big.Rat{}}
	a := v.newVar(false)
	v.Obj[a] = r(1, 1)
	v.Rows = append(v.Rows, lpRow{Coef: map[int]*big.Rat{a: r(1, 1)}, Op: '>', RHS: r(0, 1)})
	if st, _ := v.solve(100, time.Time{}); st != lpUnbounded {
		t.Errorf("unbounded LP: status %d", st)
	}
}
