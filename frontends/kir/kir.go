// Package kir reads .kir text, the printed form of gpuc's kernel IR, into an
// ir.Module. It checks syntax and resolves names; ir.Verify checks the rest.
package kir

import (
	"strconv"

	"gpuc/frontends/kir/parser"
	"gpuc/frontends/syntax"
	"gpuc/internal/diag"
	"gpuc/ir"
)

// kirNesting is how the tokens of .kir text nest (Note [Nesting limit] in
// package syntax). Its limit is twice the frontends', since the printed
// form of what a frontend accepted may nest deeper: conversions and
// compound assignments add levels, and it must parse back.
var kirNesting = syntax.Nesting{Seps: []string{",", ";"}, Words: []string{"if", "else", "while", "for"}, Limit: 2 * syntax.MaxNesting}

// Parse reads a module from src; file names it in diagnostics. The error,
// if any, is a diag.List with every syntax and name-resolution error.
func Parse(file string, src []byte) (m *ir.Module, err error) {
	defer syntax.Recover(file, &err)
	lexer := parser.NewKIRLexer(syntax.Input(string(src)))
	stream := syntax.Tokens(lexer)
	p := parser.NewKIRParser(stream)
	errs := syntax.Setup(file, lexer, p)
	if deep := syntax.CheckNesting(file, stream, kirNesting); deep != nil {
		return nil, deep
	}
	tree := p.Module_()
	if len(errs.List) > 0 {
		return nil, errs.List
	}
	b := &builder{file: file}
	m = b.module(tree)
	if len(b.errs) > 0 {
		b.errs.Sort()
		return nil, b.errs
	}
	return m, nil
}

type builder struct {
	file   string
	errs   diag.List
	m      *ir.Module
	scopes []map[string]ir.Type // locals, innermost last
}

func (b *builder) pos(ctx syntax.Context) ir.Pos { return syntax.CtxPos(b.file, ctx) }
func (b *builder) tpos(t syntax.Terminal) ir.Pos { return syntax.NodePos(b.file, t) }

func (b *builder) errorf(pos ir.Pos, format string, args ...any) { b.errs.Add(pos, format, args...) }

// typ reads a scalar type name.
func (b *builder) typ(t syntax.Terminal) ir.Type {
	ty, ok := ir.ParseType(t.GetText())
	if !ok || ty == ir.Void {
		b.errorf(b.tpos(t), "unknown type %s", t.GetText())
		return ir.Invalid
	}
	return ty
}

// module builds in two passes: declarations first, so that any expression
// may refer to any module-level name, then lengths and bodies.
func (b *builder) module(ctx parser.IModule_Context) *ir.Module {
	b.m = &ir.Module{Pos: b.pos(ctx), Name: ctx.IDENT().GetText()}
	var later []func()
	for _, d := range ctx.AllDecl() {
		switch d := d.(type) {
		case *parser.ParamDeclContext:
			b.m.Params = append(b.m.Params, b.param(d))
		case *parser.BufferDeclContext:
			buf := b.buffer(d)
			b.m.Buffers = append(b.m.Buffers, buf)
			later = append(later, func() { buf.Len = b.expr(d.Expr()) })
		case *parser.ArrayDeclContext:
			arr := &ir.Array{Pos: b.pos(d), Name: d.IDENT(0).GetText(), Elem: b.typ(d.IDENT(1))}
			b.m.Arrays = append(b.m.Arrays, arr)
			later = append(later, func() { arr.Len = b.expr(d.Expr()) })
		case *parser.FuncDeclContext:
			f := b.funcHeader(d)
			b.m.Funcs = append(b.m.Funcs, f)
			later = append(later, func() { b.funcBody(f, d) })
		}
	}
	for _, fn := range later {
		fn()
	}
	return b.m
}

func (b *builder) param(d *parser.ParamDeclContext) *ir.Param {
	p := &ir.Param{Pos: b.pos(d), Name: d.IDENT(0).GetText(), Type: b.typ(d.IDENT(1))}
	if p.Type != ir.Invalid && !p.Type.IsInt() {
		b.errorf(b.tpos(d.IDENT(1)), "parameter %s must have an integer type, not %s", p.Name, p.Type)
		return p
	}
	if c := b.number(d.SignedNumber(0), p.Type); c != nil {
		p.Default = c.Int()
	}
	if fit := d.GetFit(); fit != nil {
		p.Fit = b.fit(fit, d.SignedNumber(1))
	}
	return p
}

// fit reads a parameter's fit fraction, "fit 0.8": a decimal number,
// which the verifier checks is in (0, 1].
func (b *builder) fit(word syntax.Token, n parser.ISignedNumberContext) float64 {
	if word.GetText() != "fit" {
		b.errorf(syntax.Pos(b.file, word), "unexpected %s after the parameter's default (want fit FRACTION)", word.GetText())
		return 0
	}
	var text string
	switch {
	case n.INT() != nil:
		text = n.INT().GetText()
	case n.FLOAT() != nil:
		text = n.FLOAT().GetText()
	}
	f, err := strconv.ParseFloat(text, 64)
	if text == "" || err != nil {
		b.errorf(b.pos(n), "fit wants a decimal fraction, not %s", n.GetText())
		return 0
	}
	if n.GetStart().GetText() == "-" {
		f = -f
	}
	return f
}

func (b *builder) buffer(d *parser.BufferDeclContext) *ir.Buffer {
	buf := &ir.Buffer{Pos: b.pos(d), Name: d.IDENT(0).GetText(), Elem: b.typ(d.IDENT(1))}
	space, role := d.IDENT(2), d.IDENT(3)
	var ok bool
	if buf.Space, ok = ir.ParseSpace(space.GetText()); !ok {
		b.errorf(b.tpos(space), "unknown memory space %s (want global, constant or shared)", space.GetText())
	}
	if buf.Role, ok = ir.ParseRole(role.GetText()); !ok {
		b.errorf(b.tpos(role), "unknown buffer role %s (want scratch, input, output or static)", role.GetText())
	}
	if str := d.STRING(); str != nil {
		switch word := d.IDENT(4); word.GetText() {
		case "progress":
			buf.Progress = b.str(str)
		case "bound":
			buf.Bound = b.str(str)
		case "below":
			buf.Bound, buf.Below = b.str(str), true
		default:
			b.errorf(b.tpos(word), "unexpected %s after the buffer's role (want progress \"NAME\", bound \"PARAM\" or below \"PARAM\")", word.GetText())
		}
	}
	if init := d.InitList(); init != nil {
		buf.Init = []ir.Bits{}
		for _, n := range init.AllSignedNumber() {
			if c := b.number(n, buf.Elem); c != nil {
				buf.Init = append(buf.Init, c.Bits)
			}
		}
	}
	return buf
}

func (b *builder) funcHeader(d *parser.FuncDeclContext) *ir.Func {
	f := &ir.Func{Pos: b.pos(d), Name: d.IDENT(0).GetText(), Result: ir.Void}
	switch d.GetKind().GetText() {
	case "kernel":
		f.Kind = ir.KernelFunc
	case "func":
		f.Kind = ir.DeviceFunc
	case "host":
		f.Kind = ir.HostFunc
	}
	if fs := d.Fields(); fs != nil {
		for _, fc := range fs.AllField() {
			f.Params = append(f.Params, &ir.Field{Pos: b.pos(fc), Name: fc.IDENT(0).GetText(), Type: b.typ(fc.IDENT(1))})
		}
	}
	if len(d.AllIDENT()) > 1 {
		f.Result = b.typ(d.IDENT(1))
	}
	return f
}

func (b *builder) funcBody(f *ir.Func, d *parser.FuncDeclContext) {
	b.scopes = []map[string]ir.Type{{}}
	for _, p := range f.Params {
		b.declare(p.Name, p.Type)
	}
	f.Body = b.block(d.Block())
	b.scopes = nil
}

// Scopes. The builder only needs names and types; duplicate and shadowing
// checks belong to the verifier, which sees pass output as well.

func (b *builder) push() { b.scopes = append(b.scopes, map[string]ir.Type{}) }
func (b *builder) pop()  { b.scopes = b.scopes[:len(b.scopes)-1] }

func (b *builder) declare(name string, t ir.Type) { b.scopes[len(b.scopes)-1][name] = t }

func (b *builder) local(name string) (ir.Type, bool) {
	for i := len(b.scopes) - 1; i >= 0; i-- {
		if t, ok := b.scopes[i][name]; ok {
			return t, true
		}
	}
	return ir.Invalid, false
}

func (b *builder) block(ctx parser.IBlockContext) []ir.Stmt {
	b.push()
	defer b.pop()
	out := []ir.Stmt{}
	for _, s := range ctx.AllStmt() {
		if st := b.stmt(s); st != nil {
			out = append(out, st)
		}
	}
	return out
}
