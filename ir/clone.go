package ir

// CloneExpr returns a deep copy of e.
func CloneExpr(e Expr) Expr {
	switch e := e.(type) {
	case nil:
		return nil
	case *Const:
		c := *e
		return &c
	case *Str:
		c := *e
		return &c
	case *Var:
		c := *e
		return &c
	case *ParamRef:
		c := *e
		return &c
	case *Load:
		c := *e
		c.Index = CloneExpr(e.Index)
		return &c
	case *Unary:
		c := *e
		c.X = CloneExpr(e.X)
		return &c
	case *Binary:
		c := *e
		c.X, c.Y = CloneExpr(e.X), CloneExpr(e.Y)
		return &c
	case *Select:
		c := *e
		c.Cond, c.X, c.Y = CloneExpr(e.Cond), CloneExpr(e.X), CloneExpr(e.Y)
		return &c
	case *Convert:
		c := *e
		c.X = CloneExpr(e.X)
		return &c
	case *Call:
		c := *e
		c.Args = cloneExprs(e.Args)
		return &c
	case *Builtin:
		c := *e
		c.Args = cloneExprs(e.Args)
		return &c
	}
	return e
}

func cloneExprs(es []Expr) []Expr {
	if es == nil {
		return nil
	}
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = CloneExpr(e)
	}
	return out
}

// CloneStmts returns a deep copy of body; nil stays nil.
func CloneStmts(body []Stmt) []Stmt {
	if body == nil {
		return nil
	}
	out := make([]Stmt, len(body))
	for i, s := range body {
		out[i] = CloneStmt(s)
	}
	return out
}

// CloneStmt returns a deep copy of s.
func CloneStmt(s Stmt) Stmt {
	switch s := s.(type) {
	case nil:
		return nil
	case *Decl:
		c := *s
		c.Init = CloneExpr(s.Init)
		return &c
	case *Assign:
		c := *s
		c.Value = CloneExpr(s.Value)
		return &c
	case *Store:
		c := *s
		c.Index, c.Value = CloneExpr(s.Index), CloneExpr(s.Value)
		return &c
	case *Atomic:
		c := *s
		c.Index, c.Args = CloneExpr(s.Index), cloneExprs(s.Args)
		return &c
	case *CallStmt:
		c := *s
		c.Call = CloneExpr(s.Call).(*Call)
		return &c
	case *If:
		c := *s
		c.Cond, c.Then, c.Else = CloneExpr(s.Cond), CloneStmts(s.Then), CloneStmts(s.Else)
		return &c
	case *While:
		c := *s
		c.Cond, c.Body = CloneExpr(s.Cond), CloneStmts(s.Body)
		return &c
	case *For:
		c := *s
		c.Init, c.Cond, c.Post, c.Body = CloneStmt(s.Init), CloneExpr(s.Cond), CloneStmt(s.Post), CloneStmts(s.Body)
		return &c
	case *Break:
		c := *s
		return &c
	case *Continue:
		c := *s
		return &c
	case *Return:
		c := *s
		c.Value = CloneExpr(s.Value)
		return &c
	case *Switch:
		c := *s
		c.X, c.Default = CloneExpr(s.X), CloneStmts(s.Default)
		c.Cases = make([]*Case, len(s.Cases))
		for i, cs := range s.Cases {
			cc := *cs
			cc.Values = append([]int64(nil), cs.Values...)
			cc.Body = CloneStmts(cs.Body)
			c.Cases[i] = &cc
		}
		return &c
	case *Barrier:
		c := *s
		return &c
	case *Raise:
		c := *s
		return &c
	case *Split:
		c := *s
		c.Cond, c.Then, c.Else = CloneExpr(s.Cond), CloneStmts(s.Then), CloneStmts(s.Else)
		return &c
	case *SplitWhile:
		c := *s
		c.Cond, c.Body = CloneExpr(s.Cond), CloneStmts(s.Body)
		return &c
	case *Fork:
		c := *s
		c.Count, c.Group, c.Member, c.Body = CloneExpr(s.Count), CloneExpr(s.Group), CloneExpr(s.Member), CloneStmts(s.Body)
		return &c
	case *Launch:
		c := *s
		c.Args, c.Grid, c.Block = cloneExprs(s.Args), CloneExpr(s.Grid), CloneExpr(s.Block)
		c.Fallback = CloneStmts(s.Fallback)
		return &c
	case *Region:
		c := *s
		c.Procs, c.Body = CloneExpr(s.Procs), CloneStmts(s.Body)
		return &c
	case *Copy:
		c := *s
		c.DstOff, c.SrcOff, c.Count = CloneExpr(s.DstOff), CloneExpr(s.SrcOff), CloneExpr(s.Count)
		return &c
	case *Swap:
		c := *s
		return &c
	case *WorldBarrier:
		c := *s
		return &c
	case *AllGather:
		c := *s
		return &c
	case *AllReduce:
		c := *s
		c.Value = CloneExpr(s.Value)
		return &c
	case *Printf:
		c := *s
		c.Args = cloneExprs(s.Args)
		return &c
	}
	return s
}

// CloneModule returns a deep copy of m, positions included.
func CloneModule(m *Module) *Module {
	c := *m
	c.Params = cloneEach(m.Params, func(p *Param) {})
	c.Buffers = cloneEach(m.Buffers, func(b *Buffer) { b.Len, b.Init = CloneExpr(b.Len), append([]Bits(nil), b.Init...) })
	c.Arrays = cloneEach(m.Arrays, func(a *Array) { a.Len = CloneExpr(a.Len) })
	c.Funcs = cloneEach(m.Funcs, func(f *Func) {
		f.Params = cloneEach(f.Params, func(*Field) {})
		f.Body = CloneStmts(f.Body)
	})
	return &c
}

// cloneEach copies each element of s and lets deepen copy what it points
// to; nil stays nil.
func cloneEach[T any](s []*T, deepen func(*T)) []*T {
	if s == nil {
		return nil
	}
	out := make([]*T, len(s))
	for i, x := range s {
		c := *x
		deepen(&c)
		out[i] = &c
	}
	return out
}
