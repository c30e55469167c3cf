package trs

import "gpuc/internal/diag"

// notation says how a .trs file is written.
type notation uint8

const (
	paperNotation notation = iota // sort/var/eqn/input sections (the paper's Listing 7)
	wstNotation                   // (VAR ...) (RULES ...), the TPDB's WST format
	recNotation                   // REC-SPEC ... END-SPEC, the REC format (Note [REC])
)

// file is a parsed .trs file, before any check.
type file struct {
	notation notation
	sorts    []*sortDecl
	ops      []recOp // REC: symbols declared with their result sorts
	vars     []*varDecl
	rules    []*ruleDecl
	inputs   []*term // input sections; the checker wants exactly one
	ops2008  bool    // REC: the symbols were declared in REC-2008's OPS
	end      diag.Pos
}

// ident is a name with its position.
type ident struct {
	pos  diag.Pos
	name string
}

// sortDecl declares a sort and the function symbols whose results have it.
type sortDecl struct {
	ident
	syms []*symDecl
}

// symDecl declares a function symbol with the sorts of its arguments.
type symDecl struct {
	ident
	args []ident
}

// recOp declares a REC constructor or operation: `sym : args -> result`.
type recOp struct {
	sym    *symDecl
	result ident
	cons   bool // declared in CONS, not OPNS
}

// varDecl declares variables of one sort; in WST, sort is empty.
type varDecl struct {
	names []ident
	sort  ident
}

// ruleDecl is a rewrite rule lhs -> rhs (or lhs = rhs), with the
// conditions of a REC rule (Note [Conditional rules]).
type ruleDecl struct {
	pos      diag.Pos
	lhs, rhs *term
	conds    []*condDecl
}

// condDecl is a condition a -><- b (join) or a ->/<- b.
type condDecl struct {
	pos  diag.Pos
	a, b *term
	join bool
}

// term is a term as written: a name, with arguments if parens is set.
type term struct {
	ident
	parens bool
	args   []*term
}
