// Package diag holds source positions and positioned error lists.
//
// Every gpuc diagnostic reads "file:line:col: error: message", one per line,
// like gcc and go vet. Frontends, the verifier, passes and the interpreter all
// report through this package so that the CLI prints them the same way.
package diag

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a position in a source file. Lines and columns count from 1; the
// zero Pos means "unknown", for nodes that passes synthesize.
type Pos struct {
	File      string
	Line, Col int
}

// IsValid reports whether p names a real place in a file.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String renders p as file:line:col, or as much of it as is known.
func (p Pos) String() string {
	switch {
	case !p.IsValid() && p.File == "":
		return "<unknown>"
	case !p.IsValid():
		return p.File
	case p.File == "":
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Before orders positions by file, line and column.
func (p Pos) Before(q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// Error is one positioned diagnostic.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: error: %s", e.Pos, e.Msg) }

// Errorf makes a positioned error.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// List collects errors. A nil or empty List is no error; use Err to turn a
// List into an error value.
type List []*Error

// Add appends a positioned error.
func (l *List) Add(pos Pos, format string, args ...any) {
	*l = append(*l, Errorf(pos, format, args...))
}

// Sort orders the errors by position, keeping the order of errors at one
// position, and drops exact duplicates.
func (l *List) Sort() {
	sort.SliceStable(*l, func(i, j int) bool { return (*l)[i].Pos.Before((*l)[j].Pos) })
	out := (*l)[:0]
	for i, e := range *l {
		if i > 0 && *e == *(*l)[i-1] {
			continue
		}
		out = append(out, e)
	}
	*l = out
}

// Err returns nil for an empty list and the list itself otherwise.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Error prints one diagnostic per line.
func (l List) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}
