package fork

import (
	"math"
	"strings"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// lowerer builds the module from the checked AST. Function bodies are
// lowered on demand, as instances (see instance), starting from main.
type lowerer struct {
	file  string
	opts  Options
	prio  bool // shared stores in synchronous code are priority stores
	errs  *diag.List
	prog  *program
	m     *ir.Module
	procs string // the name of the PROCS parameter once a bare start needs it

	moduleNames  map[string]bool // module-level names taken so far
	constNames   map[*constant]string
	funcNames    map[*function]string
	globals      map[*variable]*binding
	instances    map[instKey]*instance
	queue        []*instance
	placeholders []placeholder
	constBytes   int64              // constant memory taken by static buffers
	needsGroup   map[*function]bool // see groupUsers
	recursive    map[*function]bool
	// tails maps each group-recursive sync function to its tail fork
	// (Note [Group recursion]); badRec holds the sync functions whose
	// recursion was refused.
	tails  map[*function]*forkStmt
	badRec map[*function]bool
}

func (l *lowerer) errorf(pos diag.Pos, format string, args ...any) { l.errs.Add(pos, format, args...) }

// binding is what a variable lowers to: a local of the IR function, or a
// buffer. A 2-D array's elements are stored row after row.
type binding struct {
	v     *variable
	local string // an IR local or parameter, or
	buf   string // a buffer
	// region marks a local declared in a region; a region may only read
	// the host's locals.
	region bool
	// uniform marks a local that holds the same value on every processor
	// of its group: a sh parameter of a sync function.
	uniform bool
	// start, for a buffer with one instance per group (Note [Group
	// recursion]), names the local that holds the first gid() of the group
	// whose instance the code uses; the instances are stride elements
	// apart (nil: one).
	start  string
	stride ir.Expr
	// sub, for a buffer with one instance per subgroup (Note [Subgroup
	// instances]), names the local that holds the subgroup's path, and
	// subN is the number of paths, within each group instance.
	sub  string
	subN ir.Expr
}

// instKey identifies one IR version of a function: host or device, with
// its array parameters bound to buffers (comma-separated).
type instKey struct {
	fn     *function
	kind   ir.FuncKind
	arrays string
}

// instance is one IR version of a function.
type instance struct {
	key    instKey
	f      *ir.Func
	arrays []*binding // the buffers of the array parameters, in order
	group  bool       // a device version that takes $, @ and groupsize()
}

// lower builds the module.
func lower(file string, prog *program, opts Options, errs *diag.List) *ir.Module {
	l := &lowerer{
		file: file, opts: opts, errs: errs, prog: prog,
		moduleNames: map[string]bool{}, constNames: map[*constant]string{}, funcNames: map[*function]string{},
		globals: map[*variable]*binding{}, instances: map[instKey]*instance{},
		needsGroup: map[*function]bool{}, recursive: map[*function]bool{},
		tails: map[*function]*forkStmt{}, badRec: map[*function]bool{},
	}
	l.m = &ir.Module{Pos: diag.Pos{File: file, Line: 1, Col: 1}, Name: ir.ModuleName(file)}
	l.options()
	l.reserveNames()
	l.groupUsers()
	l.groupRecursion()
	l.params()
	l.globalBuffers()
	main := prog.byName["main"].(*function)
	l.instance(main, ir.HostFunc, nil)
	for len(l.queue) > 0 {
		inst := l.queue[0]
		l.queue = l.queue[1:]
		l.lowerInstance(inst)
	}
	l.settleNames()
	if opts.World {
		if err := ir.DistributeWorld(l.m); err != nil {
			*l.errs = append(*l.errs, err)
		}
	}
	return l.m
}

// options checks the frontend options.
func (l *lowerer) options() {
	switch l.opts.CRCW {
	case "", Priority:
		l.prio = true
	case Arbitrary:
	default:
		l.errorf(diag.Pos{File: l.file}, "%v", new(CRCW).Set(string(l.opts.CRCW)))
	}
}

// reserveNames gives constants, globals and functions their module-level
// names (Note [Names]).
func (l *lowerer) reserveNames() {
	take := func(name string) string {
		n := ir.FreshName(name, 1, func(n string) bool { return l.moduleNames[n] })
		l.moduleNames[n] = true
		return n
	}
	if l.opts.World {
		l.moduleNames[ir.DevicesParam] = true // the world's size, by that name
	}
	for _, f := range l.prog.funcs {
		l.funcNames[f] = take(f.name)
	}
	for _, k := range l.prog.consts {
		l.constNames[k] = take(k.name)
	}
	for _, v := range l.prog.globals {
		l.globals[v] = &binding{v: v, buf: take(v.name)}
	}
	l.procs = take("PROCS")
}

// params declares a parameter for each paramConst.
func (l *lowerer) params() {
	for _, k := range l.prog.consts {
		k.irName = l.constNames[k]
		if k.kind == paramConst {
			l.m.Params = append(l.m.Params, &ir.Param{Pos: k.pos, Name: k.irName, Type: k.t, Default: int64(k.bits)})
		}
	}
}

// procsParam returns the name of the parameter that `start S` runs on,
// declaring it on first use.
func (l *lowerer) procsParam(pos diag.Pos) string {
	if l.m.Param(l.procs) != nil {
		return l.procs
	}
	n := l.opts.Procs
	switch {
	case n == 0:
		n = 1024
	case n < 0:
		l.errorf(pos, "start without a processor count runs on --procs processors, which is %d", n)
	}
	t := ir.I32
	if n > math.MaxInt32 {
		t = ir.I64
	}
	l.m.Params = append(l.m.Params, &ir.Param{Pos: pos, Name: l.procs, Type: t, Default: n})
	return l.procs
}

// globalBuffers declares a buffer for each global variable.
func (l *lowerer) globalBuffers() {
	for _, v := range l.prog.globals {
		buf := l.buffer(v, l.globals[v].buf)
		if init, ok := l.staticInit(v); ok {
			buf.Role, buf.Init = ir.Static, init
			if size := int64(len(init) * v.t.Size()); l.constBytes+size <= ir.MaxConstantMemory {
				buf.Space = ir.Constant
				l.constBytes += size
			}
		}
	}
}

// buffer declares the global scratch buffer that holds v.
func (l *lowerer) buffer(v *variable, name string) *ir.Buffer {
	n := arrayLen(v)
	if n == nil {
		n = intConst(v.pos, ir.I32, 1)
	}
	buf := &ir.Buffer{Pos: v.pos, Name: name, Elem: v.t, Len: n, Space: ir.Global, Role: ir.Scratch}
	l.m.Buffers = append(l.m.Buffers, buf)
	return buf
}

// Note [Static arrays without initializers]
//
// A const global array with a constant size and no initializer, as
// `static sh const int pat[K * L];`, is a static buffer without contents:
// `--static pat=FILE` supplies them (driver.SetRoles), and must supply as
// many values as the size says. Without the flag the verifier refuses the
// buffer and names the flag.

// staticInit returns the contents of a const global array whose length and
// initializer are constants, which becomes a static buffer; nil contents,
// and true, for one without an initializer (Note [Static arrays without
// initializers]).
func (l *lowerer) staticInit(v *variable) ([]ir.Bits, bool) {
	n, ok := constInt(arrayLen(v))
	switch {
	case v.isConst && v.init == nil && !ok:
		l.errorf(v.pos, "const array %s without an initializer needs a size without parameters: its contents come with --static %s=FILE", v.name, v.name)
		return nil, false
	case v.isConst && v.init == nil:
		return nil, true // Note [Static arrays without initializers]
	case !v.isConst || !v.isArray() || !ok || n > 1<<24:
		return nil, false
	}
	out := make([]ir.Bits, n)
	for _, el := range v.inits {
		c, ok := convert(constIR(el.x), v.t).(*ir.Const)
		if !ok {
			return nil, false
		}
		out[el.index] = c.Bits
	}
	return out, true
}

// globalInits stores the initializers of the non-static globals, at the
// start of main.
func (l *lowerer) globalInits() []ir.Stmt {
	var out []ir.Stmt
	for _, v := range l.prog.globals {
		buf := l.m.Buffer(l.globals[v].buf)
		if buf == nil || buf.Role == ir.Static {
			continue
		}
		for _, el := range v.inits {
			out = append(out, &ir.Store{Pos: el.x.exprPos(), Buf: buf.Name,
				Index: indexConst(el.x.exprPos(), el.index), Value: convert(constIR(el.x), v.t)})
		}
	}
	return out
}

// instance returns the IR version of fn of the given kind with the given
// array arguments, queueing it for lowering when new.
func (l *lowerer) instance(fn *function, kind ir.FuncKind, arrays []*binding) *instance {
	var bufs []string
	for _, a := range arrays {
		bufs = append(bufs, a.buf)
	}
	key := instKey{fn: fn, kind: kind, arrays: strings.Join(bufs, ",")}
	if inst := l.instances[key]; inst != nil {
		return inst
	}
	inst := &instance{key: key, arrays: arrays, group: kind == ir.DeviceFunc && l.needsGroup[fn]}
	inst.f = &ir.Func{Pos: fn.pos, Kind: kind, Name: l.instanceName(key, arrays), Result: fn.result}
	if fn.name == "main" {
		inst.f.Result = ir.Void
	}
	l.instances[key] = inst
	l.m.Funcs = append(l.m.Funcs, inst.f)
	l.queue = append(l.queue, inst)
	return inst
}

// instanceName names an instance: the host version of f is f; a device
// version (f_dev) or one bound to arrays (f_a_b) gets a placeholder.
func (l *lowerer) instanceName(key instKey, arrays []*binding) string {
	name := l.funcNames[key.fn]
	if key.kind == ir.HostFunc && key.arrays == "" {
		return name
	}
	if key.kind == ir.DeviceFunc {
		name += "_dev"
	}
	for _, a := range arrays {
		name += "_" + a.v.name
	}
	return l.newPlaceholder(name)
}

// indexConst is a constant index: an int if it fits, a long otherwise.
func indexConst(pos diag.Pos, i int64) *ir.Const {
	if i <= math.MaxInt32 {
		return intConst(pos, ir.I32, i)
	}
	return intConst(pos, ir.I64, i)
}
