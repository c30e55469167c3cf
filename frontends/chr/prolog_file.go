package chr

import (
	"bytes"
	"regexp"

	"gpuc/frontends/syntax"
	"gpuc/internal/diag"
	"gpuc/ir"
)

// Note [CHR in .pl files]
//
// The CHR book's programs and most SWI-Prolog CHR code live in .pl files,
// beside plain Prolog. A .pl file is read as CHR when it declares
// constraints, `:- chr_constraint` (or the older `:- constraints`) at the
// start of a line outside comments; the driver's extension table sends
// .pl files to ParseProlog, which refuses the others with a diagnostic
// rather than reading Prolog as CHR.

// chrDecl is a constraint declaration at the start of a line.
var chrDecl = regexp.MustCompile(`(?m)^[ \t]*:-[ \t]*(chr_constraint|constraints)\b`)

// DeclaresConstraints reports whether a Prolog source declares CHR
// constraints (Note [CHR in .pl files]).
func DeclaresConstraints(src []byte) bool {
	return chrDecl.Match(blankPrologComments(syntax.StripBOM(src)))
}

// ParseProlog reads a .pl file as a CHR program if it declares
// constraints, and refuses it otherwise (Note [CHR in .pl files]).
func ParseProlog(file string, src []byte, opts Options) (*ir.Module, error) {
	if !DeclaresConstraints(src) {
		return nil, diag.List{diag.Errorf(syntax.FileStart(file), "a .pl file is read as CHR when it declares constraints with :- chr_constraint; this one declares none")}
	}
	return Parse(file, src, opts)
}

// blankPrologComments blanks % line comments and /* */ block comments,
// keeping the line structure; quoted text is left alone.
func blankPrologComments(src []byte) []byte {
	out := bytes.Clone(src)
	var quote byte
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case quote != 0:
			if c == quote || c == '\n' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '%':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			for ; i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/'); i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if i+1 < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		}
	}
	return out
}
