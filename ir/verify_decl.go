package ir

import "math"

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
		if b.Progress != "" && (!b.Elem.IsInt() || b.Space != Global && b.Space != Distributed) {
			v.errorf(b.Pos, "buffer %s counts progress (%s), so it must hold integers in global or distributed memory", b.Name, b.Progress)
		}
		v.bound(m, b)
		if known && b.Space == Constant && constBytes <= MaxConstantMemory {
			constBytes += n * int64(b.Elem.Size())
			if constBytes > MaxConstantMemory {
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
	case !IsIdent(name):
		v.errorf(pos, "%s name %q is not an identifier", what, name)
	case IsKeyword(name):
		v.errorf(pos, "%s name %s is a keyword", what, name)
	default:
		return true
	}
	return false
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
	val, why := EvalConst(e)
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
