package fork

import (
	"regexp"
	"strings"

	"gpuc/frontends/fork/parser"
	"gpuc/frontends/syntax"
	"gpuc/internal/diag"
)

// Note [Preprocessor lines]
//
// Fork sources written for the SB-PRAM tool chain start with #include
// lines, which the lexer skips. Of the other directives gpuc reads simple
// object-like macros, `#define NAME tokens` and `#undef NAME`, which
// stand for their tokens from the line after the #define, as in C; a
// macro's tokens are expanded in turn, except the macro itself. #include
// and #pragma are ignored; any other directive, and a function-like
// macro, is refused with a positioned error, where it used to be silently
// ignored. The directives are found by a scan that skips comments,
// strings and character literals as the lexer does, and the expansion
// happens between the lexer and the parser, so that every token keeps a
// position: an expanded token stands at the macro's use.

// directive is a preprocessor line: '#' up to the end of the line.
type directive struct {
	pos  diag.Pos
	off  int // its offset in the source
	text string
}

// directives scans src for preprocessor lines, skipping comments, strings
// and character literals as the lexer does.
func directives(file, src string) []directive {
	var out []directive
	line, col := 1, 1
	advance := func(i int) {
		if src[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' && src[i] != '\r' {
				advance(i)
				i++
			}
			continue
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return out // the lexer reports it
			}
			for j := i; j < i+end+4; j++ {
				advance(j)
			}
			i += end + 4
			continue
		case c == '"' || c == '\'':
			advance(i)
			i++
			for i < len(src) && src[i] != c && src[i] != '\n' {
				if src[i] == '\\' && i+1 < len(src) && src[i+1] != '\n' {
					advance(i)
					i++
				}
				advance(i)
				i++
			}
			if i < len(src) && src[i] == c {
				advance(i)
				i++
			}
			continue
		case c == '#':
			end := strings.IndexAny(src[i:], "\r\n")
			if end < 0 {
				end = len(src) - i
			}
			out = append(out, directive{pos: diag.Pos{File: file, Line: line, Col: col}, off: i, text: src[i : i+end]})
			col += end
			i += end
			continue
		}
		advance(i)
		i++
	}
	return out
}

// macro is an object-like macro: its tokens, where it holds.
type macro struct {
	name     string
	tokens   []syntax.Token
	from, to int // the source offsets where it is defined
}

var (
	directiveName = regexp.MustCompile(`^#\s*([A-Za-z_]\w*)?`)
	defineLine    = regexp.MustCompile(`^#\s*define\s+([A-Za-z_]\w*)(\(?)(.*)$`)
	undefLine     = regexp.MustCompile(`^#\s*undef\s+([A-Za-z_]\w*)\s*$`)
)

// macros reads the directives of src into macros, reporting those gpuc
// refuses (Note [Preprocessor lines]).
func macros(file, src string, errs *diag.List) map[string][]*macro {
	out := map[string][]*macro{}
	for _, d := range directives(file, src) {
		name := directiveName.FindStringSubmatch(d.text)[1]
		switch name {
		case "include", "pragma":
		case "define":
			m := defineLine.FindStringSubmatch(d.text)
			switch {
			case m == nil:
				errs.Add(d.pos, "#define wants a name")
			case m[2] == "(":
				errs.Add(d.pos, "function-like macro %s is not supported; gpuc reads object-like macros, #define NAME VALUE", m[1])
			case strings.HasSuffix(strings.TrimRight(m[3], " \t"), "\\"):
				errs.Add(d.pos, "macro %s continues on the next line, which gpuc does not read", m[1])
			default:
				if defs := out[m[1]]; len(defs) > 0 && defs[len(defs)-1].to == len(src) {
					defs[len(defs)-1].to = d.off
				}
				col := d.pos.Col + len(d.text) - len(m[3])
				out[m[1]] = append(out[m[1]], &macro{name: m[1], tokens: lexBody(file, m[3], d.pos.Line, col, errs), from: d.off, to: len(src)})
			}
		case "undef":
			m := undefLine.FindStringSubmatch(d.text)
			if m == nil {
				errs.Add(d.pos, "#undef wants a name")
				continue
			}
			if defs := out[m[1]]; len(defs) > 0 && defs[len(defs)-1].to == len(src) {
				defs[len(defs)-1].to = d.off
			}
		default:
			errs.Add(d.pos, "preprocessor directive %s is not supported; gpuc reads #define NAME VALUE and #undef NAME, and ignores #include and #pragma", strings.Fields(d.text)[0])
		}
	}
	return out
}

// lexBody lexes a macro's tokens, positioned where they stand in the
// #define line.
func lexBody(file, body string, line, col int, errs *diag.List) []syntax.Token {
	pad := strings.Repeat(" ", col-1)
	lexer := parser.NewForkLexer(syntax.Input(pad + body))
	listener := syntax.NewErrors(file)
	lexer.RemoveErrorListeners()
	lexer.AddErrorListener(listener)
	var toks []syntax.Token
	for tok := lexer.NextToken(); tok.GetTokenType() != syntax.EOF; tok = lexer.NextToken() {
		toks = append(toks, tok)
	}
	for _, e := range listener.List {
		e.Pos.Line = line
		*errs = append(*errs, e)
	}
	return toks
}

// maxExpansion bounds the tokens that macros expand to, which macros that
// double each other would make exponential.
const maxExpansion = 1 << 22

// expander is a token source that expands macros between the lexer and
// the parser (Note [Preprocessor lines]).
type expander struct {
	*parser.ForkLexer
	file    string
	macros  map[string][]*macro
	pending []syntax.Token // expanded tokens still to hand out, the next last
	made    int
	errs    *diag.List
}

// NextToken hands out the next token, expanding macros.
func (x *expander) NextToken() syntax.Token {
	for {
		var tok syntax.Token
		if n := len(x.pending); n > 0 {
			tok, x.pending = x.pending[n-1], x.pending[:n-1]
		} else {
			tok = x.ForkLexer.NextToken()
		}
		m := x.active(tok)
		if m == nil {
			return tok
		}
		if x.made += len(m.tokens); x.made > maxExpansion {
			if x.made-len(m.tokens) <= maxExpansion {
				x.errs.Add(syntax.Pos(x.file, tok), "macros expand to more than %d tokens", maxExpansion)
			}
			continue
		}
		// Push the macro's tokens, positioned at the use, in reverse.
		for i := len(m.tokens) - 1; i >= 0; i-- {
			b := m.tokens[i]
			x.pending = append(x.pending, &expanded{
				Token: syntax.Retoken(b, tok.GetLine(), tok.GetColumn()),
				from:  m, parent: tok,
			})
		}
	}
}

// expanded is a token that a macro expanded to; it is not expanded
// again by the macro it came from or by any that expanded to that one.
type expanded struct {
	syntax.Token
	from   *macro
	parent syntax.Token
}

// active returns the macro that tok names where it stands, if any.
func (x *expander) active(tok syntax.Token) *macro {
	if tok.GetTokenType() != parser.ForkLexerIDENT {
		return nil
	}
	off := tok.GetStart()
	for p := tok; ; {
		e, ok := p.(*expanded)
		if !ok {
			off = p.GetStart()
			break
		}
		if e.from.name == tok.GetText() {
			return nil // a macro does not expand inside itself
		}
		p = e.parent
	}
	for _, m := range x.macros[tok.GetText()] {
		if m.from < off && off < m.to {
			return m
		}
	}
	return nil
}

// typeWords are the tokens that a pointer declarator's * can follow.
var typeWords = map[string]bool{"void": true, "bool": true, "char": true, "int": true, "unsigned": true, "long": true, "float": true, "double": true}

// pointers finds pointer types, a type word followed by *, in a program
// that did not parse, and reports them as the package doc promises, in
// place of the syntax errors they cause.
func pointers(file string, stream syntax.Stream) diag.List {
	var errs diag.List
	toks := stream.GetAllTokens()
	for i := 1; i < len(toks); i++ {
		if toks[i].GetText() == "*" && typeWords[toks[i-1].GetText()] {
			errs.Add(syntax.Pos(file, toks[i]), "pointers are outside the Fork subset")
		}
	}
	return errs
}
