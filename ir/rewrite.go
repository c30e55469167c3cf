package ir

// RewriteExpr rebuilds e bottom-up: operands first, then f on the node with
// its rewritten operands. f returns the replacement (or the node itself).
// Nodes are updated in place; the result replaces e.
func RewriteExpr(e Expr, f func(Expr) Expr) Expr {
	if e == nil {
		return nil
	}
	switch e := e.(type) {
	case *Load:
		e.Index = RewriteExpr(e.Index, f)
	case *Unary:
		e.X = RewriteExpr(e.X, f)
	case *Binary:
		e.X = RewriteExpr(e.X, f)
		e.Y = RewriteExpr(e.Y, f)
	case *Select:
		e.Cond = RewriteExpr(e.Cond, f)
		e.X = RewriteExpr(e.X, f)
		e.Y = RewriteExpr(e.Y, f)
	case *Convert:
		e.X = RewriteExpr(e.X, f)
	case *Call:
		rewriteList(e.Args, f)
	case *Builtin:
		rewriteList(e.Args, f)
	}
	return f(e)
}

func rewriteList(es []Expr, f func(Expr) Expr) {
	for i := range es {
		es[i] = RewriteExpr(es[i], f)
	}
}

// RewriteStmtExprs applies RewriteExpr with f to every expression held
// directly by s (not by statements nested in it).
func RewriteStmtExprs(s Stmt, f func(Expr) Expr) {
	r := func(e *Expr) { *e = RewriteExpr(*e, f) }
	switch s := s.(type) {
	case *Decl:
		r(&s.Init)
	case *Assign:
		r(&s.Value)
	case *Store:
		r(&s.Index)
		r(&s.Value)
	case *Atomic:
		r(&s.Index)
		rewriteList(s.Args, f)
	case *CallStmt:
		rewriteList(s.Call.Args, f)
	case *If:
		r(&s.Cond)
	case *While:
		r(&s.Cond)
	case *For:
		if s.Init != nil {
			RewriteStmtExprs(s.Init, f)
		}
		r(&s.Cond)
		if s.Post != nil {
			RewriteStmtExprs(s.Post, f)
		}
	case *Return:
		r(&s.Value)
	case *Switch:
		r(&s.X)
	case *Split:
		r(&s.Cond)
	case *SplitWhile:
		r(&s.Cond)
	case *Fork:
		r(&s.Count)
		r(&s.Group)
		r(&s.Member)
	case *Launch:
		rewriteList(s.Args, f)
		r(&s.Grid)
		r(&s.Block)
	case *Region:
		r(&s.Procs)
	case *Copy:
		r(&s.DstOff)
		r(&s.SrcOff)
		r(&s.Count)
	case *Printf:
		rewriteList(s.Args, f)
	case *AllReduce:
		r(&s.Value)
	}
}

// RewriteAllExprs applies f, as RewriteExpr does, to every expression in
// body, nested statements included.
func RewriteAllExprs(body []Stmt, f func(Expr) Expr) {
	WalkStmts(body, func(s Stmt) bool {
		RewriteStmtExprs(s, f)
		return true
	})
}

// IsPure reports whether evaluating e has no effect besides its value and
// cannot fail: it holds no call, load or division. Passes may drop or
// duplicate pure expressions.
func IsPure(e Expr) bool {
	pure := true
	WalkExpr(e, func(x Expr) bool {
		switch x := x.(type) {
		case *Call, *Load:
			pure = false
		case *Binary:
			if x.Op == Div || x.Op == Rem {
				pure = false
			}
		}
		return pure
	})
	return pure
}

// RewriteStmts rebuilds body bottom-up: the statements nested in each
// statement first, then f on the statement, whose result (none, itself,
// or several statements) takes its place. A nil f result removes the
// statement. Present-but-empty bodies stay non-nil.
func RewriteStmts(body []Stmt, f func(Stmt) []Stmt) []Stmt {
	if body == nil {
		return nil
	}
	out := []Stmt{}
	for _, s := range body {
		rewriteNested(s, f)
		out = append(out, f(s)...)
	}
	return out
}

func rewriteNested(s Stmt, f func(Stmt) []Stmt) {
	mapLists(s, func(l []Stmt) []Stmt { return RewriteStmts(l, f) })
}

// RewriteLists rebuilds every statement list of body with f, innermost
// first and body itself last: f sees a list whose nested lists are
// already rebuilt, so it can rewrite runs of statements, which
// RewriteStmts cannot. Absent lists (nil) stay absent.
func RewriteLists(body []Stmt, f func([]Stmt) []Stmt) []Stmt {
	if body == nil {
		return nil
	}
	for _, s := range body {
		mapLists(s, func(l []Stmt) []Stmt { return RewriteLists(l, f) })
	}
	return f(body)
}

// mapLists replaces each statement list nested directly in s by g's
// result on it.
func mapLists(s Stmt, g func([]Stmt) []Stmt) {
	for _, r := range bodyRefs(s) {
		*r = g(*r)
	}
}
