// Package syntax holds what every ANTLR-based gpuc frontend needs around its
// generated parser: positioned syntax errors and token positions.
//
// It is the one place outside the generated parsers that imports the ANTLR
// runtime; lowering code works on parse-tree contexts and diag positions.
package syntax

import (
	"fmt"
	"strings"

	"github.com/antlr4-go/antlr/v4"

	"gpuc/internal/diag"
)

// Errors is an ANTLR error listener that collects syntax errors as
// positioned diagnostics. Add it to both the lexer and the parser.
type Errors struct {
	*antlr.DefaultErrorListener
	File string
	List diag.List
}

// NewErrors returns a listener for the named file.
func NewErrors(file string) *Errors {
	return &Errors{DefaultErrorListener: antlr.NewDefaultErrorListener(), File: file}
}

// SyntaxError records one error; ANTLR's columns count from 0, ours from 1.
func (e *Errors) SyntaxError(_ antlr.Recognizer, offending any, line, col int, msg string, _ antlr.RecognitionException) {
	// Keep one error per position: ANTLR's recovery can report twice.
	pos := diag.Pos{File: e.File, Line: line, Col: col + 1}
	if n := len(e.List); n > 0 && e.List[n-1].Pos == pos {
		return
	}
	e.List.Add(pos, "syntax error: %s", cleanMessage(msg, offending))
}

// cleanMessage rewrites ANTLR's wording into the compiler's: what was
// expected in words (expectedWords) rather than a token set.
func cleanMessage(msg string, offending any) string {
	msg = strings.ReplaceAll(msg, "<EOF>", "end of file")
	if tok, ok := offending.(antlr.Token); ok && tok.GetTokenType() == antlr.TokenEOF {
		msg = strings.ReplaceAll(msg, "'end of file'", "end of file")
	}
	if i := strings.Index(msg, " expecting "); i >= 0 {
		msg = msg[:i] + ", expected " + expectedWords(msg[i+len(" expecting "):])
	}
	return msg
}

// tokenWords name the grammars' token kinds in words.
var tokenWords = map[string]string{
	"IDENT": "a name", "NAME": "a name", "WORD": "a name", "VAR": "a variable",
	"INT": "an integer", "FLOAT": "a number", "CHAR": "a character",
	"STRING": "a string", "QUOTED": "a quoted atom", "SYMBOL": "an operator", "OPSYM": "an operator",
	"end of file": "the end of the file",
}

// expectedWords puts ANTLR's expected set, "{'(', IDENT, ...}" or one
// token, in words: "an expression" where a name, a number and '(' may
// all start what comes (as where an expression is due), else the
// alternatives, at most five, named in words.
func expectedWords(set string) string {
	set = strings.TrimSpace(set)
	set = strings.TrimSuffix(strings.TrimPrefix(set, "{"), "}")
	var items []string
	for _, it := range strings.Split(set, ",") {
		if it = strings.TrimSpace(it); it != "" {
			items = append(items, it)
		}
	}
	has := func(x string) bool {
		for _, it := range items {
			if it == x {
				return true
			}
		}
		return false
	}
	if (has("IDENT") || has("NAME") || has("VAR")) && (has("INT") || has("FLOAT")) && has("'('") {
		return "an expression"
	}
	var words []string
	for _, it := range items {
		if w, ok := tokenWords[it]; ok {
			it = w
		}
		words = append(words, it)
	}
	switch {
	case len(words) == 0:
		return "something else"
	case len(words) == 1:
		return words[0]
	case len(words) > 5:
		return strings.Join(words[:5], ", ") + " or another token"
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Setup attaches the listener to a lexer and parser, replacing ANTLR's
// console listeners, and returns the listener.
func Setup(file string, lexer antlr.Lexer, parser antlr.Parser) *Errors {
	errs := NewErrors(file)
	lexer.RemoveErrorListeners()
	lexer.AddErrorListener(errs)
	parser.RemoveErrorListeners()
	parser.AddErrorListener(errs)
	return errs
}

// Pos returns the position of a token in file.
func Pos(file string, tok antlr.Token) diag.Pos {
	if tok == nil {
		return diag.Pos{File: file}
	}
	return diag.Pos{File: file, Line: tok.GetLine(), Col: tok.GetColumn() + 1}
}

// CtxPos returns the position where a parse-tree node starts.
func CtxPos(file string, ctx antlr.ParserRuleContext) diag.Pos {
	return Pos(file, ctx.GetStart())
}

// NodePos returns the position of a terminal node.
func NodePos(file string, n antlr.TerminalNode) diag.Pos {
	if n == nil {
		return diag.Pos{File: file}
	}
	return Pos(file, n.GetSymbol())
}

// Context, Terminal and Token are the ANTLR parse-tree and token types
// that lowering code names, so that only this package and the generated
// parsers import the runtime.
type (
	Context  = antlr.ParserRuleContext
	Terminal = antlr.TerminalNode
	Token    = antlr.Token
)

// Tokens makes the token stream that a generated parser reads from lexer.
func Tokens(lexer antlr.Lexer) antlr.TokenStream {
	return antlr.NewCommonTokenStream(lexer, antlr.TokenDefaultChannel)
}

// Input makes an ANTLR character stream of src.
func Input(src string) antlr.CharStream { return antlr.NewInputStream(src) }

// Recover turns a panic inside a parse into an internal-error diagnostic so
// that no input ever crashes the compiler.
func Recover(file string, err *error) {
	if r := recover(); r != nil {
		*err = diag.List{diag.Errorf(diag.Pos{File: file}, "internal error while parsing: %v", r)}
	}
}

// Describe names a token for messages: 'x' for literals, "end of file" for EOF.
func Describe(tok antlr.Token) string {
	if tok == nil || tok.GetTokenType() == antlr.TokenEOF {
		return "end of file"
	}
	return fmt.Sprintf("%q", tok.GetText())
}
