package fork

import (
	"strings"

	"gpuc/frontends/fork/parser"
	"gpuc/frontends/syntax"
	"gpuc/internal/diag"
	"gpuc/ir"
)

// builder turns the parse tree into the AST. It reports what the grammar
// accepts but C does not: clashing qualifiers, bad literals, void
// variables.
type builder struct {
	file string
	errs *diag.List
}

// ctxPos and tokPos position parse-tree nodes and tokens. Only the
// generated parser and package syntax name ANTLR's types.
var ctxPos, tokPos = syntax.CtxPos, syntax.Pos

func (b *builder) errorf(pos diag.Pos, format string, args ...any) { b.errs.Add(pos, format, args...) }

func (b *builder) program(ctx parser.IProgramContext) *program {
	p := &program{}
	for _, d := range ctx.AllTopDecl() {
		switch d := d.(type) {
		case *parser.GlobalVarContext:
			consts, vars := b.globalDecl(d.VarDecl())
			p.consts = append(p.consts, consts...)
			p.globals = append(p.globals, vars...)
		case *parser.FuncDefContext:
			p.funcs = append(p.funcs, b.funcDef(d))
		}
	}
	return p
}

// globalDecl splits a global declaration into constants (const scalars)
// and variables.
func (b *builder) globalDecl(ctx parser.IVarDeclContext) ([]*constant, []*variable) {
	var consts []*constant
	var vars []*variable
	for _, v := range b.varDecl(ctx.AllQualifier(), ctx.TypeName(), ctx.AllDeclarator(), globalVar) {
		if !v.isConst || v.isArray() {
			vars = append(vars, v)
			continue
		}
		c := &constant{pos: v.pos, name: v.name, t: v.t}
		if v.init == nil || v.init.x == nil {
			b.errorf(v.pos, "constant %s needs a value: const %s %s = ...;", v.name, cName(v.t), v.name)
		} else {
			c.init = v.init.x
		}
		if v.static {
			c.kind = foldedConst
		}
		consts = append(consts, c)
	}
	return consts, vars
}

// varDecl builds the variables of one declaration.
func (b *builder) varDecl(quals []parser.IQualifierContext, tn parser.ITypeNameContext, decls []parser.IDeclaratorContext, kind varKind) []*variable {
	t := b.typeName(tn)
	var out []*variable
	for _, d := range decls {
		v := &variable{pos: ctxPos(b.file, d), name: d.IDENT().GetText(), t: t, kind: kind}
		b.qualifiers(v, quals)
		if d.GetOpen() != nil {
			v.dims = 1
			if d.GetRows() != nil {
				v.rows = b.expr(d.GetRows())
			}
			if d.GetCols() != nil {
				v.dims, v.cols = 2, b.expr(d.GetCols())
			}
		}
		if d.Initializer() != nil {
			v.init = b.initializer(d.Initializer())
		}
		if t == ir.Void {
			b.errorf(v.pos, "variable %s declared void", v.name)
		}
		out = append(out, v)
	}
	return out
}

// qualifiers applies sh, pr, static and const to v.
func (b *builder) qualifiers(v *variable, quals []parser.IQualifierContext) {
	seen := map[string]bool{}
	for _, q := range quals {
		word := q.GetText()
		if seen[word] {
			b.errorf(ctxPos(b.file, q), "duplicate %s", word)
		}
		seen[word] = true
		switch word {
		case "sh":
			v.shared = true
		case "pr":
			v.private = true
		case "static":
			v.static = true
		case "const":
			v.isConst = true
		}
		if v.shared && v.private {
			b.errorf(ctxPos(b.file, q), "%s is declared both sh and pr", v.name)
		}
	}
}

func (b *builder) initializer(ctx parser.IInitializerContext) *initializer {
	in := &initializer{pos: ctxPos(b.file, ctx)}
	switch c := ctx.(type) {
	case *parser.ExprInitContext:
		in.x = b.expr(c.Expr())
	case *parser.ListInitContext:
		in.list = []*initializer{}
		for _, sub := range c.AllInitializer() {
			in.list = append(in.list, b.initializer(sub))
		}
	}
	return in
}

// typeName reads a C type. The grammar admits only the spellings below,
// whose words GetText joins without spaces.
func (b *builder) typeName(ctx parser.ITypeNameContext) ir.Type {
	spelled := strings.TrimSuffix(strings.Replace(ctx.GetText(), "longlong", "long", 1), "int")
	switch spelled {
	case "void":
		return ir.Void
	case "bool":
		return ir.Bool
	case "char":
		return ir.I8
	case "":
		return ir.I32
	case "unsigned":
		return ir.U32
	case "long":
		return ir.I64
	case "unsignedlong":
		return ir.U64
	case "float":
		return ir.F32
	case "double":
		return ir.F64
	}
	b.errorf(ctxPos(b.file, ctx), "unsupported type %s", ctx.GetText())
	return ir.Invalid
}

func (b *builder) funcDef(ctx *parser.FuncDefContext) *function {
	f := &function{pos: tokPos(b.file, ctx.IDENT().GetSymbol()), name: ctx.IDENT().GetText(), result: b.typeName(ctx.TypeName())}
	if m := ctx.FuncMode(); m != nil {
		f.mode = asyncFunc
		if m.GetText() == "sync" {
			f.mode = syncFunc
		}
	}
	if ps := ctx.Params(); ps != nil {
		for _, pc := range ps.AllParam() {
			f.params = append(f.params, b.param(pc))
		}
	}
	f.body = b.block(ctx.Block())
	return f
}

func (b *builder) param(ctx parser.IParamContext) *variable {
	v := &variable{pos: ctxPos(b.file, ctx), name: ctx.IDENT().GetText(), t: b.typeName(ctx.TypeName()), kind: paramVar}
	b.qualifiers(v, ctx.AllQualifier())
	if a := ctx.ArrayParam(); a != nil {
		v.dims = 1
		if a.GetCols() != nil {
			v.dims, v.cols = 2, b.expr(a.GetCols())
		}
	}
	switch {
	case v.t == ir.Void:
		b.errorf(v.pos, "parameter %s declared void", v.name)
	case v.static:
		b.errorf(v.pos, "parameter %s declared static", v.name)
	}
	return v
}

func (b *builder) block(ctx parser.IBlockContext) *block {
	bl := &block{pos: ctxPos(b.file, ctx), items: []stmt{}}
	for _, item := range ctx.AllBlockItem() {
		if d := item.VarDecl(); d != nil {
			vars := b.varDecl(d.AllQualifier(), d.TypeName(), d.AllDeclarator(), localVar)
			bl.items = append(bl.items, &declStmt{pos: ctxPos(b.file, d), vars: vars})
			continue
		}
		bl.items = append(bl.items, b.stmt(item.Stmt()))
	}
	return bl
}

func (b *builder) stmt(ctx parser.IStmtContext) stmt {
	pos := ctxPos(b.file, ctx)
	switch s := ctx.(type) {
	case *parser.BlockStmtContext:
		return b.block(s.Block())
	case *parser.ExprStmtContext:
		if s.Expr() == nil {
			return &exprStmt{pos: pos}
		}
		return &exprStmt{pos: pos, x: b.expr(s.Expr())}
	case *parser.IfStmtContext:
		st := &ifStmt{pos: pos, cond: b.expr(s.Expr()), then: b.stmt(s.Stmt(0))}
		if s.Stmt(1) != nil {
			st.orElse = b.stmt(s.Stmt(1))
		}
		return st
	case *parser.WhileStmtContext:
		return &whileStmt{pos: pos, cond: b.expr(s.Expr()), body: b.stmt(s.Stmt())}
	case *parser.DoStmtContext:
		return &doStmt{pos: pos, body: b.stmt(s.Stmt()), cond: b.expr(s.Expr())}
	case *parser.ForStmtContext:
		return b.forStmt(s)
	case *parser.BreakStmtContext:
		return &breakStmt{pos: pos}
	case *parser.ContinueStmtContext:
		return &continueStmt{pos: pos}
	case *parser.ReturnStmtContext:
		st := &returnStmt{pos: pos}
		if s.Expr() != nil {
			st.x = b.expr(s.Expr())
		}
		return st
	case *parser.StartStmtContext:
		st := &startStmt{pos: pos, body: b.stmt(s.Stmt())}
		if s.GetProcs() != nil {
			st.procs = b.expr(s.GetProcs())
		}
		return st
	case *parser.SeqStmtContext:
		return &seqStmt{pos: pos, body: b.stmt(s.Stmt())}
	case *parser.FarmStmtContext:
		return &farmStmt{pos: pos, body: b.stmt(s.Stmt())}
	case *parser.ForkStmtContext:
		st := &forkStmt{pos: pos, count: b.expr(s.GetCount()), group: b.expr(s.GetGroup()), body: b.stmt(s.Stmt())}
		if s.GetMember() != nil {
			st.member = b.expr(s.GetMember())
		}
		return st
	case *parser.BarrierStmtContext:
		return &barrierStmt{pos: pos}
	}
	b.errorf(pos, "unsupported statement")
	return &exprStmt{pos: pos}
}

func (b *builder) forStmt(s *parser.ForStmtContext) stmt {
	st := &forStmt{pos: ctxPos(b.file, s), body: b.stmt(s.Stmt())}
	if in := s.ForInit(); in != nil {
		if d := in.ForDecl(); d != nil {
			st.init = &declStmt{pos: ctxPos(b.file, d), vars: b.varDecl(d.AllQualifier(), d.TypeName(), d.AllDeclarator(), localVar)}
		} else {
			st.init = &block{pos: ctxPos(b.file, in), items: b.exprStmts(in.ExprList())}
		}
	}
	if s.GetCond() != nil {
		st.cond = b.expr(s.GetCond())
	}
	if s.GetPost() != nil {
		for _, e := range s.GetPost().AllExpr() {
			st.post = append(st.post, b.expr(e))
		}
	}
	return st
}

func (b *builder) exprStmts(list parser.IExprListContext) []stmt {
	var out []stmt
	for _, e := range list.AllExpr() {
		out = append(out, &exprStmt{pos: ctxPos(b.file, e), x: b.expr(e)})
	}
	return out
}
