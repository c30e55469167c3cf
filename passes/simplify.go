package passes

import (
	"gpuc/ir"
)

var simplifyPass = &Pass{
	Name: "simplify",
	Doc:  "fold constants, prune decided branches and drop unreachable statements",
	From: ir.SPMDLevel,
	To:   ir.SPMDLevel,
	Run:  func(m *ir.Module, _ *Config) error { simplify(m); return nil },
}

// simplify folds constant expressions with the IR's own scalar semantics
// (ir.EvalBinary and friends), replaces ifs, loops and switches whose
// control is a constant by what they run, and removes statements after a
// return, break, continue or raise. It never changes what a program
// prints: folds that would hide a run-time error (division by zero) or
// drop an impure operand are not made. The level is unchanged, so a
// launch-level module stays launch-level.
func simplify(m *ir.Module) {
	for _, b := range m.Buffers {
		b.Len = ir.RewriteExpr(b.Len, foldExpr)
	}
	for _, a := range m.Arrays {
		a.Len = ir.RewriteExpr(a.Len, foldExpr)
	}
	for _, f := range m.Funcs {
		ir.RewriteAllExprs(f.Body, foldExpr)
		f.Body = simplifyBody(f.Body, declCounts(f))
		f.Body = dropDeadLocals(f.Body)
	}
}

// dropDeadLocals removes the locals that nothing reads: their
// declarations and assignments go, unless one of them has a value with an
// effect (a call, a load that may fault), which keeps the local whole.
// Names are per function here, so a name read anywhere keeps every local
// of that name. Removing one local can make another dead, so it repeats
// until nothing changes.
func dropDeadLocals(body []ir.Stmt) []ir.Stmt {
	for {
		keep := map[string]bool{}
		ir.WalkAllExprs(body, func(e ir.Expr) bool {
			if v, ok := e.(*ir.Var); ok {
				keep[v.Name] = true
			}
			return true
		})
		ir.WalkStmts(body, func(s ir.Stmt) bool {
			switch s := s.(type) {
			case *ir.Atomic:
				keep[s.Dst] = true // the atomic needs its target declared
			case *ir.Decl:
				keep[s.Name] = keep[s.Name] || (s.Init != nil && !ir.IsPure(s.Init))
			case *ir.Assign:
				keep[s.Name] = keep[s.Name] || !ir.IsPure(s.Value)
			}
			return true
		})
		removed := false
		body = ir.RewriteStmts(body, func(s ir.Stmt) []ir.Stmt {
			var name string
			switch s := s.(type) {
			case *ir.Decl:
				name = s.Name
			case *ir.Assign:
				name = s.Name
			default:
				return []ir.Stmt{s}
			}
			if keep[name] {
				return []ir.Stmt{s}
			}
			removed = true
			return nil
		})
		if !removed {
			return body
		}
	}
}

// foldExpr folds one node whose operands are already folded: ir.Fold,
// then the identities that hold for any operand.
func foldExpr(e ir.Expr) ir.Expr {
	if f := ir.Fold(e); f != e {
		return f
	}
	switch e := e.(type) {
	case *ir.Binary:
		return foldBinary(e)
	case *ir.Convert:
		if e.X.Type() == e.T {
			return e.X
		}
	case *ir.Select:
		if c, ok := e.Cond.(*ir.Const); ok {
			if c.Bits != 0 {
				return e.X
			}
			return e.Y
		}
	}
	return e
}

// foldBinary applies the identities of binary operations with one
// constant operand; both constant, ir.Fold has been there.
func foldBinary(e *ir.Binary) ir.Expr {
	x, xc := e.X.(*ir.Const)
	y, yc := e.Y.(*ir.Const)
	if xc && yc {
		return e // keep the run-time error
	}
	switch {
	case e.Op == ir.LogAnd && xc:
		if x.Bits == 0 {
			return x
		}
		return e.Y
	case e.Op == ir.LogOr && xc:
		if x.Bits != 0 {
			return x
		}
		return e.Y
	case !e.X.Type().IsInt():
		return e
	}
	// Integer identities. Floats are left alone: x + 0.0 is not x for -0.
	switch {
	case yc && y.Bits == 0 && (e.Op == ir.Add || e.Op == ir.Sub || e.Op == ir.Or || e.Op == ir.Xor || e.Op == ir.Shl || e.Op == ir.Shr):
		return e.X
	case xc && x.Bits == 0 && (e.Op == ir.Add || e.Op == ir.Or || e.Op == ir.Xor):
		return e.Y
	case yc && isOne(y) && (e.Op == ir.Mul || e.Op == ir.Div):
		return e.X
	case xc && isOne(x) && e.Op == ir.Mul:
		return e.Y
	case yc && y.Bits == 0 && (e.Op == ir.Mul || e.Op == ir.And) && ir.IsPure(e.X):
		return y
	}
	return e
}

func isOne(c *ir.Const) bool { return c.Bits == ir.IntBits(c.T, 1) }

// declCounts counts the declarations of each local name in f. A branch
// may be inlined into its parent block only if the names it declares are
// declared nowhere else, or the result could declare a name twice in one
// scope.
func declCounts(f *ir.Func) map[string]int {
	n := map[string]int{}
	for _, p := range f.Params {
		n[p.Name]++
	}
	ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Decl:
			n[s.Name]++
		case *ir.For:
			if d, ok := s.Init.(*ir.Decl); ok {
				n[d.Name]++
			}
		}
		return true
	})
	return n
}

func simplifyBody(body []ir.Stmt, decls map[string]int) []ir.Stmt {
	var out []ir.Stmt
	for _, s := range body {
		out = append(out, simplifyStmt(s, decls)...)
		if len(out) > 0 && endsFlow(out[len(out)-1]) {
			break
		}
	}
	if out == nil && body != nil {
		out = []ir.Stmt{} // keep "present but empty", as an else branch needs
	}
	return out
}

// endsFlow reports whether control never passes to the statement after s.
func endsFlow(s ir.Stmt) bool {
	switch s.(type) {
	case *ir.Return, *ir.Break, *ir.Continue, *ir.Raise:
		return true
	}
	return false
}

// simplifyStmt returns what s becomes: itself, simplified, or the
// statements of the branch it always takes.
func simplifyStmt(s ir.Stmt, decls map[string]int) []ir.Stmt {
	switch s := s.(type) {
	case *ir.If:
		s.Then = simplifyBody(s.Then, decls)
		if s.Else != nil {
			s.Else = simplifyBody(s.Else, decls)
		}
		if len(s.Then) == 0 && len(s.Else) == 0 && ir.IsPure(s.Cond) {
			return nil
		}
		if c, ok := s.Cond.(*ir.Const); ok {
			taken := s.Then
			if c.Bits == 0 {
				taken = s.Else
			}
			if inlinable(taken, decls) {
				return taken
			}
		}
	case *ir.While:
		s.Body = simplifyBody(s.Body, decls)
		if c, ok := s.Cond.(*ir.Const); ok && c.Bits == 0 {
			return nil
		}
	case *ir.For:
		s.Body = simplifyBody(s.Body, decls)
		if c, ok := s.Cond.(*ir.Const); ok && c.Bits == 0 {
			if a, ok := s.Init.(*ir.Assign); ok {
				return []ir.Stmt{a}
			}
			return nil
		}
	case *ir.Switch:
		for _, c := range s.Cases {
			c.Body = simplifyBody(c.Body, decls)
		}
		if s.Default != nil {
			s.Default = simplifyBody(s.Default, decls)
		}
		if x, ok := s.X.(*ir.Const); ok && inlinable(s.Taken(x), decls) {
			return s.Taken(x)
		}
	case *ir.Split:
		s.Then = simplifyBody(s.Then, decls)
		if s.Else != nil {
			s.Else = simplifyBody(s.Else, decls)
		}
	case *ir.Fork:
		s.Body = simplifyBody(s.Body, decls)
	case *ir.SplitWhile:
		s.Body = simplifyBody(s.Body, decls)
	case *ir.Region:
		s.Body = simplifyBody(s.Body, decls)
	}
	return []ir.Stmt{s}
}

// inlinable reports whether body may replace its enclosing statement: its
// top-level declarations must not collide with any other declaration.
func inlinable(body []ir.Stmt, decls map[string]int) bool {
	for _, s := range body {
		if d, ok := s.(*ir.Decl); ok && decls[d.Name] > 1 {
			return false
		}
	}
	return true
}
