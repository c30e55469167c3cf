package passes

import (
	"fmt"

	"gpuc/internal/enum"
	"gpuc/ir"
)

var gridSyncPass = &Pass{
	Name: "grid-sync",
	Doc:  "run a barrier-holding region as one cooperative kernel with grid-wide syncs, with relaunches as the fallback",
	From: ir.SPMDLevel,
	To:   ir.SPMDLevel,
	Run:  gridSync,
}

// Note [Grid sync]
//
// A grid barrier costs a kernel boundary when regions are cut into
// launches: a launch, and a read-back wherever the host decides a loop.
// When the device can hold every processor of a region at once, a
// cooperative launch does better: the whole region runs as one kernel and
// each grid barrier is a grid-wide sync, a few microseconds instead of a
// relaunch and a read-back.
//
// Whether the processors fit is known only on the device, so by default
// (Config.GridSync "auto") grid-sync makes both: a cooperative kernel of
// the whole region, and the region itself as the launch's fallback, which
// host-loops and split-barriers then lower to relaunches. "always" drops
// the fallback, so a region too large for the device is an error; "never"
// leaves regions alone.
//
// In the kernel, thread gid() is processor pid(). The threads beyond the
// region's size (the last block's spare ones) must pass the same grid
// syncs, so the body runs as group-split runs a subgroup (Note [Group
// split]): statements with effects under `if gid() < P`, uniform ones and
// uniform control flow on every thread.
//
// Regions that print or hold multiprefix atomics keep relaunches: those
// need the host between their steps.

func gridSync(m *ir.Module, cfg *Config) error {
	mode := GridSyncAuto
	if cfg != nil && cfg.GridSync != "" {
		mode = cfg.GridSync
	}
	switch mode {
	case GridSyncNever:
		return nil
	case GridSyncAuto, GridSyncAlways:
	default:
		return fmt.Errorf("grid-sync: mode %q; want auto, always or never", mode)
	}
	coop := 0
	return rewriteRegions(m, cfg, func(o *outliner, f *ir.Func, r *ir.Region, _ int) ([]ir.Stmt, error) {
		var out []ir.Stmt
		for _, part := range o.cutAtOutput(r) {
			if !coopEligible(part) {
				out = append(out, part)
				continue
			}
			coop++
			l, err := o.coopKernel(part, fmt.Sprintf("%s_coop%d", f.Name, coop))
			if err != nil {
				return nil, err
			}
			if mode == GridSyncAuto {
				l.Fallback = []ir.Stmt{part}
				s, why, err := o.stridedKernel(part, fmt.Sprintf("%s_stride%d", f.Name, coop))
				if err != nil {
					return nil, err
				}
				if s != nil {
					s.Fallback, l.Fallback = l.Fallback, []ir.Stmt{s}
				} else {
					o.rep.note(part.Pos, "no strided cooperative kernel: %s", why)
				}
			}
			out = append(out, l)
		}
		return out, nil
	})
}

// cutAtOutput cuts a region before each top-level statement that prints
// (Fork's seq printf, which host-loops moves to the host), so that the
// parts between may run cooperatively. Locals crossing a cut are spilled
// (Note [Spilling]).
func (o *outliner) cutAtOutput(r *ir.Region) []*ir.Region {
	var cuts []int
	for i, s := range r.Body {
		if i > 0 && holdsOutput(s) {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) == 0 || !paramOnly(r.Procs) {
		return []*ir.Region{r}
	}
	uniquifyLocals(r.Body, o.names)
	types := regionLocals(r.Body)
	var parts []*ir.Region
	start := 0
	for _, c := range append(cuts, len(r.Body)) {
		parts = append(parts, &ir.Region{Pos: r.Pos, Procs: ir.CloneExpr(r.Procs), Body: trimBarriers(r.Body[start:c]), World: r.World})
		start = c
	}
	pieces := make([]piece, len(parts))
	for i, p := range parts {
		pieces[i] = piece{body: &p.Body}
	}
	if _, err := o.spillAcross(pieces, nil, r.Procs, types, r.Pos); err != nil {
		return []*ir.Region{r}
	}
	return parts
}

func holdsOutput(s ir.Stmt) bool {
	return ir.AnyStmt([]ir.Stmt{s}, func(x ir.Stmt) bool {
		_, ok := x.(*ir.Printf)
		return ok
	})
}

// coopEligible reports whether a region gains from a cooperative launch
// and can have one: it holds a grid barrier, no output, no multiprefix.
func coopEligible(r *ir.Region) bool {
	barrier, blocked := false, false
	ir.WalkStmts(r.Body, func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Barrier:
			barrier = barrier || s.Grid
		case *ir.Printf, *ir.Split, *ir.SplitWhile, *ir.Fork:
			blocked = true
		case *ir.Atomic:
			blocked = blocked || s.Op.IsMultiprefix()
		case *ir.Store:
			blocked = blocked || s.Priority
		}
		return !blocked
	})
	return barrier && !blocked
}

// coopKernel makes the cooperative kernel of a region and its launch.
func (o *outliner) coopKernel(r *ir.Region, base string) (*ir.Launch, error) {
	body := ir.CloneStmts(r.Body)
	uniquifyLocals(body, o.names)
	procs := o.names.fresh("procs")
	active := o.names.fresh("active")
	pos := r.Pos
	procsVar := &ir.Var{Pos: pos, Name: procs, T: ir.I32}
	body = mapRegionBuiltins(body, procsVar)
	g := &grouper{m: o.m, names: o.names, u: newUniformity(o.m, body, false), world: r.World, wholeGroup: true}
	body = g.emit(body, active, nil)
	if g.err != nil {
		return nil, g.err
	}
	body = append([]ir.Stmt{&ir.Decl{Pos: pos, Name: active, T: ir.Bool,
		Init: &ir.Binary{Pos: pos, Op: ir.Lt, X: &ir.Builtin{Pos: pos, Op: ir.GlobalID}, Y: ir.CloneExpr(procsVar)}}}, body...)
	l := o.coopLaunch(pos, base, procs, r.Procs, body, false)
	o.rep.note(pos, "region of %s processors: cooperative kernel %s, its grid barriers grid-wide syncs, where the device holds every processor", ir.PrintExpr(r.Procs), l.Kernel)
	return l, nil
}

// coopLaunch adds a kernel of body, whose first parameter procs receives
// the region's processor count n, and returns its cooperative launch
// (strided or not, Note [Strided cooperative kernels]) of enough blocks
// for n, with the host variables body captures as arguments.
func (o *outliner) coopLaunch(pos ir.Pos, base, procs string, n ir.Expr, body []ir.Stmt, stride bool) *ir.Launch {
	name := o.names.fresh(base)
	k := &ir.Func{Pos: pos, Kind: ir.KernelFunc, Name: name, Result: ir.Void, Body: body,
		Params: []*ir.Field{{Pos: pos, Name: procs, Type: ir.I32}}}
	n = toI64(n)
	l := &ir.Launch{Pos: pos, Kernel: name, Coop: true, Stride: stride, Args: []ir.Expr{&ir.Convert{Pos: pos, T: ir.I32, X: ir.CloneExpr(n)}},
		Block: ir.IntConst(ir.I64, o.block),
		Grid: &ir.Binary{Pos: pos, Op: ir.Div, X: &ir.Binary{Pos: pos, Op: ir.Add, X: n, Y: ir.IntConst(ir.I64, o.block-1)},
			Y: ir.IntConst(ir.I64, o.block)}}
	for _, c := range o.captures(body) {
		k.Params = append(k.Params, &ir.Field{Pos: pos, Name: c, Type: o.hostVars[c]})
		l.Args = append(l.Args, &ir.Var{Pos: pos, Name: c, T: o.hostVars[c]})
	}
	o.m.Funcs = append(o.m.Funcs, k)
	return l
}

// GridSync is how regions with grid barriers run (Config.GridSync, Note
// [Grid sync]); "" means GridSyncAuto.
type GridSync string

const (
	// GridSyncAuto launches a region cooperatively where the device holds
	// it, with relaunches as the fallback.
	GridSyncAuto GridSync = "auto"
	// GridSyncAlways launches regions only cooperatively.
	GridSyncAlways GridSync = "always"
	// GridSyncNever runs grid barriers as kernel relaunches.
	GridSyncNever GridSync = "never"
)

func (g GridSync) String() string { return string(g) }

// Type names the flag's value in help.
func (GridSync) Type() string { return "mode" }

// Set parses a mode, as a flag's value.
func (g *GridSync) Set(s string) error {
	return enum.Set(g, s, GridSyncAuto, GridSyncAlways, GridSyncNever)
}
