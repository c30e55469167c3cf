package ir

// AnyStmt reports whether pred holds for a statement of body, nested
// statements included. It stops at the first that it holds for.
func AnyStmt(body []Stmt, pred func(Stmt) bool) bool {
	found := false
	WalkStmts(body, func(s Stmt) bool {
		found = found || pred(s)
		return !found
	})
	return found
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
	return AnyStmt(body, func(s Stmt) bool {
		for _, e := range StmtExprs(s) {
			if AnyExpr(e, pred) {
				return true
			}
		}
		return false
	})
}

// HasBarrier reports whether body holds a barrier, or with gridOnly a grid
// barrier.
func HasBarrier(body []Stmt, gridOnly bool) bool {
	return AnyStmt(body, func(s Stmt) bool {
		b, ok := s.(*Barrier)
		return ok && (b.Grid || !gridOnly)
	})
}
