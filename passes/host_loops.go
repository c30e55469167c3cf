package passes

import (
	"gpuc/ir"
)

var hostLoopsPass = &Pass{
	Name: "host-loops",
	Doc:  "run barrier-holding loops, ifs and switches, and printing seq code, on the host",
	From: ir.SPMDLevel,
	To:   ir.SPMDLevel,
	Run:  hostLoops,
}

// Note [Host loops]
//
// A loop, if or switch of a region whose body holds a grid barrier has a
// condition that is the same on every processor (the verifier sees to
// that), so the host can run it: the region is cut around the statement,
// which becomes host control flow whose bodies are regions again. The
// paper applied this rule by hand; here it is general.
//
// Conditions are evaluated where they are cheapest. A region local whose
// every assignment sits at this lifted level and computes a value from
// parameters, constants and host-side values (a loop counter such as
// Fork's `for (d = 1; d < N; d *= 2)`) becomes a host variable: the host
// runs the loop itself, and kernels receive the counter as an argument,
// with no read-back per iteration. Any other condition is reduced on the
// device: a one-processor region stores it in a condition buffer, and the
// host reads it back.
//
// A seq section that prints (`if pid() == 0 { ... printf ... }`, what
// Fork's seq becomes) runs on the host too, for processor 0: its
// privates come from processor 0's spill slots, its shared accesses are
// read-backs and writes of device memory.
//
// Locals used in more than one of the resulting pieces are spilled (Note
// [Spilling]). Grid barriers at the top level of the new regions stay for
// split-barriers.

func hostLoops(m *ir.Module, cfg *Config) error {
	return rewriteRegions(m, cfg, func(o *outliner, _ *ir.Func, r *ir.Region, _ int) ([]ir.Stmt, error) {
		if !needsHost(r.Body) {
			return []ir.Stmt{r}, nil
		}
		return o.hoistRegion(r)
	})
}

// needsHost reports whether a region body holds a grid barrier below its
// top level, or a printf.
func needsHost(body []ir.Stmt) bool {
	for _, s := range body {
		if holdsHostWork(s) {
			return true
		}
	}
	return false
}

// holdsHostWork reports whether s must be lifted: it holds a grid barrier
// nested inside it, or a printf anywhere.
func holdsHostWork(s ir.Stmt) bool {
	if _, ok := s.(*ir.Printf); ok {
		return true
	}
	for _, sub := range ir.SubBodies(s) {
		if ir.HasBarrier(sub, true) || ir.AnyStmt(sub, func(x ir.Stmt) bool { _, ok := x.(*ir.Printf); return ok }) {
			return true
		}
	}
	return false
}

// hoister lowers one region.
type hoister struct {
	o        *outliner
	r        *ir.Region
	lifted   map[ir.Stmt]bool
	host     map[string]bool // region locals that become host variables
	types    map[string]ir.Type
	pieces   []piece
	seqs     map[*ir.If]*[]ir.Stmt // placeholders of host-run seq bodies
	seqList  []*[]ir.Stmt
	procsVar string
	cond     string // the condition buffer
	// b builds the host's expressions, the read-backs among them, which
	// have no source position of their own.
	b   *ir.Builder
	err error
}

func (o *outliner) hoistRegion(r *ir.Region) ([]ir.Stmt, error) {
	if err := checkNoGroups(r); err != nil {
		return nil, err
	}
	uniquifyLocals(r.Body, o.names)
	h := &hoister{o: o, r: r, lifted: map[ir.Stmt]bool{}, seqs: map[*ir.If]*[]ir.Stmt{}, b: ir.NewBuilder(o.m, ir.Pos{}, nil)}
	h.markLifted(r.Body, nil)
	h.types = regionLocals(r.Body)
	h.findHostLocals()
	var out []ir.Stmt
	h.procsVar = o.procsLocal(r, &out)
	out = append(out, h.list(r.Body)...)
	if h.err != nil {
		return nil, h.err
	}
	device := map[string]ir.Type{}
	for name, t := range h.types {
		if !h.host[name] {
			device[name] = t
		}
	}
	if _, err := o.spillAcross(h.pieces, h.seqList, r.Procs, device, r.Pos); err != nil {
		return nil, err
	}
	out = ir.RewriteStmts(out, func(s ir.Stmt) []ir.Stmt {
		if i, ok := s.(*ir.If); ok && h.seqs[i] != nil {
			return *h.seqs[i]
		}
		return []ir.Stmt{s}
	})
	if !readIn(h.procsVar, out) {
		out = out[1:]
	}
	return out, nil
}

// checkNoGroups reports a region that still holds group constructs.
func checkNoGroups(r *ir.Region) error {
	var err error
	ir.WalkStmts(r.Body, func(s ir.Stmt) bool {
		if ir.IsGroupConstruct(s) && err == nil {
			err = errorf(s.At(), "host-loops: group construct in a region; run %s first", groupSplitPass.Name)
		}
		return err == nil
	})
	return err
}

// markLifted marks the statements of a lifted-level list that run on the
// host, and the break and continue statements that leave lifted loops.
// loops holds, innermost last, whether each enclosing loop is lifted.
func (h *hoister) markLifted(body []ir.Stmt, loops []bool) bool {
	any := false
	for _, s := range body {
		if h.markStmt(s, loops) {
			h.lifted[s] = true
			any = true
		}
	}
	return any
}

func (h *hoister) markStmt(s ir.Stmt, loops []bool) bool {
	switch s := s.(type) {
	case *ir.Break, *ir.Continue:
		return len(loops) > 0 && loops[len(loops)-1]
	case *ir.While:
		lift := holdsHostWork(s)
		h.markLifted(s.Body, append(loops, lift))
		return lift
	case *ir.For:
		lift := holdsHostWork(s)
		h.markLifted(s.Body, append(loops, lift))
		return lift
	case *ir.If:
		a := h.markLifted(s.Then, loops)
		b := h.markLifted(s.Else, loops)
		return a || b || holdsHostWork(s)
	case *ir.Switch:
		lift := holdsHostWork(s)
		for _, c := range s.Cases {
			lift = h.markLifted(c.Body, loops) || lift
		}
		return h.markLifted(s.Default, loops) || lift
	}
	return false
}

// findHostLocals finds the locals that can live on the host: every
// assignment at the lifted level, from host-computable values.
func (h *hoister) findHostLocals() {
	h.host = map[string]bool{}
	type def struct {
		value ir.Expr
		ok    bool // at the lifted level, a plain declaration or assignment
	}
	defs := map[string][]def{}
	var device func(ir.Stmt)
	device = func(s ir.Stmt) {
		ir.WalkStmts([]ir.Stmt{s}, func(x ir.Stmt) bool {
			for _, name := range ir.Assigned(x) {
				defs[name] = append(defs[name], def{})
			}
			return true
		})
	}
	var lifted func([]ir.Stmt)
	simple := func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Decl:
			defs[s.Name] = append(defs[s.Name], def{value: s.Init, ok: true})
		case *ir.Assign:
			defs[s.Name] = append(defs[s.Name], def{value: s.Value, ok: true})
		case nil:
		default:
			device(s)
		}
	}
	lifted = func(body []ir.Stmt) {
		for _, s := range body {
			if !h.lifted[s] {
				if _, ok := s.(*ir.Decl); ok {
					simple(s)
				} else if a, ok := s.(*ir.Assign); ok {
					simple(a)
				} else {
					device(s)
				}
				continue
			}
			if f, ok := s.(*ir.For); ok {
				simple(f.Init)
				simple(f.Post)
			}
			if isSeq(s) {
				device(s)
				continue
			}
			for _, sub := range ir.SubBodies(s) {
				lifted(sub)
			}
		}
	}
	lifted(h.r.Body)
	for name := range h.types {
		h.host[name] = true
	}
	for changed := true; changed; {
		changed = false
		for name := range h.host {
			for _, d := range defs[name] {
				if !d.ok || (d.value != nil && !h.hostComputable(d.value)) {
					delete(h.host, name)
					changed = true
					break
				}
			}
		}
	}
}

// hostComputable reports whether the host can evaluate e: it reads only
// constants, parameters, host variables and host locals.
func (h *hoister) hostComputable(e ir.Expr) bool {
	ok := true
	ir.WalkExpr(e, func(x ir.Expr) bool {
		switch x := x.(type) {
		case *ir.Var:
			if _, isLocal := h.types[x.Name]; isLocal && !h.host[x.Name] {
				ok = false
			}
		case *ir.Builtin:
			ok = ok && (x.Op.Arity() > 0 && x.Op != ir.Hybrid || x.Op == ir.GroupID || x.Op == ir.GroupSize || x.Op == ir.NumProcs)
		case *ir.Load, *ir.Call:
			ok = false
		}
		return ok
	})
	return ok
}

// toHost rewrites a host-computable expression for the host.
func (h *hoister) toHost(e ir.Expr) ir.Expr {
	return mapRegionBuiltinsExpr(e, h.procsI32())
}

func (h *hoister) procsI32() ir.Expr {
	return h.b.Conv(ir.I32, h.b.Local(h.procsVar, ir.I64))
}

func mapRegionBuiltinsExpr(e ir.Expr, procs ir.Expr) ir.Expr {
	body := mapRegionBuiltins([]ir.Stmt{&ir.Return{Value: e}}, procs)
	return body[0].(*ir.Return).Value
}

// list lowers a lifted-level statement list to host statements.
func (h *hoister) list(body []ir.Stmt) []ir.Stmt {
	var out, dev []ir.Stmt
	flush := func() {
		if len(trimBarriers(dev)) > 0 {
			out = append(out, h.region(dev, h.procsExpr()))
		}
		dev = nil
	}
	for _, s := range body {
		switch {
		case h.isHostSimple(s):
			flush()
			out = append(out, h.hostSimple(s))
		case h.lifted[s]:
			flush()
			var prev *ir.Region
			if n := len(out); n > 0 {
				prev, _ = out[n-1].(*ir.Region)
			}
			out = append(out, h.lift(s, prev)...)
		default:
			dev = append(dev, s)
		}
	}
	flush()
	if out == nil && body != nil {
		out = []ir.Stmt{}
	}
	return out
}

func (h *hoister) procsExpr() ir.Expr {
	if paramOnly(h.r.Procs) {
		return ir.CloneExpr(h.r.Procs)
	}
	return h.b.Local(h.procsVar, ir.I64)
}

// region makes a region of device statements and records it as a piece.
func (h *hoister) region(body []ir.Stmt, procs ir.Expr) *ir.Region {
	r := &ir.Region{Pos: h.r.Pos, Procs: procs, Body: trimBarriers(body), World: h.r.World}
	h.pieces = append(h.pieces, piece{body: &r.Body})
	return r
}

func (h *hoister) isHostSimple(s ir.Stmt) bool {
	switch s := s.(type) {
	case *ir.Decl:
		return h.host[s.Name]
	case *ir.Assign:
		return h.host[s.Name]
	}
	return false
}

func (h *hoister) hostSimple(s ir.Stmt) ir.Stmt {
	switch s := s.(type) {
	case *ir.Decl:
		if s.Init != nil {
			s.Init = h.toHost(s.Init)
		}
	case *ir.Assign:
		s.Value = h.toHost(s.Value)
	}
	return s
}

// lift lowers one lifted statement; prev is the device piece that runs
// just before it, if there is one.
func (h *hoister) lift(s ir.Stmt, prev *ir.Region) []ir.Stmt {
	switch s := s.(type) {
	case *ir.Break, *ir.Continue:
		return []ir.Stmt{s}
	case *ir.If:
		if isSeq(s) {
			h.o.rep.note(s.Pos, "seq section runs on the host, for processor 0")
			return h.seq(s)
		}
		h.o.rep.note(s.Pos, "if runs on the host")
		pre, cond := h.condition(s.Cond)
		return append(pre, &ir.If{Pos: s.Pos, Cond: cond, Then: h.list(s.Then), Else: h.list(s.Else)})
	case *ir.Switch:
		pre, x := h.value(s.X)
		sw := &ir.Switch{Pos: s.Pos, X: x, Default: h.list(s.Default)}
		for _, c := range s.Cases {
			sw.Cases = append(sw.Cases, &ir.Case{Pos: c.Pos, Values: c.Values, Body: h.list(c.Body)})
		}
		return append(pre, sw)
	case *ir.While:
		return h.loop(s.Pos, nil, s.Cond, nil, s.Body, prev)
	case *ir.For:
		return h.loop(s.Pos, s.Init, s.Cond, s.Post, s.Body, prev)
	case *ir.Printf:
		h.fail(errorf(s.Pos, "host-loops: printf in parallel code outside a seq section (if pid() == 0)"))
	default:
		h.fail(errorf(s.At(), "host-loops: cannot run this statement on the host"))
	}
	return nil
}

func (h *hoister) fail(err error) {
	if h.err == nil {
		h.err = err
	}
}

// loop lowers a lifted while or for loop. With a host-side init, condition
// and post it stays a for loop on the host; otherwise it becomes
// `while true { condition; if !c break; body; post }`.
func (h *hoister) loop(pos ir.Pos, init ir.Stmt, cond ir.Expr, post ir.Stmt, body []ir.Stmt, prev *ir.Region) []ir.Stmt {
	var out []ir.Stmt
	hostInit := init == nil || h.isHostSimple(init)
	hostPost := post == nil || h.isHostSimple(post)
	if hostInit && hostPost && h.hostComputable(cond) {
		h.o.rep.note(pos, "loop runs on the host, its counter a host variable: no read-back per iteration")
		f := &ir.For{Pos: pos, Cond: h.toHost(cond), Body: h.list(body)}
		if init != nil {
			f.Init = h.hostSimple(init)
		}
		if post != nil {
			f.Post = h.hostSimple(post)
		}
		return []ir.Stmt{f}
	}
	if init != nil {
		out = append(out, h.list([]ir.Stmt{init})...)
		prev = lastRegion(out)
	}
	if post != nil && !hostPost && ir.JumpsOut(body, false) {
		h.fail(errorf(pos, "host-loops: a continue in this loop would skip its device-side increment; write the loop as a while"))
	}
	rest := h.list(body)
	if post != nil {
		rest = append(rest, h.list([]ir.Stmt{post})...)
	}
	b := ir.NewBuilder(h.o.m, pos, &out)
	var pre []ir.Stmt
	var c ir.Expr
	if last := lastRegion(rest); h.foldable(cond) && prev != nil && last != nil && !ir.JumpsOut(body, false) {
		// The pieces that run just before each evaluation of the condition
		// compute it: no launch of its own per iteration.
		h.o.rep.note(pos, "loop runs on the host; its condition is computed by the kernel before it and read back each iteration")
		c = h.computeAtEnd(cond, prev, last)
	} else {
		h.o.rep.note(pos, "loop runs on the host; its condition is reduced on the device and read back each iteration")
		pre, c = h.condition(cond)
	}
	b.While(h.b.Bool(true), func() {
		b.Emit(pre...)
		b.If(b.Not(c), b.Break)
		b.Emit(rest...)
	})
	return out
}

// lastRegion returns the last statement of list if it is a region.
func lastRegion(list []ir.Stmt) *ir.Region {
	if n := len(list); n > 0 {
		r, _ := list[n-1].(*ir.Region)
		return r
	}
	return nil
}

// foldable reports whether a loop condition may be computed at the end of
// the device piece before it: it reads locals and constants only, not
// memory, which other processors of that piece may still be writing.
func (h *hoister) foldable(cond ir.Expr) bool {
	ok := true
	ir.WalkExpr(cond, func(x ir.Expr) bool {
		switch x.(type) {
		case *ir.Load, *ir.Call:
			ok = false
		}
		return ok
	})
	return ok
}

// computeAtEnd has processor 0 store the uniform cond, at the end of each
// of the pieces, in the condition buffer, and returns the host's test.
func (h *hoister) computeAtEnd(cond ir.Expr, pieces ...*ir.Region) ir.Expr {
	buf := h.condBuffer()
	for _, r := range pieces {
		b := ir.NewBuilder(h.o.m, ir.Pos{}, &r.Body)
		b.If(b.Eq(b.Builtin(ir.ProcID), b.I32(0)), func() {
			b.Store(buf, b.I32(0), b.Conv(ir.I64, ir.CloneExpr(cond)))
		})
	}
	return h.b.Ne(h.b.Ld(buf, h.b.I32(0)), h.b.I64(0))
}

// condition returns host statements to run first and a host expression
// for a bool condition.
func (h *hoister) condition(e ir.Expr) ([]ir.Stmt, ir.Expr) {
	if h.hostComputable(e) {
		return nil, h.toHost(e)
	}
	pre, v := h.reduce(e)
	return pre, h.b.Ne(v, h.b.I64(0))
}

// value is condition for a switch's integer.
func (h *hoister) value(e ir.Expr) ([]ir.Stmt, ir.Expr) {
	if h.hostComputable(e) {
		return nil, h.toHost(e)
	}
	return h.reduce(e)
}

// reduce evaluates a uniform expression on the device, as processor 0,
// and returns the region that does it and the host's read-back, an i64.
func (h *hoister) reduce(e ir.Expr) ([]ir.Stmt, ir.Expr) {
	// One processor evaluates e; the region's own count stands for nprocs().
	e = ir.RewriteExpr(e, func(x ir.Expr) ir.Expr {
		if b, ok := x.(*ir.Builtin); ok && (b.Op == ir.NumProcs || b.Op == ir.GroupSize) {
			return h.procsI32()
		}
		return x
	})
	var body []ir.Stmt
	b := ir.NewBuilder(h.o.m, e.At(), &body)
	b.Store(h.condBuffer(), h.b.I32(0), h.b.Conv(ir.I64, e))
	r := h.region(body, h.b.I32(1))
	return []ir.Stmt{r}, h.b.Ld(h.cond, h.b.I32(0))
}

// condBuffer returns the one-element buffer through which the device tells
// the host a condition, making it the first time.
func (h *hoister) condBuffer() string {
	if h.cond == "" {
		h.cond = h.o.names.fresh("hostcond")
		b := ir.NewBuilder(h.o.m, h.r.Pos, nil)
		b.Scratch(h.cond, ir.I64, b.I32(1)).Space = worldSpace(h.r.World)
	}
	return h.cond
}

// isSeq reports whether s is a seq section: `if pid() == 0 { ... }` with
// no else.
func isSeq(s ir.Stmt) bool {
	i, ok := s.(*ir.If)
	if !ok || len(i.Else) > 0 {
		return false
	}
	b, ok := i.Cond.(*ir.Binary)
	if !ok || b.Op != ir.Eq {
		return false
	}
	isPid := func(e ir.Expr) bool { x, ok := e.(*ir.Builtin); return ok && x.Op == ir.ProcID }
	isZero := func(e ir.Expr) bool { c, ok := e.(*ir.Const); return ok && c.Bits == 0 }
	return (isPid(b.X) && isZero(b.Y)) || (isZero(b.X) && isPid(b.Y))
}

// seq runs a seq section on the host, as processor 0.
func (h *hoister) seq(s *ir.If) []ir.Stmt {
	body := s.Then
	ir.RewriteAllExprs(body, func(e ir.Expr) ir.Expr {
		switch x := e.(type) {
		case *ir.Builtin:
			switch x.Op {
			case ir.ProcID, ir.GlobalID, ir.GroupID:
				return &ir.Const{Pos: x.Pos, T: ir.I32}
			case ir.GroupSize, ir.NumProcs:
				return h.procsI32()
			}
		case *ir.Call:
			h.fail(errorf(x.Pos, "host-loops: this seq section calls device function %s, which the host cannot run", x.Func))
		}
		return e
	})
	ir.WalkStmts(body, func(x ir.Stmt) bool {
		switch x := x.(type) {
		case *ir.Atomic:
			h.fail(errorf(x.Pos, "host-loops: an atomic in a seq section that prints; the host cannot run it"))
		case *ir.CallStmt:
			h.fail(errorf(x.Pos, "host-loops: this seq section calls device function %s, which the host cannot run", x.Call.Func))
		}
		return true
	})
	holder := &ir.If{Pos: s.Pos, Cond: ir.BoolConst(true), Then: body}
	h.seqs[holder] = &holder.Then
	h.seqList = append(h.seqList, &holder.Then)
	return []ir.Stmt{holder}
}
