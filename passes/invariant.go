package passes

import (
	"sort"
	"strconv"
	"strings"

	"gpuc/ir"
)

// invariants knows which names in a region body hold the same value on
// every processor for the whole region: locals that are only ever
// initialised, with invariant values, and names the region does not
// declare at all (host variables it captures).
type invariants struct {
	declared map[string]bool
	invalid  map[string]bool // not invariant
	assigned map[string]bool // set after its declaration, or declared without a value
	inits    map[string][]ir.Expr
}

func findInvariants(body []ir.Stmt) invariants {
	inv := invariants{declared: map[string]bool{}, invalid: map[string]bool{}, assigned: map[string]bool{}, inits: map[string][]ir.Expr{}}
	declare := func(d *ir.Decl) {
		inv.declared[d.Name] = true
		if d.Init == nil {
			inv.invalid[d.Name] = true
			return
		}
		inv.inits[d.Name] = append(inv.inits[d.Name], d.Init)
	}
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Decl:
			declare(s)
		case *ir.For:
			if d, ok := s.Init.(*ir.Decl); ok {
				declare(d)
			}
			if a, ok := s.Init.(*ir.Assign); ok {
				inv.invalid[a.Name] = true
			}
			if a, ok := s.Post.(*ir.Assign); ok {
				inv.invalid[a.Name] = true
			}
		case *ir.Assign:
			inv.invalid[s.Name] = true
		case *ir.Atomic:
			if s.Dst != "" {
				inv.invalid[s.Dst] = true
			}
		}
		return true
	})
	for name := range inv.invalid {
		inv.assigned[name] = true
	}
	// An initialiser must itself be invariant; iterate to a fixpoint.
	for changed := true; changed; {
		changed = false
		for name, inits := range inv.inits {
			if inv.invalid[name] {
				continue
			}
			for _, e := range inits {
				if !inv.expr(e) {
					inv.invalid[name] = true
					changed = true
					break
				}
			}
		}
	}
	return inv
}

// expr reports whether e has one value on all processors, all region long.
func (inv invariants) expr(e ir.Expr) bool {
	ok := true
	ir.WalkExpr(e, func(x ir.Expr) bool {
		switch x := x.(type) {
		case *ir.Var:
			ok = ok && !inv.invalid[x.Name]
		case *ir.Builtin:
			ok = ok && (x.Op == ir.NumProcs || x.Op.Arity() > 0 && x.Op != ir.Hybrid)
		case *ir.Load, *ir.Call:
			ok = false
		}
		return ok
	})
	return ok
}

func printTerm(t term) string {
	return strconv.FormatInt(t.coef, 10) + "*" + ir.PrintExpr(t.x)
}

// joinSorted joins parts in sorted order, so that sums written in
// different orders compare equal.
func joinSorted(parts []string) string {
	sort.Strings(parts)
	return strings.Join(parts, " + ")
}

// expand replaces locals that are defined once and never assigned by
// their definitions, depth levels deep, so that an index written through
// helpers (i = pid() / N; j = pid() % N; a[i * N + j]) shows its shape.
func (inv invariants) expand(e ir.Expr, depth int) ir.Expr {
	if depth == 0 {
		return e
	}
	return ir.RewriteExpr(ir.CloneExpr(e), func(x ir.Expr) ir.Expr {
		v, ok := x.(*ir.Var)
		if !ok || inv.assigned[v.Name] || len(inv.inits[v.Name]) != 1 {
			return x
		}
		return inv.expand(inv.inits[v.Name][0], depth-1)
	})
}

// foldRowMajor rewrites (p / K) * K + p % K, with p pid() or gid(), to p:
// the row-major index of a processor's own element of a K-column array,
// as frontends flatten two-dimensional arrays.
func foldRowMajor(e ir.Expr) ir.Expr {
	return ir.RewriteExpr(e, func(x ir.Expr) ir.Expr {
		b, ok := x.(*ir.Binary)
		if !ok || b.Op != ir.Add {
			return x
		}
		for _, pair := range [][2]ir.Expr{{b.X, b.Y}, {b.Y, b.X}} {
			if p, ok := rowMajor(pair[0], pair[1]); ok {
				return p
			}
		}
		return x
	})
}

// rowMajor matches mul = (p / K) * K (either factor order) and rem = p % K.
func rowMajor(mul, rem ir.Expr) (ir.Expr, bool) {
	m, ok1 := mul.(*ir.Binary)
	r, ok2 := rem.(*ir.Binary)
	if !ok1 || !ok2 || m.Op != ir.Mul || r.Op != ir.Rem {
		return nil, false
	}
	b, ok := r.X.(*ir.Builtin)
	if !ok || (b.Op != ir.ProcID && b.Op != ir.GlobalID) {
		return nil, false
	}
	k := ir.PrintExpr(r.Y)
	for _, f := range [][2]ir.Expr{{m.X, m.Y}, {m.Y, m.X}} {
		d, ok := f[0].(*ir.Binary)
		if ok && d.Op == ir.Div && ir.PrintExpr(d.X) == ir.PrintExpr(r.X) && ir.PrintExpr(d.Y) == k && ir.PrintExpr(f[1]) == k {
			return r.X, true
		}
	}
	return nil, false
}
