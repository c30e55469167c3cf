package ir

import (
	"fmt"
	"math"
)

// Note [Uniformity]
//
// A block barrier must be reached by all threads of a block or by none, and
// a grid barrier by all processors of the current group. The verifier
// rejects a barrier whose execution may depend on the thread (in a kernel)
// or on the processor (in a region). It is a divergence analysis over the
// structured statements:
//
//   - An expression is varying if it reads tid(), gid() or pid(), a varying
//     local, a load whose index is varying, or calls a device function with
//     a varying argument or one that (transitively) reads tid() or gid() or
//     an atomic's result. Everything else is uniform: constants,
//     parameters, kernel parameters, bid(), bdim(), gdim(), group(),
//     groupsize(), nprocs(), and loads at uniform indices (the race checker
//     catches racy ones).
//   - Control flow is divergent inside an if, while, for or switch whose
//     condition is varying; after a break or continue under divergent
//     control flow for the rest of that loop body (for a break, the whole
//     loop, whose later iterations run without the threads that left); and
//     after a return under divergent control flow for the rest of the
//     kernel.
//   - A local is varying if any assignment to it has a varying value, is an
//     atomic's result, or sits under divergent control flow that threads
//     reading the local may have skipped: any varying condition, but a
//     divergent break or continue only for locals declared outside the
//     loop, and a divergent return for none, since the threads that
//     returned read nothing more. This is iterated to a fixpoint over the
//     whole kernel or region.
//   - Split and fork bodies start uniform, since barriers there synchronise
//     the subgroup, unless the split or fork itself sits under divergent
//     control flow. A local declared outside a split or fork and assigned
//     inside it varies with the split's condition or fork's group.

// funcFacts is what a device function's own body uses that matters to its
// callers; calls names the device functions it calls.
type funcFacts struct {
	uses  [numFacts]*use
	calls []string
}

type factKind int

const (
	usesShared   factKind = iota // a shared buffer, which regions lack
	usesGeometry                 // tid(), bid(), bdim() or gdim(), which regions lack
	usesVarying                  // tid(), gid() or an atomic's result
	numFacts
)

// use is the first use of a fact in a function.
type use struct {
	what string
	pos  Pos
}

// note records a fact about the device function being checked.
func (v *verifier) note(k factKind, what string, pos Pos) {
	if f := v.facts[v.fn]; f != nil && f.uses[k] == nil {
		f.uses[k] = &use{what: what, pos: pos}
	}
}

// regionCall is a call of a device function in a region.
type regionCall struct {
	fn   *Func // the host function holding the region
	call *Call
}

// noteCall records a call of a device function from device code.
func (v *verifier) noteCall(c *Call) {
	if v.cx.code == regionCode {
		v.calls = append(v.calls, regionCall{fn: v.fn, call: c})
	}
	if f := v.facts[v.fn]; f != nil {
		f.calls = append(f.calls, c.Func)
	}
}

// reach finds the first use of fact k in device function f or the device
// functions it calls, and the function where it sits.
func (v *verifier) reach(f *Func, k factKind, seen map[*Func]bool) (*use, *Func) {
	facts := v.facts[f]
	if facts == nil || seen[f] {
		return nil, nil
	}
	seen[f] = true
	if u := facts.uses[k]; u != nil {
		return u, f
	}
	for _, name := range facts.calls {
		if u, g := v.reach(v.funcs[name], k, seen); u != nil {
			return u, g
		}
	}
	return nil, nil
}

// regionCall checks that a device function called in a region needs no
// thread block.
func (v *verifier) regionCall(c *Call) {
	f := v.funcs[c.Func]
	for _, k := range []factKind{usesShared, usesGeometry} {
		u, g := v.reach(f, k, map[*Func]bool{})
		if u == nil {
			continue
		}
		where := ""
		if g != f {
			where = " in " + g.Name
		}
		v.errorf(c.Pos, "region calls %s, which uses %s%s at %s; regions have no thread blocks", c.Func, u.what, where, u.pos)
	}
}

// cause says what a varying value depends on: root is tid(), gid(),
// pid() or an atomic's result; via is the local through which the
// expression reads it, if any.
type cause struct{ root, via string }

func (c cause) String() string {
	if c.via == "" {
		return c.root
	}
	return c.root + " through " + c.via
}

// divergence is divergent control flow: the varying condition it stems
// from. Assignments under it make a local vary if the local was declared
// at a frame depth below limit (see uniformity.frames).
type divergence struct {
	at    Pos
	why   cause
	limit int
}

// allLocals is the limit of a divergence that makes every local it
// assigns vary.
const allLocals = math.MaxInt

// limited returns d with its effect on locals restricted to those declared
// at a depth below limit.
func limited(d *divergence, limit int) *divergence {
	if d == nil || d.limit <= limit {
		return d
	}
	out := *d
	out.limit = limit
	return &out
}

// exits are the divergences that break, continue and return statements
// under divergent control flow leak to the code after them.
type exits struct{ brk, cont, ret *divergence }

func first(ds ...*divergence) *divergence {
	for _, d := range ds {
		if d != nil {
			return d
		}
	}
	return nil
}

func (x exits) join(y exits) exits {
	return exits{first(x.brk, y.brk), first(x.cont, y.cont), first(x.ret, y.ret)}
}

// uniformity is the analysis of one kernel or region.
type uniformity struct {
	v       *verifier
	region  bool
	grid    bool // a cooperative kernel's grid barriers: bid() varies too
	varying map[*local]cause
	// frames has one entry for each enclosing loop (nil) and split or fork
	// (the divergence its condition or group adds); declAt is the depth
	// of each local's declaration, and inLoop the depth inside the innermost
	// loop.
	frames  []*divergence
	declAt  map[*local]int
	inLoop  int
	changed bool
	flagged map[*Barrier]string
	order   []*Barrier
}

// checkUniform reports the barriers in body under thread-dependent (in a
// kernel) or processor-dependent (in a region) control flow.
func (v *verifier) checkUniform(body []Stmt, region bool) {
	v.uniform(&uniformity{v: v, region: region}, body)
}

// checkGridUniform reports the grid barriers of a cooperative kernel under
// control flow that differs between threads anywhere in the grid.
func (v *verifier) checkGridUniform(body []Stmt) {
	v.uniform(&uniformity{v: v, grid: true}, body)
}

func (v *verifier) uniform(u *uniformity, body []Stmt) {
	u.varying, u.declAt = map[*local]cause{}, map[*local]int{}
	for {
		u.changed, u.flagged, u.order = false, map[*Barrier]string{}, nil
		u.block(body, nil)
		if !u.changed {
			break
		}
	}
	for _, b := range u.order {
		v.errorf(b.Pos, "%s", u.flagged[b])
	}
}

func (u *uniformity) block(body []Stmt, cur *divergence) exits {
	var out exits
	for _, s := range body {
		x := u.stmt(s, cur)
		out = out.join(x)
		cur = first(cur, x.brk, x.cont, x.ret)
	}
	return out
}

func (u *uniformity) stmt(s Stmt, cur *divergence) exits {
	switch s := s.(type) {
	case *Decl:
		u.declAt[u.v.defs[s]] = len(u.frames)
		if s.Init != nil {
			u.assign(s, s.Init, cur)
		}
	case *Assign:
		u.assign(s, s.Value, cur)
	case *Atomic:
		u.mark(u.v.defs[s], cause{root: "an atomic's result"})
	case *If:
		d := u.branch(cur, s.Cond, s.Pos)
		return u.block(s.Then, d).join(u.block(s.Else, d))
	case *Switch:
		d := u.branch(cur, s.X, s.Pos)
		x := u.block(s.Default, d)
		for _, c := range s.Cases {
			x = x.join(u.block(c.Body, d))
		}
		return x
	case *While:
		return u.loop(nil, s.Cond, nil, s.Body, s.Pos, cur)
	case *For:
		return u.loop(s.Init, s.Cond, s.Post, s.Body, s.Pos, cur)
	case *Break:
		return exits{brk: limited(cur, u.inLoop)}
	case *Continue:
		return exits{cont: limited(cur, u.inLoop)}
	case *Return:
		return exits{ret: limited(cur, 0)}
	case *Barrier:
		u.barrier(s, cur)
	case *Split:
		u.group(cur, u.branch(nil, s.Cond, s.Pos), s.Then, s.Else)
	case *Fork:
		d := first(u.branch(nil, s.Count, s.Pos), u.branch(nil, s.Group, s.Pos))
		u.group(cur, d, s.Body)
	case *SplitWhile:
		// Each iteration's body runs on the subgroup that stays in the loop,
		// as a split's does; the loop itself adds no divergence.
		u.frames = append(u.frames, first(cur, u.branch(nil, s.Cond, s.Pos)))
		x := u.loop(nil, nil, nil, s.Body, s.Pos, cur)
		u.frames = u.frames[:len(u.frames)-1]
		return x
	}
	return exits{}
}

// loop handles while (init and post nil) and for loops.
func (u *uniformity) loop(init Stmt, cond Expr, post Stmt, body []Stmt, pos Pos, cur *divergence) exits {
	savedLoop := u.inLoop
	u.frames = append(u.frames, nil)
	u.inLoop = len(u.frames)
	defer func() { u.frames, u.inLoop = u.frames[:len(u.frames)-1], savedLoop }()
	if init != nil {
		u.stmt(init, cur)
	}
	d := u.branch(cur, cond, pos)
	x := u.block(body, d)
	if leak := first(x.brk, x.ret); d == nil && leak != nil {
		// The later iterations run without the threads that left.
		d = leak
		x = u.block(body, d)
	}
	if post != nil {
		u.stmt(post, d)
	}
	return exits{ret: x.ret}
}

// group handles the bodies of a split or fork; d is the divergence that
// its condition or group adds.
func (u *uniformity) group(cur, d *divergence, bodies ...[]Stmt) {
	u.frames = append(u.frames, first(cur, d))
	for _, b := range bodies {
		u.block(b, cur)
	}
	u.frames = u.frames[:len(u.frames)-1]
}

// branch returns the divergence inside a statement whose condition is e.
// The outermost divergence names the cause; a varying condition makes
// every local assigned inside vary.
func (u *uniformity) branch(cur *divergence, e Expr, pos Pos) *divergence {
	c := u.cause(e)
	switch {
	case c == nil:
		return cur
	case cur != nil:
		out := *cur
		out.limit = allLocals
		return &out
	}
	if e.At().IsValid() {
		pos = e.At()
	}
	return &divergence{at: pos, why: *c, limit: allLocals}
}

func (u *uniformity) assign(s Stmt, value Expr, cur *divergence) {
	l := u.v.defs[s]
	if c := u.cause(value); c != nil {
		u.mark(l, cause{root: c.root})
		return
	}
	// A local varies if it is assigned under divergent control flow that
	// threads reading it may have skipped.
	at := u.declAt[l]
	d := cur
	if d != nil && at >= d.limit {
		d = nil
	}
	for k := at; d == nil && k < len(u.frames); k++ {
		d = u.frames[k]
	}
	if d != nil {
		u.mark(l, cause{root: d.why.root})
	}
}

func (u *uniformity) mark(l *local, c cause) {
	if _, ok := u.varying[l]; l != nil && !ok {
		u.varying[l] = c
		u.changed = true
	}
}

// cause returns what makes e vary, or nil if e is uniform.
func (u *uniformity) cause(e Expr) *cause {
	switch e := e.(type) {
	case *Var:
		if c, ok := u.varying[u.v.uses[e]]; ok {
			return &cause{root: c.root, via: e.Name}
		}
	case *Builtin:
		if e.Op == ThreadID || e.Op == GlobalID || e.Op == ProcID || (u.grid && (e.Op == BlockID || e.Op == DeviceID)) {
			return &cause{root: e.Op.String() + "()"}
		}
	case *Call:
		if f := u.v.funcs[e.Func]; f != nil {
			if use, g := u.v.reach(f, usesVarying, map[*Func]bool{}); use != nil {
				return &cause{root: fmt.Sprintf("%s in %s", use.what, g.Name)}
			}
		}
	}
	for _, x := range SubExprs(e) {
		if c := u.cause(x); c != nil {
			return c
		}
	}
	return nil
}

func (u *uniformity) barrier(b *Barrier, d *divergence) {
	if d == nil || b.Grid != (u.region || u.grid) {
		return
	}
	if _, ok := u.flagged[b]; !ok {
		u.order = append(u.order, b)
	}
	if u.grid {
		u.flagged[b] = fmt.Sprintf("grid barrier under control flow that differs across the grid (the condition at %s depends on %s)", d.at, d.why)
	} else if u.region {
		u.flagged[b] = fmt.Sprintf("grid barrier under processor-dependent control flow (the condition at %s depends on %s); use split", d.at, d.why)
	} else {
		u.flagged[b] = fmt.Sprintf("barrier under thread-dependent control flow (the condition at %s depends on %s)", d.at, d.why)
	}
}
