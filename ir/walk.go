package ir

// WalkStmts calls f on every statement of body in source order, depth first.
// If f returns false, the statements nested in that statement are skipped.
func WalkStmts(body []Stmt, f func(Stmt) bool) {
	for _, s := range body {
		if !f(s) {
			continue
		}
		for _, sub := range SubBodies(s) {
			WalkStmts(sub, f)
		}
	}
}

// SubBodies returns the statement lists nested directly in s, in source
// order. A For's Init and Post are not included: they are simple statements
// of the loop itself.
func SubBodies(s Stmt) [][]Stmt {
	if l, ok := s.(*Launch); ok && l.Fallback == nil {
		return nil
	}
	refs := bodyRefs(s)
	if refs == nil {
		return nil
	}
	out := make([][]Stmt, len(refs))
	for i, r := range refs {
		out[i] = *r
	}
	return out
}

// bodyRefs points at the statement lists nested directly in s, in source
// order, a Launch's Fallback included even when it is nil: the one list
// of which kinds of statement hold bodies, for SubBodies and mapLists.
func bodyRefs(s Stmt) []*[]Stmt {
	switch s := s.(type) {
	case *If:
		return []*[]Stmt{&s.Then, &s.Else}
	case *While:
		return []*[]Stmt{&s.Body}
	case *For:
		return []*[]Stmt{&s.Body}
	case *Switch:
		out := make([]*[]Stmt, 0, len(s.Cases)+1)
		for _, c := range s.Cases {
			out = append(out, &c.Body)
		}
		return append(out, &s.Default)
	case *Split:
		return []*[]Stmt{&s.Then, &s.Else}
	case *Fork:
		return []*[]Stmt{&s.Body}
	case *SplitWhile:
		return []*[]Stmt{&s.Body}
	case *Region:
		return []*[]Stmt{&s.Body}
	case *Launch:
		return []*[]Stmt{&s.Fallback}
	}
	return nil
}

// StmtExprs returns the expressions held directly by s (not those of nested
// statements), in evaluation order. A For yields Init's, Cond's and Post's.
func StmtExprs(s Stmt) []Expr {
	var out []Expr
	add := func(es ...Expr) {
		for _, e := range es {
			if e != nil {
				out = append(out, e)
			}
		}
	}
	switch s := s.(type) {
	case *Decl:
		add(s.Init)
	case *Assign:
		add(s.Value)
	case *Store:
		add(s.Index, s.Value)
	case *Atomic:
		add(s.Index)
		add(s.Args...)
	case *CallStmt:
		add(s.Call)
	case *If:
		add(s.Cond)
	case *While:
		add(s.Cond)
	case *For:
		if s.Init != nil {
			add(StmtExprs(s.Init)...)
		}
		add(s.Cond)
		if s.Post != nil {
			add(StmtExprs(s.Post)...)
		}
	case *Return:
		add(s.Value)
	case *Switch:
		add(s.X)
	case *Split:
		add(s.Cond)
	case *SplitWhile:
		add(s.Cond)
	case *Fork:
		add(s.Count, s.Group, s.Member)
	case *Launch:
		add(s.Args...)
		add(s.Grid, s.Block)
	case *Region:
		add(s.Procs)
	case *Copy:
		add(s.DstOff, s.SrcOff, s.Count)
	case *Printf:
		add(s.Args...)
	case *AllReduce:
		add(s.Value)
	}
	return out
}

// SubExprs returns the operands of e.
func SubExprs(e Expr) []Expr {
	switch e := e.(type) {
	case *Load:
		return []Expr{e.Index}
	case *Unary:
		return []Expr{e.X}
	case *Binary:
		return []Expr{e.X, e.Y}
	case *Select:
		return []Expr{e.Cond, e.X, e.Y}
	case *Convert:
		return []Expr{e.X}
	case *Call:
		return e.Args
	case *Builtin:
		return e.Args
	}
	return nil
}

// WalkExpr calls f on e and its operands, depth first, parents first. If f
// returns false, e's operands are skipped.
func WalkExpr(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	for _, x := range SubExprs(e) {
		WalkExpr(x, f)
	}
}

// WalkAllExprs calls f on every expression in body, nested statements
// included.
func WalkAllExprs(body []Stmt, f func(Expr) bool) {
	WalkStmts(body, func(s Stmt) bool {
		for _, e := range StmtExprs(s) {
			WalkExpr(e, f)
		}
		return true
	})
}

// JumpsOut reports whether body holds a break (brk) or a continue (!brk)
// that leaves body: one that is not inside a loop of body's own. The
// body of a loop jumps out of that loop; a switch arm's break leaves the
// loop around the switch, as every break does.
func JumpsOut(body []Stmt, brk bool) bool {
	for _, s := range body {
		switch s.(type) {
		case *Break:
			if brk {
				return true
			}
		case *Continue:
			if !brk {
				return true
			}
		case *While, *For, *SplitWhile:
			continue // their jumps are their own
		}
		for _, sub := range SubBodies(s) {
			if JumpsOut(sub, brk) {
				return true
			}
		}
	}
	return false
}
