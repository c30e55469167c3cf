package termination

import "gpuc/analysis/its"

// Note [Clamped grid strides]
//
// A strided cooperative kernel (Note [Strided cooperative kernels] in passes/grid_stride.go)
// runs the processors gid, gid + T, ... of each piece with
//
//	for (v = gid(); v < procs; v = v + max(min(T, procs - v), 1))
//
// T = gdim() * bdim(), the launch's threads. The clamp is there so that v never wraps: under
// the guard v < procs the step lies in [1, procs - v] whatever T is, so v ends at most at
// procs, and procs - v ranks the loop. T's value does not matter to that, but it cost: every
// query that reads v carried the 32-bit product gdim * bdim and, through the launch facts,
// gdim = (PROCS + 255) / 256 (about 100 ms of z3 inside push/pop for each such loop's ranking
// check, against 40 ms without it, and a CHR strided kernel holds eight of them), and the
// product made the launch sizes candidates of Note [Conditions through products], so the
// condition search needed the witness search first (Note [Conditions before witnesses]).
//
// So before the analysis each update `v := v + max(min(X, B - v), c)` (the ITS form of the clamp:
// `(m <=s c) ? c : m` with `m = (X <=s B - v) ? X : B - v`, c a constant >= 1, so that the
// step is at least 1 whatever X is) has X replaced by a
// fresh value, one per firing, for the proofs (the witness search reads the exact system, whose
// transitions and variables are the same). That is an over-approximation: every run of the
// original system is a run of the new one (the fresh value taken equal to X), so a proof of the
// new system holds for the original; the invariants it finds hold for the original too, which
// is what the witness search takes from it. Where a proof needs X itself (nothing in the strided
// loops does), it is lost, never made wrong. The cases in testdata/kernels: gridstride_clamp.kir
// TRUE; its mutants, a clamp to 0 (not recognised: the step may be 0), a clamp to procs + vp (not
// recognised), and a body that steps vp back (recognised, and must not be proved), are not TRUE.

// clampStrides gives sys with the clamped strides' X replaced by fresh values, or sys itself
// where it has none.
func clampStrides(sys *its.System) *its.System {
	var out *its.System
	for ti, t := range sys.Trans {
		var nu map[string]its.Expr
		for _, v := range its.SortedUpdates(t) {
			ne, ok := unclampStride(v, t.Update[v])
			if !ok {
				continue
			}
			if nu == nil {
				nu = make(map[string]its.Expr, len(t.Update))
				for k, x := range t.Update {
					nu[k] = x
				}
			}
			nu[v] = ne
		}
		if nu == nil {
			continue
		}
		if out == nil {
			c := *sys
			c.Trans = append([]its.Transition(nil), sys.Trans...)
			out = &c
		}
		out.Trans[ti].Update = nu
	}
	if out == nil {
		return sys
	}
	return out
}

// unclampStride matches e, the update of v, against v + max(min(X, B - v), c) and gives it with
// X fresh (Note [Clamped grid strides]).
func unclampStride(v string, e its.Expr) (its.Expr, bool) {
	add, ok := e.(*its.Binary)
	if !ok || add.Op != its.Add || !isRefTo(add.X, v) {
		return nil, false
	}
	mx, ok := add.Y.(*its.Ite)
	if !ok {
		return nil, false
	}
	cond, ok := mx.C.(*its.Binary)
	if !ok || cond.Op != its.Sle {
		return nil, false
	}
	c, ok := mx.T.(*its.Const)
	if !ok || c.Val.Sign() <= 0 {
		return nil, false // a step that may be 0 or negative: X matters
	}
	if d, ok := cond.Y.(*its.Const); !ok || d.Val.Cmp(c.Val) != 0 {
		return nil, false
	}
	m, ok := cond.X.(*its.Ite)
	if !ok || m.String() != mx.E.String() {
		return nil, false
	}
	mc, ok := m.C.(*its.Binary)
	if !ok || mc.Op != its.Sle || mc.X.String() != m.T.String() || mc.Y.String() != m.E.String() {
		return nil, false
	}
	d, ok := m.E.(*its.Binary)
	if !ok || d.Op != its.Sub || !isRefTo(d.Y, v) {
		return nil, false
	}
	x := m.T
	if _, fresh := x.(*its.Nondet); fresh {
		return nil, false // already fresh
	}
	n := &its.Nondet{Sort: its.SortOf(x), Why: "clamped stride"}
	m2 := &its.Ite{C: its.B(its.Sle, n, d), T: n, E: d}
	return its.B(its.Add, add.X, &its.Ite{C: its.B(its.Sle, m2, c), T: c, E: m2}), true
}

func isRefTo(e its.Expr, v string) bool {
	r, ok := e.(*its.Ref)
	return ok && r.Var.Name == v
}
