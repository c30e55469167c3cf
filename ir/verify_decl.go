package ir

import "math"

// maxConstantMemory is the size of CUDA's constant memory.
const maxConstantMemory = 64 << 10

// decls checks the module-level declarations: names, parameters, buffers,
// arrays, function headers and main.
func (v *verifier) decls() {
	m := v.m
	for i, p := range m.Params {
		if p == nil {
			v.errorf(m.Pos, "nil parameter %d in module", i+1)
			continue
		}
		v.global(p.Name, p.Pos, "parameter")
		v.param(p)
	}
	constBytes := int64(0)
	for i, b := range m.Buffers {
		if b == nil {
			v.errorf(m.Pos, "nil buffer %d in module", i+1)
			continue
		}
		v.global(b.Name, b.Pos, "buffer")
		n, known := v.buffer(b)
		if known && b.Space == Constant && constBytes <= maxConstantMemory {
			constBytes += n * int64(b.Elem.Size())
			if constBytes > maxConstantMemory {
				v.errorf(b.Pos, "constant buffers up to %s take %d bytes, more than the 64 KiB of constant memory", b.Name, constBytes)
			}
		}
	}
	for i, a := range m.Arrays {
		if a == nil {
			v.errorf(m.Pos, "nil array %d in module", i+1)
			continue
		}
		v.global(a.Name, a.Pos, "array")
		v.elem(a.Elem, a.Pos, "array", a.Name)
		v.length(a.Len, a.Pos, "array "+a.Name, false)
	}
	for i, f := range m.Funcs {
		if f == nil {
			v.errorf(m.Pos, "nil function %d in module", i+1)
			continue
		}
		v.global(f.Name, f.Pos, kindName(f.Kind))
		v.funcHeader(f)
	}
	v.main()
}

// global declares a module-level name.
func (v *verifier) global(name string, pos Pos, what string) {
	if !v.checkName(name, pos, what) {
		return
	}
	if _, ok := ParseBuiltin(name); ok {
		v.errorf(pos, "%s %s has the name of a builtin", what, name)
	}
	if _, ok := ParseType(name); ok {
		v.errorf(pos, "%s %s has the name of a type", what, name)
	}
	if g, ok := v.globals[name]; ok {
		v.errorf(pos, "%s redeclared (previous declaration: %s at %s)", name, g.what, g.pos)
		return
	}
	v.globals[name] = global{pos: pos, what: what + " " + name}
}

// checkName reports whether name can be written in .kir text as a name.
func (v *verifier) checkName(name string, pos Pos, what string) bool {
	switch {
	case name == "":
		v.errorf(pos, "%s with an empty name", what)
	case !isIdent(name):
		v.errorf(pos, "%s name %q is not an identifier", what, name)
	case keywords[name]:
		v.errorf(pos, "%s name %s is a keyword", what, name)
	default:
		return true
	}
	return false
}

func isIdent(s string) bool {
	for i, c := range s {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// keywords are the words of grammars/KIR.g4 that cannot be names.
var keywords = map[string]bool{
	"module": true, "param": true, "buffer": true, "array": true, "kernel": true,
	"func": true, "host": true, "var": true, "atomic": true, "prio": true,
	"if": true, "else": true, "while": true, "for": true, "break": true,
	"continue": true, "return": true, "switch": true, "case": true, "default": true,
	"barrier": true, "raise": true, "split": true, "fork": true, "launch": true,
	"region": true, "copy": true, "swap": true, "printf": true,
	"true": true, "false": true, "inf": true, "nan": true,
}

func (v *verifier) param(p *Param) {
	if !p.Type.IsInt() {
		v.errorf(p.Pos, "parameter %s has type %s; parameters are integers", p.Name, p.Type)
		return
	}
	if p.Type != U64 && Normalize(p.Type, uint64(p.Default)) != uint64(p.Default) {
		v.errorf(p.Pos, "default %d of parameter %s is out of range for %s", p.Default, p.Name, p.Type)
	}
	switch {
	case p.Fit == 0:
	case !(p.Fit > 0 && p.Fit <= 1): // NaN too
		v.errorf(p.Pos, "fit %g of parameter %s is outside (0, 1]", p.Fit, p.Name)
	case p.Default == 0 || p.Default < 0 && p.Type != U64:
		v.errorf(p.Pos, "parameter %s is fitted to device memory, so its default %d, the largest value it may take, must be at least 1", p.Name, p.Default)
	}
}

// buffer checks b and returns its length where it is a constant.
func (v *verifier) buffer(b *Buffer) (n int64, known bool) {
	v.elem(b.Elem, b.Pos, "buffer", b.Name)
	if !validSpace(b.Space) || !validRole(b.Role) {
		v.errorf(b.Pos, "buffer %s has an unknown memory space or role", b.Name)
		return 0, false
	}
	owner, mustBeConst := "buffer "+b.Name, true
	switch {
	case b.Role == Static:
		owner = "static " + owner
	case b.Space == Constant:
		owner = "constant " + owner
	default:
		mustBeConst = false
	}
	before := len(v.errs)
	n, known = v.length(b.Len, b.Pos, owner, mustBeConst)
	v.cleanLen[b] = len(v.errs) == before
	if b.Space == Shared && b.Role != Scratch {
		v.errorf(b.Pos, "shared buffer %s cannot be %s; shared buffers are scratch", b.Name, b.Role)
	}
	switch {
	case b.Role != Static && b.Init != nil:
		v.errorf(b.Pos, "buffer %s has contents but is not static", b.Name)
	case b.Role == Static && b.Init == nil:
		v.errorf(b.Pos, "static buffer %s has no contents; give them with --static %s=FILE", b.Name, b.Name)
	case b.Role == Static:
		v.staticInit(b, n, known)
	}
	return n, known
}

func (v *verifier) staticInit(b *Buffer, n int64, known bool) {
	if known && int64(len(b.Init)) != n {
		v.errorf(b.Pos, "static buffer %s has %d values for length %d", b.Name, len(b.Init), n)
	}
	if !b.Elem.IsScalar() || b.Elem == F64 {
		return
	}
	for i, x := range b.Init {
		if Normalize(b.Elem, x) != x {
			v.errorf(b.Pos, "value %d of static buffer %s is not a canonical %s (%#x)", i, b.Name, b.Elem, x)
			return
		}
	}
}

// elem checks the element type of a buffer or array.
func (v *verifier) elem(t Type, pos Pos, what, name string) {
	if !t.IsScalar() {
		v.errorf(pos, "%s %s has element type %s, want a scalar type", what, name, t)
	}
}

// length checks the length of a memory: an integer expression over
// parameters and constants, or over constants only if mustBeConst. It
// returns the value where the expression is constant.
func (v *verifier) length(e Expr, pos Pos, owner string, mustBeConst bool) (int64, bool) {
	if isNil(e) {
		v.errorf(pos, "%s has no length", owner)
		return 0, false
	}
	defer v.enter(pos)()
	saved := v.cx
	defer func() { v.cx = saved }()
	v.cx = context{code: lengthCode}
	before := len(v.errs)
	t := v.expr(e, "length of "+owner)
	if t != Invalid && !t.IsInt() {
		v.errorf(e.At(), "length of %s has type %s, want an integer type", owner, t)
	}
	if len(v.errs) > before || t == Invalid {
		return 0, false
	}
	val, why := constValue(e)
	switch {
	case why == "":
	case why == divByZero:
		v.errorf(e.At(), "length of %s %s", owner, why)
		return 0, false
	case mustBeConst:
		v.errorf(e.At(), "length of %s must be a constant, but it %s", owner, why)
		return 0, false
	default:
		return 0, false
	}
	if (t.IsSigned() && int64(val) < 0) || (!t.IsSigned() && val > math.MaxInt64) {
		v.errorf(e.At(), "length of %s is out of range (%s)", owner, FormatValue(t, val))
		return 0, false
	}
	return int64(val), true
}

// funcHeader checks a function's kind and result type.
func (v *verifier) funcHeader(f *Func) {
	switch {
	case !validKind(f.Kind):
		v.errorf(f.Pos, "function %s has unknown kind %d", f.Name, f.Kind)
	case f.Kind == KernelFunc && f.Result != Void:
		v.errorf(f.Pos, "kernel %s returns %s; kernels return nothing", f.Name, f.Result)
	case f.Result != Void && !f.Result.IsScalar():
		v.errorf(f.Pos, "%s %s has result type %s, want void or a scalar type", f.Kind, f.Name, f.Result)
	}
}

// main checks the host entry point.
func (v *verifier) main() {
	f := v.funcs["main"]
	switch {
	case f == nil:
		v.errorf(v.m.Pos, "module has no host function main")
	case f.Kind != HostFunc:
		v.errorf(f.Pos, "main must be a host function, not a %s", kindName(f.Kind))
	case len(f.Params) > 0 || f.Result != Void:
		v.errorf(f.Pos, "host main must take no parameters and return nothing")
	}
}

const divByZero = "divides by zero"

// constValue evaluates an integer or bool expression over constants, as
// the lengths of static and constant buffers are written. why says what
// stops it otherwise ("reads parameter N", "divides by zero"). e must have
// passed the type checks.
func constValue(e Expr) (b Bits, why string) {
	switch e := e.(type) {
	case *Const:
		if e.T.IsFloat() {
			return 0, "uses a float"
		}
		return e.Bits, ""
	case *ParamRef:
		return 0, "reads parameter " + e.Name
	case *Unary:
		x, why := constValue(e.X)
		return unaryValue(e.Op, e.X.Type(), x), why
	case *Binary:
		x, why := constValue(e.X)
		y, why2 := constValue(e.Y)
		if why == "" {
			why = why2
		}
		if why != "" {
			return 0, why
		}
		return binaryValue(e.Op, e.X.Type(), x, y)
	case *Select:
		c, why := constValue(e.Cond)
		if why != "" {
			return 0, why
		}
		if c != 0 {
			return constValue(e.X)
		}
		return constValue(e.Y)
	case *Convert:
		x, why := constValue(e.X)
		if e.T.IsFloat() {
			return 0, "uses a float"
		}
		return Normalize(e.T, x), why
	case *Builtin:
		return builtinValue(e)
	}
	return 0, "is not constant"
}

func unaryValue(op UnOp, t Type, x Bits) Bits {
	switch op {
	case Neg:
		return Normalize(t, -x)
	case Not:
		return 1 - x
	}
	return Normalize(t, ^x)
}

func binaryValue(op BinOp, t Type, x, y Bits) (Bits, string) {
	signed := t.IsSigned()
	less := x < y
	if signed {
		less = int64(x) < int64(y)
	}
	shift := y % uint64(8*t.Size())
	switch op {
	case Add:
		return Normalize(t, x+y), ""
	case Sub:
		return Normalize(t, x-y), ""
	case Mul:
		return Normalize(t, x*y), ""
	case Div, Rem:
		return divValue(op, t, x, y)
	case And, LogAnd:
		return x & y, ""
	case Or, LogOr:
		return x | y, ""
	case Xor:
		return x ^ y, ""
	case Shl:
		return Normalize(t, x<<shift), ""
	case Shr:
		if signed {
			return Normalize(t, uint64(int64(x)>>shift)), ""
		}
		return x >> shift, ""
	case Eq:
		return boolBits(x == y), ""
	case Ne:
		return boolBits(x != y), ""
	case Lt:
		return boolBits(less), ""
	case Le:
		return boolBits(less || x == y), ""
	case Gt:
		return boolBits(!less && x != y), ""
	}
	return boolBits(!less), "" // Ge
}

func divValue(op BinOp, t Type, x, y Bits) (Bits, string) {
	if y == 0 {
		return 0, divByZero
	}
	if t.IsSigned() {
		if op == Div {
			return Normalize(t, uint64(int64(x)/int64(y))), ""
		}
		return Normalize(t, uint64(int64(x)%int64(y))), ""
	}
	if op == Div {
		return x / y, ""
	}
	return x % y, ""
}

func builtinValue(e *Builtin) (Bits, string) {
	if e.Op != Min && e.Op != Max && e.Op != Abs {
		return 0, "is not constant"
	}
	t := e.Args[0].Type()
	x, why := constValue(e.Args[0])
	if why != "" {
		return 0, why
	}
	if e.Op == Abs {
		if t.IsSigned() && int64(x) < 0 {
			return Normalize(t, -x), ""
		}
		return x, ""
	}
	y, why := constValue(e.Args[1])
	if why != "" {
		return 0, why
	}
	less, _ := binaryValue(Lt, t, x, y)
	if (less == 1) == (e.Op == Min) {
		return x, ""
	}
	return y, ""
}

func boolBits(b bool) Bits {
	if b {
		return 1
	}
	return 0
}
