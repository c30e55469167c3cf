package passes

import (
	"errors"

	"gpuc/ir"
)

// readIn reports whether body reads the local name.
func readIn(name string, body []ir.Stmt) bool {
	return ir.AnyExprIn(body, isLocal(name))
}

// readsLocal reports whether e reads the local name.
func readsLocal(name string, e ir.Expr) bool {
	return ir.AnyExpr(e, isLocal(name))
}

// isLocal returns a predicate that holds for reads of the local name.
func isLocal(name string) func(ir.Expr) bool {
	return func(x ir.Expr) bool {
		v, ok := x.(*ir.Var)
		return ok && v.Name == name
	}
}

// setsLocal returns the local that s sets and its new value, if s is a
// declaration (whose value may be nil) or an assignment.
func setsLocal(s ir.Stmt) (name string, value ir.Expr, ok bool) {
	switch s := s.(type) {
	case *ir.Decl:
		return s.Name, s.Init, true
	case *ir.Assign:
		return s.Name, s.Value, true
	}
	return "", nil, false
}

// walkSetLocals calls f on the name of each local that a statement of
// body declares or sets: declarations, assignments and atomics (whose
// name is "" where they keep no result), For inits and posts included.
func walkSetLocals(body []ir.Stmt, f func(name *string)) {
	var visit func(s ir.Stmt)
	visit = func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Decl:
			f(&s.Name)
		case *ir.Assign:
			f(&s.Name)
		case *ir.Atomic:
			f(&s.Dst)
		case *ir.For:
			if s.Init != nil {
				visit(s.Init)
			}
			if s.Post != nil {
				visit(s.Post)
			}
		}
	}
	ir.WalkStmts(body, func(s ir.Stmt) bool { visit(s); return true })
}

// assignedIn reports whether body assigns the local name (a declaration
// with a value counts).
func assignedIn(name string, body []ir.Stmt) bool {
	assigns := func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Assign:
			return s.Name == name
		case *ir.Decl:
			return s.Name == name && s.Init != nil
		case *ir.Atomic:
			return s.Dst == name
		}
		return false
	}
	return ir.AnyStmt(body, func(s ir.Stmt) bool {
		f, ok := s.(*ir.For)
		return assigns(s) || ok && (assigns(f.Init) || assigns(f.Post))
	})
}

// toI64 converts an integer expression to i64.
func toI64(e ir.Expr) ir.Expr {
	if e.Type() == ir.I64 {
		return ir.CloneExpr(e)
	}
	return &ir.Convert{Pos: e.At(), T: ir.I64, X: ir.CloneExpr(e)}
}

func joinErrors(errs []error) error { return errors.Join(errs...) }

// blockSize is the threads per block of outlined kernels.
func (c *Config) blockSize() int64 {
	if c != nil && c.BlockSize > 0 {
		return int64(c.BlockSize)
	}
	return 256
}

// hoistDecls moves the top-level declarations of a guarded list out of the
// guard, with zero values, so that a second guard after a cut sees them.
func hoistDecls(list []ir.Stmt) (hoisted, body []ir.Stmt) {
	for _, s := range list {
		d, ok := s.(*ir.Decl)
		if !ok {
			body = append(body, s)
			continue
		}
		hoisted = append(hoisted, &ir.Decl{Pos: d.Pos, Name: d.Name, T: d.T, Init: &ir.Const{Pos: d.Pos, T: d.T}})
		if d.Init != nil {
			body = append(body, &ir.Assign{Pos: d.Pos, Name: d.Name, Value: d.Init})
		}
	}
	return hoisted, body
}
