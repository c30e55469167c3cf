package termination

import (
	"math/big"
	"time"
)

// Note [Exact simplex]
// Farkas' lemma turns ranking-function search into a linear program whose rows are often
// dependent equalities; gonum's float64 simplex fails on those (ErrSingular) and any tolerance
// could accept a function that does not rank. So the LP is solved over exact rationals
// (math/big): a two-phase tableau simplex with Bland's rule, which cannot cycle. The programs
// are small (tens of rows), and a pivot only touches the rows whose pivot column is not zero.

// lpRow is one constraint: sum Coef[j]*x_j Op RHS, Op one of '<' (<=), '=' and '>' (>=).
type lpRow struct {
	Coef map[int]*big.Rat
	Op   byte
	RHS  *big.Rat
}

// lp is: maximize Obj . x subject to Rows, x_j >= 0 unless Free[j].
type lp struct {
	N    int
	Free []bool
	Rows []lpRow
	Obj  map[int]*big.Rat
}

type lpStatus int

const (
	lpOptimal lpStatus = iota
	lpInfeasible
	lpUnbounded
)

func (p *lp) newVar(free bool) int {
	p.Free = append(p.Free, free)
	p.N++
	return p.N - 1
}

// solve runs the two-phase simplex; x is the optimal point when the status is lpOptimal.
func (p *lp) solve(maxPivots int, deadline time.Time) (lpStatus, []*big.Rat) {
	// Columns: x+ for each var, x- for free vars, a slack per inequality, an artificial per row.
	pos := make([]int, p.N)
	neg := make([]int, p.N)
	nc := 0
	for j := 0; j < p.N; j++ {
		pos[j] = nc
		nc++
		neg[j] = -1
		if p.Free[j] {
			neg[j] = nc
			nc++
		}
	}
	m := len(p.Rows)
	slack := make([]int, m)
	for i, r := range p.Rows {
		slack[i] = -1
		if r.Op != '=' {
			slack[i] = nc
			nc++
		}
	}
	firstArt := nc
	nc += m
	t := make([][]big.Rat, m)
	rhs := make([]big.Rat, m)
	basis := make([]int, m)
	for i, r := range p.Rows {
		row := make([]big.Rat, nc)
		for j, c := range r.Coef {
			row[pos[j]].Add(&row[pos[j]], c)
			if neg[j] >= 0 {
				row[neg[j]].Sub(&row[neg[j]], c)
			}
		}
		switch r.Op {
		case '<':
			row[slack[i]].SetInt64(1)
		case '>':
			row[slack[i]].SetInt64(-1)
		}
		rhs[i].Set(r.RHS)
		if rhs[i].Sign() < 0 {
			for j := range row {
				row[j].Neg(&row[j])
			}
			rhs[i].Neg(&rhs[i])
		}
		row[firstArt+i].SetInt64(1)
		t[i] = row
		basis[i] = firstArt + i
	}
	// Phase 1: maximize -sum(artificials). Reduced costs r_j = c_j - c_B B^-1 A_j.
	red := make([]big.Rat, nc)
	var val big.Rat // minus the objective value: sum of the artificials in phase 1
	for i := 0; i < m; i++ {
		for j := 0; j < firstArt; j++ {
			red[j].Add(&red[j], &t[i][j])
		}
		val.Add(&val, &rhs[i])
	}
	allowed := func(j int) bool { return true }
	pivots := 0
	run := func() lpStatus {
		for {
			if pivots > maxPivots || (pivots%16 == 0 && !deadline.IsZero() && time.Now().After(deadline)) {
				return lpInfeasible // give up: the caller reads it as "no function"
			}
			enter := -1
			for j := 0; j < nc; j++ {
				if red[j].Sign() > 0 && allowed(j) {
					enter = j
					break
				}
			}
			if enter < 0 {
				return lpOptimal
			}
			leave := -1
			var best, ratio big.Rat
			for i := 0; i < m; i++ {
				if t[i][enter].Sign() <= 0 {
					continue
				}
				ratio.Quo(&rhs[i], &t[i][enter])
				if leave < 0 || ratio.Cmp(&best) < 0 || (ratio.Cmp(&best) == 0 && basis[i] < basis[leave]) {
					leave = i
					best.Set(&ratio)
				}
			}
			if leave < 0 {
				return lpUnbounded
			}
			pivot(t, rhs, red, &val, leave, enter)
			basis[leave] = enter
			pivots++
		}
	}
	if st := run(); st != lpOptimal {
		return lpInfeasible, nil
	}
	if val.Sign() != 0 {
		return lpInfeasible, nil
	}
	// Drive artificials out of the basis where a real column can replace them.
	for i := 0; i < m; i++ {
		if basis[i] < firstArt {
			continue
		}
		for j := 0; j < firstArt; j++ {
			if t[i][j].Sign() != 0 {
				pivot(t, rhs, red, &val, i, j)
				basis[i] = j
				break
			}
		}
	}
	// Phase 2.
	allowed = func(j int) bool { return j < firstArt }
	cost := make([]big.Rat, nc)
	for j, c := range p.Obj {
		cost[pos[j]].Add(&cost[pos[j]], c)
		if neg[j] >= 0 {
			cost[neg[j]].Sub(&cost[neg[j]], c)
		}
	}
	for j := range red {
		red[j].Set(&cost[j])
	}
	val.SetInt64(0)
	var tmp big.Rat
	for i := 0; i < m; i++ {
		cb := &cost[basis[i]]
		if cb.Sign() == 0 {
			continue
		}
		for j := 0; j < nc; j++ {
			if t[i][j].Sign() != 0 {
				tmp.Mul(cb, &t[i][j])
				red[j].Sub(&red[j], &tmp)
			}
		}
		tmp.Mul(cb, &rhs[i])
		val.Sub(&val, &tmp)
	}
	switch run() {
	case lpUnbounded:
		return lpUnbounded, nil
	case lpInfeasible:
		return lpInfeasible, nil
	}
	col := make([]big.Rat, nc)
	for i := 0; i < m; i++ {
		col[basis[i]].Set(&rhs[i])
	}
	x := make([]*big.Rat, p.N)
	for j := 0; j < p.N; j++ {
		v := new(big.Rat).Set(&col[pos[j]])
		if neg[j] >= 0 {
			v.Sub(v, &col[neg[j]])
		}
		x[j] = v
	}
	return lpOptimal, x
}

// pivot makes column c basic in row r.
func pivot(t [][]big.Rat, rhs, red []big.Rat, val *big.Rat, r, c int) {
	var inv, f, tmp big.Rat
	inv.Inv(&t[r][c])
	row := t[r]
	var nz []int
	for j := range row {
		if row[j].Sign() != 0 {
			row[j].Mul(&row[j], &inv)
			nz = append(nz, j)
		}
	}
	rhs[r].Mul(&rhs[r], &inv)
	for i := range t {
		if i == r || t[i][c].Sign() == 0 {
			continue
		}
		f.Set(&t[i][c])
		for _, j := range nz {
			tmp.Mul(&f, &row[j])
			t[i][j].Sub(&t[i][j], &tmp)
		}
		tmp.Mul(&f, &rhs[r])
		rhs[i].Sub(&rhs[i], &tmp)
	}
	if red[c].Sign() != 0 {
		f.Set(&red[c])
		for _, j := range nz {
			tmp.Mul(&f, &row[j])
			red[j].Sub(&red[j], &tmp)
		}
		tmp.Mul(&f, &rhs[r])
		val.Sub(val, &tmp)
	}
}
