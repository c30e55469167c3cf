package fork

// Facts about the AST that the lowering needs before it lowers a
// construct.

// walkStmts calls fn on s and, while fn returns true, the statements
// nested in it.
func walkStmts(s stmt, fn func(stmt) bool) {
	if s == nil || !fn(s) {
		return
	}
	for _, sub := range subStmts(s) {
		walkStmts(sub, fn)
	}
}

// subStmts returns the statements nested directly in s.
func subStmts(s stmt) []stmt {
	switch s := s.(type) {
	case *block:
		return s.items
	case *ifStmt:
		return []stmt{s.then, s.orElse}
	case *whileStmt:
		return []stmt{s.body}
	case *doStmt:
		return []stmt{s.body}
	case *forStmt:
		return []stmt{s.init, s.body}
	case *startStmt:
		return []stmt{s.body}
	case *seqStmt:
		return []stmt{s.body}
	case *farmStmt:
		return []stmt{s.body}
	case *forkStmt:
		return []stmt{s.body}
	}
	return nil
}

// stmtExprs returns the expressions held directly by s.
func stmtExprs(s stmt) []expr {
	var out []expr
	add := func(es ...expr) {
		for _, e := range es {
			if e != nil {
				out = append(out, e)
			}
		}
	}
	switch s := s.(type) {
	case *declStmt:
		for _, v := range s.vars {
			for _, el := range v.inits {
				add(el.x)
			}
		}
	case *exprStmt:
		add(s.x)
	case *ifStmt:
		add(s.cond)
	case *whileStmt:
		add(s.cond)
	case *doStmt:
		add(s.cond)
	case *forStmt:
		add(s.cond)
		add(s.post...)
	case *returnStmt:
		add(s.x)
	case *startStmt:
		add(s.procs)
	case *forkStmt:
		add(s.count, s.group, s.member)
	}
	return out
}

// subExprs returns the operands of e.
func subExprs(e expr) []expr {
	switch e := e.(type) {
	case *index:
		return []expr{e.x, e.i}
	case *call:
		return e.args
	case *unary:
		return []expr{e.x}
	case *incDec:
		return []expr{e.x}
	case *addrOf:
		return []expr{e.x}
	case *cast:
		return []expr{e.x}
	case *binary:
		return []expr{e.x, e.y}
	case *condExpr:
		return []expr{e.cond, e.x, e.y}
	case *assign:
		return []expr{e.l, e.r}
	}
	return nil
}

// walkExprs calls fn on every expression in s and the statements nested
// in it.
func walkExprs(s stmt, fn func(expr)) {
	walkStmts(s, func(s stmt) bool {
		for _, e := range stmtExprs(s) {
			walkExpr(e, fn)
		}
		return true
	})
}

func walkExpr(e expr, fn func(expr)) {
	fn(e)
	for _, x := range subExprs(e) {
		walkExpr(x, fn)
	}
}

// hasJump reports whether s holds a break (or a continue) of the loop
// around s.
func hasJump(s stmt, isBreak bool) bool {
	found := false
	walkStmts(s, func(s stmt) bool {
		switch s.(type) {
		case *whileStmt, *doStmt, *forStmt:
			return false
		case *breakStmt:
			found = found || isBreak
		case *continueStmt:
			found = found || !isBreak
		}
		return !found
	})
	return found
}

// hasReturn reports whether s holds a return.
func hasReturn(s stmt) bool {
	found := false
	walkStmts(s, func(s stmt) bool {
		_, isReturn := s.(*returnStmt)
		found = found || isReturn
		return !found
	})
	return found
}

// hasEarlyReturn reports whether f may return before the end of its body:
// from anywhere but its last statement.
func hasEarlyReturn(f *function) bool {
	items := f.body.items
	for i, s := range items {
		if _, last := s.(*returnStmt); last && i == len(items)-1 {
			continue
		}
		if hasReturn(s) {
			return true
		}
	}
	return false
}

// groupUsers finds the functions whose device versions need $, @ or
// groupsize(): those that read them and the ones that call those
// asynchronously, to a fixpoint.
func (l *lowerer) groupUsers() {
	for _, f := range l.prog.funcs {
		l.needsGroup[f] = f.usesGroup
	}
	for changed := true; changed; {
		changed = false
		for _, f := range l.prog.funcs {
			for _, g := range f.calls {
				if !l.needsGroup[f] && g.mode != syncFunc && l.needsGroup[g] {
					l.needsGroup[f], changed = true, true
				}
			}
		}
	}
}

// isRecursive reports whether f may call itself.
func (l *lowerer) isRecursive(f *function) bool {
	if v, ok := l.recursive[f]; ok {
		return v
	}
	seen := map[*function]bool{}
	var reaches func(g *function) bool
	reaches = func(g *function) bool {
		for _, h := range g.calls {
			if h == f {
				return true
			}
			if !seen[h] {
				seen[h] = true
				if reaches(h) {
					return true
				}
			}
		}
		return false
	}
	l.recursive[f] = reaches(f)
	return l.recursive[f]
}
