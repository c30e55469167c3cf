package interp

import (
	"gpuc/ir"
)

// team is the set of threads that run team-wide code together: the
// threads of a block, or the processors of a region's current group, in
// the order they run (Note [Segments]).
type team struct {
	frames []*frame
	st     []status // per member
	live   int      // members whose status is running
	size   int64    // groupsize() of a region group
	blk    *block
}

// wideFn runs team-wide code.
type wideFn func(tm *team)

// status says whether a team member runs the current code or why it
// stopped: it returned, or it left (break) or skipped the rest of
// (continue) the team-wide loop at some nesting depth.
type status int32

const (
	running  status = 0
	returned status = 1
)

func breakAt(depth int) status    { return status(2 + 2*depth) }
func continueAt(depth int) status { return status(3 + 2*depth) }

// why describes how a member that is not running stopped.
func (s status) why() string {
	switch {
	case s == returned:
		return "returned before it"
	case s%2 == 0:
		return "left the loop before it"
	}
	return "continued the loop before it"
}

// resume sets members stopped with status s running again, and recounts.
func (tm *team) resume(s status) {
	live := 0
	for k, st := range tm.st {
		if st == s {
			tm.st[k], st = running, running
		}
		if st == running {
			live++
		}
	}
	tm.live = live
}

// agree evaluates key for every running member; all must give the same
// value, which agree returns. Disagreement is a barrier divergence: the
// verifier only checks that barriers sit under uniform control flow where
// it can prove it.
func (tm *team) agree(key evalFn, pos ir.Pos, subject string, show func(ir.Bits) string) ir.Bits {
	first := -1
	var v ir.Bits
	for k, f := range tm.frames {
		if tm.st[k] != running {
			continue
		}
		b := key(f)
		if first < 0 {
			first, v = k, b
		} else if b != v {
			fault(pos, "barrier divergence: %s is %s for %s but %s for %s",
				subject, show(v), tm.frames[first].th, show(b), f.th)
		}
	}
	return v
}

func showBool(b ir.Bits) string {
	if b != 0 {
		return "true"
	}
	return "false"
}

// collective reports whether s must run team-wide: it holds a barrier, or
// in a region a split or fork.
func (c *compiler) collective(s ir.Stmt) bool {
	return ir.HasBarrier([]ir.Stmt{s}, false) || c.mode == modeRegion && ir.AnyStmt([]ir.Stmt{s}, ir.IsGroupConstruct)
}

func (c *compiler) collectiveList(list []ir.Stmt) bool {
	for _, s := range list {
		if c.collective(s) {
			return true
		}
	}
	return false
}

// wideList compiles a statement list that runs team-wide: maximal runs of
// statements without barriers become segments, run thread by thread.
func (c *compiler) wideList(list []ir.Stmt) wideFn {
	var items []wideFn
	start := 0
	for i, s := range list {
		if !c.collective(s) {
			continue
		}
		if start < i {
			items = append(items, c.segment(c.stmts(list[start:i])))
		}
		items = append(items, c.wideStmt(s))
		start = i + 1
	}
	if start < len(list) {
		items = append(items, c.segment(c.stmts(list[start:])))
	}
	return func(tm *team) {
		for _, it := range items {
			if tm.live == 0 {
				return
			}
			it(tm)
		}
	}
}

// segment runs body for each running member in turn, recording how each
// one ends.
func (c *compiler) segment(body stmtFn) wideFn {
	brk, cont := breakAt(c.loops), continueAt(c.loops)
	return func(tm *team) {
		live := 0
		for k, f := range tm.frames {
			if tm.st[k] != running {
				continue
			}
			switch body(f) {
			case ctlNext:
				live++
			case ctlReturn:
				tm.st[k] = returned
			case ctlBreak:
				tm.st[k] = brk
			case ctlContinue:
				tm.st[k] = cont
			}
		}
		tm.live = live
	}
}

func (c *compiler) wideStmt(s ir.Stmt) wideFn {
	switch s := s.(type) {
	case *ir.Barrier:
		return c.wideBarrier(s)
	case *ir.If:
		return c.wideIf(s)
	case *ir.While:
		return c.wideLoop(s.Pos, nil, s.Cond, nil, s.Body)
	case *ir.For:
		return c.wideLoop(s.Pos, s.Init, s.Cond, s.Post, s.Body)
	case *ir.Switch:
		return c.wideSwitch(s)
	case *ir.Split:
		return c.wideSplit(s)
	case *ir.Fork:
		return c.wideFork(s)
	case *ir.SplitWhile:
		return c.wideSplitWhile(s)
	}
	c.errorf(s.At(), "barrier in a %T statement", s)
	return func(*team) {}
}

func (c *compiler) wideBarrier(s *ir.Barrier) wideFn {
	if c.mode == modeRegion && !s.Grid {
		c.errorf(s.Pos, "block barrier in a region; use barrier grid")
	}
	x, pos, kernelGrid := c.x, s.Pos, c.mode == modeKernel && s.Grid
	return func(tm *team) {
		if kernelGrid && tm.frames[0].th.grid == nil {
			fault(pos, "grid barrier in a kernel launched without coop")
		}
		if tm.live < len(tm.frames) {
			divergent(tm, pos)
		}
		tm.blk.interval = x.newInterval()
	}
}

// divergent reports a barrier that some members of tm reached while others
// had stopped.
func divergent(tm *team, pos ir.Pos) {
	reached, left := -1, -1
	for k, st := range tm.st {
		switch {
		case st == running && reached < 0:
			reached = k
		case st != running && left < 0:
			left = k
		}
	}
	what := "barrier"
	if tm.blk.id < 0 {
		what = "grid barrier"
	}
	fault(pos, "barrier divergence: %s reached this %s but %s %s",
		tm.frames[reached].th, what, tm.frames[left].th, tm.st[left].why())
}

func (c *compiler) wideIf(s *ir.If) wideFn {
	cond, then, els := c.expr(s.Cond), c.wideList(s.Then), c.wideList(s.Else)
	pos := s.Pos
	return func(tm *team) {
		if tm.agree(cond, pos, "the condition of this if", showBool) != 0 {
			then(tm)
		} else {
			els(tm)
		}
	}
}

// wideLoop compiles a while loop (init and post nil) or a for loop that
// holds a barrier.
func (c *compiler) wideLoop(pos ir.Pos, initStmt ir.Stmt, condExpr ir.Expr, postStmt ir.Stmt, bodyList []ir.Stmt) wideFn {
	var init, post wideFn
	if fn := c.simple(initStmt); fn != nil {
		init = c.segment(fn)
	}
	cond := c.expr(condExpr)
	if fn := c.simple(postStmt); fn != nil {
		post = c.segment(fn)
	}
	x := c.x
	c.loops++
	body, depth := c.wideList(bodyList), c.loops
	c.loops--
	if c.x.cfg.MaxSteps > 0 {
		body = c.x.countedWide(pos, body)
	}
	return func(tm *team) {
		if init != nil {
			init(tm)
		}
		for tm.live > 0 && tm.agree(cond, pos, "the condition of this loop", showBool) != 0 {
			x.step(pos)
			body(tm)
			tm.resume(continueAt(depth))
			if post != nil && tm.live > 0 {
				post(tm)
			}
		}
		tm.resume(breakAt(depth))
	}
}

func (c *compiler) wideSwitch(s *ir.Switch) wideFn {
	arm := c.switchArms(s)
	bodies := make([]wideFn, len(s.Cases)+1)
	for k, cs := range s.Cases {
		bodies[k] = c.wideList(cs.Body)
	}
	bodies[len(s.Cases)] = c.wideList(s.Default)
	key := func(f *frame) ir.Bits { return ir.Bits(arm(f)) }
	show := func(b ir.Bits) string { return armName(s, int(b)) }
	pos := s.Pos
	return func(tm *team) {
		bodies[tm.agree(key, pos, "the arm this switch takes", show)](tm)
	}
}
