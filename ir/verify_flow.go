package ir

// Definite assignment: a local declared without a value must be assigned
// on every path to each of its reads. The analysis runs over the structured
// statements, so it needs no control-flow graph: a branch joins the states
// of its arms, a loop body may run zero times, and after break, continue,
// return or raise the path is dead until a join revives it. The name
// resolution of the main checks (verifier.uses and .defs) tells which local
// each node means.

// flowState is the set of locals that may be unassigned on some path to
// the current point; dead says no path reaches it.
type flowState struct {
	dead  bool
	unset map[*local]bool
}

func (s *flowState) copy() *flowState {
	out := &flowState{dead: s.dead, unset: make(map[*local]bool, len(s.unset))}
	for l := range s.unset {
		out.unset[l] = true
	}
	return out
}

// join merges the states of two paths; nil stands for no path.
func join(a, b *flowState) *flowState {
	switch {
	case a == nil || a.dead:
		a, b = b, a
	case b == nil || b.dead:
	default:
		out := a.copy()
		for l := range b.unset {
			out.unset[l] = true
		}
		return out
	}
	if a == nil {
		return &flowState{dead: true}
	}
	return a.copy()
}

// assignment is the definite-assignment analysis of one function.
type assignment struct {
	v     *verifier
	loops []*loopExits // innermost last
}

// loopExits collects the states at the break and continue statements of
// a loop.
type loopExits struct{ brk, cont *flowState }

// checkAssigned reports reads of possibly unassigned locals in f.
func (v *verifier) checkAssigned(f *Func) {
	a := &assignment{v: v}
	a.block(f.Body, &flowState{unset: map[*local]bool{}})
}

func (a *assignment) block(body []Stmt, st *flowState) *flowState {
	for _, s := range body {
		st = a.stmt(s, st)
	}
	return st
}

func (a *assignment) stmt(s Stmt, st *flowState) *flowState {
	switch s := s.(type) {
	case *Decl:
		a.read(s.Init, st)
		a.set(a.v.defs[s], s.Init == nil, st)
	case *Assign:
		a.read(s.Value, st)
		a.set(a.v.defs[s], false, st)
	case *Atomic, *AllReduce:
		a.reads(StmtExprs(s), st)
		a.set(a.v.defs[s], false, st)
	case *If:
		a.read(s.Cond, st)
		return join(a.block(s.Then, st.copy()), a.block(s.Else, st.copy()))
	case *Split:
		a.read(s.Cond, st)
		return join(a.block(s.Then, st.copy()), a.block(s.Else, st.copy()))
	case *Switch:
		return a.switchStmt(s, st)
	case *While:
		return a.loop(nil, s.Cond, nil, s.Body, st)
	case *SplitWhile:
		return a.loop(nil, s.Cond, nil, s.Body, st)
	case *For:
		return a.loop(s.Init, s.Cond, s.Post, s.Body, st)
	case *Break, *Continue:
		if n := len(a.loops); n > 0 {
			exits := a.loops[n-1]
			if _, ok := s.(*Break); ok {
				exits.brk = join(exits.brk, st)
			} else {
				exits.cont = join(exits.cont, st)
			}
		}
		return &flowState{dead: true}
	case *Return, *Raise:
		a.reads(StmtExprs(s), st)
		return &flowState{dead: true}
	case *Region:
		// The body may run on no processor and cannot assign host
		// variables, so the host's state is unchanged after it.
		a.read(s.Procs, st)
		saved := a.loops
		a.loops = nil
		a.block(s.Body, st.copy())
		a.loops = saved
	case *Fork:
		a.reads(StmtExprs(s), st)
		return a.block(s.Body, st)
	default:
		a.reads(StmtExprs(s), st)
	}
	return st
}

func (a *assignment) switchStmt(s *Switch, st *flowState) *flowState {
	a.read(s.X, st)
	var out *flowState
	for _, c := range s.Cases {
		out = join(out, a.block(c.Body, st.copy()))
	}
	if s.Default == nil {
		return join(out, st)
	}
	return join(out, a.block(s.Default, st.copy()))
}

// loop handles while (init and post nil) and for loops. The body may run
// zero times; the loop ends when the condition fails or at a break.
func (a *assignment) loop(init Stmt, cond Expr, post Stmt, body []Stmt, st *flowState) *flowState {
	if init != nil {
		st = a.stmt(init, st)
	}
	a.read(cond, st)
	exits := &loopExits{}
	a.loops = append(a.loops, exits)
	end := a.block(body, st.copy())
	a.loops = a.loops[:len(a.loops)-1]
	if post != nil {
		a.stmt(post, join(end, exits.cont))
	}
	if isTrue(cond) {
		return join(exits.brk, nil)
	}
	return join(exits.brk, st)
}

// set records an assignment to l, or a declaration without a value.
func (a *assignment) set(l *local, unset bool, st *flowState) {
	if l == nil || st.dead {
		return
	}
	if unset {
		st.unset[l] = true
	} else {
		delete(st.unset, l)
	}
}

func (a *assignment) reads(es []Expr, st *flowState) {
	for _, e := range es {
		a.read(e, st)
	}
}

// read reports the locals that e reads while they may be unassigned, once
// per path.
func (a *assignment) read(e Expr, st *flowState) {
	if st.dead {
		return
	}
	WalkExpr(e, func(x Expr) bool {
		if r, ok := x.(*Var); ok {
			if l := a.v.uses[r]; l != nil && st.unset[l] {
				a.v.errorf(r.Pos, "%s may be read before it is assigned", r.Name)
				delete(st.unset, l)
			}
		}
		return true
	})
}

// isTrue reports whether e is the constant true.
func isTrue(e Expr) bool {
	c, ok := e.(*Const)
	return ok && c.T == Bool && c.Bits == 1
}

// terminates reports whether control cannot fall off the end of body: it
// ends in a return or raise, in an if or a switch with a default whose
// arms all terminate, or in an endless loop without a break.
func terminates(body []Stmt) bool {
	if len(body) == 0 {
		return false
	}
	switch s := body[len(body)-1].(type) {
	case *Return, *Raise:
		return true
	case *If:
		return s.Else != nil && terminates(s.Then) && terminates(s.Else)
	case *Switch:
		if s.Default == nil {
			return false
		}
		for _, c := range s.Cases {
			if !terminates(c.Body) {
				return false
			}
		}
		return terminates(s.Default)
	case *While:
		return isTrue(s.Cond) && !breaks(s.Body)
	case *For:
		return isTrue(s.Cond) && !breaks(s.Body)
	}
	return false
}

// breaks reports whether body holds a break out of the loop whose body it
// is.
func breaks(body []Stmt) bool {
	loop := func(s Stmt) bool { // breaks in here leave the inner loop
		switch s.(type) {
		case *While, *For, *Region:
			return true
		}
		return false
	}
	return AnyStmtOutside(body, loop, func(s Stmt) bool { _, ok := s.(*Break); return ok })
}
