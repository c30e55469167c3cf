package passes

import "gpuc/ir"

// uniformity tells which locals of a region body hold the same value on
// every processor of the group. It mirrors the verifier's Note
// [Uniformity] on names, which are unique once uniquifyLocals has run:
// pid() and gid() vary, as do atomics' results, loads at varying indices,
// calls with varying arguments or of functions that read gid(), and locals
// assigned varying values or under varying conditions. The bodies of
// splits and forks do not vary by their condition: passes that remove
// them make that so, by running uniform statements on every processor.
type uniformity struct {
	m       *ir.Module
	varying map[string]bool
	group   bool // group() varies (inside a fork lowered concurrently)
	// splitsAsIfs reads splits as ifs and split whiles as whiles: the
	// optimistic assumption under which a split whose condition turns out
	// uniform is one (see uniformSplits).
	splitsAsIfs bool
	changed     bool
}

func newUniformity(m *ir.Module, body []ir.Stmt, groupVaries bool) *uniformity {
	u := &uniformity{m: m, varying: map[string]bool{}, group: groupVaries}
	u.run(body)
	return u
}

func (u *uniformity) run(body []ir.Stmt) {
	for u.changed = true; u.changed; {
		u.changed = false
		u.list(body, false)
	}
}

func (u *uniformity) mark(name string) {
	if name != "" && !u.varying[name] {
		u.varying[name] = true
		u.changed = true
	}
}

func (u *uniformity) list(body []ir.Stmt, div bool) {
	for _, s := range body {
		u.stmt(s, div)
	}
}

func (u *uniformity) stmt(s ir.Stmt, div bool) {
	switch s := s.(type) {
	case *ir.Decl:
		if div || (s.Init != nil && u.varies(s.Init)) {
			u.mark(s.Name)
		}
	case *ir.Assign:
		if div || u.varies(s.Value) {
			u.mark(s.Name)
		}
	case *ir.Atomic:
		u.mark(s.Dst)
	case *ir.If:
		d := div || u.varies(s.Cond)
		u.list(s.Then, d)
		u.list(s.Else, d)
	case *ir.While:
		u.list(s.Body, div || u.varies(s.Cond))
	case *ir.For:
		if s.Init != nil {
			u.stmt(s.Init, div)
		}
		d := div || u.varies(s.Cond)
		u.list(s.Body, d)
		if s.Post != nil {
			u.stmt(s.Post, d)
		}
	case *ir.Switch:
		d := div || u.varies(s.X)
		for _, c := range s.Cases {
			u.list(c.Body, d)
		}
		u.list(s.Default, d)
	case *ir.Split:
		if u.splitsAsIfs {
			d := div || u.varies(s.Cond)
			u.list(s.Then, d)
			u.list(s.Else, d)
			return
		}
		u.groupBodies(s, div, s.Then, s.Else)
	case *ir.SplitWhile:
		if u.splitsAsIfs {
			u.list(s.Body, div || u.varies(s.Cond))
			return
		}
		u.groupBodies(s, div, s.Body)
	case *ir.Fork:
		u.groupBodies(s, div, s.Body)
	}
}

// group handles the bodies of a group construct: uniform inside, but a
// local declared outside and assigned inside differs between the members
// and the others afterwards.
func (u *uniformity) groupBodies(s ir.Stmt, div bool, bodies ...[]ir.Stmt) {
	inside := map[string]bool{}
	for _, b := range bodies {
		ir.WalkStmts(b, func(x ir.Stmt) bool {
			if d := ir.DeclOf(x); d != nil {
				inside[d.Name] = true
			}
			return true
		})
	}
	for _, b := range bodies {
		u.list(b, div)
		ir.WalkStmts(b, func(x ir.Stmt) bool {
			for _, name := range ir.Assigned(x) {
				if !inside[name] {
					u.mark(name)
				}
			}
			return true
		})
	}
}

// varies reports whether e may differ between processors.
func (u *uniformity) varies(e ir.Expr) bool {
	v := false
	ir.WalkExpr(e, func(x ir.Expr) bool {
		switch x := x.(type) {
		case *ir.Var:
			v = v || u.varying[x.Name]
		case *ir.Builtin:
			v = v || x.Op == ir.ProcID || x.Op == ir.GlobalID || x.Op == ir.ThreadID || x.Op == ir.DeviceID || (u.group && x.Op == ir.GroupID)
		case *ir.Call:
			v = v || readsThread(u.m, x.Func, map[string]bool{})
		}
		return !v
	})
	return v
}

// readsThread reports whether a device function reads gid(), tid() or
// device_id() (which differs across a world region's processors),
// or an atomic's result, directly or through the functions it calls.
func readsThread(m *ir.Module, name string, seen map[string]bool) bool {
	if seen[name] {
		return false
	}
	seen[name] = true
	f := m.Func(name)
	if f == nil {
		return true
	}
	return ir.AnyStmt(f.Body, func(s ir.Stmt) bool {
		a, ok := s.(*ir.Atomic)
		return ok && a.Dst != ""
	}) || ir.AnyExprIn(f.Body, func(x ir.Expr) bool {
		switch x := x.(type) {
		case *ir.Builtin:
			return x.Op == ir.GlobalID || x.Op == ir.ThreadID || x.Op == ir.DeviceID
		case *ir.Call:
			return readsThread(m, x.Func, seen)
		}
		return false
	})
}

// pureCall reports whether calling the device function name has no
// effect besides its result: no store, atomic or raise, transitively.
func pureCall(m *ir.Module, name string, seen map[string]bool) bool {
	if seen[name] {
		return true
	}
	seen[name] = true
	f := m.Func(name)
	if f == nil {
		return false
	}
	pure := true
	ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
		switch s.(type) {
		case *ir.Store, *ir.Atomic, *ir.Raise:
			pure = false
		}
		return pure
	})
	ir.WalkAllExprs(f.Body, func(x ir.Expr) bool {
		if c, ok := x.(*ir.Call); ok {
			pure = pure && pureCall(m, c.Func, seen)
		}
		return pure
	})
	return pure
}
