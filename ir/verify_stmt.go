package ir

import "fmt"

// codeKind says what kind of code a statement or expression belongs to,
// which decides what may appear there (see Note [Levels]).
type codeKind uint8

const (
	kernelCode codeKind = iota
	deviceCode          // the body of a device function
	hostCode
	regionCode // a region's body: device code inside a host function
	lengthCode // the length of a buffer or array
)

func codeOf(k FuncKind) codeKind {
	switch k {
	case KernelFunc:
		return kernelCode
	case DeviceFunc:
		return deviceCode
	}
	return hostCode
}

var codeNames = [...]string{
	kernelCode: "a kernel", deviceCode: "a device function", hostCode: "host code",
	regionCode: "a region", lengthCode: "a length",
}

func (c codeKind) String() string { return codeNames[c] }

func (c codeKind) onDevice() bool { return c == kernelCode || c == deviceCode || c == regionCode }

// context is where a statement sits.
type context struct {
	code  codeKind
	loops int // loops around the statement inside the innermost fence
	// fence is the innermost region, split or fork around the statement,
	// which break and continue may not leave ("" if none); fencedLoop says
	// whether a loop encloses the fence.
	fence      string
	fencedLoop bool
}

// local is a function parameter or a local variable.
type local struct {
	name  string
	pos   Pos
	t     Type
	param bool
}

// scope is one block's locals.
type scope struct {
	outer  *scope
	locals map[string]*local
	region bool // a region's body: the scopes outside are the host's
}

// lookup finds the local called name; host says whether it is a host
// variable seen from a region's body.
func (s *scope) lookup(name string) (l *local, host bool) {
	for ; s != nil; s = s.outer {
		if l := s.locals[name]; l != nil {
			return l, host
		}
		host = host || s.region
	}
	return nil, false
}

func (v *verifier) push(region bool) {
	v.scope = &scope{outer: v.scope, locals: map[string]*local{}, region: region}
}

func (v *verifier) pop() { v.scope = v.scope.outer }

// declare adds a local to the innermost scope; it must not hide a
// module-level name or a visible local.
func (v *verifier) declare(name string, pos Pos, t Type, param bool) *local {
	l := &local{name: name, pos: pos, t: t, param: param}
	what := "local"
	if param {
		what = "parameter"
	}
	if !v.checkName(name, pos, what) {
		return l
	}
	if g, ok := v.globals[name]; ok {
		v.errorf(pos, "%s %s shadows the module-level %s", what, name, g.what)
	}
	if old, host := v.scope.lookup(name); old != nil {
		switch {
		case v.scope.locals[name] != nil:
			v.errorf(pos, "%s redeclared in this scope (previous declaration at %s)", name, old.pos)
		case host:
			v.errorf(pos, "local %s shadows the host variable %s declared at %s", name, name, old.pos)
		default:
			v.errorf(pos, "local %s shadows the %s declared at %s", name, old.what(), old.pos)
		}
	}
	v.scope.locals[name] = l
	return l
}

func (l *local) what() string {
	if l.param {
		return "parameter " + l.name
	}
	return "local " + l.name
}

// block checks a statement list in a scope of its own.
func (v *verifier) block(body []Stmt) {
	v.push(false)
	defer v.pop()
	for _, s := range body {
		v.stmt(s)
	}
}

// nested checks body as the body of a loop, or of a region, split or fork
// (fence != "").
func (v *verifier) nested(body []Stmt, loop bool, fence string) {
	saved := v.cx
	defer func() { v.cx = saved }()
	if loop {
		v.cx.loops++
	}
	if fence != "" {
		v.cx.fence, v.cx.fencedLoop, v.cx.loops = fence, v.cx.loops > 0 || v.cx.fencedLoop, 0
	}
	v.block(body)
}

func (v *verifier) stmt(s Stmt) {
	if isNil(s) {
		v.malformed(v.at, "nil statement")
		return
	}
	defer v.enter(s.At())()
	switch s := s.(type) {
	case *Decl:
		v.decl(s)
	case *Assign:
		v.assign(s)
	case *Store:
		v.store(s)
	case *Atomic:
		v.atomic(s)
	case *CallStmt:
		v.callStmt(s)
	case *If:
		v.cond(s.Cond, "if condition")
		v.block(s.Then)
		v.block(s.Else)
	case *While:
		v.cond(s.Cond, "while condition")
		v.nested(s.Body, true, "")
	case *For:
		v.forStmt(s)
	case *Break:
		v.jump(s.Pos, "break")
	case *Continue:
		v.jump(s.Pos, "continue")
	case *Return:
		v.ret(s)
	case *Switch:
		v.switchStmt(s)
	case *Barrier:
		v.barrier(s)
	case *Raise:
		// Raise may stand anywhere.
	case *Split:
		v.split(s)
	case *Fork:
		v.fork(s)
	case *SplitWhile:
		v.only(s.Pos, "split while", regionCode)
		v.cond(s.Cond, "split while condition")
		v.nested(s.Body, true, "")
	case *Launch:
		v.launch(s)
	case *Region:
		v.region(s)
	case *Copy:
		v.copyStmt(s)
	case *Swap:
		v.swap(s)
	case *Printf:
		v.printf(s)
	case *Write:
		v.write(s)
	case *WorldBarrier:
		v.worldBarrier(s)
	case *AllGather:
		v.allGather(s)
	case *AllReduce:
		v.allReduce(s)
	default:
		v.malformed(s.At(), "unknown statement %T", s)
	}
}

func (v *verifier) decl(d *Decl) {
	t := v.scalar(d.T, d.Pos, "local "+d.Name)
	if d.Init != nil {
		v.exactly(d.Init, t, "initializer of "+d.Name)
	}
	v.defs[d] = v.declare(d.Name, d.Pos, t, false)
}

// scalar checks the type of a local or function parameter; uses of a
// local of a broken type are not checked against it.
func (v *verifier) scalar(t Type, pos Pos, what string) Type {
	if !t.IsScalar() {
		v.errorf(pos, "%s has type %s, want a scalar type", what, t)
		return Invalid
	}
	return t
}

func (v *verifier) assign(s *Assign) {
	want := Invalid
	if l := v.target(s.Name, s.Pos, "assignment to"); l != nil {
		v.defs[s] = l
		want = l.t
	}
	v.exactly(s.Value, want, "value assigned to "+s.Name)
}

// target resolves a local that a statement assigns.
func (v *verifier) target(name string, pos Pos, what string) *local {
	l, host := v.scope.lookup(name)
	switch {
	case l == nil && v.params[name] != nil:
		v.errorf(pos, "%s parameter %s; parameters are read-only", what, name)
	case l == nil:
		v.errorf(pos, "%s undeclared variable %s", what, name)
	case host:
		v.errorf(pos, "%s host variable %s in a region; regions may only read host variables", what, name)
	default:
		return l
	}
	return nil
}

// cond checks a condition.
func (v *verifier) cond(e Expr, what string) {
	if t := v.expr(e, what); t != Invalid && t != Bool {
		v.errorf(e.At(), "%s has type %s, want bool", what, t)
	}
}

// integer checks an expression that must have an integer type.
func (v *verifier) integer(e Expr, what string) {
	if t := v.expr(e, what); t != Invalid && !t.IsInt() {
		v.errorf(e.At(), "%s has type %s, want an integer type", what, t)
	}
}

// exactly checks an expression that must have type want; Invalid accepts
// any type.
func (v *verifier) exactly(e Expr, want Type, what string) {
	if got := v.expr(e, what); got != want && got != Invalid && want != Invalid {
		v.errorf(e.At(), "%s has type %s, want %s", what, got, want)
	}
}

// only reports s if it stands outside the code kinds it may appear in.
func (v *verifier) only(pos Pos, what string, codes ...codeKind) bool {
	for _, c := range codes {
		if v.cx.code == c {
			return true
		}
	}
	switch {
	case codes[0] == hostCode:
		v.errorf(pos, "%s in %s; it is a host statement", what, v.cx.code)
	case len(codes) == 1 && codes[0] == regionCode:
		v.errorf(pos, "%s outside a region; it exists only in SPMD regions", what)
	default:
		v.errorf(pos, "%s in %s", what, v.cx.code)
	}
	return false
}

func (v *verifier) store(s *Store) {
	elem := v.memory(s.Buf, s.Pos, true)
	v.integer(s.Index, "index of "+s.Buf)
	v.exactly(s.Value, elem, "value stored to "+s.Buf)
	if s.Priority {
		v.only(s.Pos, "priority store", regionCode)
	}
}

// memory resolves a buffer or host array that the current code reads or
// writes, checking that it may, and returns its element type.
func (v *verifier) memory(name string, pos Pos, write bool) Type {
	b, a := v.buffers[name], v.arrays[name]
	code := v.cx.code
	switch {
	case b == nil && a == nil:
		v.errorf(pos, "undeclared buffer or array %s", name)
		return Invalid
	case b == nil:
		if code.onDevice() {
			v.errorf(pos, "host array %s in %s", name, code)
		} else if code == lengthCode {
			v.errorf(pos, "length reads array %s; lengths use parameters and constants only", name)
		}
		return a.Elem
	}
	switch {
	case code == lengthCode:
		v.errorf(pos, "length reads buffer %s; lengths use parameters and constants only", name)
	case b.Space == Shared && (code == hostCode || code == regionCode):
		v.errorf(pos, "shared buffer %s in %s; shared memory belongs to the blocks of a kernel", name, code)
	case write && b.Role == Static:
		v.errorf(pos, "static buffer %s is read-only", name)
	case write && b.Space == Constant && code.onDevice():
		v.errorf(pos, "constant buffer %s is read-only in device code", name)
	case write && b.Space == Replicated && code.onDevice():
		v.errorf(pos, "replicated buffer %s is read-only in device code; the host writes it, to every device", name)
	}
	if b.Space == Shared {
		v.note(usesShared, "shared buffer "+name, pos)
	}
	return b.Elem
}

func (v *verifier) callStmt(s *CallStmt) {
	if isNil(s.Call) {
		v.malformed(s.Pos, "call statement without a call")
		return
	}
	v.call(s.Call, true)
}

func (v *verifier) forStmt(s *For) {
	v.push(false)
	defer v.pop()
	switch s.Init.(type) {
	case nil:
	case *Decl, *Assign:
		v.stmt(s.Init)
	default:
		v.malformed(s.Pos, "for init must be a declaration or an assignment")
	}
	v.cond(s.Cond, "for condition")
	switch s.Post.(type) {
	case nil:
	case *Assign:
		v.stmt(s.Post)
	default:
		v.malformed(s.Pos, "for post statement must be an assignment")
	}
	v.nested(s.Body, true, "")
}

func (v *verifier) jump(pos Pos, what string) {
	switch {
	case v.cx.loops > 0:
	case v.cx.fencedLoop:
		v.errorf(pos, "%s may not leave a %s", what, v.cx.fence)
	default:
		v.errorf(pos, "%s outside a loop", what)
	}
}

func (v *verifier) ret(s *Return) {
	result := v.fn.Result
	switch {
	case v.cx.code == regionCode:
		v.errorf(s.Pos, "return in a region; it would leave the host function")
	case s.Value == nil && result != Void:
		v.errorf(s.Pos, "missing return value; want %s", result)
	case s.Value != nil && result == Void:
		v.errorf(s.Pos, "return with a value in a function without a result")
	}
	if s.Value != nil {
		if result == Void {
			result = Invalid // reported above
		}
		v.exactly(s.Value, result, "return value")
	}
}

func (v *verifier) switchStmt(s *Switch) {
	t := v.expr(s.X, "switch value")
	if t != Invalid && !t.IsInt() {
		v.errorf(s.X.At(), "switch value has type %s, want an integer type", t)
		t = Invalid
	}
	seen := map[int64]Pos{}
	for _, c := range s.Cases {
		if c == nil {
			v.malformed(s.Pos, "nil case")
			continue
		}
		for _, x := range c.Values {
			if t != Invalid && !fits(x, t) {
				v.errorf(c.Pos, "case %d is out of range for %s", x, t)
			}
			if p, dup := seen[x]; dup {
				v.errorf(c.Pos, "duplicate case %d (previous at %s)", x, p)
			}
			seen[x] = c.Pos
		}
		v.block(c.Body)
	}
	v.block(s.Default)
}

// fits reports whether x, as a case value, is a value of the integer type t.
func fits(x int64, t Type) bool {
	if !t.IsSigned() && x < 0 {
		return false
	}
	return t == U64 || Normalize(t, uint64(x)) == uint64(x)
}

func (v *verifier) barrier(s *Barrier) {
	switch {
	case s.Grid && v.cx.code == kernelCode:
		v.gridKernels[v.fn] = true // its launches must be cooperative
	case s.Grid:
		v.only(s.Pos, "grid barrier", regionCode)
	case v.cx.code == regionCode:
		v.errorf(s.Pos, "block barrier in a region; use barrier grid")
	case v.cx.code == deviceCode:
		v.errorf(s.Pos, "barrier in a device function; only kernels may hold block barriers")
	default:
		v.only(s.Pos, "barrier", kernelCode)
	}
}

func (v *verifier) split(s *Split) {
	v.only(s.Pos, "split", regionCode)
	v.cond(s.Cond, "split condition")
	v.nested(s.Then, false, "split")
	v.nested(s.Else, false, "split")
}

func (v *verifier) fork(s *Fork) {
	v.only(s.Pos, "fork", regionCode)
	v.exactly(s.Count, I32, "fork count")
	v.exactly(s.Group, I32, "fork group")
	v.exactly(s.Member, I32, "fork member")
	v.nested(s.Body, false, "fork")
}

func (v *verifier) atomic(s *Atomic) {
	v.only(s.Pos, "atomic", kernelCode, deviceCode, regionCode)
	elem := v.memory(s.Buf, s.Pos, true)
	v.storesOnly(s.Buf, s.Pos, "an atomic")
	v.integer(s.Index, "index of "+s.Buf)
	name := "atomic"
	if validAtomic(s.Op) {
		name += " " + s.Op.String()
		v.atomicOp(s, elem)
	} else {
		v.malformed(s.Pos, "unknown atomic operation %d", s.Op)
		elem = Invalid
	}
	for i, a := range s.Args {
		v.exactly(a, elem, fmt.Sprintf("operand %d of %s", i+1, name))
	}
	if s.Dst == "" {
		return
	}
	v.note(usesVarying, "an atomic's result", s.Pos)
	if l := v.target(s.Dst, s.Pos, "atomic result to"); l != nil {
		v.defs[s] = l
		if l.t != elem && l.t != Invalid && elem != Invalid {
			v.errorf(s.Pos, "atomic on %s yields %s, but %s has type %s", s.Buf, elem, s.Dst, l.t)
		}
	}
}

// atomicOp checks where s's operation may appear, and its element type and
// number of operands.
func (v *verifier) atomicOp(s *Atomic, elem Type) {
	if s.Op.IsMultiprefix() {
		v.only(s.Pos, "multiprefix atomic "+s.Op.String(), regionCode)
	}
	if ok, want := atomicElem(s.Op, elem); !ok {
		v.errorf(s.Pos, "atomic %s on %s buffer %s; want %s", s.Op, elem, s.Buf, want)
	}
	if len(s.Args) != s.Op.Operands() {
		v.errorf(s.Pos, "atomic %s takes %s, not %d", s.Op, count(s.Op.Operands(), "operand"), len(s.Args))
	}
}

// atomicElem reports whether op applies to elements of type t, as CUDA's
// atomics do, and if not, which types it wants.
func atomicElem(op AtomicOp, t Type) (ok bool, want string) {
	if t == Invalid {
		return true, ""
	}
	ints := t == I32 || t == U32 || t == I64 || t == U64
	switch op {
	case AtomicAdd, AtomicSub, AtomicExch:
		return ints || t.IsFloat(), "i32, u32, i64, u64, f32 or f64"
	case AtomicInc:
		return t == U32, "u32"
	case MultiAdd:
		return t.IsNumeric(), "an integer or float type"
	case MultiMax, MultiMin, MultiAnd, MultiOr:
		return t.IsInt(), "an integer type"
	}
	return ints, "i32, u32, i64 or u64"
}
