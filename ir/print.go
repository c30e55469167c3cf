package ir

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Print renders m as .kir text. The output parses back to a module that
// prints identically. Print survives malformed modules (nil expressions,
// unknown types), so that a module failing verification can still be shown.
func Print(m *Module) string {
	p := &printer{}
	p.module(m)
	return p.b.String()
}

// PrintExpr renders one expression as .kir text.
func PrintExpr(e Expr) string {
	p := &printer{}
	p.expr(e, 0)
	return p.b.String()
}

// PrintStmt renders one statement, and any statements nested in it, as .kir
// text without a trailing newline.
func PrintStmt(s Stmt) string {
	p := &printer{}
	p.stmt(s)
	return strings.TrimRight(p.b.String(), "\n")
}

type printer struct {
	b      strings.Builder
	indent int
}

func (p *printer) printf(format string, args ...any) { fmt.Fprintf(&p.b, format, args...) }

func (p *printer) line(format string, args ...any) {
	p.b.WriteString(strings.Repeat("  ", p.indent))
	p.printf(format, args...)
	p.b.WriteByte('\n')
}

func (p *printer) module(m *Module) {
	p.line("module %s;", m.Name)
	if len(m.Params) > 0 {
		p.b.WriteByte('\n')
	}
	for _, x := range m.Params {
		def := strconv.FormatInt(x.Default, 10)
		if x.Type == U64 {
			def = strconv.FormatUint(uint64(x.Default), 10)
		}
		if x.Fit != 0 {
			p.line("param %s: %s = %s fit %s;", x.Name, x.Type, def, strconv.FormatFloat(x.Fit, 'g', -1, 64))
		} else {
			p.line("param %s: %s = %s;", x.Name, x.Type, def)
		}
	}
	if len(m.Buffers) > 0 {
		p.b.WriteByte('\n')
	}
	for _, x := range m.Buffers {
		p.printf("buffer %s: %s[%s] %s %s", x.Name, x.Elem, PrintExpr(x.Len), x.Space, x.Role)
		if x.Progress != "" {
			p.printf(" progress %s", Quote(x.Progress))
		}
		if x.Bound != "" && x.Below {
			p.printf(" below %s", Quote(x.Bound))
		} else if x.Bound != "" {
			p.printf(" bound %s", Quote(x.Bound))
		}
		if x.Role == Static || x.Init != nil {
			p.printf(" = ")
			p.initList(x.Elem, x.Init)
		}
		p.printf(";\n")
	}
	if len(m.Arrays) > 0 {
		p.b.WriteByte('\n')
	}
	for _, x := range m.Arrays {
		p.line("array %s: %s[%s];", x.Name, x.Elem, PrintExpr(x.Len))
	}
	for _, f := range m.Funcs {
		p.b.WriteByte('\n')
		p.fn(f)
	}
}

// initList prints static contents, sixteen values to a line.
func (p *printer) initList(t Type, vals []Bits) {
	if len(vals) == 0 {
		p.printf("{}")
		return
	}
	texts := make([]string, len(vals))
	for i, v := range vals {
		texts[i] = FormatValue(t, v)
	}
	p.printf("{%s}", WrapList(texts, "  "))
}

func (p *printer) fn(f *Func) {
	var params []string
	for _, x := range f.Params {
		params = append(params, x.Name+": "+x.Type.String())
	}
	result := ""
	if f.Result != Void && f.Result != Invalid {
		result = ": " + f.Result.String()
	}
	p.line("%s %s(%s)%s {", f.Kind, f.Name, strings.Join(params, ", "), result)
	p.body(f.Body)
	p.line("}")
}

func (p *printer) body(stmts []Stmt) {
	p.indent++
	for _, s := range stmts {
		p.stmt(s)
	}
	p.indent--
}

// simple prints a statement that may stand in a for header, without ';'.
func (p *printer) simple(s Stmt) string {
	switch s := s.(type) {
	case *Decl:
		if s.Init == nil {
			return fmt.Sprintf("var %s: %s", s.Name, s.T)
		}
		return fmt.Sprintf("var %s: %s = %s", s.Name, s.T, PrintExpr(s.Init))
	case *Assign:
		return fmt.Sprintf("%s = %s", s.Name, PrintExpr(s.Value))
	case nil:
		return ""
	}
	return fmt.Sprintf("<bad simple statement %T>", s)
}

func (p *printer) stmt(s Stmt) {
	switch s := s.(type) {
	case *Decl, *Assign:
		p.line("%s;", p.simple(s))
	case *Store:
		prio := ""
		if s.Priority {
			prio = "prio "
		}
		p.line("%s%s[%s] = %s;", prio, s.Buf, PrintExpr(s.Index), PrintExpr(s.Value))
	case *Atomic:
		dst := ""
		if s.Dst != "" {
			dst = s.Dst + " = "
		}
		p.line("%satomic %s %s[%s]%s;", dst, s.Op, s.Buf, PrintExpr(s.Index), exprList(", ", s.Args))
	case *CallStmt:
		p.line("%s;", PrintExpr(s.Call))
	case *If:
		p.ifStmt(s, strings.Repeat("  ", p.indent))
	case *While:
		p.line("while %s {", PrintExpr(s.Cond))
		p.body(s.Body)
		p.line("}")
	case *For:
		p.line("%s {", strings.TrimRight(fmt.Sprintf("for %s; %s; %s", p.simple(s.Init), PrintExpr(s.Cond), p.simple(s.Post)), " "))
		p.body(s.Body)
		p.line("}")
	case *Break:
		p.line("break;")
	case *Continue:
		p.line("continue;")
	case *Return:
		if s.Value == nil {
			p.line("return;")
		} else {
			p.line("return %s;", PrintExpr(s.Value))
		}
	case *Switch:
		p.line("switch %s {", PrintExpr(s.X))
		p.indent++
		for _, c := range s.Cases {
			vals := make([]string, len(c.Values))
			for i, v := range c.Values {
				vals[i] = strconv.FormatInt(v, 10)
			}
			p.line("case %s {", strings.Join(vals, ", "))
			p.body(c.Body)
			p.line("}")
		}
		if s.Default != nil {
			p.line("default {")
			p.body(s.Default)
			p.line("}")
		}
		p.indent--
		p.line("}")
	case *Barrier:
		if s.Grid {
			p.line("barrier grid;")
		} else {
			p.line("barrier;")
		}
	case *Raise:
		p.line("raise %s;", Quote(s.Msg))
	case *Split:
		p.line("split %s {", PrintExpr(s.Cond))
		p.body(s.Then)
		if s.Else != nil {
			p.line("} else {")
			p.body(s.Else)
		}
		p.line("}")
	case *SplitWhile:
		p.line("split while %s {", PrintExpr(s.Cond))
		p.body(s.Body)
		p.line("}")
	case *Fork:
		p.line("fork %s, group = %s, member = %s {", PrintExpr(s.Count), PrintExpr(s.Group), PrintExpr(s.Member))
		p.body(s.Body)
		p.line("}")
	case *Launch:
		head := fmt.Sprintf("launch %s(%s) grid %s block %s", s.Kernel, exprList("", s.Args), PrintExpr(s.Grid), PrintExpr(s.Block))
		if s.Coop {
			head += " coop"
		}
		if s.Stride {
			head += " stride"
		}
		if s.World {
			head += " world"
		}
		switch {
		case s.Fallback != nil:
			p.line("%s else {", head)
			p.body(s.Fallback)
			p.line("}")
		default:
			p.line("%s;", head)
		}
	case *Region:
		world := ""
		if s.World {
			world = " world"
		}
		p.line("region %s%s {", PrintExpr(s.Procs), world)
		p.body(s.Body)
		p.line("}")
	case *Copy:
		p.line("copy %s[%s], %s[%s], %s;", s.Dst, PrintExpr(s.DstOff), s.Src, PrintExpr(s.SrcOff), PrintExpr(s.Count))
	case *Swap:
		p.line("swap %s, %s;", s.A, s.B)
	case *WorldBarrier:
		p.line("world_barrier;")
	case *AllGather:
		p.line("allgather %s;", s.Buf)
	case *AllReduce:
		p.line("%s = allreduce(%s, %s);", s.Dst, s.Op, PrintExpr(s.Value))
	case *Printf:
		stream := ""
		if s.Stderr {
			stream = "stderr "
		}
		p.line("printf %s%s%s;", stream, Quote(s.Format), exprList(", ", s.Args))
	case *Write:
		p.line("write %s, %s;", s.Array, PrintExpr(s.Count))
	case nil:
		p.line("<nil statement>;")
	default:
		p.line("<unknown statement %T>;", s)
	}
}

// ifStmt prints an if and its else-if chain; lead is the indentation of
// the first line, which is empty after "} else ".
func (p *printer) ifStmt(s *If, lead string) {
	p.printf("%sif %s {\n", lead, PrintExpr(s.Cond))
	p.body(s.Then)
	ind := strings.Repeat("  ", p.indent)
	switch {
	case len(s.Else) == 1 && isIf(s.Else[0]):
		p.printf("%s} else ", ind)
		p.ifStmt(s.Else[0].(*If), "")
		return
	case s.Else != nil:
		p.printf("%s} else {\n", ind)
		p.body(s.Else)
	}
	p.line("}")
}

func isIf(s Stmt) bool { _, ok := s.(*If); return ok }

// exprList prints es separated by ", ", preceded by lead if es is not empty.
func exprList(lead string, es []Expr) string {
	if len(es) == 0 {
		return ""
	}
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = PrintExpr(e)
	}
	return lead + strings.Join(parts, ", ")
}

// Expression precedence levels: a select binds loosest, then the binary
// operators by BinOp.Prec, then prefix operators, then primaries.
const (
	precSelect  = 0
	precUnary   = 11
	precPrimary = 12
)

func exprPrec(e Expr) int {
	switch e := e.(type) {
	case *Select:
		return precSelect
	case *Binary:
		return e.Op.Prec()
	case *Unary:
		return precUnary
	case *Const:
		if constIsNegative(e) {
			return precUnary
		}
	}
	return precPrimary
}

// expr prints e, parenthesised if it binds looser than min.
func (p *printer) expr(e Expr, min int) {
	if e == nil {
		p.printf("<nil>")
		return
	}
	if exprPrec(e) < min {
		p.printf("(")
		defer p.printf(")")
	}
	switch e := e.(type) {
	case *Const:
		p.printf("%s", FormatConst(e.T, e.Bits))
	case *Str:
		p.printf("%s", Quote(e.Value))
	case *Var:
		p.printf("%s", e.Name)
	case *ParamRef:
		p.printf("%s", e.Name)
	case *Load:
		p.printf("%s[", e.Buf)
		p.expr(e.Index, 0)
		p.printf("]")
	case *Unary:
		p.printf("%s", e.Op)
		min := precUnary
		if exprPrec(e.X) == precUnary {
			min++ // -(-x), not --x
		}
		p.expr(e.X, min)
	case *Binary:
		prec := e.Op.Prec()
		p.expr(e.X, operandPrec(e.Op, e.X, prec))
		p.printf(" %s ", e.Op)
		p.expr(e.Y, operandPrec(e.Op, e.Y, prec+1))
	case *Select:
		p.expr(e.Cond, precSelect+1)
		p.printf(" ? ")
		p.expr(e.X, precSelect+1)
		p.printf(" : ")
		p.expr(e.Y, precSelect)
	case *Convert:
		p.printf("%s(", e.T)
		p.expr(e.X, 0)
		p.printf(")")
	case *Call:
		p.printf("%s(%s)", e.Func, exprList("", e.Args))
	case *Builtin:
		p.printf("%s(%s)", e.Op, exprList("", e.Args))
	default:
		p.printf("<unknown expression %T>", e)
	}
}

// operandPrec is the binding an operand of op needs, min by precedence
// alone. Like C compilers' warnings, it also asks for parentheses around a
// comparison inside a comparison and around && inside ||, which readers
// misread.
func operandPrec(op BinOp, x Expr, min int) int {
	b, ok := x.(*Binary)
	if !ok {
		return min
	}
	if (op.IsCompare() && b.Op.IsCompare()) || (op == LogOr && b.Op == LogAnd) {
		return precPrimary
	}
	return min
}

func constIsNegative(c *Const) bool {
	switch {
	case c.T.IsSigned():
		return int64(c.Bits) < 0
	case c.T.IsFloat():
		return math.Signbit(AsFloat(c.T, c.Bits))
	}
	return false
}

// FormatConst spells a constant as a .kir literal of its type:
// 42, 42u, 42l, 42ul, i8(42), u8(42), true, 1.5, 1.5f, inf, f32(nan).
func FormatConst(t Type, b Bits) string {
	switch t {
	case Bool, I32, I64, U32, U64:
		s := FormatValue(t, b)
		return s + map[Type]string{U32: "u", I64: "l", U64: "ul"}[t]
	case I8, U8:
		return fmt.Sprintf("%s(%s)", t, FormatValue(t, b))
	case F64:
		return FormatValue(t, b)
	case F32:
		f := AsFloat(t, b)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return "f32(" + FormatValue(t, b) + ")"
		}
		return FormatValue(t, b) + "f"
	}
	return fmt.Sprintf("<const %s %#x>", t, b)
}

// FormatValue spells a value of type t without a type suffix, as static
// buffer contents are written: 42, -3, true, 1.5, 1e+30, -inf, nan.
func FormatValue(t Type, b Bits) string {
	switch {
	case t == Bool:
		return strconv.FormatBool(b != 0)
	case t.IsSigned():
		return strconv.FormatInt(int64(b), 10)
	case t.IsInt():
		return strconv.FormatUint(b, 10)
	case t.IsFloat():
		f := AsFloat(t, b)
		switch {
		case math.IsNaN(f):
			return "nan"
		case math.IsInf(f, 1):
			return "inf"
		case math.IsInf(f, -1):
			return "-inf"
		}
		bits := 64
		if t == F32 {
			bits = 32
		}
		s := strconv.FormatFloat(f, 'g', -1, bits)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		} else if i := strings.IndexByte(s, 'e'); i >= 0 && !strings.Contains(s[:i], ".") {
			s = s[:i] + ".0" + s[i:]
		}
		return s
	}
	return fmt.Sprintf("%#x", b)
}

// WrapList joins values with commas, sixteen to a line; indent starts
// each line after the first.
func WrapList(vals []string, indent string) string {
	var b strings.Builder
	for i, v := range vals {
		switch {
		case i > 0 && i%16 == 0:
			b.WriteString(",\n" + indent)
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(v)
	}
	return b.String()
}

// Quote writes s as a .kir string literal. It escapes backslash, the double
// quote, \n, \t, \r and every other byte outside printable ASCII as \xHH.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Unquote reverses Quote, accepting the escapes it writes plus \0 and \a-style
// ones that C knows: \a \b \f \v \0.
func Unquote(lit string) (string, error) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", fmt.Errorf("malformed string literal %s", lit)
	}
	s := lit[1 : len(lit)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", fmt.Errorf("string literal ends in a backslash")
		}
		switch e := s[i]; e {
		case '\\', '"', '\'':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '0':
			b.WriteByte(0)
		case 'x':
			if i+3 > len(s) {
				return "", fmt.Errorf(`\x needs two hex digits`)
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", fmt.Errorf(`\x needs two hex digits`)
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			return "", fmt.Errorf(`unknown escape \%c`, e)
		}
	}
	return b.String(), nil
}
