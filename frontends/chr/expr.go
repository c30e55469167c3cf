package chr

import (
	"gpuc/ir"
)

// varNames maps rule variables to the region locals that hold them in
// one plan's code.
type varNames map[*ruleVar]string

// expr lowers an arithmetic expression, with SWI-Prolog's semantics for
// // (truncating), rem (sign of the dividend), mod (sign of the divisor)
// and div (flooring).
func (vn varNames) expr(a arith) ir.Expr { return vn.lower(a, false) }

// speculative lowers an expression whose value only guides a search
// (Note [Indices]): integer division by zero divides by one instead of
// failing.
func (vn varNames) speculative(a arith) ir.Expr { return vn.lower(a, true) }

func (vn varNames) lower(a arith, safe bool) ir.Expr {
	switch a := a.(type) {
	case *aVar:
		return local(vn[a.v], a.v.cell.find().t)
	case *aNum:
		if a.t == ir.F64 {
			return f64c(a.f)
		}
		return i64c(a.i)
	case *aOp:
		return vn.op(a, safe)
	}
	return i64c(0)
}

func (vn varNames) op(a *aOp, safe bool) ir.Expr {
	t := typeOf(a)
	args := make([]ir.Expr, len(a.args))
	for i, x := range a.args {
		args[i] = vn.lower(x, safe)
	}
	if intOnly[a.op] && safe {
		args[1] = &ir.Select{Cond: binop(ir.Eq, args[1], i64c(0)), X: i64c(1), Y: args[1]}
	}
	switch a.op {
	case "neg":
		return &ir.Unary{Op: ir.Neg, X: args[0]}
	case "pos":
		return args[0]
	case "float":
		return conv(ir.F64, args[0])
	case "truncate":
		return conv(ir.I64, args[0])
	case "integer":
		x := args[0]
		half := f64c(0.5)
		return &ir.Select{Cond: binop(ir.Ge, x, f64c(0)),
			X: conv(ir.I64, binop(ir.Add, x, half)),
			Y: &ir.Unary{Op: ir.Neg, X: conv(ir.I64, binop(ir.Sub, half, x))}}
	case "abs":
		return builtin(ir.Abs, args[0])
	case "min", "max":
		op := map[string]ir.BuiltinOp{"min": ir.Min, "max": ir.Max}[a.op]
		return builtin(op, conv(t, args[0]), conv(t, args[1]))
	case "//":
		return binop(ir.Div, args[0], args[1])
	case "rem":
		return binop(ir.Rem, args[0], args[1])
	case "mod":
		r := binop(ir.Rem, args[0], args[1])
		fix := and(binop(ir.Ne, r, i64c(0)), binop(ir.Ne, binop(ir.Lt, r, i64c(0)), binop(ir.Lt, args[1], i64c(0))))
		return &ir.Select{Cond: fix, X: binop(ir.Add, r, args[1]), Y: r}
	case "div":
		q := binop(ir.Div, args[0], args[1])
		fix := and(binop(ir.Ne, binop(ir.Rem, args[0], args[1]), i64c(0)),
			binop(ir.Ne, binop(ir.Lt, args[0], i64c(0)), binop(ir.Lt, args[1], i64c(0))))
		return &ir.Select{Cond: fix, X: binop(ir.Sub, q, i64c(1)), Y: q}
	}
	op := map[string]ir.BinOp{"+": ir.Add, "-": ir.Sub, "*": ir.Mul, "/": ir.Div}[a.op]
	return binop(op, conv(t, args[0]), conv(t, args[1]))
}

// test lowers a guard comparison. Arithmetic comparisons compare numbers
// (an integer with a float as floats); == and \== compare terms, so an
// integer never equals a float.
func (vn varNames) test(g *comparison) ir.Expr {
	x, y := vn.expr(g.x), vn.expr(g.y)
	tx, ty := x.Type(), y.Type()
	switch g.op {
	case "==", "\\==":
		if tx != ty {
			return boolc(g.op == "\\==")
		}
		return binop(map[string]ir.BinOp{"==": ir.Eq, "\\==": ir.Ne}[g.op], x, y)
	}
	if tx != ty {
		x, y = conv(ir.F64, x), conv(ir.F64, y)
	}
	op := map[string]ir.BinOp{"<": ir.Lt, ">": ir.Gt, "=<": ir.Le, ">=": ir.Ge, "=:=": ir.Eq, "=\\=": ir.Ne}[g.op]
	return binop(op, x, y)
}

// tests lowers a conjunction of guards; nil for none.
func (vn varNames) tests(gs []*comparison) ir.Expr {
	var c ir.Expr
	for _, g := range gs {
		c = and(c, vn.test(g))
	}
	return c
}
