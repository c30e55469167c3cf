// Package fork is gpuc's frontend for Fork, the PRAM language of Keßler,
// Keller and Träff (grammars/Fork.g4 has the accepted subset). It parses a
// .fork file, checks it, and lowers it to a module at the SPMD level of
// gpuc's IR (Note [Levels] in package ir), which `gpuc run` executes as the
// PRAM reference and the passes lower for the GPU.
//
// The lowering follows the Fork-to-CUDA paper (papers/004): main and the
// functions it calls run on the host; start(P) S becomes a region of P
// virtual processors; synchronous code is lowered step by step with
// conservative grid barriers, so that it behaves as on a PRAM (Note
// [Steps]); private conditions split the group; sync functions are
// inlined; other functions called in parallel code become device
// functions.
//
// It is not a C compiler: pointers, structs, strings other than printf
// formats, private arrays, recursive sync functions and sh variables in
// fork bodies are refused with a diagnostic.
package fork

import (
	"github.com/antlr4-go/antlr/v4"

	"gpuc/frontends/fork/parser"
	"gpuc/frontends/syntax"
	"gpuc/internal/diag"
	"gpuc/ir"
)

// Options are the command-line options that shape the lowering.
type Options struct {
	// Procs is the number of processors of `start S` without a count: the
	// default of the PROCS parameter (1024 if 0).
	Procs int64
	// CRCW resolves concurrent writes in synchronous code: "priority" (or
	// "", the default) makes the lowest $ win, "arbitrary" lets any win.
	CRCW string
}

// Parse reads a Fork program and lowers it to an SPMD-level module. file
// names it in diagnostics. The error, if any, is a diag.List holding every
// error found, sorted by position.
func Parse(file string, src []byte, opts Options) (m *ir.Module, err error) {
	defer syntax.Recover(file, &err)
	lexer := parser.NewForkLexer(syntax.Input(string(src)))
	p := parser.NewForkParser(antlr.NewCommonTokenStream(lexer, antlr.TokenDefaultChannel))
	syntaxErrs := syntax.Setup(file, lexer, p)
	tree := p.Program()
	if len(syntaxErrs.List) > 0 {
		return nil, syntaxErrs.List
	}
	var errs diag.List
	prog := (&builder{file: file, errs: &errs}).program(tree)
	(&checker{file: file, errs: &errs, prog: prog}).check()
	if len(errs) == 0 {
		m = lower(file, prog, opts, &errs)
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return m, nil
}
