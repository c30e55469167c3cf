package passes

import (
	"math"

	"gpuc/ir"
)

// lowerMultiprefixName is the pass's name, for the report entries that
// lower-priority makes with its code.
const lowerMultiprefixName = "lower-multiprefix"

var lowerMultiprefixPass = &Pass{
	Name: lowerMultiprefixName,
	Doc:  "implement multiprefix atomics (mpadd and friends) with a device-wide scan",
	From: ir.SPMDLevel,
	To:   ir.SPMDLevel,
	Run:  lowerMultiprefix,
}

// Note [Multiprefix]
//
// `x = atomic mpadd c[i], v` gives each participating processor the sum of
// c[i] and the values of the participants with lower pid(), and leaves the
// total in c[i]: the SB-PRAM's multiprefix, which Fork programs use to
// allocate positions in processor order. With one address for the whole
// group (a uniform index, the usual case), that is an exclusive scan over
// the processors, computed in three kernels: each block scans its values
// in shared memory (the Kogge-Stone scan of examples/kir/scan.kir), one
// block scans the block totals, and the blocks add their offsets. A
// one-thread kernel then reads c[i] as the base and stores base + total.
//
// The region is cut at the operation, as at a barrier: the piece before it
// stores each processor's value (the identity if it does not take part),
// and the piece after it reads the base and its prefix. The operation must
// stand at the top level of the region body or of a member guard that
// group-split wrote, so that host-loops has already flattened the region.
// Floats are refused: a parallel scan would round differently from the
// sequential order that defines the result.

func lowerMultiprefix(m *ir.Module, cfg *Config) error {
	dropUnusedPrefixes(m, cfg.report())
	var errs []error
	withOutliners(m, cfg, func(o *outliner, f *ir.Func) {
		for {
			var target *ir.Region
			ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
				if r, ok := s.(*ir.Region); ok && target == nil && hasMultiprefix(r.Body) {
					target = r
				}
				return target == nil
			})
			if target == nil {
				break
			}
			if target.World {
				errs = append(errs, errorf(target.Pos, "multiprefix operations in a world region are not lowered yet; they would need a scan across devices"))
				break
			}
			out, err := o.cutMultiprefix(target)
			if err != nil {
				errs = append(errs, err)
				break
			}
			f.Body = ir.RewriteStmts(f.Body, func(s ir.Stmt) []ir.Stmt {
				if s == target {
					return out
				}
				return []ir.Stmt{s}
			})
		}
	})
	return joinErrors(errs)
}

// dropUnusedPrefixes turns the multiprefix atomics whose result nobody
// takes (Fork's syncadd and friends) into ordinary atomics: the memory
// ends with the same total in any order. lower-priority runs it too; the
// report credits lower-multiprefix either way.
func dropUnusedPrefixes(m *ir.Module, rep *Report) {
	plain := map[ir.AtomicOp]ir.AtomicOp{ir.MultiAdd: ir.AtomicAdd, ir.MultiMax: ir.AtomicMax,
		ir.MultiMin: ir.AtomicMin, ir.MultiAnd: ir.AtomicAnd, ir.MultiOr: ir.AtomicOr}
	for _, f := range m.Funcs {
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if a, ok := s.(*ir.Atomic); ok && a.Op.IsMultiprefix() && a.Dst == "" {
				rep.noteAs(lowerMultiprefixName, a.Pos, "%s without a result: an atomic %s", a.Op, plain[a.Op])
				a.Op = plain[a.Op]
			}
			return true
		})
	}
}

func hasMultiprefix(body []ir.Stmt) bool {
	return ir.AnyStmt(body, func(s ir.Stmt) bool {
		a, ok := s.(*ir.Atomic)
		return ok && a.Op.IsMultiprefix()
	})
}

// mpSite is where the first multiprefix of a region stands: at index top
// of the region body, inside the guard at that index if guard is set.
type mpSite struct {
	top   int
	guard *ir.If
	inner int
	op    *ir.Atomic
}

func findMultiprefix(body []ir.Stmt) (mpSite, bool) {
	for i, s := range body {
		if a, ok := s.(*ir.Atomic); ok && a.Op.IsMultiprefix() {
			return mpSite{top: i, op: a}, true
		}
		g, ok := s.(*ir.If)
		if !ok || len(g.Else) > 0 {
			continue
		}
		for j, x := range g.Then {
			if a, ok := x.(*ir.Atomic); ok && a.Op.IsMultiprefix() {
				return mpSite{top: i, guard: g, inner: j, op: a}, true
			}
		}
	}
	return mpSite{}, false
}

func (o *outliner) cutMultiprefix(r *ir.Region) ([]ir.Stmt, error) {
	site, ok := findMultiprefix(r.Body)
	if !ok {
		var pos ir.Pos
		ir.WalkStmts(r.Body, func(s ir.Stmt) bool {
			if a, ok := s.(*ir.Atomic); ok && a.Op.IsMultiprefix() && !pos.IsValid() {
				pos = a.Pos
			}
			return true
		})
		return nil, errorf(pos, "lower-multiprefix: a multiprefix atomic inside control flow that is not a whole-group step; it must run at group level")
	}
	op := site.op
	elem := o.m.Buffer(op.Buf).Elem
	u := newUniformity(o.m, r.Body, false)
	switch {
	case elem.IsFloat():
		return nil, errorf(op.Pos, "lower-multiprefix: %s on %s: a parallel scan cannot reproduce the sequential rounding of floats", op.Op, elem)
	case u.varies(op.Index):
		return nil, errorf(op.Pos, "lower-multiprefix: %s on an address that differs between processors is not supported yet", op.Op)
	case !paramOnly(r.Procs):
		return nil, errorf(op.Pos, "lower-multiprefix: the region's size must be made of parameters and constants")
	}
	uniquifyLocals(r.Body, o.names)
	pos := op.Pos
	o.rep.note(pos, "%s on %s: an exclusive scan in three kernels and an update kernel; the region is cut here", op.Op, op.Buf)
	mp := o.newScan(elem, op.Op, r.Procs, pos)

	// The piece before: stores every processor's value, or the identity.
	on, val := o.names.fresh("mp_on"), o.names.fresh("mp_value")
	before := append([]ir.Stmt{}, r.Body[:site.top]...)
	before = append(before,
		&ir.Decl{Pos: pos, Name: on, T: ir.Bool, Init: ir.BoolConst(false)},
		&ir.Decl{Pos: pos, Name: val, T: elem, Init: &ir.Const{T: elem, Bits: mp.identity}})
	capture := []ir.Stmt{
		&ir.Assign{Pos: pos, Name: on, Value: ir.BoolConst(true)},
		&ir.Assign{Pos: pos, Name: val, Value: op.Args[0]},
	}
	if !paramOnly(op.Index) {
		// The update kernel learns the address from the participants.
		capture = append(capture, &ir.Atomic{Pos: pos, Op: ir.AtomicExch, Buf: mp.addr, Index: ir.IntConst(ir.I32, 0), Args: []ir.Expr{toI64(op.Index)}})
	}
	var after []ir.Stmt
	result := mp.combine(&ir.Load{Buf: mp.base, Index: ir.IntConst(ir.I32, 0), T: elem},
		&ir.Load{Buf: mp.work, Index: &ir.Builtin{Op: ir.GlobalID}, T: elem})
	var use []ir.Stmt
	if op.Dst != "" {
		use = []ir.Stmt{&ir.Assign{Pos: pos, Name: op.Dst, Value: result}}
	}
	if site.guard == nil {
		before = append(before, capture...)
		after = append(use, r.Body[site.top+1:]...)
	} else {
		g := site.guard
		hoisted, head := hoistDecls(g.Then[:site.inner])
		before = append(before, hoisted...)
		before = append(before, &ir.If{Pos: g.Pos, Cond: g.Cond, Then: append(head, capture...)})
		tail := append(use, g.Then[site.inner+1:]...)
		after = append([]ir.Stmt{&ir.If{Pos: g.Pos, Cond: ir.CloneExpr(g.Cond), Then: tail}}, r.Body[site.top+1:]...)
	}
	before = append(before, &ir.Store{Pos: pos, Buf: mp.work, Index: &ir.Builtin{Op: ir.GlobalID},
		Value: &ir.Select{Cond: boolVar(on), X: &ir.Var{Name: val, T: elem}, Y: &ir.Const{T: elem, Bits: mp.identity}}})
	r1 := &ir.Region{Pos: r.Pos, Procs: ir.CloneExpr(r.Procs), Body: trimBarriers(before)}
	r2 := &ir.Region{Pos: r.Pos, Procs: ir.CloneExpr(r.Procs), Body: trimBarriers(after)}
	types := regionLocals(r.Body)
	for name, t := range regionLocals([]ir.Stmt{&ir.Region{Body: before}}) {
		types[name] = t
	}
	if _, err := o.spillAcross([]piece{{body: &r1.Body}, {body: &r2.Body}}, nil, r.Procs, types, r.Pos); err != nil {
		return nil, err
	}
	out := []ir.Stmt{r1}
	out = append(out, mp.hostCode(o, op, pos)...)
	return append(out, r2), nil
}

// mpScan holds the buffers and kernels of one multiprefix.
type mpScan struct {
	elem     ir.Type
	op       ir.AtomicOp
	identity ir.Bits
	work     string // per-processor values, then exclusive prefixes
	sums     string // block totals, then their exclusive prefixes
	total    string // the whole group's total, one element
	base     string // the target's value before the step, one element
	addr     string // the target's index, one element
	block    string // a block's running values (shared)
	kernels  [4]string
}

const mpBlock = 1024

func (o *outliner) newScan(elem ir.Type, op ir.AtomicOp, procs ir.Expr, pos ir.Pos) *mpScan {
	mp := &mpScan{elem: elem, op: op, identity: mpIdentity(op, elem)}
	buf := func(base string, t ir.Type, n ir.Expr, space ir.Space) string {
		name := o.names.fresh(base)
		o.m.Buffers = append(o.m.Buffers, &ir.Buffer{Pos: pos, Name: name, Elem: t, Len: n, Space: space, Role: ir.Scratch})
		return name
	}
	pt := procs.Type()
	nblocks := &ir.Binary{Op: ir.Div, X: &ir.Binary{Op: ir.Add, X: ir.CloneExpr(procs), Y: ir.IntConst(pt, mpBlock-1)}, Y: ir.IntConst(pt, mpBlock)}
	one := func() ir.Expr { return ir.IntConst(ir.I32, 1) }
	mp.work = buf("mp_work", elem, ir.CloneExpr(procs), ir.Global)
	mp.sums = buf("mp_sums", elem, nblocks, ir.Global)
	mp.total = buf("mp_total", elem, one(), ir.Global)
	mp.base = buf("mp_base", elem, one(), ir.Global)
	mp.addr = buf("mp_addr", ir.I64, one(), ir.Global)
	mp.block = buf("mp_block", elem, ir.IntConst(ir.I32, mpBlock), ir.Shared)
	for i, base := range []string{"mp_scan_blocks", "mp_scan_sums", "mp_add_offsets", "mp_update"} {
		mp.kernels[i] = o.names.fresh(base)
	}
	return mp
}

// mpIdentity is the value that leaves any other unchanged under op.
func mpIdentity(op ir.AtomicOp, t ir.Type) ir.Bits {
	lo, hi := intLimits(t)
	switch op {
	case ir.MultiAnd:
		return ir.Normalize(t, math.MaxUint64)
	case ir.MultiMax:
		return lo
	case ir.MultiMin:
		return hi
	}
	return 0
}

func intLimits(t ir.Type) (lo, hi ir.Bits) {
	switch t {
	case ir.I8:
		return ir.IntBits(t, math.MinInt8), ir.IntBits(t, math.MaxInt8)
	case ir.U8:
		return 0, math.MaxUint8
	case ir.I32:
		return ir.IntBits(t, math.MinInt32), ir.IntBits(t, math.MaxInt32)
	case ir.U32:
		return 0, math.MaxUint32
	case ir.I64:
		return ir.IntBits(t, math.MinInt64), math.MaxInt64
	}
	return 0, math.MaxUint64
}

// combine applies the operation to two values.
func (mp *mpScan) combine(x, y ir.Expr) ir.Expr {
	switch mp.op {
	case ir.MultiMax:
		return &ir.Builtin{Op: ir.Max, Args: []ir.Expr{x, y}}
	case ir.MultiMin:
		return &ir.Builtin{Op: ir.Min, Args: []ir.Expr{x, y}}
	case ir.MultiAnd:
		return &ir.Binary{Op: ir.And, X: x, Y: y}
	case ir.MultiOr:
		return &ir.Binary{Op: ir.Or, X: x, Y: y}
	}
	return &ir.Binary{Op: ir.Add, X: x, Y: y}
}

func (mp *mpScan) id() ir.Expr { return &ir.Const{T: mp.elem, Bits: mp.identity} }

// hostCode adds the kernels to the module and returns the launches.
func (mp *mpScan) hostCode(o *outliner, op *ir.Atomic, pos ir.Pos) []ir.Stmt {
	for _, k := range []*ir.Func{mp.scanBlocks(pos), mp.scanSums(pos), mp.addOffsets(pos), mp.update(op, pos)} {
		freshenLocals(k, o.names)
		o.m.Funcs = append(o.m.Funcs, k)
	}
	n := o.names.fresh("mp_n")
	nv := func() ir.Expr { return &ir.Var{Name: n, T: ir.I64} }
	blocks := func() ir.Expr {
		return &ir.Binary{Op: ir.Div, X: &ir.Binary{Op: ir.Add, X: nv(), Y: ir.IntConst(ir.I64, mpBlock-1)}, Y: ir.IntConst(ir.I64, mpBlock)}
	}
	i32 := func(e ir.Expr) ir.Expr { return &ir.Convert{T: ir.I32, X: e} }
	b := func() ir.Expr { return ir.IntConst(ir.I32, mpBlock) }
	one := func() ir.Expr { return ir.IntConst(ir.I32, 1) }
	return []ir.Stmt{
		&ir.Decl{Pos: pos, Name: n, T: ir.I64, Init: toI64(o.m.Buffer(mp.work).Len)},
		&ir.Launch{Pos: pos, Kernel: mp.kernels[0], Args: []ir.Expr{i32(nv())}, Grid: blocks(), Block: b()},
		&ir.Launch{Pos: pos, Kernel: mp.kernels[1], Args: []ir.Expr{i32(blocks())}, Grid: one(), Block: b()},
		&ir.Launch{Pos: pos, Kernel: mp.kernels[2], Args: []ir.Expr{i32(nv())}, Grid: blocks(), Block: b()},
		&ir.Launch{Pos: pos, Kernel: mp.kernels[3], Grid: one(), Block: one()},
	}
}

// kbuild builds the scan kernels with ir.Builder (Note [IR builder]).
type kbuild struct {
	*ir.Builder
	mp *mpScan
}

// kernel builds a scan kernel with i32 parameters. Its statements carry no
// position, as the launches of hostCode do not either: they implement the
// atomic, whose position the function keeps.
func (mp *mpScan) kernel(pos ir.Pos, name string, params []string, build func(k *kbuild)) *ir.Func {
	var fields []*ir.Field
	for _, p := range params {
		fields = append(fields, &ir.Field{Name: p, Type: ir.I32})
	}
	k := &kbuild{Builder: ir.BuildFunc(nil, pos, ir.KernelFunc, name, ir.Void, fields...), mp: mp}
	k.Pos = ir.Pos{}
	build(k)
	return k.F
}

func (k *kbuild) load(buf string, i ir.Expr) ir.Expr {
	return &ir.Load{Buf: buf, Index: i, T: k.mp.elem}
}

// koggeStone scans the shared block buffer in place (inclusive), as
// examples/kir/scan.kir does.
func (k *kbuild) koggeStone(t ir.Expr, off, x string) {
	mp, T := k.mp, k.mp.elem
	o := func() ir.Expr { return &ir.Var{Name: off, T: ir.I32} }
	k.Barrier(false)
	k.Emit(&ir.For{
		Init: &ir.Decl{Name: off, T: ir.I32, Init: k.I32(1)},
		Cond: k.Lt(o(), k.I32(mpBlock)),
		Post: &ir.Assign{Name: off, Value: k.Mul(o(), k.I32(2))},
		Body: k.Nest(func() {
			k.Decl(x, T, mp.id())
			k.If(k.Ge(ir.CloneExpr(t), o()), func() {
				k.Set(x, k.load(mp.block, k.Sub(ir.CloneExpr(t), o())))
			})
			k.Barrier(false)
			k.Store(mp.block, ir.CloneExpr(t), mp.combine(k.load(mp.block, ir.CloneExpr(t)), k.V(x)))
			k.Barrier(false)
		}),
	})
}

// exclusive is the exclusive prefix of thread t after koggeStone.
func (k *kbuild) exclusive(t ir.Expr) ir.Expr {
	return k.Sel(k.Bin(ir.Gt, ir.CloneExpr(t), k.I32(0)), k.load(k.mp.block, k.Sub(ir.CloneExpr(t), k.I32(1))), k.mp.id())
}

// scanBlocks: each block scans its values; work gets exclusive prefixes
// within the block, sums the block totals.
func (mp *mpScan) scanBlocks(pos ir.Pos) *ir.Func {
	return mp.kernel(pos, mp.kernels[0], []string{"n"}, func(k *kbuild) {
		t := k.Decl("t", ir.I32, k.Builtin(ir.ThreadID))
		i := k.Decl("i", ir.I32, k.Builtin(ir.GlobalID))
		k.Store(mp.block, t, k.Sel(k.Lt(i, k.V("n")), k.load(mp.work, i), mp.id()))
		k.koggeStone(t, "off", "x")
		k.If(k.Lt(i, k.V("n")), func() { k.Store(mp.work, i, k.exclusive(t)) })
		k.If(k.Eq(t, k.I32(mpBlock-1)), func() {
			k.Store(mp.sums, k.Builtin(ir.BlockID), k.load(mp.block, k.I32(mpBlock-1)))
		})
	})
}

// scanSums: one block scans the block totals, each thread a chunk of
// them, and stores the group's total.
func (mp *mpScan) scanSums(pos ir.Pos) *ir.Func {
	return mp.kernel(pos, mp.kernels[1], []string{"nb"}, func(k *kbuild) {
		T, nb := mp.elem, k.V("nb")
		t := k.Decl("t", ir.I32, k.Builtin(ir.ThreadID))
		chunk := k.Bin(ir.Div, k.Add(nb, k.I32(mpBlock-1)), k.I32(mpBlock))
		lo := k.Decl("lo", ir.I32, k.Mul(t, chunk))
		hi := k.Decl("hi", ir.I32, k.Min(k.Add(lo, ir.CloneExpr(chunk)), nb))
		k.Decl("s", T, mp.id())
		k.Loop("j", lo, hi, k.I32(1), func() { k.Set("s", mp.combine(k.V("s"), k.load(mp.sums, k.V("j")))) })
		k.Store(mp.block, t, k.V("s"))
		k.koggeStone(t, "off", "x")
		k.Decl("run", T, k.exclusive(t))
		k.Loop("j", lo, hi, k.I32(1), func() {
			k.Decl("old", T, k.load(mp.sums, k.V("j")))
			k.Store(mp.sums, k.V("j"), k.V("run"))
			k.Set("run", mp.combine(k.V("run"), k.V("old")))
		})
		k.If(k.Eq(t, k.I32(mpBlock-1)), func() {
			k.Store(mp.total, k.I32(0), k.load(mp.block, k.I32(mpBlock-1)))
		})
	})
}

// addOffsets: every value gets its block's offset.
func (mp *mpScan) addOffsets(pos ir.Pos) *ir.Func {
	return mp.kernel(pos, mp.kernels[2], []string{"n"}, func(k *kbuild) {
		i := k.Decl("i", ir.I32, k.Builtin(ir.GlobalID))
		k.If(k.Lt(i, k.V("n")), func() {
			k.Store(mp.work, i, mp.combine(k.load(mp.sums, k.Builtin(ir.BlockID)), k.load(mp.work, i)))
		})
	})
}

// update: one thread reads the target as the base and stores base+total.
func (mp *mpScan) update(op *ir.Atomic, pos ir.Pos) *ir.Func {
	return mp.kernel(pos, mp.kernels[3], nil, func(k *kbuild) {
		T := mp.elem
		var a ir.Expr = &ir.Load{Buf: mp.addr, Index: k.I32(0), T: ir.I64}
		if paramOnly(op.Index) {
			a = ir.CloneExpr(op.Index)
		}
		b := k.Decl("b", T, &ir.Load{Buf: op.Buf, Index: a, T: T})
		k.Store(mp.base, k.I32(0), b)
		k.Store(op.Buf, ir.CloneExpr(a), mp.combine(k.V("b"), k.load(mp.total, k.I32(0))))
	})
}
