package fork

import (
	"gpuc/internal/diag"
	"gpuc/ir"
)

// mode is how the code being lowered runs.
type mode uint8

const (
	hostMode   mode = iota // sequential: main and functions it calls
	syncMode               // a group in synchronous mode: start and fork bodies, sync functions
	asyncMode              // a group without implicit synchronisation: farm and seq bodies
	deviceMode             // a device function, called by one processor
)

// body lowers the statements of one IR function: a host or device
// function, with its regions and the sync functions inlined into them.
type body struct {
	l     *lowerer
	inst  *instance
	names map[string]bool // locals of the IR function
	vars  map[*variable]*binding
	step  *step     // the synchronous step being lowered, if any
	group [3]string // a device version's parameters for $, @ and groupsize()
	// privFlags holds the jump flags set where the processors of a group
	// may disagree (Note [Jumps]).
	privFlags map[string]bool
	context
	*ir.Builder // where statements go (Note [IR builder])
}

// context is where the code being lowered sits; constructs that change it
// save and restore it whole.
type context struct {
	mode     mode
	inRegion bool
	inSeq    bool         // in a seq body, where printf is allowed
	loop     *loopFrame   // the innermost loop
	inline   *inlineFrame // the innermost inlined sync function
	// whole says that the group running the code is a contiguous range
	// of gid() with $ = gid() - start: all of a region, or a group of a
	// group-recursive function outside conditions that differ between
	// its processors (Note [Group recursion]).
	whole bool
	// procs is the region's processor count if it is an expression over
	// parameters, else nil.
	procs ir.Expr
	// rec is the innermost group-recursive function being lowered, and
	// ids the locals that hold $, @ and groupsize() in its groups; ids is
	// nil where those are the IR's builtins.
	rec *recFrame
	ids *[3]string
	// sub is the innermost statement dividing the Fork group since the
	// region or recursion level began (Note [Subgroup instances]).
	sub *subFrame
}

// loopFrame is a loop being lowered. In synchronous code break and
// continue set flags (Note [Jumps]); elsewhere they are native.
type loopFrame struct {
	brk, cnt string // the flags, "" if none
	native   bool
	// cont lowers what continue must run before the next iteration in a
	// native loop: a for loop's increment, a do-while's condition.
	cont func()
}

// inlineFrame is a sync function inlined at a call site.
type inlineFrame struct {
	fn     *function
	result string // the local holding the result, "" for void
	ret    string // the flag set by a return before the end, "" if none
	outer  *inlineFrame
}

func (b *body) errorf(pos diag.Pos, format string, args ...any) { b.l.errorf(pos, format, args...) }

// barrier emits a grid barrier; two in a row are one.
func (b *body) barrier(pos diag.Pos) {
	if cur := *b.Block(); len(cur) > 0 {
		if last, ok := cur[len(cur)-1].(*ir.Barrier); ok && last.Grid {
			return
		}
	}
	b.Emit(&ir.Barrier{Pos: pos, Grid: true})
}

// fresh returns a new local name based on base (Note [Names]).
func (b *body) fresh(base string) string {
	name := ir.FreshName(base, 1, func(n string) bool { return b.names[n] || b.l.moduleNames[n] })
	b.names[name] = true
	return name
}

// local declares a fresh local initialised to init and returns its name.
func (b *body) local(pos diag.Pos, base string, t ir.Type, init ir.Expr) string {
	name := b.fresh(base)
	if init == nil {
		init = zero(pos, t)
	}
	b.Emit(&ir.Decl{Pos: pos, Name: name, T: t, Init: init})
	return name
}

// temp holds v in a fresh local and returns a read of it. Inside a step,
// a temporary made in a nested block is declared at the step's top level,
// so that the step's deferred writes can read it.
func (b *body) temp(v ir.Expr) *ir.Var {
	pos, t := v.At(), v.Type()
	if b.step == nil || b.Block() == b.step.root {
		return &ir.Var{Pos: pos, Name: b.local(pos, "t", t, v), T: t}
	}
	name := b.fresh("t")
	*b.step.root = append(*b.step.root, &ir.Decl{Pos: pos, Name: name, T: t, Init: zero(pos, t)})
	b.Emit(&ir.Assign{Pos: pos, Name: name, Value: v})
	return &ir.Var{Pos: pos, Name: name, T: t}
}

// flag declares a fresh bool local, false.
func (b *body) flag(pos diag.Pos, base string) string {
	return b.local(pos, base, ir.Bool, ir.BoolConst(false))
}

func setFlag(pos diag.Pos, name string, v bool) ir.Stmt {
	c := ir.BoolConst(v)
	c.Pos = pos
	return &ir.Assign{Pos: pos, Name: name, Value: c}
}

// none is the conjunction of !flag over the named flags ("" are skipped),
// or nil if there are none.
func none(pos diag.Pos, flags ...string) ir.Expr {
	var out ir.Expr
	for _, f := range flags {
		if f == "" {
			continue
		}
		not := &ir.Unary{Pos: pos, Op: ir.Not, X: &ir.Var{Pos: pos, Name: f, T: ir.Bool}}
		if out == nil {
			out = not
		} else {
			out = &ir.Binary{Pos: pos, Op: ir.LogAnd, X: out, Y: not}
		}
	}
	return out
}

// binding returns what v lowers to.
func (b *body) binding(v *variable) *binding {
	if v == nil {
		return nil
	}
	if bd := b.l.globals[v]; bd != nil {
		return bd
	}
	return b.vars[v]
}

// lowerInstance lowers one function version.
func (l *lowerer) lowerInstance(inst *instance) {
	fn := inst.key.fn
	m := hostMode
	if inst.key.kind == ir.DeviceFunc {
		m = deviceMode
	}
	b := &body{l: l, inst: inst, names: map[string]bool{}, vars: map[*variable]*binding{}, privFlags: map[string]bool{}, context: context{mode: m}}
	out := []ir.Stmt{}
	b.Builder = ir.NewBuilder(l.m, fn.pos, &out)
	arrays := inst.arrays
	for _, p := range fn.params {
		if p.isArray() {
			b.vars[p] = &binding{v: p, buf: arrays[0].buf}
			arrays = arrays[1:]
			continue
		}
		name := b.fresh(p.name)
		b.vars[p] = &binding{v: p, local: name}
		inst.f.Params = append(inst.f.Params, &ir.Field{Pos: p.pos, Name: name, Type: p.t})
	}
	if inst.group {
		for i, base := range [3]string{"pid_", "group_", "groupsize_"} {
			b.group[i] = b.fresh(base)
			inst.f.Params = append(inst.f.Params, &ir.Field{Pos: fn.pos, Name: b.group[i], Type: ir.I32})
		}
	}
	if fn.name == "main" {
		b.Emit(l.globalInits()...)
	}
	b.stmts(fn.body.items)
	if r := inst.f.Result; r != ir.Void && !endsInReturn(out) {
		b.Emit(&ir.Return{Pos: fn.body.pos, Value: zero(fn.body.pos, r)})
	}
	inst.f.Body = out
}

func endsInReturn(body []ir.Stmt) bool {
	if n := len(body); n > 0 {
		_, ok := body[n-1].(*ir.Return)
		return ok
	}
	return false
}
