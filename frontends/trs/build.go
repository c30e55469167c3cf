package trs

import (
	"strings"

	"gpuc/frontends/syntax"
	"gpuc/frontends/trs/parser"
	"gpuc/internal/diag"
)

// builder turns the parse tree into the AST of ast.go. It reports what
// the grammar accepts only to reject it here: WST sections other than
// VAR, RULES, COMMENT and STRATEGY INNERMOST, and conditional rules.
type builder struct {
	file string
	errs *diag.List
	at   func(diag.Pos) diag.Pos // maps a position of a REC file's expanded text (Note [REC])
	// ops2008 says that a REC file declares its symbols in REC-2008's OPS
	// section, read as CONS (recDefects).
	ops2008 bool
}

func (b *builder) pos(ctx syntax.Context) diag.Pos {
	return b.mapPos(syntax.CtxPos(b.file, ctx))
}

// mapPos is where p, a position in the text parsed, comes from.
func (b *builder) mapPos(p diag.Pos) diag.Pos {
	if b.at == nil {
		return p
	}
	return b.at(p)
}

func (b *builder) errorf(pos diag.Pos, format string, args ...any) {
	b.errs.Add(pos, format, args...)
}

func (b *builder) program(ctx parser.IFileContext) *file {
	f := &file{end: b.mapPos(syntax.Pos(b.file, ctx.GetStop()))}
	switch ctx := ctx.(type) {
	case *parser.PaperFileContext:
		f.notation = paperNotation
		for _, s := range ctx.AllPaperSection() {
			b.paperSection(f, s)
		}
	case *parser.WstFileContext:
		f.notation = wstNotation
		for _, s := range ctx.AllWstSection() {
			b.wstSection(f, s)
		}
	case *parser.RecFileContext:
		f.notation = recNotation
		f.ops2008 = b.ops2008
		b.recSpec(f, ctx.RecSpec().(*parser.RecSpecContext))
	}
	return f
}

func (b *builder) paperSection(f *file, ctx parser.IPaperSectionContext) {
	switch s := ctx.(type) {
	case *parser.SortSectionContext:
		for _, d := range s.AllSortDecl() {
			f.sorts = append(f.sorts, b.sortDecl(d))
		}
	case *parser.VarSectionContext:
		for _, d := range s.AllVarDecl() {
			f.vars = append(f.vars, typedVars(d.AllName(), b.name))
		}
	case *parser.EqnSectionContext:
		for _, e := range s.AllEquation() {
			f.rules = append(f.rules, &ruleDecl{pos: b.pos(e), lhs: b.term(e.GetLhs()), rhs: b.term(e.GetRhs())})
		}
	case *parser.InputSectionContext:
		f.inputs = append(f.inputs, b.term(s.Term()))
	}
}

// typedVars declares the names but the last, which is their sort; read
// reads each name.
func typedVars[N any](names []N, read func(N) ident) *varDecl {
	var ids []ident
	for _, n := range names {
		ids = append(ids, read(n))
	}
	n := len(ids) - 1
	return &varDecl{names: ids[:n], sort: ids[n]}
}

func (b *builder) sortDecl(ctx parser.ISortDeclContext) *sortDecl {
	d := &sortDecl{ident: b.name(ctx.Name())}
	for _, s := range ctx.AllSymDecl() {
		names := s.AllName()
		sym := &symDecl{ident: b.name(names[0])}
		for _, a := range names[1:] {
			sym.args = append(sym.args, b.name(a))
		}
		d.syms = append(d.syms, sym)
	}
	return d
}

func (b *builder) name(ctx parser.INameContext) ident {
	return ident{pos: b.pos(ctx), name: ctx.GetText()}
}

func (b *builder) term(ctx parser.ITermContext) *term {
	t := &term{ident: b.name(ctx.Name()), parens: ctx.GetOpen() != nil}
	for _, a := range ctx.AllTerm() {
		t.args = append(t.args, b.term(a))
	}
	return t
}

func (b *builder) wstSection(f *file, ctx parser.IWstSectionContext) {
	switch s := ctx.(type) {
	case *parser.WstVarsContext:
		v := &varDecl{}
		for _, n := range s.AllName() {
			v.names = append(v.names, ident{pos: b.pos(n), name: n.GetText()})
		}
		f.vars = append(f.vars, v)
	case *parser.WstRulesContext:
		for _, r := range s.AllWstRule() {
			if c := r.Condition(); c != nil {
				b.errorf(b.pos(c), "conditional rules are not supported")
				continue
			}
			f.rules = append(f.rules, &ruleDecl{pos: b.pos(r), lhs: b.wterm(r.GetLhs()), rhs: b.wterm(r.GetRhs())})
		}
	case *parser.WstOtherContext:
		b.wstOther(s)
	}
}

// wstOther accepts the sections that do not change the meaning of a
// system for gpuc: comments, and the innermost strategy, which gpuc uses
// anyway.
func (b *builder) wstOther(s *parser.WstOtherContext) {
	name := s.WORD().GetText()
	pos := syntax.NodePos(b.file, s.WORD())
	switch name {
	case "COMMENT":
	case "STRATEGY":
		body := s.AllSexpr()
		if len(body) != 1 || !strings.EqualFold(body[0].GetText(), "INNERMOST") {
			b.errorf(pos, "unsupported strategy: gpuc rewrites innermost; want (STRATEGY INNERMOST) or none")
		}
	default:
		b.errorf(pos, "unsupported section (%s ...): gpuc reads VAR, RULES, COMMENT and STRATEGY INNERMOST", name)
	}
}

func (b *builder) wterm(ctx parser.IWtermContext) *term {
	n := ctx.Wname()
	t := &term{ident: ident{pos: b.pos(n), name: n.GetText()}, parens: ctx.GetOpen() != nil}
	for _, a := range ctx.AllWterm() {
		t.args = append(t.args, b.wterm(a))
	}
	return t
}
