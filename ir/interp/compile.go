package interp

import (
	"fmt"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// thread is the identity and geometry of one kernel thread or region
// processor, shared by the frames of its calls.
type thread struct {
	tid, bid, bdim, gdim, gid int64 // gid is also a processor's index
	pid, group, gsize, nprocs int64 // regions only
	blk                       *block
	grid                      *block   // a cooperative launch's grid-wide intervals, else nil
	depth                     int      // calls in progress
	steps                     int64    // steps not yet counted in machine.steps (Note [Step limit])
	calls                     []*frame // frames of calls, by depth
	dev                       int      // the device it runs on (Note [Devices])
	mute                      bool     // a replica's thread on a device other than 0: prints nothing
	world                     bool     // a thread of a world region or launch
}

func (th *thread) String() string {
	if th.blk.id < 0 {
		return fmt.Sprintf("processor %d", th.gid)
	}
	return fmt.Sprintf("thread %d of block %d", th.tid, th.blk.id)
}

// block is one block of a launch, or the pseudo-block of a region (id -1),
// whose shared instances are all empty.
type block struct {
	id       int64
	shared   [][]ir.Bits // one instance per shared buffer
	shadow   [][]shadow  // race mode: the shadow of each instance
	interval uint64      // the current barrier interval (Note [Races])
	scope    uint32      // a region's current subgroup (Note [Races]); 0 outside any
}

// frame is one activation: a register file and the running thread.
type frame struct {
	regs []ir.Bits
	th   *thread
	ret  ir.Bits // the value of the last return
}

// ctl is how a statement ends.
type ctl uint8

const (
	ctlNext ctl = iota
	ctlBreak
	ctlContinue
	ctlReturn
)

type (
	evalFn func(f *frame) ir.Bits
	stmtFn func(f *frame) ctl
)

// funcCode is a compiled function. A kernel that holds barriers runs
// team-wide (wide); every other function runs body.
type funcCode struct {
	fn     *ir.Func
	nslots int
	body   stmtFn
	wide   wideFn
}

// mode is the kind of code being compiled, which decides what it may use.
type mode uint8

const (
	modeConst  mode = iota // a buffer length: parameters and constants
	modeHost               // a host function
	modeKernel             // a kernel
	modeDevice             // a device function
	modeRegion             // an SPMD region's body
)

func (m mode) device() bool { return m >= modeKernel }

var modeNames = [...]string{
	modeConst: "a length", modeHost: "host code", modeKernel: "a kernel",
	modeDevice: "a device function", modeRegion: "a region",
}

func (m mode) String() string { return modeNames[m] }

// compiler turns one function (or region, or length) into closures.
type compiler struct {
	x        *machine
	mode     mode
	errs     *diag.List
	slots    map[string]int
	nslots   int
	outer    *compiler // a region's host function
	captures []capture // host variables a region reads
	loops    int       // team-wide loops around the code (Note [Segments])
}

// capture copies a host variable into a region's processors at its start.
type capture struct{ host, local int }

func newCompiler(x *machine, m mode, errs *diag.List) *compiler {
	return &compiler{x: x, mode: m, errs: errs, slots: map[string]int{}}
}

func (c *compiler) errorf(pos ir.Pos, format string, args ...any) {
	c.errs.Add(pos, format, args...)
}

// declare returns the register slot of a local (Note [Closures]).
func (c *compiler) declare(name string) int {
	if s, ok := c.slots[name]; ok {
		return s
	}
	c.slots[name] = c.nslots
	c.nslots++
	return c.nslots - 1
}

// lookup finds a local's slot; a region's body also sees the variables of
// its host function, which it copies in at its start.
func (c *compiler) lookup(name string, pos ir.Pos) (int, bool) {
	if s, ok := c.slots[name]; ok {
		return s, true
	}
	if c.outer != nil {
		if h, ok := c.outer.slots[name]; ok {
			s := c.declare(name)
			c.captures = append(c.captures, capture{host: h, local: s})
			return s, true
		}
	}
	c.errorf(pos, "undeclared variable %s", name)
	return 0, false
}

// compile compiles every function of the module.
func (x *machine) compile() error {
	var errs diag.List
	x.funcs = map[string]*funcCode{}
	var order []*funcCode
	for _, f := range x.mod.Funcs {
		if x.funcs[f.Name] != nil {
			errs.Add(f.Pos, "function %s declared twice", f.Name)
			continue
		}
		fc := &funcCode{fn: f}
		x.funcs[f.Name] = fc
		order = append(order, fc)
	}
	for _, fc := range order {
		x.compileFunc(fc, &errs)
	}
	if main := x.mod.Main(); main == nil || len(main.Params) > 0 {
		errs.Add(x.mod.Pos, "module has no host function main()")
	}
	errs.Sort()
	return errs.Err()
}

func (x *machine) compileFunc(fc *funcCode, errs *diag.List) {
	f := fc.fn
	m := map[ir.FuncKind]mode{ir.KernelFunc: modeKernel, ir.DeviceFunc: modeDevice, ir.HostFunc: modeHost}[f.Kind]
	c := newCompiler(x, m, errs)
	for _, p := range f.Params {
		c.declare(p.Name)
	}
	if m == modeKernel && c.collectiveList(f.Body) {
		fc.wide = c.wideList(f.Body)
	} else {
		fc.body = c.stmts(f.Body)
	}
	fc.nslots = c.nslots
}

func zero(*frame) ir.Bits { return 0 }

func typeOf(e ir.Expr) ir.Type {
	if e == nil {
		return ir.Invalid
	}
	return e.Type()
}

// expr compiles an expression. Errors are recorded, and the expression
// then compiles to zero so that compilation can go on.
func (c *compiler) expr(e ir.Expr) evalFn {
	switch e := e.(type) {
	case nil:
		c.errorf(ir.Pos{}, "missing expression")
	case *ir.Const:
		v := e.Bits
		return func(*frame) ir.Bits { return v }
	case *ir.Var:
		if c.mode == modeConst {
			c.errorf(e.Pos, "length reads variable %s; lengths use parameters and constants only", e.Name)
		} else if s, ok := c.lookup(e.Name, e.Pos); ok {
			return func(f *frame) ir.Bits { return f.regs[s] }
		}
	case *ir.ParamRef:
		if v, ok := c.x.params[e.Name]; ok {
			return func(*frame) ir.Bits { return v }
		}
		c.errorf(e.Pos, "undeclared parameter %s", e.Name)
	case *ir.Load:
		return c.load(e)
	case *ir.Unary:
		return c.unary(e)
	case *ir.Binary:
		return c.binary(e)
	case *ir.Select:
		cond, a, b := c.expr(e.Cond), c.expr(e.X), c.expr(e.Y)
		return func(f *frame) ir.Bits {
			if cond(f) != 0 {
				return a(f)
			}
			return b(f)
		}
	case *ir.Convert:
		return c.convert(e)
	case *ir.Call:
		return c.call(e)
	case *ir.Builtin:
		return c.builtin(e)
	case *ir.Str:
		c.errorf(e.Pos, "string literal outside printf")
	default:
		c.errorf(e.At(), "unknown expression %T", e)
	}
	return zero
}

func (c *compiler) exprs(es []ir.Expr) []evalFn {
	out := make([]evalFn, len(es))
	for i, e := range es {
		out[i] = c.expr(e)
	}
	return out
}

func (c *compiler) unary(e *ir.Unary) evalFn {
	x, t, op := c.expr(e.X), typeOf(e.X), e.Op
	ok := map[ir.UnOp]bool{ir.Neg: t.IsNumeric(), ir.Not: t == ir.Bool, ir.BitNot: t.IsInt()}[op]
	if !ok {
		c.errorf(e.Pos, "operator %s on %s", op, t)
		return zero
	}
	return func(f *frame) ir.Bits { return ir.EvalUnary(op, t, x(f)) }
}

func (c *compiler) binary(e *ir.Binary) evalFn {
	x, y, t, op := c.expr(e.X), c.expr(e.Y), typeOf(e.X), e.Op
	if !binaryApplies(op, t) || typeOf(e.Y) != t {
		c.errorf(e.Pos, "operator %s on %s and %s", op, t, typeOf(e.Y))
		return zero
	}
	switch op {
	case ir.LogAnd:
		return func(f *frame) ir.Bits {
			if x(f) == 0 {
				return 0
			}
			return y(f)
		}
	case ir.LogOr:
		return func(f *frame) ir.Bits {
			if x(f) != 0 {
				return 1
			}
			return y(f)
		}
	case ir.Div, ir.Rem:
		if t.IsInt() {
			pos := e.Pos
			return func(f *frame) ir.Bits {
				v, err := ir.EvalBinary(op, t, x(f), y(f))
				if err != nil {
					fault(pos, "%v", err)
				}
				return v
			}
		}
	}
	return func(f *frame) ir.Bits {
		v, _ := ir.EvalBinary(op, t, x(f), y(f))
		return v
	}
}

// binaryApplies reports whether op is defined on operands of type t.
func binaryApplies(op ir.BinOp, t ir.Type) bool {
	switch op {
	case ir.Add, ir.Sub, ir.Mul, ir.Div:
		return t.IsNumeric()
	case ir.Rem, ir.Shl, ir.Shr:
		return t.IsInt()
	case ir.And, ir.Or, ir.Xor:
		return t.IsInt() || t == ir.Bool
	case ir.LogAnd, ir.LogOr:
		return t == ir.Bool
	}
	return t.IsScalar() // comparisons
}

func (c *compiler) convert(e *ir.Convert) evalFn {
	x, from, to := c.expr(e.X), typeOf(e.X), e.T
	if !from.IsScalar() || !to.IsScalar() {
		c.errorf(e.Pos, "conversion from %s to %s", from, to)
		return zero
	}
	if from == to {
		return x
	}
	return func(f *frame) ir.Bits { return ir.EvalConvert(to, from, x(f)) }
}

// call compiles a call of a device function from device code or of a host
// function from host code. Each active call has a frame of its own
// (thread.push).
func (c *compiler) call(e *ir.Call) evalFn {
	fc := c.x.funcs[e.Func]
	want := ir.HostFunc
	if c.mode.device() {
		want = ir.DeviceFunc
	}
	switch {
	case fc == nil:
		c.errorf(e.Pos, "call of undeclared function %s", e.Func)
		return zero
	case fc.fn.Kind != want || c.mode == modeConst:
		c.errorf(e.Pos, "call of %s %s in %s", fc.fn.Kind, e.Func, c.mode)
		return zero
	case len(e.Args) != len(fc.fn.Params):
		c.errorf(e.Pos, "%s takes %d arguments, not %d", e.Func, len(fc.fn.Params), len(e.Args))
		return zero
	}
	args, pos := c.exprs(e.Args), e.Pos
	x, batch := c.x, c.x.stepBatch()
	counted := x.cfg.MaxSteps > 0
	return func(f *frame) ir.Bits {
		th := f.th
		if counted {
			if th.steps++; th.steps >= batch {
				th.steps = 0
				x.addSteps(pos, batch)
			}
		}
		if th.depth >= maxCallDepth {
			fault(pos, "calls nested more than %d deep (unbounded recursion?)", maxCallDepth)
		}
		callee := th.push(fc.nslots)
		for i, a := range args {
			callee.regs[i] = a(f)
		}
		fc.body(callee)
		th.depth--
		return callee.ret
	}
}

// push enters a call: it returns a zeroed frame of n registers, reusing
// the one that the last call at this depth used.
func (th *thread) push(n int) *frame {
	if th.depth == len(th.calls) {
		th.calls = append(th.calls, &frame{th: th})
	}
	f := th.calls[th.depth]
	th.depth++
	if cap(f.regs) < n {
		f.regs = make([]ir.Bits, n)
	}
	f.regs = f.regs[:n]
	clear(f.regs)
	return f
}

// builtin compiles thread geometry and the math builtins.
func (c *compiler) builtin(e *ir.Builtin) evalFn {
	op := e.Op
	if op.Arity() != len(e.Args) {
		c.errorf(e.Pos, "%s takes %d arguments, not %d", op, op.Arity(), len(e.Args))
		return zero
	}
	if op.Arity() > 0 {
		return c.mathBuiltin(e)
	}
	if op.IsWorld() && c.mode != modeConst {
		if op == ir.DeviceID {
			return func(f *frame) ir.Bits { return i32(int64(f.th.dev)) }
		}
		k := i32(int64(c.x.devices))
		return func(*frame) ir.Bits { return k }
	}
	allowed := c.mode == modeDevice ||
		c.mode == modeKernel && !op.IsRegionOnly() ||
		c.mode == modeRegion && (op.IsRegionOnly() || op == ir.GlobalID)
	if !allowed {
		c.errorf(e.Pos, "%s() in %s", op, c.mode)
		return zero
	}
	return geometry(op)
}

// geometry reads a thread's geometry; every geometry builtin is an i32.
func geometry(op ir.BuiltinOp) evalFn {
	switch op {
	case ir.ThreadID:
		return func(f *frame) ir.Bits { return i32(f.th.tid) }
	case ir.BlockID:
		return func(f *frame) ir.Bits { return i32(f.th.bid) }
	case ir.BlockDim:
		return func(f *frame) ir.Bits { return i32(f.th.bdim) }
	case ir.GridDim:
		return func(f *frame) ir.Bits { return i32(f.th.gdim) }
	case ir.GlobalID:
		return func(f *frame) ir.Bits { return i32(f.th.gid) }
	case ir.ProcID:
		return func(f *frame) ir.Bits { return i32(f.th.pid) }
	case ir.GroupID:
		return func(f *frame) ir.Bits { return i32(f.th.group) }
	case ir.GroupSize:
		return func(f *frame) ir.Bits { return i32(f.th.gsize) }
	}
	return func(f *frame) ir.Bits { return i32(f.th.nprocs) }
}

func i32(v int64) ir.Bits { return uint64(int64(int32(v))) }

func (c *compiler) mathBuiltin(e *ir.Builtin) evalFn {
	op, t, args := e.Op, typeOf(e.Args[0]), c.exprs(e.Args)
	ok := t.IsNumeric()
	if op == ir.Sqrt {
		ok = t.IsFloat()
	}
	if len(args) == 2 && typeOf(e.Args[1]) != t {
		ok = false
	}
	if !ok {
		c.errorf(e.Pos, "%s of %s", op, t)
		return zero
	}
	if len(args) == 1 {
		a := args[0]
		return func(f *frame) ir.Bits { return ir.EvalBuiltin(op, t, a(f)) }
	}
	a, b := args[0], args[1]
	return func(f *frame) ir.Bits {
		va := a(f)
		return ir.EvalBuiltin(op, t, va, b(f))
	}
}
