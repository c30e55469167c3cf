package interp

import (
	"fmt"
	"math"
	"sort"

	"gpuc/ir"
)

// regionCode is a compiled SPMD region body. A body that holds grid
// barriers, splits or forks runs team-wide (wide), any other runs body
// processor by processor.
type regionCode struct {
	nslots   int
	captures []capture
	body     stmtFn
	wide     wideFn
}

// region compiles a region statement of a host function.
func (c *compiler) region(s *ir.Region) stmtFn {
	sub := newCompiler(c.x, modeRegion, c.errs)
	sub.outer = c
	rc := &regionCode{}
	if sub.collectiveList(s.Body) {
		rc.wide = sub.wideList(s.Body)
	} else {
		rc.body = sub.stmts(s.Body)
	}
	rc.nslots, rc.captures = sub.nslots, sub.captures
	procs, pt, x, pos := c.expr(s.Procs), typeOf(s.Procs), c.x, s.Pos
	if s.World {
		return func(f *frame) ctl {
			P := asInt(pt, procs(f))
			x.worldRun(f, fmt.Sprintf("a world region of %d processors", P), pos, func(hosts [][]ir.Bits) {
				x.runRegion(rc, P, hosts, pos)
			})
			return ctlNext
		}
	}
	return func(f *frame) ctl {
		x.place = placement{dev: f.th.dev}
		x.runRegion(rc, asInt(pt, procs(f)), [][]ir.Bits{f.regs}, pos)
		return ctlNext
	}
}

// runRegion runs a region on P processors; host holds the registers of
// the host function it reads variables from.
func (x *machine) runRegion(rc *regionCode, P int64, host [][]ir.Bits, pos ir.Pos) {
	switch {
	case P < 0:
		fault(pos, "negative region size %d", P)
	case P > math.MaxInt32:
		fault(pos, "region of %d processors is larger than 2^31-1", P)
	case P > maxProcs && rc.wide != nil:
		fault(pos, "region of %d processors with grid barriers is larger than the interpreter's limit of %d", P, maxProcs)
	case rc.wide != nil:
		checkTeamMemory(pos, "region", P, rc.nslots)
	case P == 0:
		return
	}
	if x.cfg.MaxSteps > 0 {
		x.addSteps(pos, P)
	}
	blk := &block{id: -1, shared: make([][]ir.Bits, len(x.shared)), shadow: make([][]shadow, len(x.shared))}
	if x.race != nil {
		x.race.start(x.newInterval())
	}
	blk.interval = x.newInterval()
	if rc.wide != nil {
		x.regionWide(rc, P, host, blk)
	} else {
		x.regionFlat(rc, P, host, blk)
	}
	if x.race != nil {
		x.race.check()
	}
}

// regionFlat runs a body without barriers processor by processor, in one
// reused frame.
func (x *machine) regionFlat(rc *regionCode, P int64, hosts [][]ir.Bits, blk *block) {
	th := thread{gsize: P, nprocs: P, blk: blk}
	f := frame{regs: make([]ir.Bits, rc.nslots), th: &th}
	for p := int64(0); p < P; p++ {
		th.gid, th.pid = p, p
		x.place.thread(&th, x.devOf(p, P))
		host := hosts[min(th.dev, len(hosts)-1)]
		for _, cp := range rc.captures {
			f.regs[cp.local] = host[cp.host]
		}
		rc.body(&f)
	}
}

// regionWide runs a body with barriers team-wide, one frame per processor.
func (x *machine) regionWide(rc *regionCode, P int64, hosts [][]ir.Bits, blk *block) {
	threads := make([]thread, P)
	frames := make([]frame, P)
	regs := make([]ir.Bits, P*int64(rc.nslots))
	tm := &team{frames: make([]*frame, P), st: make([]status, P), live: int(P), size: P, blk: blk}
	for p := range threads {
		threads[p] = thread{gid: int64(p), pid: int64(p), gsize: P, nprocs: P, blk: blk}
		x.place.thread(&threads[p], x.devOf(int64(p), P))
		host := hosts[min(threads[p].dev, len(hosts)-1)]
		r := regs[p*rc.nslots : (p+1)*rc.nslots]
		for _, cp := range rc.captures {
			r[cp.local] = host[cp.host]
		}
		frames[p] = frame{regs: r, th: &threads[p]}
		tm.frames[p] = &frames[p]
	}
	rc.wide(tm)
}

// subgroup collects the members of a team that form one subgroup: their
// indices in the team and their frames, in the order they run.
type subgroup struct {
	idx    []int
	frames []*frame
}

func (g *subgroup) add(k int, f *frame) {
	g.idx = append(g.idx, k)
	g.frames = append(g.frames, f)
}

// runSubgroup runs body on the subgroup g of tm, in an interval of its
// own, with groupsize() the subgroup's size. In race mode it runs in scope,
// a subgroup of the group's current one (newScope): the subgroups of one
// split or fork run concurrently on a device, though one after the other
// here.
func (x *machine) runSubgroup(tm *team, g *subgroup, scope uint32, body wideFn) {
	n := len(g.frames)
	if n == 0 {
		return
	}
	sub := &team{frames: g.frames, st: make([]status, n), live: n, size: int64(n), blk: tm.blk}
	for _, f := range g.frames {
		f.th.gsize = sub.size
	}
	tm.blk.interval = x.newInterval()
	outer := tm.blk.scope
	tm.blk.scope = scope
	body(sub)
	tm.blk.scope = outer
	for j, k := range g.idx {
		tm.st[k] = sub.st[j]
	}
}

// newScopes returns n new subgroup scopes of one split or fork, inside the
// current scope of tm, in race mode; zeros otherwise.
func (x *machine) newScopes(tm *team, n int) []uint32 {
	out := make([]uint32, n)
	if x.race != nil {
		split := uint32(len(x.race.scopes)) // the number of the first scope
		for i := range out {
			out[i] = x.race.newScope(tm.blk.scope, split)
		}
	}
	return out
}

// rejoin ends a split or fork: the group is whole again.
func (x *machine) rejoin(tm *team) {
	for _, f := range tm.frames {
		f.th.gsize = tm.size
	}
	tm.blk.interval = x.newInterval()
	tm.resume(running)
}

func (c *compiler) wideSplit(s *ir.Split) wideFn {
	cond, then, els := c.expr(s.Cond), c.wideList(s.Then), c.wideList(s.Else)
	x := c.x
	return func(tm *team) {
		// The group synchronises before the condition (ir.Split).
		tm.blk.interval = x.newInterval()
		var sides [2]subgroup
		for k, f := range tm.frames {
			if tm.st[k] != running {
				continue
			}
			if cond(f) != 0 {
				sides[0].add(k, f)
			} else {
				sides[1].add(k, f)
			}
		}
		scopes := x.newScopes(tm, 2)
		x.runSubgroup(tm, &sides[0], scopes[0], then)
		x.runSubgroup(tm, &sides[1], scopes[1], els)
		x.rejoin(tm)
	}
}

// wideSplitWhile runs a loop with a private condition: each iteration the
// members whose condition holds run the body as a subgroup; the others, and
// those that break, have left the loop.
func (c *compiler) wideSplitWhile(s *ir.SplitWhile) wideFn {
	cond := c.expr(s.Cond)
	c.loops++
	body, depth := c.wideList(s.Body), c.loops
	c.loops--
	if c.x.cfg.MaxSteps > 0 {
		body = c.x.countedWide(s.Pos, body)
	}
	x := c.x
	return func(tm *team) {
		// The iterations follow one another: one scope serves them all.
		scope := x.newScopes(tm, 1)[0]
		for {
			// The processors still in the loop synchronise before each
			// test of the condition (ir.SplitWhile).
			tm.blk.interval = x.newInterval()
			var in subgroup
			for k, f := range tm.frames {
				if tm.st[k] != running {
					continue
				}
				if cond(f) != 0 {
					in.add(k, f)
				} else {
					tm.st[k] = breakAt(depth)
				}
			}
			if len(in.frames) == 0 {
				break
			}
			x.runSubgroup(tm, &in, scope, body)
			tm.resume(continueAt(depth))
		}
		tm.resume(breakAt(depth))
		x.rejoin(tm)
	}
}

// forkEntry is one processor's place in a fork.
type forkEntry struct {
	k                int   // its index in the team
	group, member    int64 // its subgroup and new pid()
	oldPid, oldGroup int64
}

func (c *compiler) wideFork(s *ir.Fork) wideFn {
	count, group, member := c.expr(s.Count), c.expr(s.Group), c.expr(s.Member)
	ct, gt, mt := typeOf(s.Count), typeOf(s.Group), typeOf(s.Member)
	body := c.wideList(s.Body)
	x, pos := c.x, s.Pos
	showCount := func(b ir.Bits) string { return fmt.Sprint(asInt(ct, b)) }
	return func(tm *team) {
		n := asInt(ct, tm.agree(count, pos, "the count of this fork", showCount))
		var es []forkEntry
		for k, f := range tm.frames {
			if tm.st[k] != running {
				continue
			}
			g := asInt(gt, group(f))
			if g < 0 || g >= n {
				fault(pos, "fork group %d of %s is out of range for a fork of %d groups", g, f.th, n)
			}
			es = append(es, forkEntry{k: k, group: g, member: asInt(mt, member(f)), oldPid: f.th.pid, oldGroup: f.th.group})
		}
		sort.SliceStable(es, func(i, j int) bool {
			if es[i].group != es[j].group {
				return es[i].group < es[j].group
			}
			return es[i].member < es[j].member
		})
		groups := 0
		for i := range es {
			if i == 0 || es[i].group != es[i-1].group {
				groups++
			}
		}
		scopes := x.newScopes(tm, groups)
		for lo, s := 0, 0; lo < len(es); s++ {
			var g subgroup
			hi := lo
			for ; hi < len(es) && es[hi].group == es[lo].group; hi++ {
				f := tm.frames[es[hi].k]
				f.th.pid, f.th.group = es[hi].member, es[hi].group
				g.add(es[hi].k, f)
			}
			x.runSubgroup(tm, &g, scopes[s], body)
			lo = hi
		}
		for _, e := range es {
			th := tm.frames[e.k].th
			th.pid, th.group = e.oldPid, e.oldGroup
		}
		x.rejoin(tm)
	}
}
