package passes

import (
	"fmt"

	"gpuc/ir"
)

// Note [Outlining regions]
//
// A region whose body holds no barrier and no group construct runs as one
// kernel launch: one thread per processor, gid() < P guarding the body.
// Inside the kernel, pid() is gid(), group() is 0, and groupsize() and
// nprocs() are P, passed as a kernel parameter like every host variable
// the body reads. Locals that live on from one region into a later one
// (after split-barriers cut a region in pieces, or host-loops lifted a
// loop out of it) are kept in spill buffers, one element per processor,
// which is why such regions need a processor count made of parameters.

// rewriteRegions replaces every region of the module's host functions with
// what lower returns for it; n counts the regions of one function from 1.
// On an error the region stays, and the errors are joined.
func rewriteRegions(m *ir.Module, cfg *Config, lower func(o *outliner, f *ir.Func, r *ir.Region, n int) ([]ir.Stmt, error)) error {
	var errs []error
	withOutliners(m, cfg, func(o *outliner, f *ir.Func) {
		n := 0
		f.Body = ir.RewriteStmts(f.Body, func(s ir.Stmt) []ir.Stmt {
			r, ok := s.(*ir.Region)
			if !ok {
				return []ir.Stmt{s}
			}
			n++
			if r.World && o.block != ir.WorldGrain {
				errs = append(errs, errorf(r.Pos, "a world region lowers to blocks of %d threads, so that its launches split it across devices as it is split; the block size is %d", ir.WorldGrain, o.block))
				return []ir.Stmt{s}
			}
			out, err := lower(o, f, r, n)
			if err != nil {
				errs = append(errs, err)
				return []ir.Stmt{s}
			}
			if r.World {
				markWorld(out)
			}
			return out
		})
	})
	return joinErrors(errs)
}

// markWorld makes world every region and launch in what a world region was
// lowered to (Note [World] in package ir). Their blocks have WorldGrain
// threads, so a world launch's split of its blocks puts each processor on
// the device the region put it on, and a spill buffer's element stays on
// its device.
func markWorld(out []ir.Stmt) {
	ir.WalkStmts(out, func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Region:
			s.World = true
		case *ir.Launch:
			s.World = true
		}
		return true
	})
}

// worldSpace is the space of a buffer that a pass makes for a region's
// bookkeeping: distributed in a world region, so that the processors of
// every device and each device's host see its one value (Note [World] in
// package ir); global otherwise.
func worldSpace(world bool) ir.Space {
	if world {
		return ir.Distributed
	}
	return ir.Global
}

// withOutliners calls f on each host function of m with an outliner for
// it; the outliners share one namer.
func withOutliners(m *ir.Module, cfg *Config, f func(o *outliner, host *ir.Func)) {
	names := newNamer(m)
	for _, host := range m.Funcs {
		if host.Kind != ir.HostFunc {
			continue
		}
		o := newOutliner(m, names, host, cfg.blockSize())
		o.rep = cfg.report()
		f(o, host)
	}
}

// forEachRegion calls f on each region of m's host functions, outermost
// first; f may rewrite the region's body.
func forEachRegion(m *ir.Module, f func(r *ir.Region)) {
	for _, host := range m.Funcs {
		if host.Kind != ir.HostFunc {
			continue
		}
		ir.WalkStmts(host.Body, func(s ir.Stmt) bool {
			r, ok := s.(*ir.Region)
			if ok {
				f(r)
			}
			return !ok
		})
	}
}

// regionKernel is what outlining one region piece produces.
type regionKernel struct {
	kernel *ir.Func
	launch *ir.Launch
}

// outliner turns region pieces of one host function into kernels.
type outliner struct {
	m     *ir.Module
	names *namer
	block int64
	host  *ir.Func
	// hostVars are the host function's locals (and parameters) by name,
	// with their types: what a region may capture.
	hostVars map[string]ir.Type
	rep      *Report
}

func newOutliner(m *ir.Module, names *namer, host *ir.Func, block int64) *outliner {
	o := &outliner{m: m, names: names, host: host, block: block, hostVars: map[string]ir.Type{}}
	for _, p := range host.Params {
		o.hostVars[p.Name] = p.Type
	}
	ir.WalkStmts(host.Body, func(s ir.Stmt) bool {
		if d := ir.DeclOf(s); d != nil {
			o.hostVars[d.Name] = d.T
		}
		_, isRegion := s.(*ir.Region)
		return !isRegion
	})
	return o
}

// outline makes a kernel of body, to run on procs processors (procsVar, a
// host variable of type i64 holding the count), and the launch that runs
// it. base names the kernel.
func (o *outliner) outline(body []ir.Stmt, procsVar string, base string, pos ir.Pos) regionKernel {
	name := o.names.fresh(base)
	procs := o.names.fresh("procs")
	body = mapRegionBuiltins(body, &ir.Var{Name: procs, T: ir.I32})
	k := &ir.Func{Pos: pos, Kind: ir.KernelFunc, Name: name, Result: ir.Void}
	launch := &ir.Launch{Pos: pos, Kernel: name}
	k.Params = append(k.Params, &ir.Field{Pos: pos, Name: procs, Type: ir.I32})
	launch.Args = append(launch.Args, &ir.Convert{Pos: pos, T: ir.I32, X: &ir.Var{Pos: pos, Name: procsVar, T: ir.I64}})
	for _, c := range o.captures(body) {
		k.Params = append(k.Params, &ir.Field{Pos: pos, Name: c, Type: o.hostVars[c]})
		launch.Args = append(launch.Args, &ir.Var{Pos: pos, Name: c, T: o.hostVars[c]})
	}
	guard := &ir.If{Pos: pos, Cond: &ir.Binary{Pos: pos, Op: ir.Lt,
		X: &ir.Builtin{Pos: pos, Op: ir.GlobalID}, Y: &ir.Var{Pos: pos, Name: procs, T: ir.I32}}, Then: body}
	k.Body = []ir.Stmt{guard}
	b := ir.IntConst(ir.I64, o.block)
	launch.Block = b
	launch.Grid = &ir.Binary{Pos: pos, Op: ir.Div,
		X: &ir.Binary{Pos: pos, Op: ir.Add, X: &ir.Var{Pos: pos, Name: procsVar, T: ir.I64}, Y: ir.IntConst(ir.I64, o.block-1)},
		Y: ir.IntConst(ir.I64, o.block)}
	o.m.Funcs = append(o.m.Funcs, k)
	return regionKernel{kernel: k, launch: launch}
}

// captures lists, in first-use order, the host variables body reads.
func (o *outliner) captures(body []ir.Stmt) []string {
	local := map[string]bool{}
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		if d := ir.DeclOf(s); d != nil {
			local[d.Name] = true
		}
		return true
	})
	var out []string
	seen := map[string]bool{}
	ir.WalkAllExprs(body, func(e ir.Expr) bool {
		if v, ok := e.(*ir.Var); ok && !local[v.Name] && !seen[v.Name] {
			if _, isHost := o.hostVars[v.Name]; isHost {
				seen[v.Name] = true
				out = append(out, v.Name)
			}
		}
		return true
	})
	return out
}

// mapRegionBuiltins rewrites the region-only builtins of a body that runs
// as a kernel over a whole group: pid() is gid(), group() is 0, and
// groupsize() and nprocs() are the processor count.
func mapRegionBuiltins(body []ir.Stmt, procs ir.Expr) []ir.Stmt {
	ir.RewriteAllExprs(body, func(e ir.Expr) ir.Expr {
		b, ok := e.(*ir.Builtin)
		if !ok {
			return e
		}
		switch b.Op {
		case ir.ProcID:
			return &ir.Builtin{Pos: b.Pos, Op: ir.GlobalID}
		case ir.GroupID:
			return &ir.Const{Pos: b.Pos, T: ir.I32}
		case ir.GroupSize, ir.NumProcs:
			return procs
		}
		return e
	})
	return body
}

// spill describes the spill buffers of one region's locals.
type spill struct {
	bufs  map[string]string // local -> buffer
	types map[string]ir.Type
}

// spillBuffer returns the spill buffer of local name, creating it with one
// element per processor.
func (o *outliner) spillBuffer(sp *spill, name string, t ir.Type, procs ir.Expr, pos ir.Pos) string {
	if b, ok := sp.bufs[name]; ok {
		return b
	}
	b := o.names.fresh(name + "_spill")
	o.m.Buffers = append(o.m.Buffers, &ir.Buffer{Pos: pos, Name: b, Elem: t, Len: ir.CloneExpr(procs), Space: ir.Global, Role: ir.Scratch})
	sp.bufs[name], sp.types[name] = b, t
	return b
}

// paramOnly reports whether e is made of parameters and constants, as a
// buffer length must be.
func paramOnly(e ir.Expr) bool {
	ok := true
	ir.WalkExpr(e, func(x ir.Expr) bool {
		switch x := x.(type) {
		case *ir.Const, *ir.ParamRef, *ir.Unary, *ir.Binary, *ir.Convert, *ir.Select:
		case *ir.Builtin:
			ok = ok && x.Op.Arity() > 0
		default:
			ok = false
		}
		return ok
	})
	return ok
}

func errorf(pos ir.Pos, format string, args ...any) error {
	return fmt.Errorf("%s: error: %s", pos, fmt.Sprintf(format, args...))
}
