package passes

import (
	"fmt"

	"gpuc/ir"
)

// Note [Strided cooperative kernels]
//
// A cooperative kernel runs every processor of its region as a thread of
// its own, so a region larger than the device holds at once (CHR's
// fixpoint at PROCS=2^20: 4096 blocks of 256, where an H100 holds some
// 500) fell back to relaunches: a launch for each piece between grid
// barriers and a read-back of the loop condition each step, the device
// idle in between (gcd 35 launches, sum 110 at 2^20 processors).
//
// grid-sync therefore makes a second kernel for such regions, the strided
// one, and tries it where the first does not fit: the launch `coop stride`
// runs as many blocks as the device holds (at least one), and each thread
// runs the processors gid(), gid() + T, gid() + 2T, ... (T the threads of
// the launch) of every piece that the plain kernel runs under `if active`
// (Note [Grid sync]), one after another, between the same grid syncs.
// Uniform statements run once on every thread as before. The processor
// count stays the region's, so pid() and nprocs() are what they are on
// every other path, and `gpuc run` at the same PROCS is still the
// reference.
//
// Running a piece's processors one after another on a thread is one of the
// schedules the relaunches already allow: their blocks are not resident
// together either, so no processor of a piece may wait for another. What
// the schedule must not do is mix the processors' private state. So a
// region gets a strided kernel only where each piece's private locals are
// its own: every local that a piece sets is declared in it (its
// declarations hoisted out of the guard are reset at the start of each
// processor), and none is read or set outside it. A piece must also not
// read the thread's place in its block (tid(), bid(), bdim(), gdim()),
// shared memory, block barriers or return. Regions that fail this keep
// the relaunches as their only fallback. The CUDA backend takes the
// strided kernel only where a thread would run at most GPUC_STRIDE
// (default 8) processors of a piece (gpuc_coop_held): past that, a long
// piece's processors in turn cost more than the relaunches' round trips
// (Floyd-Warshall 1024, and TRS's fixpoints: tree merge sort 23's main
// kernels 875 ms strided against 212 ms relaunched, on an H100).

// strider makes the guarded pieces of a strided kernel (the grouper's
// guard, Note [Strided cooperative kernels]) and checks them.
type strider struct {
	procs  ir.Expr
	names  *namer
	m      *ir.Module
	pieces []stridePiece
	reason string // why the kernel cannot stride; "" if it can
}

type stridePiece struct {
	loop    *ir.For
	hoisted []ir.Stmt
}

// loop runs a guarded piece for each of the thread's processors.
func (s *strider) loop(hoisted, inner []ir.Stmt, pos ir.Pos) ir.Stmt {
	s.check(inner)
	v := s.names.fresh("vp")
	vp := &ir.Var{Pos: pos, Name: v, T: ir.I32}
	renameBuiltins(inner, ir.GlobalID, vp)
	var body []ir.Stmt
	for _, h := range hoisted {
		d := h.(*ir.Decl)
		body = append(body, &ir.Assign{Pos: d.Pos, Name: d.Name, Value: &ir.Const{Pos: d.Pos, T: d.T}})
	}
	body = append(body, inner...)
	b := ir.NewBuilder(s.m, pos, &body)
	threads := b.Mul(b.Builtin(ir.GridDim), b.Builtin(ir.BlockDim))
	// v + max(min(T, procs - v), 1) passes neither procs nor v: v never
	// overflows and always grows, whatever T's product wraps to.
	next := b.Add(ir.CloneExpr(vp), b.Max(b.Min(threads, b.Sub(ir.CloneExpr(s.procs), ir.CloneExpr(vp))), b.I32(1)))
	f := &ir.For{Pos: pos, Init: &ir.Decl{Pos: pos, Name: v, T: ir.I32, Init: &ir.Builtin{Pos: pos, Op: ir.GlobalID}},
		Cond: b.Lt(ir.CloneExpr(vp), ir.CloneExpr(s.procs)), Post: &ir.Assign{Pos: pos, Name: v, Value: next}, Body: body}
	s.pieces = append(s.pieces, stridePiece{loop: f, hoisted: hoisted})
	return f
}

func (s *strider) fail(format string, args ...any) {
	if s.reason == "" {
		s.reason = fmt.Sprintf(format, args...)
	}
}

// check rejects a piece that reads the thread's place in its block,
// shared memory, or holds a block barrier or a return.
func (s *strider) check(inner []ir.Stmt) {
	ir.WalkStmts(inner, func(st ir.Stmt) bool {
		switch st.(type) {
		case *ir.Barrier:
			s.fail("a barrier in code that only some processors run")
		case *ir.Return:
			s.fail("a return")
		}
		return s.reason == ""
	})
	ir.WalkAllExprs(inner, func(e ir.Expr) bool {
		if b, ok := e.(*ir.Builtin); ok && b.Op.IsKernelOnly() {
			s.fail("%s() in a processor's code", b.Op)
		}
		return s.reason == ""
	})
	ir.WalkBufferUses(inner, func(buf string, _ ir.BufferUse) {
		if b := s.m.Buffer(buf); b != nil && b.Space == ir.Shared {
			s.fail("shared buffer %s", buf)
		}
	})
}

// private checks, once the kernel's body is whole, that each piece's
// locals are its own.
func (s *strider) private(body []ir.Stmt) {
	for _, p := range s.pieces {
		own := map[string]bool{}
		walkSetLocals(p.loop.Body, func(n *string) {
			if *n != "" {
				own[*n] = true
			}
		})
		for _, h := range p.hoisted {
			own[h.(*ir.Decl).Name] = true
		}
		declared := map[string]bool{}
		ir.WalkStmts(p.loop.Body, func(st ir.Stmt) bool {
			if d, ok := st.(*ir.Decl); ok {
				declared[d.Name] = true
			}
			if f, ok := st.(*ir.For); ok {
				if d, ok := f.Init.(*ir.Decl); ok {
					declared[d.Name] = true
				}
			}
			return true
		})
		for _, h := range p.hoisted {
			declared[h.(*ir.Decl).Name] = true
		}
		for n := range own {
			if !declared[n] {
				s.fail("a processor's code sets %s, declared outside it", n)
			}
		}
		hoisted := map[ir.Stmt]bool{}
		for _, h := range p.hoisted {
			hoisted[h] = true
		}
		loop := p.loop
		ir.AnyStmtOutside(body, func(st ir.Stmt) bool { return st == loop }, func(st ir.Stmt) bool {
			if st == loop || hoisted[st] {
				return false
			}
			for _, n := range ir.Assigned(st) {
				if own[n] {
					s.fail("%s is set by one processor's code and outside it", n)
				}
			}
			for n := range own {
				if ir.ExprsHold(st, isLocal(n)) {
					s.fail("%s is set by one processor's code and read outside it", n)
				}
			}
			return s.reason != ""
		})
	}
}

// stridedKernel makes the strided cooperative kernel of a region and its
// launch (Note [Strided cooperative kernels]), or reports why it cannot.
func (o *outliner) stridedKernel(r *ir.Region, base string) (*ir.Launch, string, error) {
	if r.World {
		return nil, "a world region", nil
	}
	body := ir.CloneStmts(r.Body)
	uniquifyLocals(body, o.names)
	procs := o.names.fresh("procs")
	active := o.names.fresh("active")
	pos := r.Pos
	procsVar := &ir.Var{Pos: pos, Name: procs, T: ir.I32}
	body = mapRegionBuiltins(body, procsVar)
	st := &strider{procs: procsVar, names: o.names, m: o.m}
	g := &grouper{m: o.m, names: o.names, u: newUniformity(o.m, body, false), world: r.World, wholeGroup: true, stride: st}
	body = g.emit(body, active, nil)
	if g.err != nil {
		return nil, "", g.err
	}
	st.private(body)
	if st.reason != "" {
		return nil, st.reason, nil
	}
	if ir.AnyExprIn(body, isLocal(active)) {
		return nil, "the processor's activity read outside its code", nil
	}
	l := o.coopLaunch(pos, base, procs, r.Procs, body, true)
	o.rep.note(pos, "region of %s processors: strided cooperative kernel %s, where the device does not hold every processor", ir.PrintExpr(r.Procs), l.Kernel)
	return l, "", nil
}
