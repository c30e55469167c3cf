// Package trs is gpuc's frontend for term rewrite systems (grammars/TRS.g4
// has both accepted notations: the paper's sort/var/eqn/input sections and
// the TPDB's WST format). It parses and sort-checks a .trs file and lowers
// it into a module at the SPMD level of gpuc's IR: a term store in device
// buffers, a rewrite step generated from the rules, and a fixpoint loop
// that the shared passes turn into host loops or a cooperative kernel
// (Note [Rewriting on the device] in lower.go).
//
// The package also gives the checked System to gpuc's other users of a
// TRS: the CPU rewriter (package trs/rewrite) and the Maude translation
// (package trs/maude), which with `gpuc run` are the three oracles that
// agree on every example.
//
// It is not a general rewriting engine: strategies other than innermost,
// equational theories (AC) and the WST format's conditional rules are
// refused. REC's conditional rules are unravelled into unconditional
// ones (Note [Conditional rules]).
package trs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gpuc/frontends/syntax"
	"gpuc/frontends/trs/parser"
	"gpuc/internal/diag"
	"gpuc/internal/enum"
	"gpuc/ir"
)

// Options are the command-line options of the TRS frontend.
type Options struct {
	// Input is the input term (--input), in the file's notation; it
	// replaces the file's input section and is required for WST files.
	Input string
	// InputName names Input in diagnostics; "--input" if empty.
	InputName string
	// Capacity is the default number of term slots, the CAPACITY
	// parameter (--capacity). 0 fits the store to the device instead:
	// CAPACITY is then the most slots, up to MaxCapacity, whose buffers
	// take at most CapacityFit of the device's free memory.
	Capacity int64
	// Print is how the program prints the normal form: PrintTerm (or "")
	// or PrintSummary, its size and hash (--print); the PRINT parameter.
	Print PrintMode
	// Stats makes the program print its statistics (--stats); the STATS
	// parameter.
	Stats bool
	// Trace makes the program print the per-iteration trace (--trace);
	// the TRACE parameter.
	Trace bool
	// World builds a program for a world of DEVICES devices, each
	// owning and rewriting its part of the store (--world; Note [TRS on
	// several devices]). CAPACITY is then per device.
	World bool
}

// PrintMode is how a normal form is printed: the term, or its size and
// hash.
type PrintMode string

const (
	PrintTerm    PrintMode = "term"
	PrintSummary PrintMode = "summary"
)

func (p PrintMode) String() string { return string(p) }

// Type names the flag's value in help.
func (PrintMode) Type() string { return "mode" }

// Set parses a mode, as a flag's value.
func (p *PrintMode) Set(s string) error {
	return enum.Set(p, s, PrintTerm, PrintSummary)
}

// A store that --capacity does not size is fitted to the device (Note
// [Fitted parameters] in package ir): CAPACITY is the most slots, up to
// MaxCapacity, for which the device buffers take at most CapacityFit of
// the free device memory as the program starts. The host's copies of the
// store (the h_* arrays), which are host memory, do not count.
const (
	// MaxCapacity is the most slots: slot numbers are i32, and 2^30 leaves
	// headroom for the arithmetic on them.
	MaxCapacity = 1 << 30
	// CapacityFit leaves a fifth of the free memory to the CUDA context,
	// the kernels' local memory and the allocator's rounding.
	CapacityFit = 0.8
)

// Load reads and checks a .trs file; file names it in diagnostics. The
// error, if any, is a diag.List holding every error found, sorted by
// position.
func Load(file string, src []byte, opts Options) (sys *System, err error) {
	defer syntax.Recover(file, &err)
	var errs diag.List
	b := &builder{file: file, errs: &errs}
	src = syntax.StripBOM(src)
	if recOf(src) { // Note [REC]
		var fatal bool
		if src, b.ops2008, fatal = recDefects(file, src, &errs); fatal {
			return nil, capped(errs)
		}
		rec := &recSource{}
		src = recQueries(file, src, &errs)    // Note [REC-2008 queries]
		src = recJuxtaposed(file, src, &errs) // Note [REC discipline]
		named := len(errs)                    // defects named where they are; the checks go on
		rec.expand(file, src, 0, &errs)
		src, b.at = rec.text, rec.origin
		if len(errs) > named {
			return nil, capped(errs)
		}
	}
	named := len(errs)
	tree, perrs := parse(file, src, func(p *parser.TRSParser) syntax.Context { return p.File() })
	for _, e := range perrs {
		errs.Add(b.mapPos(e.Pos), "%s", e.Msg)
	}
	if len(errs) > named {
		return nil, capped(errs)
	}
	f := b.program(tree.(parser.IFileContext))
	var input *term
	if opts.Input != "" {
		where := opts.InputName
		if where == "" {
			where = "--input"
		}
		t, ierrs := parse(where, []byte(opts.Input), func(p *parser.TRSParser) syntax.Context { return p.InputTerm() })
		errs = append(errs, ierrs...)
		if len(ierrs) == 0 {
			input = (&builder{file: where, errs: &errs}).wterm(t.(parser.IInputTermContext).Wterm())
		}
	}
	if len(errs) == named {
		c := newChecker(&errs, ir.ModuleName(file), f.notation == wstNotation)
		c.sys.REC = f.notation == recNotation
		sys = c.check(f, input)
	}
	if len(errs) > 0 {
		return nil, capped(errs)
	}
	return sys, nil
}

// maxErrors is the most errors reported: a syntax error can set off
// thousands as the parser recovers.
const maxErrors = 20

// capped sorts errs and cuts the list after maxErrors.
func capped(errs diag.List) diag.List {
	errs.Sort()
	if len(errs) > maxErrors {
		errs = append(errs[:maxErrors], diag.Errorf(errs[maxErrors].Pos, "too many errors"))
	}
	return errs
}

// InputBeside reads the input term that a .trs file may keep beside it,
// in NAME.input for NAME.trs, which stands in for --input (the examples
// of WST systems keep theirs so). It returns "" if there is none.
func InputBeside(file string) (input, name string, err error) {
	name = strings.TrimSuffix(file, filepath.Ext(file)) + ".input"
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	return strings.TrimSpace(string(data)), name, nil
}

// Parse reads a .trs file and lowers it to an SPMD-level module.
func Parse(file string, src []byte, opts Options) (*ir.Module, error) {
	if opts.Capacity < 0 {
		return nil, diag.List{diag.Errorf(syntax.FileStart(file), "--capacity=%d: want a number of term slots, 0 to fit the store to the device", opts.Capacity)}
	}
	sys, err := Load(file, src, opts)
	if err != nil {
		return nil, err
	}
	return Lower(sys, opts)
}

// tokenWords names TRS's tokens in words for syntax errors: its keywords
// are names too wherever a name may stand (the name and recName rules of
// grammars/TRS.g4), so an expected set that holds them wants a name.
var tokenWords = map[string]string{
	"WORD": "a name", "OPSYM": "a name", "SORT": "a name", "STRUCT": "a name", "VAR": "a name",
	"EQN": "a name", "INPUT": "a name", "SORTS": "a name", "CONS": "a name", "OPNS": "a name",
	"VARS": "a name", "EVAL": "a name", "IF": "a name",
	"'SORTS'": "a name", "'CONS'": "a name", "'OPNS'": "a name", "'VARS'": "a name", "'EVAL'": "a name", "'if'": "a name",
	"RULES": "RULES", "ARROW": "'->'", "REC_SPEC": "REC-SPEC", "END_SPEC": "END-SPEC",
	"ANDIF": "'and-if'", "JOIN": "'-><-'", "NOJOIN": "'->/<-'",
}

// parse runs the ANTLR parser from the rule that start picks.
func parse(file string, src []byte, start func(*parser.TRSParser) syntax.Context) (syntax.Context, diag.List) {
	lexer := parser.NewTRSLexer(syntax.Input(string(src)))
	stream := syntax.Tokens(lexer)
	p := parser.NewTRSParser(stream)
	errs := syntax.Setup(file, lexer, p)
	errs.Words = tokenWords
	if deep := syntax.CheckNesting(file, stream, syntax.Nesting{BracketsOnly: true}); deep != nil {
		return nil, deep
	}
	tree := start(p)
	return tree, errs.List
}
