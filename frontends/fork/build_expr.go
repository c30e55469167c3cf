package fork

import (
	"strings"

	"gpuc/frontends/fork/parser"
	"gpuc/ir"
)

// expr builds an expression. Binary operators are positioned at the
// operator, everything else where it starts.
func (b *builder) expr(ctx parser.IExprContext) expr {
	pos := ctxPos(b.file, ctx)
	switch c := ctx.(type) {
	case *parser.PrimaryExprContext:
		return b.primary(c.Primary())
	case *parser.CallExprContext:
		e := &call{typed: typed{pos: pos}, name: c.IDENT().GetText(), args: []expr{}}
		if c.Args() != nil {
			for _, a := range c.Args().AllExpr() {
				e.args = append(e.args, b.expr(a))
			}
		}
		return e
	case *parser.IndexExprContext:
		return &index{typed: typed{pos: pos}, x: b.expr(c.Expr(0)), i: b.expr(c.Expr(1))}
	case *parser.PostfixExprContext:
		return &incDec{typed: typed{pos: tokPos(b.file, c.GetOp())}, op: c.GetOp().GetText(), post: true, x: b.expr(c.Expr())}
	case *parser.PrefixExprContext:
		return &incDec{typed: typed{pos: pos}, op: c.GetOp().GetText(), x: b.expr(c.Expr())}
	case *parser.UnaryExprContext:
		return &unary{typed: typed{pos: pos}, op: c.GetOp().GetText(), x: b.expr(c.Expr())}
	case *parser.AddressExprContext:
		return &addrOf{typed: typed{pos: pos}, x: b.expr(c.Expr())}
	case *parser.CastExprContext:
		return &cast{typed: typed{pos: pos, t: b.typeName(c.TypeName())}, x: b.expr(c.Expr())}
	case *parser.BinaryExprContext:
		return &binary{typed: typed{pos: tokPos(b.file, c.GetOp())}, op: c.GetOp().GetText(), x: b.expr(c.Expr(0)), y: b.expr(c.Expr(1))}
	case *parser.CondExprContext:
		return &condExpr{typed: typed{pos: pos}, cond: b.expr(c.Expr(0)), x: b.expr(c.Expr(1)), y: b.expr(c.Expr(2))}
	case *parser.AssignExprContext:
		return &assign{typed: typed{pos: pos}, op: c.GetOp().GetText(), l: b.expr(c.Expr(0)), r: b.expr(c.Expr(1))}
	}
	b.errorf(pos, "unsupported expression")
	return &lit{typed: typed{pos: pos, t: ir.Invalid}}
}

func (b *builder) primary(ctx parser.IPrimaryContext) expr {
	pos := ctxPos(b.file, ctx)
	// The text of a token, not ctx.GetText(), which would copy all of a
	// parenthesised expression at every level of its nesting.
	text := ctx.GetStart().GetText()
	switch c := ctx.(type) {
	case *parser.IntLitContext:
		t, bits, err := intLiteral(text)
		if err != nil {
			b.errorf(pos, "%v", err)
		}
		return &lit{typed: typed{pos: pos, t: t}, bits: bits}
	case *parser.FloatLitContext:
		t, bits, err := floatLiteral(text)
		if err != nil {
			b.errorf(pos, "%v", err)
		}
		return &lit{typed: typed{pos: pos, t: t}, bits: bits}
	case *parser.CharLitContext:
		bits, err := charLiteral(text)
		if err != nil {
			b.errorf(pos, "%v", err)
			return &lit{typed: typed{pos: pos, t: ir.Invalid}}
		}
		return &lit{typed: typed{pos: pos, t: ir.I8}, bits: bits}
	case *parser.StringLitContext:
		var s strings.Builder
		for _, tok := range c.AllSTRING() {
			part, err := stringLiteral(tok.GetText())
			if err != nil {
				b.errorf(tokPos(b.file, tok.GetSymbol()), "%v", err)
			}
			s.WriteString(part)
		}
		return &strLit{typed: typed{pos: pos, t: ir.String}, value: s.String()}
	case *parser.BoolLitContext:
		v := ir.BoolConst(text == "true")
		return &lit{typed: typed{pos: pos, t: ir.Bool}, bits: v.Bits}
	case *parser.ProcIdContext:
		return &procID{typed{pos: pos, t: ir.I32}}
	case *parser.GroupIdContext:
		return &groupID{typed{pos: pos, t: ir.I32}}
	case *parser.NameContext:
		return &ident{typed: typed{pos: pos}, name: text}
	case *parser.ParenContext:
		return b.expr(c.Expr())
	}
	b.errorf(pos, "unsupported expression")
	return &lit{typed: typed{pos: pos, t: ir.Invalid}}
}
