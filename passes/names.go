package passes

import (
	"gpuc/ir"
)

// namer hands out names that collide with nothing in a module: no
// module-level name, no local of any function, no builtin or type name.
type namer struct {
	taken map[string]bool
}

func newNamer(m *ir.Module) *namer { return &namer{taken: ir.DeclaredNames(m)} }

// fresh returns base if it is free, else base_2, base_3, ..., and takes it.
func (n *namer) fresh(base string) string {
	name := ir.FreshName(base, 2, func(s string) bool { return n.taken[s] })
	n.taken[name] = true
	return name
}

// uniquifyLocals renames the locals declared in body so that no two
// declarations share a name, using n for fresh names; afterwards a local
// is known by its name alone. Uses are renamed with their declarations,
// by scope.
func uniquifyLocals(body []ir.Stmt, n *namer) {
	seen := map[string]bool{}
	var scopes []map[string]string
	lookup := func(name string) string {
		for i := len(scopes) - 1; i >= 0; i-- {
			if to, ok := scopes[i][name]; ok {
				return to
			}
		}
		return name
	}
	rename := func(e ir.Expr) ir.Expr {
		if v, ok := e.(*ir.Var); ok {
			v.Name = lookup(v.Name)
		}
		return e
	}
	declare := func(d *ir.Decl) {
		to := d.Name
		if seen[d.Name] {
			to = n.fresh(d.Name)
		}
		seen[d.Name], seen[to] = true, true
		scopes[len(scopes)-1][d.Name] = to
		d.Name = to
	}
	var list func([]ir.Stmt)
	simple := func(s ir.Stmt) {
		ir.RewriteStmtExprs(s, rename)
		switch s := s.(type) {
		case *ir.Decl:
			declare(s)
		case *ir.Assign:
			s.Name = lookup(s.Name)
		case *ir.Atomic:
			if s.Dst != "" {
				s.Dst = lookup(s.Dst)
			}
		}
	}
	list = func(body []ir.Stmt) {
		scopes = append(scopes, map[string]string{})
		defer func() { scopes = scopes[:len(scopes)-1] }()
		for _, s := range body {
			if f, ok := s.(*ir.For); ok {
				scopes = append(scopes, map[string]string{})
				if f.Init != nil {
					simple(f.Init)
				}
				f.Cond = ir.RewriteExpr(f.Cond, rename)
				if f.Post != nil {
					simple(f.Post)
				}
				list(f.Body)
				scopes = scopes[:len(scopes)-1]
				continue
			}
			simple(s)
			for _, sub := range ir.SubBodies(s) {
				list(sub)
			}
		}
	}
	list(body)
}

// freshenLocals renames the parameters and locals of a function that a
// pass wrote, whose names are unique within it, to names free in the
// module.
func freshenLocals(f *ir.Func, n *namer) {
	to := map[string]string{}
	for _, p := range f.Params {
		to[p.Name] = n.fresh(p.Name)
		p.Name = to[p.Name]
	}
	ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
		if d := ir.DeclOf(s); d != nil {
			if _, ok := to[d.Name]; !ok {
				to[d.Name] = n.fresh(d.Name)
			}
		}
		return true
	})
	renameLocals(f.Body, to)
}

// renameLocals renames the locals of body that to maps, at their
// declarations, assignments and uses.
func renameLocals(body []ir.Stmt, to map[string]string) {
	rename := func(name string) string {
		if r, ok := to[name]; ok {
			return r
		}
		return name
	}
	walkSetLocals(body, func(name *string) { *name = rename(*name) })
	ir.RewriteAllExprs(body, func(e ir.Expr) ir.Expr {
		if v, ok := e.(*ir.Var); ok {
			v.Name = rename(v.Name)
		}
		return e
	})
}
