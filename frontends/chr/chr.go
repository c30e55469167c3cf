// Package chr is gpuc's frontend for Constraint Handling Rules in the
// syntax of SWI-Prolog's library(chr) (grammars/CHR.g4). It reads a .chr
// file, checks that it lies in the subset gpuc compiles (ground
// constraints over integers and floats; simplification, simpagation and
// propagation rules with arithmetic guards; bodies of constraints and
// is/2), and lowers it to a module at the SPMD level of gpuc's IR, which
// `gpuc run` executes and the passes lower for the GPU.
//
// The lowering follows the CHR-on-GPU paper (papers/002) and goes beyond
// it: one structure-of-arrays store per constraint type, rules fired in
// parallel steps of a fixpoint loop, partners found through hash indices
// on shared variables, claims that keep every step equivalent to a
// sequential execution, and bodies that allocate new constraints with
// capacity checks (Note [Parallel firing], Note [Indices]).
//
// It is not a Prolog system: non-ground constraints, unification, cuts,
// disjunction, Prolog facts, atoms and pragmas are refused with a
// diagnostic. Driver predicates of any name and arity that post
// constraints (main/0 or any other, which a query calls),
// module-qualified goals, infix operators declared with op/3 (Note [User
// operators]) and .pl files that declare constraints (Note [CHR in .pl
// files]) are read as their authors keep them.
package chr

import (
	"os"

	"gpuc/frontends/chr/parser"
	"gpuc/frontends/syntax"
	"gpuc/internal/diag"
	"gpuc/ir"
)

// Options are the command-line options of the CHR frontend.
type Options struct {
	// Query names a file of constraints, one per line (`edge(1,2,5).`),
	// that replaces the program's own query.
	Query string
	// Stats makes the program print, after the store, how often each rule
	// fired and how many steps and claim rounds the fixpoint loop took, as
	// Prolog comments on the standard error stream (printf stderr).
	Stats bool
}

// Parse reads a CHR program and lowers it to an SPMD-level module. file
// names it in diagnostics. The error, if any, is a diag.List holding every
// error found, sorted by position.
func Parse(file string, src []byte, opts Options) (m *ir.Module, err error) {
	defer syntax.Recover(file, &err)
	var errs diag.List
	ops := opTable{}
	clauses := parseClauses(file, src, ops, &errs)
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	r := &reader{errs: &errs, prog: newProgram()}
	for _, c := range clauses {
		r.clause(c)
	}
	facts := readQuery(r.prog, ops, opts, &errs)
	(&checker{errs: &errs, prog: r.prog}).check(facts)
	if len(errs) == 0 {
		m = lower(file, r.prog, facts, opts, &errs)
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return m, nil
}

// chrNesting is how CHR's tokens nest (Note [Nesting limit] in package
// syntax): every operator nests, the comma too, and a full stop ends a
// clause.
var chrNesting = syntax.Nesting{Ends: []string{"."}, Words: []string{"mod", "rem", "div", "xor", "is", "pragma"}}

// retypedWords names in syntax errors the tokens that userOperators
// makes (Note [User operators]).
var retypedWords = map[string]string{
	"OPEN": "'('", "USEROP200": "an operator", "USEROP400": "an operator", "USEROP500": "an operator",
	"USEROP600": "an operator", "USEROP700": "an operator",
}

// parseClauses parses a file of clauses into terms. ops holds the
// operators declared so far, and gets those that the file declares (Note
// [User operators]).
func parseClauses(file string, src []byte, ops opTable, errs *diag.List) []term {
	text := string(src)
	if len(text) > 0 && text[len(text)-1] != '\n' {
		text += "\n" // a final full stop needs layout after it
	}
	lexer := parser.NewCHRLexer(syntax.Input(text))
	stream := syntax.Tokens(lexer)
	p := parser.NewCHRParser(stream)
	syntaxErrs := syntax.Setup(file, lexer, p)
	syntaxErrs.Words = retypedWords
	if deep := syntax.CheckNesting(file, stream, chrNesting); deep != nil {
		deep[0].Msg += "; a long query fits in a --query file, one goal a line"
		*errs = append(*errs, deep...)
		return nil
	}
	userOperators(file, stream, ops, errs)
	tree := p.Program()
	if len(syntaxErrs.List) > 0 {
		*errs = append(*errs, syntaxErrs.List...)
		return nil
	}
	b := &termBuilder{file: file, errs: errs, ops: ops}
	var out []term
	for _, c := range tree.AllClause() {
		out = append(out, b.clause(c))
	}
	return out
}

// readQuery evaluates the query: the --query file if there is one, else
// the program's `?-` goals or main/0.
func readQuery(prog *program, ops opTable, opts Options, errs *diag.List) []fact {
	q := &queryReader{errs: errs, prog: prog}
	if opts.Query == "" {
		q.goals(prog.query)
		return q.facts
	}
	src, err := os.ReadFile(opts.Query)
	if err != nil {
		errs.Add(diag.Pos{File: opts.Query}, "%v", err)
		return nil
	}
	for _, c := range parseClauses(opts.Query, src, ops, errs) {
		if is(c, "?-", 1) || is(c, ":-", 1) {
			q.goals(conjuncts(c.(*compound).args[0]))
			continue
		}
		q.goals(conjuncts(c)) // a line may hold several goals, as a query does
	}
	return q.facts
}
