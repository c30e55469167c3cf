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
func (vn varNames) expr(b *ir.Builder, a arith) ir.Expr { return vn.lower(b, a, false) }

// speculative lowers an expression whose value only guides a search
// (Note [Indices]): integer division by zero divides by one instead of
// failing.
//
// Every node carries the position of the term it comes from.
func (vn varNames) speculative(b *ir.Builder, a arith) ir.Expr {
	return vn.lower(b, a, true)
}

func (vn varNames) lower(b *ir.Builder, a arith, safe bool) ir.Expr {
	b = b.At(a.at())
	switch a := a.(type) {
	case *aVar:
		return b.Local(vn[a.v], a.v.cell.find().t)
	case *aNum:
		if a.t == ir.F64 {
			return b.F64(a.f)
		}
		return b.I64(a.i)
	case *aOp:
		return vn.op(b, a, safe)
	}
	return b.I64(0)
}

func (vn varNames) op(b *ir.Builder, a *aOp, safe bool) ir.Expr {
	t := typeOf(a)
	args := make([]ir.Expr, len(a.args))
	for i, x := range a.args {
		args[i] = vn.lower(b, x, safe)
	}
	if intOnly[a.op] && safe {
		args[1] = b.Sel(b.Bin(ir.Eq, args[1], b.I64(0)), b.I64(1), args[1])
	}
	switch a.op {
	case "neg":
		return b.Neg(args[0])
	case "pos":
		return args[0]
	case "float":
		return b.Cast(ir.F64, args[0])
	case "truncate":
		return b.Cast(ir.I64, args[0])
	case "integer":
		x := args[0]
		half := b.F64(0.5)
		return b.Sel(b.Bin(ir.Ge, x, b.F64(0)),
			b.Cast(ir.I64, b.Bin(ir.Add, x, half)),
			b.Neg(b.Cast(ir.I64, b.Bin(ir.Sub, half, x))))
	case "abs":
		return b.Builtin(ir.Abs, args[0])
	case "min", "max":
		op := map[string]ir.BuiltinOp{"min": ir.Min, "max": ir.Max}[a.op]
		return b.Builtin(op, b.Cast(t, args[0]), b.Cast(t, args[1]))
	case "//":
		return b.Bin(ir.Div, args[0], args[1])
	case "rem":
		return b.Bin(ir.Rem, args[0], args[1])
	case "mod":
		r := b.Bin(ir.Rem, args[0], args[1])
		fix := b.And(b.Bin(ir.Ne, r, b.I64(0)), b.Bin(ir.Ne, b.Bin(ir.Lt, r, b.I64(0)), b.Bin(ir.Lt, args[1], b.I64(0))))
		return b.Sel(fix, b.Bin(ir.Add, r, args[1]), r)
	case "div":
		q := b.Bin(ir.Div, args[0], args[1])
		fix := b.And(b.Bin(ir.Ne, b.Bin(ir.Rem, args[0], args[1]), b.I64(0)),
			b.Bin(ir.Ne, b.Bin(ir.Lt, args[0], b.I64(0)), b.Bin(ir.Lt, args[1], b.I64(0))))
		return b.Sel(fix, b.Bin(ir.Sub, q, b.I64(1)), q)
	}
	op := map[string]ir.BinOp{"+": ir.Add, "-": ir.Sub, "*": ir.Mul, "/": ir.Div}[a.op]
	return b.Bin(op, b.Cast(t, args[0]), b.Cast(t, args[1]))
}

// test lowers a guard comparison. Arithmetic comparisons compare numbers
// (an integer with a float as floats); == and \== compare terms, so an
// integer never equals a float.
func (vn varNames) test(b *ir.Builder, g *comparison) ir.Expr {
	x, y := vn.expr(b, g.x), vn.expr(b, g.y)
	b = b.At(g.pos)
	tx, ty := x.Type(), y.Type()
	switch g.op {
	case "==", "\\==":
		if tx != ty {
			return b.Bool(g.op == "\\==")
		}
		return b.Bin(map[string]ir.BinOp{"==": ir.Eq, "\\==": ir.Ne}[g.op], x, y)
	}
	if tx != ty {
		x, y = b.Cast(ir.F64, x), b.Cast(ir.F64, y)
	}
	op := map[string]ir.BinOp{"<": ir.Lt, ">": ir.Gt, "=<": ir.Le, ">=": ir.Ge, "=:=": ir.Eq, "=\\=": ir.Ne}[g.op]
	return b.Bin(op, x, y)
}

// tests lowers a conjunction of guards; nil for none.
func (vn varNames) tests(b *ir.Builder, gs []*comparison) ir.Expr {
	var c ir.Expr
	for _, g := range gs {
		c = b.And(c, vn.test(b, g))
	}
	return c
}
