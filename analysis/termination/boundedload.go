package termination

import (
	"fmt"

	"gpuc/analysis/its"
)

// Note [Bounded loads in the proof view]
//
// The proof view drops guard conjuncts that read memory (Note [Proof view]). A loop up to a
// count read from a bounded buffer (Note [Bounded buffers] in package ir), as in `for (i = gid;
// i < live[0] - 1; i += P)` where the kernel itself writes live, then has no bound at all:
// translators read such a load as `v >= 0 ? (v <= CAP ? v : 0) : 0` with v a fresh value, and
// the whole conjunct goes. Such a conjunct is kept instead, each fresh value v in it read as a
// variable that every transition havocs: the value in a pre-state is then any value, as v is,
// so the system has exactly the runs of the original and a proof for it holds there. Only
// conjuncts whose fresh values all sit inside such a clamp are kept, with no Load, and only
// where they read a variable that some transition updates (a counter they may bound): those
// cost the solver little (no address arithmetic) and bound a counter through the clamp's
// parameter, where a compare of the loaded value with values that never change only slows
// every query down (CHR's `live[0] == min(top[0], CAP)` in its compaction).
// A fresh value the guard keeps is the same variable in the transition's updates, as the same
// Nondet node is one value in the original.
//
// A conjunct over bare fresh values (no clamp) is kept too where it bounds what the transition
// sets (Note [Guards on what a transition sets]): a checked fact on a value read from memory
// (Note [Checked facts] in package ir), as Fork's group recursion states of the group size it
// counts in memory, `s := v` under `1 <= v && v <= P`. The argument is the one above: v is a
// variable every transition havocs, the same in the guard and the update, so the runs are the
// original's. Such a compare names the variable set, and the condition search bounds the
// parameters it reads where a stuck loop reads that variable (boundedThroughSetGuards): a stride
// checked against P is bounded through P. testdata/kernels/checked_stride*.kir.

// keepBoundedLoads rewrites the guard conjuncts of sys whose fresh values are all clamped to a
// bounded buffer's range, reading each fresh value as a havocked variable; sys is not changed.
func keepBoundedLoads(sys *its.System) *its.System {
	names := map[string]its.Var{}
	var order []string
	counters := changedVars(sys.Trans...)
	trans := make([]its.Transition, len(sys.Trans))
	changed := false
	for i, t := range sys.Trans {
		nt := t
		vars := map[*its.Nondet]its.Var{}
		nt.Guard = make([]its.Expr, len(t.Guard))
		for j, g := range t.Guard {
			nt.Guard[j] = g
			// Where g bounds what t sets, it is kept too (Note [Guards on what a transition
			// sets]).
			if !its.HasNondet(g) || !keptInProof(sys, t, g, counters) {
				continue
			}
			its.Walk(g, func(x its.Expr) {
				nd, ok := x.(*its.Nondet)
				if !ok || vars[nd].Name != "" {
					return
				}
				v := its.Var{Name: fmt.Sprintf("nondet#%d:%s", len(vars), nd.Sort), Sort: nd.Sort}
				vars[nd] = v
				if _, seen := names[v.Name]; !seen {
					names[v.Name] = v
					order = append(order, v.Name)
				}
			})
			nt.Guard[j] = replaceNondets(g, vars)
		}
		if len(vars) > 0 {
			changed = true
			nt.Update = map[string]its.Expr{}
			for k, e := range t.Update {
				nt.Update[k] = replaceNondets(e, vars)
			}
		}
		trans[i] = nt
	}
	if !changed {
		return sys
	}
	c := *sys
	c.Vars = append([]its.Var(nil), sys.Vars...)
	for _, n := range order {
		c.Vars = append(c.Vars, names[n])
	}
	for i := range trans {
		trans[i].Havoc = append(append([]string(nil), trans[i].Havoc...), order...)
	}
	c.Trans = trans
	return &c
}

// keptInProof reports whether the proof view keeps g, a guard conjunct of t that reads fresh
// values: where they are all clamped and g bounds a counter or what t sets, or where they are
// bare and g bounds what t sets (a checked fact, Note [Checked facts] in package ir).
func keptInProof(sys *its.System, t its.Transition, g its.Expr, counters map[string]bool) bool {
	if clampedOnly(g) {
		return readsAny(g, counters) || setGuard(sys, t, g) != nil
	}
	return !hasLoad(g) && setGuard(sys, t, g) != nil
}

// hasLoad reports whether e reads read-only memory (a Load).
func hasLoad(e its.Expr) bool {
	found := false
	its.Walk(e, func(x its.Expr) {
		_, ok := x.(*its.Load)
		found = found || ok
	})
	return found
}

// readsAny reports whether e reads one of vars.
func readsAny(e its.Expr, vars map[string]bool) bool {
	for v := range its.FreeVars(e) {
		if vars[v] {
			return true
		}
	}
	return false
}

// clampedOnly reports whether every fresh value e reads sits inside a clamp (see clampOf), and e
// reads no Load.
func clampedOnly(e its.Expr) bool {
	ok := true
	var walk func(x its.Expr)
	walk = func(x its.Expr) {
		if !ok {
			return
		}
		switch x := x.(type) {
		case *its.Nondet, *its.Load:
			ok = false
		case *its.Ite:
			if clampOf(x) != nil {
				return
			}
			walk(x.C)
			walk(x.T)
			walk(x.E)
		case *its.Unary:
			walk(x.X)
		case *its.Binary:
			walk(x.X)
			walk(x.Y)
		case *its.Cast:
			walk(x.X)
		}
	}
	walk(e)
	return ok
}

// clampOf gives v where e is `c ? v : 0` or `c ? (c2 ? v : 0) : 0` with v one fresh value and
// the conditions reading no other memory: the form of a load from a bounded buffer.
func clampOf(e *its.Ite) *its.Nondet {
	if z, ok := e.E.(*its.Const); !ok || z.Val.Sign() != 0 {
		return nil
	}
	var v *its.Nondet
	switch t := e.T.(type) {
	case *its.Nondet:
		v = t
	case *its.Ite:
		v = clampOf(t)
	}
	if v == nil {
		return nil
	}
	only := true
	its.Walk(e.C, func(x its.Expr) {
		switch x := x.(type) {
		case *its.Nondet:
			only = only && x == v
		case *its.Load:
			only = false
		}
	})
	if !only {
		return nil
	}
	return v
}

// replaceNondets copies e with the fresh values of vars read as those variables.
func replaceNondets(e its.Expr, vars map[*its.Nondet]its.Var) its.Expr {
	switch x := e.(type) {
	case *its.Nondet:
		if v, ok := vars[x]; ok {
			return its.R(v)
		}
	case *its.Unary:
		return &its.Unary{Op: x.Op, X: replaceNondets(x.X, vars)}
	case *its.Binary:
		return its.B(x.Op, replaceNondets(x.X, vars), replaceNondets(x.Y, vars))
	case *its.Cast:
		c := *x
		c.X = replaceNondets(x.X, vars)
		return &c
	case *its.Ite:
		return &its.Ite{C: replaceNondets(x.C, vars), T: replaceNondets(x.T, vars), E: replaceNondets(x.E, vars)}
	case *its.Load:
		c := *x
		c.Addr = replaceNondets(x.Addr, vars)
		return &c
	}
	return e
}
