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
	invalid  map[string]bool
	inits    map[string][]ir.Expr
}

func findInvariants(body []ir.Stmt) invariants {
	inv := invariants{declared: map[string]bool{}, invalid: map[string]bool{}, inits: map[string][]ir.Expr{}}
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
			ok = ok && (x.Op == ir.NumProcs || x.Op.Arity() > 0)
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
