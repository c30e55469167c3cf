// Package syntax holds what every ANTLR-based gpuc frontend needs around its
// generated parser: positioned syntax errors and token positions.
//
// It is the one place outside the generated parsers that imports the ANTLR
// runtime; lowering code works on parse-tree contexts and diag positions.
package syntax

import (
	"bytes"
	"fmt"
	"slices"
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
	// Words, if set, names a grammar's own token kinds in words, before
	// the names every grammar shares (TRS's keywords, which are names too).
	Words map[string]string
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
	e.List.Add(pos, "syntax error: %s", cleanMessage(msg, offending, e.Words))
}

// cleanMessage rewrites ANTLR's wording into the compiler's, on one
// line: what was expected in words (expectedWords) rather than a token
// set, and a token-recognition error's raw text with its newlines escaped.
func cleanMessage(msg string, offending any, own map[string]string) string {
	msg = OneLine(strings.ReplaceAll(msg, "<EOF>", "end of file"))
	if tok, ok := offending.(antlr.Token); ok && tok.GetTokenType() == antlr.TokenEOF {
		msg = strings.ReplaceAll(msg, "'end of file'", "end of file")
	}
	if i := strings.Index(msg, " expecting "); i >= 0 {
		msg = msg[:i] + ", expected " + expectedWords(msg[i+len(" expecting "):], own)
	}
	if rest, ok := strings.CutPrefix(msg, "missing "); ok {
		if i := strings.LastIndex(rest, " at "); i > 0 {
			msg = "missing " + expectedWords(rest[:i], own) + rest[i:]
		}
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
// alternatives, at most five, named in words (own's first), each once.
func expectedWords(set string, own map[string]string) string {
	set = strings.TrimSpace(set)
	set = strings.TrimSuffix(strings.TrimPrefix(set, "{"), "}")
	items := splitSet(set)
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
		if w, ok := own[it]; ok {
			it = w
		} else if w, ok := tokenWords[it]; ok {
			it = w
		}
		if !slices.Contains(words, it) {
			words = append(words, it)
		}
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

// splitSet splits the inside of ANTLR's set at its commas, but not at a
// quoted ',' token: "',', ')', IDENT" is three items.
func splitSet(set string) []string {
	var items []string
	for set = strings.TrimSpace(set); set != ""; set = strings.TrimSpace(set) {
		end := strings.IndexByte(set, ',')
		if set[0] == '\'' {
			// A quoted token ends at the next quote not escaped.
			end = -1
			for i := 1; i < len(set); i++ {
				if set[i] == '\\' {
					i++
				} else if set[i] == '\'' {
					end = i + 1
					break
				}
			}
		}
		if end < 0 {
			end = len(set)
		}
		if it := strings.TrimSpace(set[:end]); it != "" {
			items = append(items, it)
		}
		set = strings.TrimPrefix(strings.TrimSpace(set[end:]), ",")
	}
	return items
}

// Setup attaches the listener to a lexer and parser, replacing ANTLR's
// console listeners, and returns the listener.
func Setup(file string, lexer antlr.Lexer, parser antlr.Parser) *Errors {
	errs := NewErrors(file)
	lexer.RemoveErrorListeners()
	lexer.AddErrorListener(errs)
	parser.RemoveErrorListeners()
	parser.AddErrorListener(errs)
	parser.SetErrorHandler(&recovery{DefaultErrorStrategy: antlr.NewDefaultErrorStrategy()})
	return errs
}

// Note [Deep recovery]
//
// ANTLR's recovery looks at the whole stack of open rules at each level
// it unwinds: to see whether inserting or deleting one token would do,
// and for the tokens that may follow, to resynchronise. An error under n
// open brackets therefore took time n^2: 19,000 of them, under the
// nesting limit, and no closing one, took over a minute (FuzzFork found
// it at 1,440). Where the first error is more than deepRecovery rules
// deep, the parser reports it and gives up: it skips to the end of the
// input, and each level unwinds in constant time. An error nearer the
// top recovers as ANTLR does, so the errors after it are reported too.

// deepRecovery is the rule depth past which a syntax error ends the parse.
const deepRecovery = 500

// recovery is ANTLR's error strategy but for deep errors (Note [Deep
// recovery]).
type recovery struct {
	*antlr.DefaultErrorStrategy
	bail bool
}

// deep reports whether the parse has given up: on the first error more
// than deepRecovery rules deep.
func (r *recovery) deep(p antlr.Parser) bool {
	if r.bail {
		return true
	}
	var c antlr.Tree = p.GetParserRuleContext()
	for n := 0; c != nil && n <= deepRecovery; n++ {
		c = c.GetParent()
	}
	r.bail = c != nil
	return r.bail
}

func (r *recovery) RecoverInline(p antlr.Parser) antlr.Token {
	if r.deep(p) {
		p.SetError(antlr.NewInputMisMatchException(p))
		return nil
	}
	return r.DefaultErrorStrategy.RecoverInline(p)
}

func (r *recovery) Recover(p antlr.Parser, e antlr.RecognitionException) {
	if !r.deep(p) {
		r.DefaultErrorStrategy.Recover(p, e)
		return
	}
	for p.GetTokenStream().LA(1) != antlr.TokenEOF {
		p.Consume()
	}
}

func (r *recovery) Sync(p antlr.Parser) {
	if !r.bail {
		r.DefaultErrorStrategy.Sync(p)
	}
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

// Context, Terminal, Token, Lexer and Stream are the ANTLR parse-tree,
// token and stream types that lowering code names, so that only this
// package and the generated parsers import the runtime.
type (
	Context  = antlr.ParserRuleContext
	Terminal = antlr.TerminalNode
	Token    = antlr.Token
	Lexer    = antlr.Lexer
	Stream   = *antlr.CommonTokenStream
)

// EOF is the token type of the end of the input.
const EOF = antlr.TokenEOF

// Tokens makes the token stream that a generated parser reads from lexer.
func Tokens(lexer Lexer) Stream {
	return antlr.NewCommonTokenStream(lexer, antlr.TokenDefaultChannel)
}

// Retoken is a copy of token tok with its position moved to line and
// col: a macro's token where the macro is used.
func Retoken(tok Token, line, col int) Token {
	return antlr.CommonTokenFactoryDEFAULT.Create(&antlr.TokenSourceCharStreamPair{}, tok.GetTokenType(), tok.GetText(),
		tok.GetChannel(), -1, -1, line, col)
}

// Retype is a copy of token tok, at the same place, of token type typ:
// a word that the program itself declares an operator (CHR's op/3).
func Retype(tok Token, typ int) Token {
	t := antlr.CommonTokenFactoryDEFAULT.Create(tok.GetSource(), typ, tok.GetText(),
		tok.GetChannel(), tok.GetStart(), tok.GetStop(), tok.GetLine(), tok.GetColumn())
	t.SetTokenIndex(tok.GetTokenIndex())
	return t
}

// OneLine escapes the line breaks and other control characters of a
// message's quoted source text, so that a diagnostic stays on one line.
func OneLine(msg string) string {
	if !strings.ContainsFunc(msg, isControl) {
		return msg
	}
	var b strings.Builder
	for _, r := range msg {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case isControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// BOM is the UTF-8 byte-order mark that some editors put at the start of
// a file.
const BOM = "\uFEFF"

// StripBOM drops a leading byte-order mark, which every frontend reads as
// nothing.
func StripBOM(src []byte) []byte { return bytes.TrimPrefix(src, []byte(BOM)) }

// Input makes an ANTLR character stream of src, without a leading
// byte-order mark.
func Input(src string) antlr.CharStream { return antlr.NewInputStream(strings.TrimPrefix(src, BOM)) }

// FileStart is the position of a file's first character: where a
// diagnostic about the whole file, such as an empty one, points.
func FileStart(file string) diag.Pos { return diag.Pos{File: file, Line: 1, Col: 1} }

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

// Note [Nesting limit]
//
// ANTLR's parsers recurse once per level of nesting, a bracket or an
// operator of a chain such as a, b, c or - - x, and take kilobytes of Go
// stack a level; the builders and checkers recurse over the tree again.
// A deeply nested input would run out of stack, which is a fatal error in
// Go, not a panic that Recover can catch. So every frontend fills its
// token stream first, which is linear, and refuses input that nests
// deeper than MaxNesting with a positioned error, before the parser
// starts. The measure is an upper bound on the parse's depth: open
// brackets, plus the operators of the chain that each open bracket is in
// the middle of; a separator (a statement's ; or an argument's ,) ends a
// chain, and an end token (a CHR clause's full stop) all of them.

// MaxNesting is the deepest nesting a frontend parses (Note [Nesting
// limit]).
const MaxNesting = 20000

// Nesting says how a frontend's tokens nest, by their text.
type Nesting struct {
	// Seps end an operator chain at their bracket level.
	Seps []string
	// Ends end every chain and close every bracket.
	Ends []string
	// Words are operators spelled as words, such as else or is; any
	// token spelled with symbols only is an operator.
	Words []string
	// BracketsOnly counts brackets alone, for languages without operator
	// chains.
	BracketsOnly bool
	// Limit is the deepest nesting allowed; 0 means MaxNesting.
	Limit int
}

// CheckNesting fills stream with every token of its source and reports
// the first place that nests deeper than MaxNesting (Note [Nesting
// limit]).
func CheckNesting(file string, stream Stream, n Nesting) diag.List {
	stream.Fill()
	limit := n.Limit
	if limit == 0 {
		limit = MaxNesting
	}
	chains := []int{0} // the operators of the chain at each open level
	sum := 0
	for _, tok := range stream.GetAllTokens() {
		text := tok.GetText()
		switch {
		case tok.GetTokenType() == antlr.TokenEOF:
		case text == "(" || text == "[" || text == "{":
			chains = append(chains, 0)
		case text == ")" || text == "]" || text == "}":
			if len(chains) > 1 {
				sum -= chains[len(chains)-1]
				chains = chains[:len(chains)-1]
			}
		case slices.Contains(n.Ends, strings.TrimSpace(text)):
			chains, sum = chains[:1], 0
			chains[0] = 0
		case slices.Contains(n.Seps, text):
			sum -= chains[len(chains)-1]
			chains[len(chains)-1] = 0
		case n.BracketsOnly:
			continue
		case isOperator(text) || slices.Contains(n.Words, text):
			chains[len(chains)-1]++
			sum++
		default:
			continue
		}
		if len(chains)-1+sum > limit {
			return diag.List{diag.Errorf(Pos(file, tok), "the input nests deeper than %d levels of brackets and operators, gpuc's limit", limit)}
		}
	}
	return nil
}

// isOperator reports whether a token is spelled with symbols only.
func isOperator(text string) bool {
	if text == "" {
		return false
	}
	for _, r := range text {
		if r < 0x80 && (r == '_' || r == '"' || r == '\'' || r == '`' || r == ' ' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') || r >= 0x80 {
			return false
		}
	}
	return true
}
