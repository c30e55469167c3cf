package ir

import (
	"fmt"
	"slices"
)

// expr checks e and returns its type, or Invalid if e is broken (errors
// about a broken operand are not repeated for the expressions around it).
// what names the slot e fills, for "nil expression in ..." errors.
func (v *verifier) expr(e Expr, what string) Type {
	if isNil(e) {
		v.malformed(v.at, "nil expression in %s", what)
		return Invalid
	}
	defer v.enter(e.At())()
	switch e := e.(type) {
	case *Const:
		return v.constant(e)
	case *Str:
		v.errorf(e.Pos, "string literal outside printf")
		return Invalid
	case *Var:
		return v.varRef(e)
	case *ParamRef:
		return v.paramRef(e)
	case *Load:
		elem := v.memory(e.Buf, e.Pos, false)
		v.integer(e.Index, "index of "+e.Buf)
		return v.annotated(e.Pos, e.T, elem, "load of "+e.Buf)
	case *Unary:
		return v.unary(e)
	case *Binary:
		return v.binary(e)
	case *Select:
		return v.selectExpr(e)
	case *Convert:
		return v.convert(e)
	case *Call:
		return v.call(e, false)
	case *Builtin:
		return v.builtin(e)
	}
	v.malformed(e.At(), "unknown expression %T", e)
	return Invalid
}

// annotated checks a type that a node records against the declaration it
// comes from, and returns the declared type.
func (v *verifier) annotated(pos Pos, node, decl Type, what string) Type {
	if node != decl && decl != Invalid {
		v.errorf(pos, "%s is annotated %s, but its declaration says %s", what, node, decl)
	}
	return decl
}

func (v *verifier) constant(e *Const) Type {
	switch {
	case !e.T.IsScalar():
		v.errorf(e.Pos, "constant of type %s", e.T)
		return Invalid
	case e.T != F64 && Normalize(e.T, e.Bits) != e.Bits:
		v.errorf(e.Pos, "constant %#x is not a canonical %s", e.Bits, e.T)
	}
	return e.T
}

func (v *verifier) varRef(e *Var) Type {
	if v.cx.code == lengthCode {
		v.errorf(e.Pos, "length reads variable %s; lengths use parameters and constants only", e.Name)
		return Invalid
	}
	l, _ := v.scope.lookup(e.Name)
	switch {
	case l != nil:
		v.uses[e] = l
		return v.annotated(e.Pos, e.T, l.t, "variable "+e.Name)
	case v.params[e.Name] != nil:
		v.errorf(e.Pos, "parameter %s read as a variable", e.Name)
	default:
		v.errorf(e.Pos, "undeclared variable %s", e.Name)
	}
	return Invalid
}

func (v *verifier) paramRef(e *ParamRef) Type {
	p := v.params[e.Name]
	switch {
	case p == nil:
		v.errorf(e.Pos, "undeclared parameter %s", e.Name)
		return Invalid
	case !p.Type.IsInt():
		return Invalid // reported at the declaration
	}
	return v.annotated(e.Pos, e.T, p.Type, "parameter "+e.Name)
}

func (v *verifier) unary(e *Unary) Type {
	if !validUnOp(e.Op) {
		v.malformed(e.Pos, "unknown unary operator %d", e.Op)
		return Invalid
	}
	t := v.expr(e.X, "operand of "+e.Op.String())
	ok, want := true, ""
	switch e.Op {
	case Neg:
		ok, want = t.IsNumeric(), "a numeric"
	case Not:
		ok, want = t == Bool, "a bool"
	case BitNot:
		ok, want = t.IsInt(), "an integer"
	}
	if t != Invalid && !ok {
		v.errorf(e.Pos, "operator %s needs %s operand, not %s", e.Op, want, t)
		t = Invalid
	}
	return t
}

func (v *verifier) binary(e *Binary) Type {
	if !validBinOp(e.Op) {
		v.malformed(e.Pos, "unknown binary operator %d", e.Op)
		return Invalid
	}
	x := v.expr(e.X, "operand of "+e.Op.String())
	y := v.expr(e.Y, "operand of "+e.Op.String())
	result := Invalid
	if e.Op.IsCompare() || e.Op.IsLogical() {
		result = Bool
	}
	switch {
	case x == Invalid || y == Invalid:
		return result
	case x != y:
		v.errorf(e.Pos, "mismatched types %s and %s for %s", x, y, e.Op)
		return result
	}
	if ok, want := binaryOperands(e.Op, x); !ok {
		v.errorf(e.Pos, "operator %s needs %s operands, not %s", e.Op, want, x)
		return result
	}
	if result == Invalid {
		result = x
	}
	return result
}

// binaryOperands reports whether op applies to operands of type t, and if
// not, what it wants.
func binaryOperands(op BinOp, t Type) (ok bool, want string) {
	switch op {
	case Add, Sub, Mul, Div, Lt, Le, Gt, Ge:
		return t.IsNumeric(), "numeric"
	case LogAnd, LogOr:
		return t == Bool, "bool"
	case Eq, Ne:
		return t.IsNumeric() || t == Bool, "numeric or bool"
	}
	return t.IsInt(), "integer" // % & | ^ << >>
}

func (v *verifier) selectExpr(e *Select) Type {
	v.cond(e.Cond, "condition of ?:")
	x := v.expr(e.X, "operand of ?:")
	y := v.expr(e.Y, "operand of ?:")
	if x != y && x != Invalid && y != Invalid {
		v.errorf(e.Pos, "mismatched types %s and %s for ?:", x, y)
		return Invalid
	}
	return x
}

func (v *verifier) convert(e *Convert) Type {
	x := v.expr(e.X, "conversion to "+e.T.String())
	switch {
	case !e.T.IsScalar():
		v.errorf(e.Pos, "conversion to %s; want a scalar type", e.T)
		return Invalid
	case x != Invalid && !x.IsScalar():
		v.errorf(e.Pos, "cannot convert %s to %s", x, e.T)
	}
	return e.T
}

// call checks a call of a function; stmt says whether it stands as a
// statement, where a function without a result may be called.
func (v *verifier) call(e *Call, stmt bool) Type {
	f := v.funcs[e.Func]
	code := v.cx.code
	switch {
	case code == lengthCode:
		v.errorf(e.Pos, "length calls %s; lengths use parameters and constants only", e.Func)
		f = nil
	case f == nil:
		v.errorf(e.Pos, "call of undeclared function %s", e.Func)
	case f.Kind == KernelFunc:
		v.errorf(e.Pos, "call of kernel %s; kernels are launched", e.Func)
		f = nil
	case f.Kind == HostFunc && code != hostCode:
		v.errorf(e.Pos, "call of host function %s in %s", e.Func, code)
	case f.Kind == DeviceFunc && code == hostCode:
		v.errorf(e.Pos, "call of device function %s in host code", e.Func)
	case f.Kind == DeviceFunc:
		v.noteCall(e)
	}
	v.args(e.Pos, f, e.Func, e.Args)
	if f == nil {
		return Invalid
	}
	t := v.annotated(e.Pos, e.T, f.Result, "call of "+e.Func)
	if t == Void && !stmt {
		v.errorf(e.Pos, "%s returns no value", e.Func)
		return Invalid
	}
	return t
}

// args checks the arguments of a call or launch of f (nil if unknown).
func (v *verifier) args(pos Pos, f *Func, name string, args []Expr) {
	for i, a := range args {
		what := fmt.Sprintf("argument %d of %s", i+1, name)
		want := Invalid
		if f != nil && i < len(f.Params) && f.Params[i] != nil {
			want = f.Params[i].Type
		}
		v.exactly(a, want, what)
	}
	if f != nil && len(args) != len(f.Params) {
		v.errorf(pos, "%s takes %s, not %d", name, count(len(f.Params), "argument"), len(args))
	}
}

func (v *verifier) builtin(e *Builtin) Type {
	if !validBuiltin(e.Op) {
		v.malformed(e.Pos, "unknown builtin %d", e.Op)
		return Invalid
	}
	v.builtinPlace(e)
	var ts []Type
	for i, a := range e.Args {
		ts = append(ts, v.expr(a, fmt.Sprintf("argument %d of %s", i+1, e.Op)))
	}
	if len(e.Args) != e.Op.Arity() {
		v.errorf(e.Pos, "%s takes %s, not %d", e.Op, count(e.Op.Arity(), "argument"), len(e.Args))
		return Invalid
	}
	if len(ts) == 0 {
		return I32 // thread geometry
	}
	t := ts[0]
	ok, want := t.IsNumeric(), "a numeric"
	switch {
	case slices.Contains(ts, Invalid):
		return Invalid
	case len(ts) == 2 && ts[1] != t:
		v.errorf(e.Pos, "mismatched types %s and %s for %s", t, ts[1], e.Op)
		return Invalid
	case e.Op == Sqrt:
		ok, want = t.IsFloat(), "a float"
	case e.Op == Hybrid:
		ok, want = t.IsInt(), "an integer"
	}
	if !ok {
		v.errorf(e.Pos, "%s needs %s argument, not %s", e.Op, want, t)
		return Invalid
	}
	return t
}

// builtinPlace checks that e's builtin exists in the current code.
func (v *verifier) builtinPlace(e *Builtin) {
	op, code := e.Op, v.cx.code
	geometry := op.Arity() == 0 && !op.IsWorld() && op != OnDevice
	switch {
	case op == OnDevice && code != hostCode:
		v.errorf(e.Pos, "ondevice() in %s; it exists only in host code", code)
	case geometry && (code == hostCode || code == lengthCode):
		v.errorf(e.Pos, "%s() in %s", op, code)
	case op.IsWorld() && code == lengthCode:
		v.errorf(e.Pos, "%s() in %s; lengths use parameters and constants only", op, code)
	case op.IsRegionOnly() && code != regionCode:
		v.errorf(e.Pos, "%s() outside a region; it exists only in SPMD regions", op)
	case op == Hybrid && code != hostCode:
		v.errorf(e.Pos, "hybrid() in %s; it marks a point of the host program", code)
	case op.IsKernelOnly() && code == regionCode:
		v.errorf(e.Pos, "%s() in a region; regions have gid() and pid(), not thread blocks", op)
	}
	if op.IsKernelOnly() {
		v.note(usesGeometry, op.String()+"()", e.Pos)
	}
	if op == ThreadID || op == GlobalID {
		v.note(usesVarying, op.String()+"()", e.Pos)
	}
}

// count writes n nouns, as in "1 argument" and "2 arguments".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
