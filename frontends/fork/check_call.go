package fork

import (
	"gpuc/ir"
)

func (c *checker) callExpr(e *call) ir.Type {
	e.builtin = builtinOf(e.name)
	switch e.builtin {
	case printfBuiltin:
		c.printfCall(e)
		return ir.Void
	case errorBuiltin:
		c.errorCall(e)
		return ir.Void
	case groupsizeBuiltin:
		c.usesGroup()
		if !c.argCount(e, 0) {
			for _, a := range e.args {
				c.expr(a)
			}
		}
		return ir.I32
	case mpBuiltin, syncBuiltin:
		return c.multiprefix(e)
	case ilog2Builtin:
		if c.argCount(e, 1) {
			if t := c.rvalue(e.args[0]); t != ir.Invalid && !t.IsInt() {
				c.errorf(e.args[0].exprPos(), "ilog2 takes an integer, not %s", t)
			}
		} else {
			for _, a := range e.args {
				c.expr(a)
			}
		}
		return ir.I32
	}
	var f *function
	switch o := c.lookup(e.name).(type) {
	case *function:
		f = o
	case nil:
		c.errorf(e.pos, "call of undeclared function %s", e.name)
	default:
		c.errorf(e.pos, "%s is not a function", e.name)
	}
	if f == nil {
		for _, a := range e.args {
			c.expr(a)
		}
		return ir.Invalid
	}
	e.fn = f
	if c.fn != nil {
		c.fn.calls = append(c.fn.calls, f)
	}
	c.argCount(e, len(f.params))
	for i, a := range e.args {
		if i < len(f.params) && f.params[i].isArray() {
			c.arrayArg(e, a, f.params[i])
		} else {
			c.rvalue(a)
		}
	}
	return f.result
}

// argCount checks the number of arguments of a call.
func (c *checker) argCount(e *call, want int) bool {
	if len(e.args) == want {
		return true
	}
	noun := "arguments"
	if want == 1 {
		noun = "argument"
	}
	c.errorf(e.pos, "%s takes %d %s, not %d", e.name, want, noun, len(e.args))
	return false
}

// arrayArg checks an argument for an array parameter: an array of the
// same element type and shape.
func (c *checker) arrayArg(e *call, a expr, p *variable) {
	c.expr(a)
	v := arrayOf(a)
	switch {
	case a.typ() == ir.Invalid:
	case v == nil:
		c.errorf(a.exprPos(), "argument %s of %s must be an array", p.name, e.name)
	case v.t != p.t || v.dims != p.dims:
		c.errorf(a.exprPos(), "argument %s of %s must be a %d-D array of %s, not a %d-D array of %s",
			p.name, e.name, p.dims, cName(p.t), v.dims, cName(v.t))
	case p.dims == 2 && v.rowLen != nil && p.rowLen != nil && ir.PrintExpr(v.rowLen) != ir.PrintExpr(p.rowLen):
		c.errorf(a.exprPos(), "argument %s of %s has rows of %s elements, not %s",
			p.name, e.name, ir.PrintExpr(v.rowLen), ir.PrintExpr(p.rowLen))
	case v.isConst && !p.isConst:
		c.errorf(a.exprPos(), "const array %s passed as %s of %s, which is not const", v.name, p.name, e.name)
	}
}

// printfCall checks printf(format, args...): the format is a string
// literal and each argument suits its conversion.
func (c *checker) printfCall(e *call) {
	if len(e.args) == 0 {
		c.errorf(e.pos, "printf needs a format string")
		return
	}
	format, ok := e.args[0].(*strLit)
	if !ok {
		c.expr(e.args[0])
		c.errorf(e.args[0].exprPos(), "the format of printf must be a string literal")
		return
	}
	pieces, err := ir.ParseFormat(format.value)
	if err != nil {
		c.errorf(format.pos, "%v", err)
		return
	}
	args := e.args[1:]
	n := 0
	for _, p := range pieces {
		if p.Verb == 0 {
			continue
		}
		if n < len(args) {
			c.printfArg(args[n], n+1, p)
		}
		n++
	}
	for _, a := range args[min(n, len(args)):] {
		c.expr(a)
	}
	if n != len(args) {
		c.errorf(e.pos, "printf format has %d conversion(s) but %d argument(s)", n, len(args))
	}
}

// errorCall checks error(message): the message is one string literal. The
// IR's raise stops the program with a fixed message, so error formats no
// values; printf can print them before it.
func (c *checker) errorCall(e *call) {
	if len(e.args) == 0 {
		c.errorf(e.pos, "error needs a message, a string literal")
		return
	}
	for _, a := range e.args {
		c.expr(a)
	}
	if _, ok := e.args[0].(*strLit); !ok {
		c.errorf(e.args[0].exprPos(), "the message of error must be a string literal")
	}
	if len(e.args) > 1 {
		c.errorf(e.args[1].exprPos(), "error takes only a message, a string literal, and formats no values; print them with printf before it")
	}
}

func (c *checker) printfArg(a expr, i int, p ir.FormatPiece) {
	var t ir.Type
	if _, isStr := a.(*strLit); isStr {
		t = c.expr(a)
	} else {
		t = c.rvalue(a)
	}
	if _, ok := printfType(p, t); !ok && t != ir.Invalid {
		c.errorf(a.exprPos(), "printf argument %d for %s has type %s", i, p.Spec(), cName(t))
	}
}

// printfType returns the type an argument of type t is passed as for the
// conversion p, after C's default promotions and the signed-unsigned
// reinterpretation that printf does; false if t does not suit p.
func printfType(p ir.FormatPiece, t ir.Type) (ir.Type, bool) {
	switch p.Verb {
	case 'd', 'u', 'x', 'c':
		if !isIntegral(t) {
			return ir.Invalid, false
		}
		wide := t == ir.I64 || t == ir.U64
		narrow := t == ir.Bool || t == ir.I8 || t == ir.U8
		switch {
		case p.Verb == 'c' && wide, p.Verb != 'c' && p.Long != wide:
			return ir.Invalid, false
		case p.Verb == 'c' && (t == ir.I8 || t == ir.U8):
			return t, true
		case p.Verb == 'c':
			return ir.I32, true
		case p.Long && p.Verb == 'd':
			return ir.I64, true
		case p.Long:
			return ir.U64, true
		case p.Verb == 'd' && narrow:
			return t, true
		case p.Verb == 'd':
			return ir.I32, true
		}
		return ir.U32, true
	case 'f', 'e':
		return t, t.IsFloat()
	case 's':
		return t, t == ir.String
	}
	return ir.Invalid, false
}

// multiprefix checks mpadd(&x, v) and the other multiprefix operations:
// x is a variable or array element, v a value converted to x's type.
func (c *checker) multiprefix(e *call) ir.Type {
	if !c.argCount(e, 2) {
		for _, a := range e.args {
			if addr, ok := a.(*addrOf); ok {
				a = addr.x
			}
			c.expr(a)
		}
		return ir.Invalid
	}
	vt := c.rvalue(e.args[1])
	addr, ok := e.args[0].(*addrOf)
	if !ok {
		c.expr(e.args[0])
		c.errorf(e.args[0].exprPos(), "the first argument of %s must be the address of a shared variable, as in %s(&x, v)", e.name, e.name)
		return ir.Invalid
	}
	t := c.lvalue(addr.x)
	addr.setType(t)
	if t == ir.Invalid || vt == ir.Invalid {
		return ir.Invalid
	}
	op := builtinOps[e.name]
	if op != ir.MultiAdd && !t.IsInt() || !t.IsNumeric() {
		c.errorf(e.pos, "%s on a variable of type %s", e.name, cName(t))
		return ir.Invalid
	}
	if e.builtin == syncBuiltin {
		return ir.Void
	}
	return t
}
