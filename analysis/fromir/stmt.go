package fromir

import (
	"gpuc/analysis/its"
	"gpuc/ir"
)

// block runs body on the states in and gives the states that fall through its end.
func (x *fx) block(body []ir.Stmt, in []*state) []*state {
	sts := in
	for _, s := range body {
		if len(sts) == 0 {
			return nil
		}
		sts = x.stmt(s, sts)
	}
	return sts
}

func (x *fx) stmt(s ir.Stmt, in []*state) []*state {
	switch s := s.(type) {
	case *ir.Decl:
		x.declare(s.Name, s.T)
		if s.Init == nil {
			return in
		}
		return x.assign(s.Name, s.Init, in)
	case *ir.Assign:
		return x.assign(s.Name, s.Value, in)
	case *ir.Store, *ir.Barrier, *ir.Printf, *ir.Copy, *ir.Swap, *ir.Write:
		return in
	case *ir.Atomic:
		if s.Dst == "" {
			return in
		}
		if v, ok := x.vars[s.Dst]; ok {
			for _, st := range in {
				// The old value, which a bounded buffer's range holds too.
				st.env[s.Dst] = x.bounded(s.Buf, &its.Nondet{Sort: x.exprSort(v), Why: "atomic " + s.Op.String() + " " + s.Buf}, x.exprSort(v))
			}
		}
		return in
	case *ir.CallStmt:
		return in // a device function's own termination is its own system's
	case *ir.Return:
		for _, st := range in {
			x.emit(st, x.exitLoc(), s.At())
		}
		return nil
	case *ir.Raise:
		for _, st := range in {
			x.emit(st, x.faultLoc(), s.At())
		}
		return nil
	case *ir.If:
		return x.branch(s.Cond, s.Then, s.Else, in, s.Pos)
	case *ir.Split:
		return x.branch(s.Cond, s.Then, s.Else, in, s.Pos)
	case *ir.Switch:
		var out []*state
		for _, st := range in {
			v := x.expr(s.X, st.env)
			var dflt []its.Expr
			for _, c := range s.Cases {
				var g its.Expr
				for _, k := range c.Values {
					e := its.B(its.Eq, v, &its.Const{Val: bigOf(s.X.Type(), ir.IntBits(s.X.Type(), k)), Sort: its.SortOf(v)})
					dflt = append(dflt, its.Negate(e))
					if g == nil {
						g = e
					} else {
						g = its.B(its.LOr, g, e)
					}
				}
				if g == nil {
					continue
				}
				if n := guard(st, g); n != nil {
					out = append(out, x.block(c.Body, []*state{n})...)
				}
			}
			d := st.clone()
			for _, g := range dflt {
				d.guards = addGuard(d.guards, g)
			}
			out = append(out, x.block(s.Default, []*state{d})...)
		}
		return x.join(out, s.Pos)
	case *ir.While:
		return x.loop(nil, s.Cond, nil, s.Body, in, s.Pos)
	case *ir.SplitWhile:
		return x.loop(nil, s.Cond, nil, s.Body, in, s.Pos)
	case *ir.For:
		return x.loop(s.Init, s.Cond, s.Post, s.Body, in, s.Pos)
	case *ir.Break:
		l := x.loops[len(x.loops)-1]
		l.breaks = append(l.breaks, in...)
		return nil
	case *ir.Continue:
		l := x.loops[len(x.loops)-1]
		l.conts = append(l.conts, in...)
		return nil
	case *ir.Fork:
		return x.block(s.Body, in)
	}
	x.fail(s.At(), "termination analysis: %T is not launch-level device code", s)
	return nil
}

func (x *fx) assign(name string, e ir.Expr, in []*state) []*state {
	v, ok := x.vars[name]
	if !ok {
		return in // floats and host values are not tracked
	}
	for _, st := range in {
		r := x.expr(e, st.env)
		if its.Size(r) > maxExprSize {
			r = &its.Nondet{Sort: x.exprSort(v), Why: "expression too large: " + name}
		}
		st.env[name] = r
	}
	return in
}

// exprSort is the sort expressions of a variable have (bool for 1-bit booleans).
func (x *fx) exprSort(v its.Var) its.Sort {
	if v.Sort == bit {
		return its.Bool
	}
	return v.Sort
}

func (x *fx) branch(c ir.Expr, then, els []ir.Stmt, in []*state, p ir.Pos) []*state {
	var out []*state
	for _, st := range in {
		g := x.expr(c, st.env)
		if t := guard(st, g); t != nil {
			out = append(out, x.block(then, []*state{t})...)
		}
		if e := guard(st, its.Negate(g)); e != nil {
			out = append(out, x.block(els, []*state{e})...)
		}
	}
	return x.join(out, p)
}

// loop makes the loop head a location (Note [Structured symbolic execution]).
func (x *fx) loop(init ir.Stmt, cond ir.Expr, post ir.Stmt, body []ir.Stmt, in []*state, p ir.Pos) []*state {
	if init != nil {
		in = x.stmt(init, in)
	}
	h := x.newLoc("loop", p, true)
	x.sys.Locs[h].Barrier = hasBarrier(x.m, body, map[string]bool{})
	for _, st := range in {
		x.emit(st, h, p)
	}
	l := &loop{head: h}
	x.loops = append(x.loops, l)
	start := &state{from: h, env: map[string]its.Expr{}}
	g := its.Expr(its.True())
	if cond != nil {
		g = x.expr(cond, start.env)
	}
	var exits []*state
	if e := guard(start, its.Negate(g)); e != nil {
		exits = append(exits, e)
	}
	var back []*state
	if b := guard(start, g); b != nil {
		back = x.block(body, []*state{b})
	}
	x.loops = x.loops[:len(x.loops)-1]
	back = append(back, l.conts...)
	if post != nil {
		back = x.stmt(post, back)
	}
	for _, st := range back {
		x.emit(st, h, p)
	}
	return x.join(append(exits, l.breaks...), p)
}

// hasBarrier reports whether body, or a device function it calls, holds a barrier.
func hasBarrier(m *ir.Module, body []ir.Stmt, seen map[string]bool) bool {
	found := false
	var calls []string
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Barrier:
			found = true
		case *ir.CallStmt:
			if s.Call != nil {
				calls = append(calls, s.Call.Func)
			}
		}
		return true
	})
	ir.WalkAllExprs(body, func(e ir.Expr) bool {
		if c, ok := e.(*ir.Call); ok {
			calls = append(calls, c.Func)
		}
		return true
	})
	for _, c := range calls {
		if f := m.Func(c); f != nil && !seen[c] {
			seen[c] = true
			if hasBarrier(m, f.Body, seen) {
				return true
			}
		}
	}
	return found
}
