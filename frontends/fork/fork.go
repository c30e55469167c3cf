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
// inlined, and a sync function that calls itself becomes a loop over its
// recursion levels (Note [Group recursion]); other functions called in
// parallel code become device functions.
//
// Multiprefix operations (mpadd and friends) follow the SB-PRAM in
// synchronous code: the processors of one step are served in the order of
// $. In farm and seq bodies, which have no steps, they are atomic
// fetch-and-adds (fetch-and-max, ...) that serve the processors in any
// order (Note [Asynchronous multiprefix]).
//
// error("message") stops the program: it prints "error: message" on
// standard error and exits with status 1, in `gpuc run` and in the
// compiled program alike (the IR's raise). It stands wherever a statement
// may, in sequential code, in parallel code and in functions called from
// either; the message is one string literal, printed as it is.
//
// # Recursive sync functions
//
// A sync function may call itself in the divide-and-conquer shape of
// parallel quicksort: the last statement of its body is a fork, and every
// recursive call ends a path through the fork's body (early returns before
// the fork are allowed, where the whole group returns):
//
//	sync void qsort(sh int lo, sh int hi) {
//	  sh int nless;
//	  if (hi - lo < 2) return;
//	  ... partition ...
//	  fork(2; @ = $ < p ? 0 : 1; $ = $ < p ? $ : $ - p)
//	    if (@ == 0) qsort(lo, lo + nless); else qsort(lo + nless + 1, hi);
//	}
//
// All groups of one recursion level run together, in one kernel (Note
// [Group recursion]). This asks of the program:
//
//   - The fork's subgroups are contiguous runs of $, numbered by
//     increasing @, each with $ from 0: for consecutive processors of the
//     dividing group, either @ stays and $ grows by one, or @ grows and $
//     is 0, and the first has $ == 0. Proportional splits such as the one
//     above do that; other forks stop the program with an error at run
//     time.
//   - The function returns void, and no other sync function calls it
//     back (no mutual recursion).
//   - It is called by a whole group: from start or from another recursive
//     sync function, not under a condition that differs between the
//     group's processors (a private condition), nor in a fork body; and
//     start's processor count is a constant or parameter expression.
//   - Inside it, return and groupsize() stand outside private conditions
//     and ordinary fork bodies, multiprefix operations with a result stand
//     in farm, where they are atomic fetch-and-adds (Note [Asynchronous
//     multiprefix]), arrays of its own are not passed to other functions,
//     and nothing is printed.
//
// A sh parameter of a sync function holds the group's argument; each
// processor keeps a copy, so the group must pass the same value and may
// not assign it.
//
// A sh variable declared in a fork body or in a branch of a private if
// has one instance per subgroup (Note [Subgroup instances]).
//
// It is not a C compiler: pointers, structs, strings other than printf
// formats and error messages, and private arrays are refused with a
// diagnostic.
package fork

import (
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
	// CRCW resolves concurrent writes in synchronous code: Priority (or
	// "", the default) makes the lowest $ win, Arbitrary lets any win.
	CRCW CRCW
	// World makes a program for a world of DEVICES devices (Note [Fork on
	// several devices] in passes/access.go): start's processors split
	// across them, and the shared variables distributed.
	World bool
}

// forkNesting is how Fork's tokens nest (Note [Nesting limit] in package
// syntax): statements that hold a statement nest like operators.
var forkNesting = syntax.Nesting{Seps: []string{",", ";"}, Words: []string{"if", "else", "while", "do", "for", "start", "seq", "farm", "fork", "sizeof"}}

// Parse reads a Fork program and lowers it to an SPMD-level module. file
// names it in diagnostics. The error, if any, is a diag.List holding every
// error found, sorted by position.
func Parse(file string, src []byte, opts Options) (m *ir.Module, err error) {
	defer syntax.Recover(file, &err)
	text := string(syntax.StripBOM(src))
	var errs diag.List
	defs := macros(file, text, &errs) // Note [Preprocessor lines]
	lexer := parser.NewForkLexer(syntax.Input(text))
	var tokens syntax.Lexer = lexer
	if len(defs) > 0 {
		tokens = &expander{ForkLexer: lexer, file: file, macros: defs, errs: &errs}
	}
	stream := syntax.Tokens(tokens)
	p := parser.NewForkParser(stream)
	syntaxErrs := syntax.Setup(file, lexer, p)
	if deep := syntax.CheckNesting(file, stream, forkNesting); deep != nil {
		return nil, deep
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	tree := p.Program()
	if len(syntaxErrs.List) > 0 {
		if ptrs := pointers(file, stream); len(ptrs) > 0 {
			return nil, ptrs
		}
		return nil, syntaxErrs.List
	}
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
