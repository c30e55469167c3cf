package kir

import (
	"math"
	"strconv"
	"strings"

	"gpuc/frontends/kir/parser"
	"gpuc/frontends/syntax"
	"gpuc/ir"
)

func (b *builder) tokPos(t syntax.Token) ir.Pos { return syntax.Pos(b.file, t) }

func (b *builder) expr(ctx parser.IExprContext) ir.Expr {
	pos := b.pos(ctx)
	switch e := ctx.(type) {
	case *parser.PrimaryExprContext:
		return b.primary(e.Primary())
	case *parser.UnaryExprContext:
		switch e.GetOp().GetText() {
		case "-":
			if c := b.literal(e.Expr(), true); c != nil {
				return c
			}
			return &ir.Unary{Pos: pos, Op: ir.Neg, X: b.expr(e.Expr())}
		case "!":
			return &ir.Unary{Pos: pos, Op: ir.Not, X: b.expr(e.Expr())}
		default:
			return &ir.Unary{Pos: pos, Op: ir.BitNot, X: b.expr(e.Expr())}
		}
	case *parser.BinaryExprContext:
		op, _ := ir.ParseBinOp(e.GetOp().GetText())
		return &ir.Binary{Pos: b.tokPos(e.GetOp()), Op: op, X: b.expr(e.Expr(0)), Y: b.expr(e.Expr(1))}
	case *parser.SelectExprContext:
		return &ir.Select{Pos: pos, Cond: b.expr(e.Expr(0)), X: b.expr(e.Expr(1)), Y: b.expr(e.Expr(2))}
	}
	b.errorf(pos, "unsupported expression")
	return &ir.Const{Pos: pos}
}

func (b *builder) primary(ctx parser.IPrimaryContext) ir.Expr {
	pos := b.pos(ctx)
	switch e := ctx.(type) {
	case *parser.IntLitContext, *parser.FloatLitContext, *parser.BoolLitContext, *parser.SpecialLitContext:
		if c := b.literalPrimary(ctx, false); c != nil {
			return c
		}
		return &ir.Const{Pos: pos}
	case *parser.StringLitContext:
		return &ir.Str{Pos: pos, Value: b.str(e.STRING())}
	case *parser.CallExprContext:
		return b.call(pos, e.IDENT(), e.Args())
	case *parser.LoadExprContext:
		name := e.IDENT().GetText()
		return &ir.Load{Pos: pos, Buf: name, Index: b.expr(e.Expr()), T: b.memory(name, pos)}
	case *parser.NameExprContext:
		name := e.IDENT().GetText()
		if t, ok := b.local(name); ok {
			return &ir.Var{Pos: pos, Name: name, T: t}
		}
		if p := b.m.Param(name); p != nil {
			return &ir.ParamRef{Pos: pos, Name: name, T: p.Type}
		}
		switch {
		case b.m.Buffer(name) != nil, b.m.Array(name) != nil:
			b.errorf(pos, "%s is a memory; index it to read an element", name)
		case b.m.Func(name) != nil:
			b.errorf(pos, "%s is a function; call it with (...)", name)
		default:
			b.errorf(pos, "undeclared name %s", name)
		}
		return &ir.Var{Pos: pos, Name: name, T: ir.Invalid}
	case *parser.ParenExprContext:
		return b.expr(e.Expr())
	}
	b.errorf(pos, "unsupported expression")
	return &ir.Const{Pos: pos}
}

// call builds f(args): a conversion if f names a type, a builtin, or a call
// of a function.
func (b *builder) call(pos ir.Pos, id syntax.Terminal, argsCtx parser.IArgsContext) ir.Expr {
	name := id.GetText()
	if t, ok := ir.ParseType(name); ok && t != ir.Void {
		var argCtx []parser.IExprContext
		if argsCtx != nil {
			argCtx = argsCtx.AllExpr()
		}
		if len(argCtx) != 1 {
			b.errorf(pos, "conversion to %s takes one argument, not %d", t, len(argCtx))
			return &ir.Const{Pos: pos, T: t}
		}
		if c := b.literal(argCtx[0], false); c != nil {
			if k, ok := convertLiteral(c, t); ok {
				return k
			}
		}
		return &ir.Convert{Pos: pos, T: t, X: b.expr(argCtx[0])}
	}
	args := b.args(argsCtx)
	if op, ok := ir.ParseBuiltin(name); ok {
		return &ir.Builtin{Pos: pos, Op: op, Args: args}
	}
	c := &ir.Call{Pos: pos, Func: name, Args: args, T: ir.Invalid}
	if f := b.m.Func(name); f != nil {
		c.T = f.Result
	} else {
		b.errorf(pos, "undeclared function %s", name)
	}
	return c
}

func (b *builder) args(ctx parser.IArgsContext) []ir.Expr {
	if ctx == nil {
		return nil
	}
	var out []ir.Expr
	for _, e := range ctx.AllExpr() {
		out = append(out, b.expr(e))
	}
	return out
}

func (b *builder) str(t syntax.Terminal) string {
	s, err := ir.Unquote(t.GetText())
	if err != nil {
		b.errorf(b.tpos(t), "%v", err)
	}
	return s
}

// literal returns the constant that ctx spells if ctx is a literal (negated
// if neg), and nil otherwise. The printer writes negative numbers as a minus
// applied to a literal and narrow or special constants as conversions of
// literals, so these folds make printing and parsing inverse.
func (b *builder) literal(ctx parser.IExprContext, neg bool) *ir.Const {
	switch e := ctx.(type) {
	case *parser.PrimaryExprContext:
		return b.literalPrimary(e.Primary(), neg)
	case *parser.UnaryExprContext:
		if !neg && e.GetOp().GetText() == "-" {
			return b.literal(e.Expr(), true)
		}
	}
	return nil
}

func (b *builder) literalPrimary(ctx parser.IPrimaryContext, neg bool) *ir.Const {
	pos := b.pos(ctx)
	switch e := ctx.(type) {
	case *parser.IntLitContext:
		return b.intLit(pos, e.GetText(), neg)
	case *parser.FloatLitContext:
		return b.floatLit(pos, e.GetText(), neg)
	case *parser.SpecialLitContext:
		f := math.NaN()
		if e.GetText() == "inf" {
			f = math.Inf(1)
		}
		if neg {
			f = -f
		}
		return &ir.Const{Pos: pos, T: ir.F64, Bits: math.Float64bits(f)}
	case *parser.BoolLitContext:
		if neg {
			return nil
		}
		c := ir.BoolConst(e.GetText() == "true")
		c.Pos = pos
		return c
	case *parser.ParenExprContext:
		return b.literal(e.Expr(), neg)
	}
	return nil
}

func (b *builder) intLit(pos ir.Pos, text string, neg bool) *ir.Const {
	t := ir.I32
	switch {
	case strings.HasSuffix(text, "ul"):
		t, text = ir.U64, text[:len(text)-2]
	case strings.HasSuffix(text, "u"):
		t, text = ir.U32, text[:len(text)-1]
	case strings.HasSuffix(text, "l"):
		t, text = ir.I64, text[:len(text)-1]
	}
	if neg && !t.IsSigned() {
		return nil // a negated unsigned literal stays a negation
	}
	v, err := strconv.ParseUint(text, 0, 64)
	max := uint64(math.MaxUint64)
	switch t {
	case ir.I32:
		max = math.MaxInt32
	case ir.U32:
		max = math.MaxUint32
	case ir.I64:
		max = math.MaxInt64
	}
	if neg {
		max++
	}
	if err != nil || v > max {
		b.errorf(pos, "integer literal %s overflows %s", text, t)
		return &ir.Const{Pos: pos, T: t}
	}
	if neg {
		v = -v
	}
	return &ir.Const{Pos: pos, T: t, Bits: ir.Normalize(t, v)}
}

func (b *builder) floatLit(pos ir.Pos, text string, neg bool) *ir.Const {
	t, bits := ir.F64, 64
	if strings.HasSuffix(text, "f") {
		t, bits, text = ir.F32, 32, text[:len(text)-1]
	}
	f, err := strconv.ParseFloat(text, bits)
	if err != nil {
		b.errorf(pos, "float literal %s out of range for %s", text, t)
	}
	if neg {
		f = -f
	}
	return &ir.Const{Pos: pos, T: t, Bits: ir.FloatBits(t, f)}
}

// convertLiteral folds T(literal) when the literal's value is exactly
// representable in T.
func convertLiteral(c *ir.Const, t ir.Type) (*ir.Const, bool) {
	out := &ir.Const{Pos: c.Pos, T: t}
	switch {
	case c.T == t:
		return c, true
	case c.T.IsInt() && t.IsInt():
		v := c.Int()
		if !c.T.IsSigned() && v < 0 {
			return nil, false
		}
		out.Bits = ir.IntBits(t, v)
		if out.Int() != v || (!t.IsSigned() && v < 0) {
			return nil, false
		}
	case c.T.IsFloat() && t.IsFloat():
		f := c.Float()
		out.Bits = ir.FloatBits(t, f)
		if g := out.Float(); g != f && !(math.IsNaN(f) && math.IsNaN(g)) {
			return nil, false
		}
	default:
		return nil, false
	}
	return out, true
}

// number reads a signedNumber as a value of type t, as parameter defaults,
// static contents and switch cases are written.
func (b *builder) number(ctx parser.ISignedNumberContext, t ir.Type) *ir.Const {
	pos := b.pos(ctx)
	neg := ctx.GetStart().GetText() == "-"
	var c *ir.Const
	switch {
	case ctx.INT() != nil:
		c = b.intLitAs(pos, ctx.INT().GetText(), neg, t)
	case ctx.FLOAT() != nil:
		if !t.IsFloat() {
			b.errorf(pos, "float value where %s is wanted", t)
			return nil
		}
		c = b.floatLit(pos, ctx.FLOAT().GetText(), neg)
		if k, ok := convertLiteral(c, t); ok {
			c = k
		} else {
			c = &ir.Const{Pos: pos, T: t, Bits: ir.FloatBits(t, c.Float())}
		}
	default:
		text := ctx.GetStop().GetText()
		switch text {
		case "true", "false":
			if t != ir.Bool || neg {
				b.errorf(pos, "%s where %s is wanted", text, t)
				return nil
			}
			c = ir.BoolConst(text == "true")
		default: // inf, nan
			if !t.IsFloat() {
				b.errorf(pos, "%s where %s is wanted", text, t)
				return nil
			}
			f := math.NaN()
			if text == "inf" {
				f = math.Inf(1)
			}
			if neg {
				f = -f
			}
			c = &ir.Const{T: t, Bits: ir.FloatBits(t, f)}
		}
	}
	if c != nil {
		c.Pos = pos
	}
	return c
}

// intLitAs reads an unsuffixed or suffixed integer as a value of type t,
// checking its range; floats and bools accept integers too.
func (b *builder) intLitAs(pos ir.Pos, text string, neg bool, t ir.Type) *ir.Const {
	digits := strings.TrimRight(text, "ul")
	v, err := strconv.ParseUint(digits, 0, 64)
	if err != nil {
		b.errorf(pos, "integer %s out of range for %s", text, t)
		return nil
	}
	switch {
	case t.IsFloat():
		f := float64(v)
		if neg {
			f = -f
		}
		return &ir.Const{T: t, Bits: ir.FloatBits(t, f)}
	case t == ir.Bool:
		if neg || v > 1 {
			b.errorf(pos, "integer %s out of range for bool", text)
			return nil
		}
		return &ir.Const{T: t, Bits: v}
	}
	lo, hi := intRange(t)
	ok := true
	var val int64
	if neg {
		ok = lo < 0 && v <= uint64(-(lo+1))+1
		val = -int64(v)
	} else {
		ok = v <= hi
		val = int64(v)
	}
	if !ok {
		sign := ""
		if neg {
			sign = "-"
		}
		b.errorf(pos, "integer %s%s out of range for %s", sign, digits, t)
		return nil
	}
	return &ir.Const{T: t, Bits: ir.Normalize(t, uint64(val))}
}

func intRange(t ir.Type) (lo int64, hi uint64) {
	switch t {
	case ir.I8:
		return math.MinInt8, math.MaxInt8
	case ir.U8:
		return 0, math.MaxUint8
	case ir.I32:
		return math.MinInt32, math.MaxInt32
	case ir.U32:
		return 0, math.MaxUint32
	case ir.I64:
		return math.MinInt64, math.MaxInt64
	}
	return 0, math.MaxUint64
}
