package fork

import (
	"strings"

	"gpuc/ir"
)

// rvalue checks e as a scalar value and returns its type, or ir.Invalid
// after an error.
func (c *checker) rvalue(e expr) ir.Type {
	t := c.expr(e)
	switch {
	case t == ir.Invalid:
	case t == ir.Void:
		c.errorf(e.exprPos(), "void value used in an expression")
		t = ir.Invalid
	case t == ir.String:
		c.errorf(e.exprPos(), "string literal outside printf and error")
		t = ir.Invalid
	case arrayValued(e):
		c.errorf(e.exprPos(), "array %s used as a value", baseName(e))
		t = ir.Invalid
	}
	return t
}

// effect checks an expression statement, which may be a void call.
func (c *checker) effect(e expr) {
	switch t := c.expr(e); {
	case t == ir.String:
		c.errorf(e.exprPos(), "string literal outside printf and error")
	case t != ir.Invalid && arrayValued(e):
		c.errorf(e.exprPos(), "array %s used as a value", baseName(e))
	}
}

// expr types e and its operands.
func (c *checker) expr(e expr) ir.Type {
	t := c.exprType(e)
	e.setType(t)
	return t
}

func (c *checker) exprType(e expr) ir.Type {
	switch e := e.(type) {
	case *lit, *strLit:
		return e.typ()
	case *procID, *groupID:
		c.usesGroup()
		return ir.I32
	case *ident:
		return c.identExpr(e)
	case *index:
		return c.indexExpr(e)
	case *call:
		return c.callExpr(e)
	case *unary:
		return c.unaryExpr(e)
	case *incDec:
		t := c.lvalue(e.x)
		if t == ir.Bool {
			c.errorf(e.pos, "%s of a bool", e.op)
			return ir.Invalid
		}
		return t
	case *addrOf:
		c.expr(e.x)
		c.errorf(e.pos, "& is allowed only in the first argument of a multiprefix operation such as mpadd(&x, v)")
		return ir.Invalid
	case *cast:
		if c.rvalue(e.x) == ir.Invalid || e.t == ir.Invalid {
			return ir.Invalid
		}
		if e.t == ir.Void {
			c.errorf(e.pos, "cast to void is not supported")
			return ir.Invalid
		}
		return e.t
	case *binary:
		return c.binaryExpr(e)
	case *condExpr:
		c.cond(e.cond)
		x, y := c.rvalue(e.x), c.rvalue(e.y)
		if x == ir.Invalid || y == ir.Invalid {
			return ir.Invalid
		}
		return usual(x, y)
	case *assign:
		return c.assignExpr(e)
	}
	return ir.Invalid
}

// usesGroup notes a use of $, @ or groupsize() in the current function.
func (c *checker) usesGroup() {
	if c.fn != nil {
		c.fn.usesGroup = true
	}
}

func (c *checker) identExpr(e *ident) ir.Type {
	switch o := c.lookup(e.name).(type) {
	case *variable:
		e.v = o
		return o.t
	case *constant:
		e.c = o
		return o.t
	case *function:
		c.errorf(e.pos, "function %s used as a value", e.name)
	default:
		c.errorf(e.pos, "undeclared name %s", e.name)
	}
	return ir.Invalid
}

// subscripts splits a[i][j] into a and [i, j].
func subscripts(e *index) (base expr, idx []expr) {
	var x expr = e
	for {
		ix, ok := x.(*index)
		if !ok {
			break
		}
		idx = append([]expr{ix.i}, idx...)
		x = ix.x
	}
	return x, idx
}

// arrayOf returns the array variable that e names, or nil.
func arrayOf(e expr) *variable {
	if id, ok := e.(*ident); ok && id.v != nil && id.v.isArray() {
		return id.v
	}
	return nil
}

// arrayValued reports whether e denotes an array or a row of one rather
// than a scalar.
func arrayValued(e expr) bool {
	switch e := e.(type) {
	case *ident:
		return arrayOf(e) != nil
	case *index:
		base, idx := subscripts(e)
		v := arrayOf(base)
		return v != nil && len(idx) < v.dims
	}
	return false
}

// baseName names the variable at the root of e, for messages.
func baseName(e expr) string {
	if ix, ok := e.(*index); ok {
		e, _ = subscripts(ix)
	}
	if id, ok := e.(*ident); ok {
		return id.name
	}
	return "value"
}

func (c *checker) indexExpr(e *index) ir.Type {
	base, idx := subscripts(e)
	c.expr(base)
	v := arrayOf(base)
	for _, i := range idx {
		if t := c.rvalue(i); t != ir.Invalid && !isIntegral(t) {
			c.errorf(i.exprPos(), "array subscript has type %s, want an integer", cName(t))
		}
	}
	switch {
	case base.typ() == ir.Invalid:
		return ir.Invalid
	case v == nil:
		c.errorf(e.pos, "%s is not an array", baseName(base))
		return ir.Invalid
	case len(idx) > v.dims:
		c.errorf(e.pos, "too many subscripts for %s, which has %d dimension(s)", v.name, v.dims)
		return ir.Invalid
	}
	return v.t
}

func (c *checker) unaryExpr(e *unary) ir.Type {
	t := c.rvalue(e.x)
	switch {
	case t == ir.Invalid:
		return t
	case e.op == "!":
		return ir.Bool
	case e.op == "~" && !isIntegral(t):
		c.errorf(e.pos, "operator ~ needs an integer operand, not %s", cName(t))
		return ir.Invalid
	}
	return promote(t)
}

// binaryExpr types a binary operator and sets the operand type.
func (c *checker) binaryExpr(e *binary) ir.Type {
	x, y := c.rvalue(e.x), c.rvalue(e.y)
	if x == ir.Invalid || y == ir.Invalid {
		return ir.Invalid
	}
	opT, ok := c.operands(e.pos, e.op, x, y)
	e.opT = opT
	switch {
	case !ok:
		return ir.Invalid
	case isComparison(e.op):
		return ir.Bool
	}
	return opT
}

// operands checks the operand types of a binary operator and returns the
// type both are converted to.
func (c *checker) operands(pos ir.Pos, op string, x, y ir.Type) (ir.Type, bool) {
	switch op {
	case "%", "&", "|", "^", "<<", ">>":
		if !isIntegral(x) || !isIntegral(y) {
			c.errorf(pos, "invalid operands to %s: %s and %s, want integers", op, cName(x), cName(y))
			return ir.Invalid, false
		}
		if op == "<<" || op == ">>" {
			return promote(x), true
		}
	case "&&", "||":
		return ir.Bool, true
	}
	return usual(x, y), true
}

func isComparison(op string) bool {
	switch op {
	case "<", "<=", ">", ">=", "==", "!=", "&&", "||":
		return true
	}
	return false
}

func (c *checker) assignExpr(e *assign) ir.Type {
	lt := c.lvalue(e.l)
	rt := c.rvalue(e.r)
	if lt == ir.Invalid || rt == ir.Invalid {
		return ir.Invalid
	}
	if e.op != "=" {
		opT, ok := c.operands(e.pos, strings.TrimSuffix(e.op, "="), lt, rt)
		if !ok {
			return ir.Invalid
		}
		e.opT = opT
	}
	return lt
}

// lvalue checks that e can be assigned: a scalar variable or an array
// element, not const.
func (c *checker) lvalue(e expr) ir.Type {
	switch x := e.(type) {
	case *ident:
		t := c.expr(x)
		switch {
		case x.c != nil:
			c.errorf(x.pos, "cannot assign to constant %s", x.name)
		case x.v != nil && x.v.isArray():
			c.errorf(x.pos, "cannot assign to array %s", x.name)
		case x.v != nil && x.v.isConst:
			c.errorf(x.pos, "cannot assign to const %s", x.name)
		case x.v != nil && x.v.kind == paramVar && x.v.shared:
			c.errorf(x.pos, "cannot assign to sh parameter %s: each processor of the group holds a copy; copy it into a local", x.name)
		default:
			return t
		}
		return ir.Invalid
	case *index:
		t := c.expr(x)
		base, _ := subscripts(x)
		switch v := arrayOf(base); {
		case t == ir.Invalid:
		case arrayValued(x):
			c.errorf(x.pos, "cannot assign to a row of %s", v.name)
		case v.isConst:
			c.errorf(x.pos, "cannot assign to an element of const array %s", v.name)
		default:
			return t
		}
		return ir.Invalid
	}
	c.expr(e)
	c.errorf(e.exprPos(), "expression is not assignable")
	return ir.Invalid
}
