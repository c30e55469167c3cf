package termination

import "gpuc/analysis/its"

// Note [Guards on what a transition sets]
// A transition that sets v := e under a guard that compares e itself leaves that compare true
// of v at its target: CHR's output sort reads `live = min(...)` of a load, raises where live >
// 2^30 and then doubles `grow` while grow < live; the transition into the loop has the guard
// `e <= 2^30` and the update `live := e`, e a clamp of one fresh value (the same node in both:
// Note [Thread-modular ITS]). The available compares (Note [Invariants for free]) dropped the
// guard, which reads a fresh value, so live had no upper bound at the loop, grow * 2 could wrap,
// and the loop needed a bound on the store's capacity; Houdini looked for the bound in vain in
// every CHR cooperative kernel that sorts its output (a second of the solver's 3 s).
//
// So the compare with e replaced by v is an available compare after the transition, where e is
// one value within the transition (sameSet: the same nodes of fresh values) and the compare
// reads nothing else the transition changes (its other variables keep their values, so the
// compare over the old state is the same compare over the new). It reads no fresh value once
// replaced. Houdini checks it like every candidate; a guard on another load than the one v is
// set from is left alone (testdata/kernels/setguard_other.kir).

// setGuards gives the compares that hold of the variables t sets, from t's guards.
func setGuards(sys *its.System, t its.Transition) []its.Expr {
	var out []its.Expr
	for _, g := range t.Guard {
		out = append(out, setGuard(sys, t, g)...)
	}
	return out
}

// setGuard gives the compares that hold of the variables t sets, from g, a guard of t.
func setGuard(sys *its.System, t its.Transition, g its.Expr) []its.Expr {
	if b, ok := g.(*its.Binary); !ok || !b.Op.IsCompare() {
		return nil
	}
	changes := changedVars(t)
	var out []its.Expr
	for _, k := range its.SortedUpdates(t) {
		e := t.Update[k]
		v, ok := sys.Var(k)
		if !ok || v.Sort.IsBool() {
			continue
		}
		switch e.(type) {
		case *its.Ref, *its.Const:
			continue
		}
		marked, n := replaceSet(g, e, its.R(its.Var{Name: "\x00set", Sort: v.Sort}))
		if n == 0 || its.HasNondet(marked) || readsAny(marked, changes) {
			continue
		}
		r, _ := replaceSet(g, e, its.R(v))
		out = append(out, r)
	}
	return out
}

// replaceSet copies g with each part that is one value with e (sameSet) read as to, and counts
// the parts replaced.
func replaceSet(g, e, to its.Expr) (its.Expr, int) {
	if sameSet(g, e) {
		return to, 1
	}
	switch x := g.(type) {
	case *its.Unary:
		a, n := replaceSet(x.X, e, to)
		return &its.Unary{Op: x.Op, X: a}, n
	case *its.Binary:
		a, n := replaceSet(x.X, e, to)
		b, m := replaceSet(x.Y, e, to)
		return its.B(x.Op, a, b), n + m
	case *its.Cast:
		c := *x
		a, n := replaceSet(x.X, e, to)
		c.X = a
		return &c, n
	case *its.Ite:
		c, n := replaceSet(x.C, e, to)
		a, m := replaceSet(x.T, e, to)
		b, k := replaceSet(x.E, e, to)
		return &its.Ite{C: c, T: a, E: b}, n + m + k
	}
	return g, 0
}

// sameSet is sameValue with selects compared part by part.
func sameSet(a, b its.Expr) bool {
	x, ok := a.(*its.Ite)
	y, ok2 := b.(*its.Ite)
	if ok && ok2 {
		return sameSet(x.C, y.C) && sameSet(x.T, y.T) && sameSet(x.E, y.E)
	}
	return sameValue(a, b)
}

// boundedThroughSetGuards adds to read the variables of the compares that transitions' guards
// give on what they set (setGuards), where such a compare reads a variable in read: a loop that
// steps by a value checked against a parameter where it is set (`if !(1 <= sz && sz <= P)
// raise`, Note [Checked facts] in package ir) is bounded through that parameter, so the
// condition search may bound it (as through a bounded buffer's parameter).
func boundedThroughSetGuards(sys *its.System, read map[string]bool) {
	for _, t := range sys.Trans {
		for _, c := range setGuards(sys, t) {
			if readsAny(c, read) {
				for v := range its.FreeVars(c) {
					read[v] = true
				}
			}
		}
	}
}
