package interp

import (
	"fmt"
	"strings"

	"gpuc/ir"
)

// stmts compiles a statement list that runs thread by thread.
func (c *compiler) stmts(list []ir.Stmt) stmtFn {
	fns := make([]stmtFn, 0, len(list))
	for _, s := range list {
		fns = append(fns, c.stmt(s))
	}
	switch len(fns) {
	case 0:
		return func(*frame) ctl { return ctlNext }
	case 1:
		return fns[0]
	}
	return func(f *frame) ctl {
		for _, s := range fns {
			if r := s(f); r != ctlNext {
				return r
			}
		}
		return ctlNext
	}
}

func nop(*frame) ctl { return ctlNext }

// stmt compiles one statement that runs thread by thread: any statement
// but those that hold barriers, splits or forks in team code.
func (c *compiler) stmt(s ir.Stmt) stmtFn {
	switch s := s.(type) {
	case nil:
		c.errorf(ir.Pos{}, "nil statement")
	case *ir.Decl:
		return c.decl(s)
	case *ir.Assign:
		v := c.expr(s.Value)
		if slot, ok := c.lookup(s.Name, s.Pos); ok {
			return func(f *frame) ctl { f.regs[slot] = v(f); return ctlNext }
		}
	case *ir.Store:
		return c.store(s)
	case *ir.Atomic:
		return c.atomic(s)
	case *ir.CallStmt:
		call := c.expr(s.Call)
		return func(f *frame) ctl { call(f); return ctlNext }
	case *ir.If:
		return c.ifStmt(s)
	case *ir.While:
		return c.while(s)
	case *ir.For:
		return c.forStmt(s)
	case *ir.Break:
		return func(*frame) ctl { return ctlBreak }
	case *ir.Continue:
		return func(*frame) ctl { return ctlContinue }
	case *ir.Return:
		return c.ret(s)
	case *ir.Switch:
		return c.switchStmt(s)
	case *ir.Raise:
		msg := s.Msg
		return func(*frame) ctl { panic(&RaiseError{Msg: msg}) }
	case *ir.Barrier:
		c.errorf(s.Pos, "barrier in %s", c.mode)
	case *ir.Split:
		c.errorf(s.Pos, "split in %s; it exists only in SPMD regions", c.mode)
	case *ir.Fork:
		c.errorf(s.Pos, "fork in %s; it exists only in SPMD regions", c.mode)
	case *ir.SplitWhile:
		c.errorf(s.Pos, "split while in %s; it exists only in SPMD regions", c.mode)
	case *ir.Launch, *ir.Region, *ir.Copy, *ir.Swap, *ir.Printf, *ir.Write, *ir.WorldBarrier, *ir.AllGather, *ir.AllReduce:
		return c.hostStmt(s)
	default:
		c.errorf(s.At(), "unknown statement %T", s)
	}
	return nop
}

func (c *compiler) decl(s *ir.Decl) stmtFn {
	if s.Init == nil {
		slot := c.declare(s.Name)
		return func(f *frame) ctl { f.regs[slot] = 0; return ctlNext }
	}
	v := c.expr(s.Init)
	slot := c.declare(s.Name)
	return func(f *frame) ctl { f.regs[slot] = v(f); return ctlNext }
}

// traced records each value of a host condition in the device's trace,
// with several devices (Note [Devices]).
func (c *compiler) traced(pos ir.Pos, cond evalFn) evalFn {
	if c.mode != modeHost || c.x.world == nil {
		return cond
	}
	x := c.x
	return func(f *frame) ir.Bits {
		v := cond(f)
		x.hosts[f.th.dev].branch(pos, v)
		return v
	}
}

// simple compiles a for loop's init or post statement, which may be nil.
func (c *compiler) simple(s ir.Stmt) stmtFn {
	switch s.(type) {
	case nil:
		return nil
	case *ir.Decl, *ir.Assign:
		return c.stmt(s)
	}
	c.errorf(s.At(), "for init and post must be declarations or assignments")
	return nil
}

func (c *compiler) ifStmt(s *ir.If) stmtFn {
	cond, then, els := c.traced(s.Pos, c.expr(s.Cond)), c.stmts(s.Then), c.stmts(s.Else)
	return func(f *frame) ctl {
		if cond(f) != 0 {
			return then(f)
		}
		return els(f)
	}
}

func (c *compiler) while(s *ir.While) stmtFn {
	cond, body := c.traced(s.Pos, c.expr(s.Cond)), c.stmts(s.Body)
	limit := c.loopLimit(s.Pos)
	cond = c.bounded(s.Pos, cond)
	if c.x.cfg.MaxSteps > 0 {
		body = c.x.counted(s.Pos, body)
	}
	return func(f *frame) ctl {
		for n := int64(0); cond(f) != 0; n++ {
			limit(f, n)
			if r, leave := afterBody(body(f)); leave {
				return r
			}
		}
		return ctlNext
	}
}

// loopLimit checks Config.LoopLimit before iteration n of a device loop.
func (c *compiler) loopLimit(pos ir.Pos) func(f *frame, n int64) {
	max := c.x.cfg.LoopLimit
	if max <= 0 || !c.mode.device() {
		return func(*frame, int64) {}
	}
	return func(f *frame, n int64) {
		if n >= max {
			panic(&LoopLimitError{Pos: pos, Thread: f.th.String(), Limit: max})
		}
	}
}

func (c *compiler) forStmt(s *ir.For) stmtFn {
	init := c.simple(s.Init)
	cond := c.traced(s.Pos, c.expr(s.Cond))
	post := c.simple(s.Post)
	body := c.stmts(s.Body)
	if c.x.cfg.MaxSteps > 0 {
		body = c.x.counted(s.Pos, body)
	}
	if init == nil {
		init = nop
	}
	if post == nil {
		post = nop
	}
	limit := c.loopLimit(s.Pos)
	cond = c.bounded(s.Pos, cond)
	return func(f *frame) ctl {
		n := int64(0)
		for init(f); cond(f) != 0; post(f) {
			limit(f, n)
			n++
			if r, leave := afterBody(body(f)); leave {
				return r
			}
		}
		return ctlNext
	}
}

// afterBody says whether a loop whose body ended with c leaves, and then
// what it returns: a break ends the loop, a return the function.
func afterBody(c ctl) (ctl, bool) {
	switch c {
	case ctlBreak:
		return ctlNext, true
	case ctlReturn:
		return ctlReturn, true
	}
	return ctlNext, false
}

// bounded wraps a loop's condition for Note [Bounded runs]: host loops
// count steps, and with a time limit every loop checks it.
func (c *compiler) bounded(pos ir.Pos, cond evalFn) evalFn {
	x := c.x
	switch {
	case c.mode == modeHost:
		return func(f *frame) ir.Bits { x.step(pos); return cond(f) }
	case x.cfg.Timeout > 0:
		return func(f *frame) ir.Bits { x.checkStop(pos); return cond(f) }
	}
	return cond
}

func (c *compiler) ret(s *ir.Return) stmtFn {
	if c.mode == modeRegion {
		c.errorf(s.Pos, "return in a region")
	}
	if s.Value == nil {
		return func(*frame) ctl { return ctlReturn }
	}
	v := c.expr(s.Value)
	return func(f *frame) ctl { f.ret = v(f); return ctlReturn }
}

// switchArms compiles a switch's value into the index of the arm it
// selects: a case's index, or len(s.Cases) for the default.
func (c *compiler) switchArms(s *ir.Switch) func(f *frame) int {
	x, t := c.traced(s.Pos, c.expr(s.X)), typeOf(s.X)
	if !t.IsInt() {
		c.errorf(s.Pos, "switch on %s, want an integer", t)
	}
	arms := map[int64]int{}
	for k, cs := range s.Cases {
		for _, v := range cs.Values {
			if _, dup := arms[v]; !dup {
				arms[v] = k
			}
		}
	}
	def := len(s.Cases)
	return func(f *frame) int {
		if k, ok := arms[int64(x(f))]; ok {
			return k
		}
		return def
	}
}

// armName names a switch arm in diagnostics.
func armName(s *ir.Switch, k int) string {
	if k == len(s.Cases) {
		return "the default"
	}
	vals := make([]string, len(s.Cases[k].Values))
	for i, v := range s.Cases[k].Values {
		vals[i] = fmt.Sprint(v)
	}
	return "case " + strings.Join(vals, ", ")
}

func (c *compiler) switchStmt(s *ir.Switch) stmtFn {
	arm := c.switchArms(s)
	bodies := make([]stmtFn, len(s.Cases)+1)
	for k, cs := range s.Cases {
		bodies[k] = c.stmts(cs.Body)
	}
	bodies[len(s.Cases)] = c.stmts(s.Default)
	return func(f *frame) ctl { return bodies[arm(f)](f) }
}

// addrFn computes the element a load, store or atomic accesses: the
// memory's current contents and an index checked against them.
type addrFn func(f *frame) ([]ir.Bits, uint64)

// address compiles the element name[index] for the current code, or
// returns nil after an error.
func (c *compiler) address(name string, index ir.Expr, pos ir.Pos) (*memory, addrFn) {
	m := c.x.mems[name]
	switch {
	case m == nil:
		c.errorf(pos, "undeclared buffer or array %s", name)
	case c.mode == modeConst:
		c.errorf(pos, "length reads %s %s; lengths use parameters and constants only", m.kind, name)
	case m.host && c.mode.device():
		c.errorf(pos, "host array %s in %s", name, c.mode)
	case m.shared >= 0 && (c.mode == modeHost || c.mode == modeRegion):
		c.errorf(pos, "shared buffer %s in %s; shared memory belongs to the blocks of a kernel", name, c.mode)
	default:
		idx, it := c.expr(index), typeOf(index)
		if !it.IsInt() {
			c.errorf(pos, "index of %s has type %s, want an integer type", name, it)
			return nil, nil
		}
		if k := m.shared; k >= 0 {
			return m, func(f *frame) ([]ir.Bits, uint64) {
				i, d := idx(f), f.th.blk.shared[k]
				if i >= uint64(len(d)) {
					outOfRange(pos, m, it, i, len(d))
				}
				return d, i
			}
		}
		if m.inst != nil {
			return m, func(f *frame) ([]ir.Bits, uint64) {
				i, d := idx(f), m.inst[f.th.dev]
				if i >= uint64(len(d)) {
					outOfRange(pos, m, it, i, len(d))
				}
				return d, i
			}
		}
		if x := c.x; x.world != nil && m.world && m.space == ir.Distributed {
			return m, func(f *frame) ([]ir.Bits, uint64) {
				i, d := idx(f), m.data
				if i >= uint64(len(d)) {
					outOfRange(pos, m, it, i, len(d))
				}
				if x.devOf(int64(i), int64(len(d))) == f.th.dev {
					x.world.local.Add(1)
				} else {
					x.world.remote.Add(1)
				}
				return d, i
			}
		}
		return m, func(f *frame) ([]ir.Bits, uint64) {
			i, d := idx(f), m.data
			if i >= uint64(len(d)) {
				outOfRange(pos, m, it, i, len(d))
			}
			return d, i
		}
	}
	return nil, nil
}

func outOfRange(pos ir.Pos, m *memory, t ir.Type, i uint64, n int) {
	fault(pos, "index %s out of range for %s %s of length %d", ir.FormatValue(t, i), m.kind, m.name, n)
}

// load compiles a read of one element; in device code under race-check
// mode it also records the read.
func (c *compiler) load(e *ir.Load) evalFn {
	m, addr := c.address(e.Buf, e.Index, e.Pos)
	switch {
	case addr == nil:
		return zero
	case c.x.race != nil && c.mode.device():
		rc, pos := c.x.race, c.x.race.pos(e.Pos)
		return func(f *frame) ir.Bits {
			d, i := addr(f)
			rc.read(f.th, m, i, pos)
			return d[i]
		}
	case c.x.world != nil && !c.mode.device() && m.space.IsDevice():
		w := c.x.world
		return func(f *frame) ir.Bits {
			d, i := addr(f)
			if f.th.dev == 0 {
				w.hostReads.Add(1)
			}
			return d[i]
		}
	}
	return func(f *frame) ir.Bits {
		d, i := addr(f)
		return d[i]
	}
}

// store compiles a write of one element, plain or (in regions) priority.
func (c *compiler) store(s *ir.Store) stmtFn {
	m, addr := c.address(s.Buf, s.Index, s.Pos)
	v := c.expr(s.Value)
	if check := c.boundCheck(s.Buf, s.Pos); check != nil {
		val := v
		v = func(f *frame) ir.Bits {
			x := val(f)
			check(x)
			return x
		}
	}
	switch {
	case addr == nil:
		return nop
	case s.Priority:
		return c.prioStore(s, m, addr, v)
	case c.x.race != nil && c.mode.device():
		rc, pos := c.x.race, c.x.race.pos(s.Pos)
		return func(f *frame) ctl {
			d, i := addr(f)
			val := v(f)
			rc.write(f.th, m, i, pos)
			d[i] = val
			return ctlNext
		}
	case c.mode == modeHost && m.world && m.space == ir.Distributed && c.x.world != nil:
		// Each device's host writes the elements it owns (Note [World]).
		x := c.x
		return func(f *frame) ctl {
			d, i := addr(f)
			val := v(f)
			if x.devOf(int64(i), int64(len(d))) == f.th.dev {
				d[i] = val
			}
			return ctlNext
		}
	}
	return func(f *frame) ctl {
		d, i := addr(f)
		d[i] = v(f)
		return ctlNext
	}
}
