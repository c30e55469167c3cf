package ir

// AnyStmt reports whether pred holds for a statement of body, nested
// statements included. It stops at the first that it holds for.
func AnyStmt(body []Stmt, pred func(Stmt) bool) bool {
	return AnyStmtOutside(body, func(Stmt) bool { return false }, pred)
}

// AnyStmtOutside is AnyStmt that tries the statements for which inner
// holds but not the statements nested in them.
func AnyStmtOutside(body []Stmt, inner, pred func(Stmt) bool) bool {
	found := false
	WalkStmts(body, func(s Stmt) bool {
		found = found || pred(s)
		return !found && !inner(s)
	})
	return found
}

// ExprsHold reports whether pred holds for an expression that s holds
// directly (not in nested statements), operands included.
func ExprsHold(s Stmt, pred func(Expr) bool) bool {
	for _, e := range StmtExprs(s) {
		if AnyExpr(e, pred) {
			return true
		}
	}
	return false
}

// AnyExpr reports whether pred holds for e or an expression nested in it.
func AnyExpr(e Expr, pred func(Expr) bool) bool {
	found := false
	WalkExpr(e, func(x Expr) bool {
		found = found || pred(x)
		return !found
	})
	return found
}

// AnyExprIn reports whether pred holds for an expression of body, those of
// nested statements included.
func AnyExprIn(body []Stmt, pred func(Expr) bool) bool {
	return AnyStmt(body, func(s Stmt) bool { return ExprsHold(s, pred) })
}

// IsGroupConstruct reports whether s is a split, a split while or a fork:
// a statement that divides the group that runs it.
func IsGroupConstruct(s Stmt) bool {
	switch s.(type) {
	case *Split, *SplitWhile, *Fork:
		return true
	}
	return false
}

// HasBarrier reports whether body holds a barrier, or with gridOnly a grid
// barrier.
func HasBarrier(body []Stmt, gridOnly bool) bool {
	return AnyStmt(body, func(s Stmt) bool {
		b, ok := s.(*Barrier)
		return ok && (b.Grid || !gridOnly)
	})
}

// BufferUse is how a statement or expression touches a buffer element.
type BufferUse uint8

const (
	UseRead   BufferUse = iota // a load
	UseWrite                   // a store
	UseAtomic                  // an atomic read-modify-write
)

// WalkBufferUses calls f on every load, store and atomic of body, nested
// statements included, with the buffer or array it touches.
func WalkBufferUses(body []Stmt, f func(buf string, use BufferUse)) {
	WalkStmts(body, func(s Stmt) bool {
		switch s := s.(type) {
		case *Store:
			f(s.Buf, UseWrite)
		case *Atomic:
			f(s.Buf, UseAtomic)
		}
		return true
	})
	WalkAllExprs(body, func(e Expr) bool {
		if l, ok := e.(*Load); ok {
			f(l.Buf, UseRead)
		}
		return true
	})
}

// Assigned lists the locals that s itself (not its nested bodies) sets: a
// declaration's, an assignment's and an atomic's destination, and those of
// a for loop's init and post statements.
func Assigned(s Stmt) []string {
	switch s := s.(type) {
	case *Decl:
		return []string{s.Name}
	case *Assign:
		return []string{s.Name}
	case *Atomic:
		if s.Dst != "" {
			return []string{s.Dst}
		}
	case *For:
		return append(Assigned(s.Init), Assigned(s.Post)...)
	}
	return nil
}
