package trs

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"gpuc/frontends/syntax"
	"gpuc/frontends/trs/parser"
	"gpuc/internal/diag"
)

// Note [REC]
//
// The REC format (the Rewrite Engines Competition's, 2017) is the third
// notation of a .trs file, and the one of .rec files: a sorted system like
// the paper's, whose constants are written without parentheses, as in
// WST. Two of its features sit outside the grammar:
//
//   - comments run from % to the end of the line; they are blanked with
//     spaces before lexing, which keeps every position, since % is also an
//     operator character of WST;
//   - an `#include "lib.rec"` line stands for the lines of that file, as
//     in C, from the including file's directory or, as the competition's
//     benchmarks are laid out, from REC-LIB beside it. The expanded text
//     keeps the origin of each line, so that diagnostics name the file
//     and line they come from. Only regular files are included, and the
//     expansion is bounded in depth, in the number of includes and in
//     size, since a few includes nested deep multiply the text.
//
// REC's rules do not overlap, so first-match in file order, which gpuc
// applies, is the only match. Conditional rules are unravelled by the
// checker (Note [Conditional rules]). EVAL may list several terms; gpuc
// evaluates one, the only one or the one --input gives.

// recOf reports whether src is a REC specification: its first word,
// comments aside, is REC-SPEC.
func recOf(src []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(blankComments(src)), []byte("REC-SPEC"))
}

// blankComments replaces every % comment of src with spaces.
func blankComments(src []byte) []byte {
	out := append([]byte{}, src...)
	for i := 0; i < len(out); i++ {
		if out[i] != '%' {
			continue
		}
		for ; i < len(out) && out[i] != '\n' && out[i] != '\r'; i++ {
			out[i] = ' '
		}
	}
	return out
}

// recInclude is an #include line.
var recInclude = regexp.MustCompile(`^\s*#include\s+("[^"]*")\s*$`)

// origin is where a line of an expanded REC file comes from.
type origin struct {
	file string
	line int
}

// recSource is a REC file with its includes expanded (Note [REC]).
type recSource struct {
	text     []byte
	lines    []origin // lines[i] is the origin of line i+1 of text
	includes int      // the #include lines expanded so far
	full     bool     // a limit was reached and reported
}

// Limits of the expansion (Note [REC]): includes nested maxIncludes deep
// could multiply the text exponentially, so the expanded text and the
// number of includes expanded are bounded as well.
const (
	// MaxRECText is the most bytes of expanded text.
	MaxRECText = 64 << 20
	// maxIncludeCount is the most #include lines expanded in all.
	maxIncludeCount = 10000
)

// expand reads src, from file, into r: comments blanked and each
// #include line replaced by the file it names, expanded in turn.
func (r *recSource) expand(file string, src []byte, depth int, errs *diag.List) {
	src = blankComments(syntax.StripBOM(src))
	for i, line := range bytes.SplitAfter(src, []byte("\n")) {
		if len(line) == 0 || r.full {
			continue
		}
		if len(r.text)+len(line) > MaxRECText {
			r.full = true
			errs.Add(diag.Pos{File: file, Line: i + 1, Col: 1}, "the expanded specification exceeds %d MiB", MaxRECText>>20)
			continue
		}
		m := recInclude.FindSubmatchIndex(bytes.TrimRight(line, "\r\n"))
		if m == nil {
			r.text = append(r.text, line...)
			if line[len(line)-1] != '\n' {
				r.text = append(r.text, '\n')
			}
			r.lines = append(r.lines, origin{file, i + 1})
			continue
		}
		pos := diag.Pos{File: file, Line: i + 1, Col: m[2] + 1}
		if r.includes++; r.includes > maxIncludeCount {
			r.full = true
			errs.Add(pos, "more than %d #include lines expanded in all", maxIncludeCount)
			continue
		}
		path, lib, ok := findInclude(file, string(line[m[2]:m[3]]), pos, depth, errs)
		if ok {
			r.expand(path, lib, depth+1, errs)
		}
	}
}

// findInclude reads the file that an #include at pos names (quoted): from
// the including file's directory, or from REC-LIB beside it.
func findInclude(file, quoted string, pos diag.Pos, depth int, errs *diag.List) (string, []byte, bool) {
	name, err := strconv.Unquote(quoted)
	if err != nil || name == "" {
		errs.Add(pos, "bad file name %s", quoted)
		return "", nil, false
	}
	if depth >= maxIncludes {
		errs.Add(pos, "#include nested more than %d deep", maxIncludes)
		return "", nil, false
	}
	dir := filepath.Dir(file)
	for _, p := range []string{filepath.Join(dir, name), filepath.Join(dir, "..", "REC-LIB", name)} {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			continue
		case !fi.Mode().IsRegular():
			errs.Add(pos, "%s is not a regular file", p)
			return "", nil, false
		case fi.Size() > MaxRECText:
			errs.Add(pos, "%s is larger than %d MiB", p, MaxRECText>>20)
			return "", nil, false
		}
		if src, err := readAtMost(p, MaxRECText); err == nil {
			return p, src, true
		}
	}
	errs.Add(pos, "cannot find %s in %s or %s", name, dir, filepath.Join(dir, "..", "REC-LIB"))
	return "", nil, false
}

// readAtMost reads at most limit bytes of a file, which may grow after
// it was checked.
func readAtMost(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// offsetPos is the position of byte at of src.
func offsetPos(file string, src []byte, at int) diag.Pos {
	return diag.Pos{File: file, Line: bytes.Count(src[:at], []byte("\n")) + 1, Col: at - bytes.LastIndexByte(src[:at], '\n')}
}

// origin maps a position in the expanded text to the file it came from.
func (r *recSource) origin(p diag.Pos) diag.Pos {
	if p.Line < 1 || p.Line > len(r.lines) {
		if n := len(r.lines); n > 0 && p.Line > n { // the end of the file
			return diag.Pos{File: r.lines[n-1].file, Line: r.lines[n-1].line + 1, Col: 1}
		}
		return p
	}
	o := r.lines[p.Line-1]
	return diag.Pos{File: o.file, Line: o.line, Col: p.Col}
}

// maxIncludes bounds the nesting of #include, which a file including
// itself would make endless.
const maxIncludes = 16

// recSpec adds the sections of a REC specification to f.
func (b *builder) recSpec(f *file, ctx *parser.RecSpecContext) {
	for _, s := range ctx.AllRecSection() {
		b.recSection(f, s)
	}
	for _, t := range ctx.AllRterm() {
		f.inputs = append(f.inputs, b.rterm(t))
	}
}

func (b *builder) recSection(f *file, ctx parser.IRecSectionContext) {
	switch s := ctx.(type) {
	case *parser.RecSortsContext:
		for _, n := range s.AllRecName() {
			f.sorts = append(f.sorts, &sortDecl{ident: b.recName(n)})
		}
	case *parser.RecOpsContext:
		isCons := s.CONS() != nil // a scan of the section's children: once, not per symbol
		for _, op := range s.AllRecOp() {
			names := op.AllRecName()
			sym := &symDecl{ident: b.recName(names[0])}
			for _, a := range names[1 : len(names)-1] {
				sym.args = append(sym.args, b.recName(a))
			}
			f.ops = append(f.ops, recOp{sym: sym, result: b.recName(names[len(names)-1]), cons: isCons})
		}
	case *parser.RecVarSectionContext:
		for _, d := range s.AllRecVars() {
			f.vars = append(f.vars, typedVars(d.AllRecName(), b.recName))
		}
	case *parser.RecRulesContext:
		for _, r := range s.AllRecRule() {
			d := &ruleDecl{pos: b.pos(r), lhs: b.rterm(r.GetLhs()), rhs: b.rterm(r.GetRhs())}
			for _, c := range r.AllRecCond() {
				op := c.GetOp()
				d.conds = append(d.conds, &condDecl{pos: b.mapPos(syntax.Pos(b.file, op)), a: b.rterm(c.GetLhs()), b: b.rterm(c.GetRhs()), join: op.GetTokenType() == parser.TRSLexerJOIN})
			}
			f.rules = append(f.rules, d)
		}
	}
}

func (b *builder) recName(ctx parser.IRecNameContext) ident {
	return ident{pos: b.pos(ctx), name: ctx.GetText()}
}

func (b *builder) rterm(ctx parser.IRtermContext) *term {
	t := &term{ident: b.recName(ctx.RecName()), parens: ctx.GetOpen() != nil}
	for _, a := range ctx.AllRterm() {
		t.args = append(t.args, b.rterm(a))
	}
	return t
}

// Note [REC-2008 queries]
//
// REC-2008 specifications, as the competition's REC-BAD benchmarks keep
// them, ask for normal forms after END-SPEC, one `get normal form for: T`
// line each, rather than in an EVAL section. recQueries turns them into
// one, keeping every line and column: END-SPEC becomes EVAL, each query
// line keeps its term in place, and END-SPEC follows the last line. Other
// REC-2008 commands after END-SPEC, such as `check the confluence of:`,
// are refused where they stand.

var (
	recQuery   = regexp.MustCompile(`^(\s*get\s+normal\s+form\s+for\s*:)`)
	recEndSpec = regexp.MustCompile(`^\s*END-SPEC\s*$`)
)

// blank replaces text with spaces.
func blank(text []byte) {
	for k := range text {
		text[k] = ' '
	}
}

// recQueries rewrites a REC-2008 specification's queries into an EVAL
// section (Note [REC-2008 queries]); src is returned as it is if it has
// none.
func recQueries(file string, src []byte, errs *diag.List) []byte {
	lines := bytes.SplitAfter(blankComments(src), []byte("\n"))
	end := -1
	for i, line := range lines {
		if recEndSpec.Match(bytes.TrimRight(line, "\r\n")) {
			end = i
			break
		}
	}
	if end < 0 {
		return src
	}
	out := bytes.Clone(src)
	at := func(i int) int { // the offset of line i
		n := 0
		for _, l := range lines[:i] {
			n += len(l)
		}
		return n
	}
	queries := 0
	for i := end + 1; i < len(lines); i++ {
		line := lines[i]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		m := recQuery.FindIndex(line)
		if m == nil {
			col := len(line) - len(bytes.TrimLeft(line, " \t")) + 1
			errs.Add(diag.Pos{File: file, Line: i + 1, Col: col}, "after END-SPEC gpuc reads REC-2008's `get normal form for:` lines; %q is not one", string(bytes.TrimSpace(line)))
			blank(out[at(i) : at(i)+len(bytes.TrimRight(line, "\r\n"))])
			queries++ // the END-SPEC must move past it
			continue
		}
		queries++
		blank(out[at(i)+m[0] : at(i)+m[1]])
	}
	if queries == 0 {
		return src
	}
	off := at(end) + bytes.Index(lines[end], []byte("END-SPEC"))
	copy(out[off:], "EVAL    ")
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, "END-SPEC\n"...)
}

// recOPS is REC-2008's section of operators.
var recOPS = regexp.MustCompile(`^(\s*)OPS\s*$`)

// recDefects finds the defects of REC specifications that REC-2017
// refuses and that would otherwise surface as syntax errors far from
// their cause, as in the competition's REC-BAD benchmarks. REC-2008's OPS
// section, which does not tell constructors from operations, is named
// and read as CONS, and ops2008 says so: the checks then take the symbols
// that head rules for operations (Note [REC discipline]). A missing
// END-SPEC is named, and fatal says that nothing more can be read.
func recDefects(file string, src []byte, errs *diag.List) (out []byte, ops2008, fatal bool) {
	lines := bytes.SplitAfter(blankComments(src), []byte("\n"))
	out = src
	end := false
	for i, line := range lines {
		text := bytes.TrimRight(line, "\r\n")
		switch m := recOPS.FindSubmatchIndex(text); {
		case m != nil:
			errs.Add(diag.Pos{File: file, Line: i + 1, Col: m[3] + 1}, "OPS is REC-2008's section, which does not tell constructors from operations; REC declares them in CONS and OPNS")
			if !ops2008 {
				out = bytes.Clone(src)
			}
			off := offsetOf(lines, i) + m[3]
			out = append(out[:off:off], append([]byte("CONS"), out[off+len("OPS"):]...)...)
			lines[i] = append(lines[i][:m[3]:m[3]], append([]byte("CONS"), lines[i][m[3]+3:]...)...)
			ops2008 = true
		case recEndSpec.Match(text):
			end = true
		}
	}
	if !end {
		errs.Add(offsetPos(file, src, len(src)), "the specification ends without END-SPEC")
		return src, ops2008, true
	}
	return out, ops2008, false
}

var (
	recSectionLine = regexp.MustCompile(`^\s*(REC-SPEC|SORTS|CONS|OPNS|OPS|VARS|RULES|EVAL|END-SPEC)\b`)
	recWordRun     = regexp.MustCompile(`[A-Za-z0-9_'"]+`)
)

// recJuxtaposed names the applications written without parentheses in
// the rules, `g d0` or `f s(x)` for g(d0) and f(s(x)), which REC-2017
// does not have (REC-BAD's order benchmarks), and returns src with each
// one parenthesised in place, so that the checks that follow still see
// the rules (Note [REC discipline]). The space after the function
// becomes its '('; the ')' takes the place of a space after the argument
// where there is one, so that only the columns after it on that line
// move.
func recJuxtaposed(file string, src []byte, errs *diag.List) []byte {
	out := bytes.Clone(src)
	plain := blankComments(src)
	lines := bytes.SplitAfter(plain, []byte("\n"))
	var res []byte
	inRules := false
	off := 0 // where line i starts
	for i, line := range lines {
		at := off
		off += len(line)
		if m := recSectionLine.FindSubmatch(line); m != nil {
			inRules = string(m[1]) == "RULES"
		}
		if !inRules || bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			res = append(res, out[at:at+len(line)]...)
			continue
		}
		l := bytes.Clone(out[at : at+len(line)])
		blanked := bytes.Clone(line)
		for reported := false; ; {
			at, fn, arg, end, ok := juxtaposition(blanked)
			if !ok {
				break
			}
			if !reported {
				errs.Add(diag.Pos{File: file, Line: i + 1, Col: at + 1}, "%s %s applies %s without parentheses, which REC-2017 does not allow: write %s(%s)", fn, arg, fn, fn, arg)
				reported = true
			}
			for _, b := range [][]byte{l, blanked} {
				b[at+len(fn)] = '('
			}
			if end < len(l) && (l[end] == ' ' || l[end] == '\t') {
				l[end], blanked[end] = ')', ')'
			} else {
				l = append(l[:end], append([]byte{')'}, l[end:]...)...)
				blanked = append(blanked[:end], append([]byte{')'}, blanked[end:]...)...)
			}
		}
		res = append(res, l...)
	}
	return res
}

// offsetOf is the offset of line i of lines.
func offsetOf(lines [][]byte, i int) int {
	n := 0
	for _, l := range lines[:i] {
		n += len(l)
	}
	return n
}

// juxtaposition finds the first name followed by blanks and another name
// on a rule line: the function's offset and name, its argument's text
// (the name and its parenthesised arguments) and where the argument ends.
func juxtaposition(line []byte) (at int, fn, arg string, end int, ok bool) {
	words := recWordRun.FindAllIndex(line, -1)
	for k := 0; k+1 < len(words); k++ {
		w1, w2 := words[k], words[k+1]
		gap := line[w1[1]:w2[0]]
		if len(bytes.Trim(gap, " \t")) != 0 || len(gap) == 0 {
			continue
		}
		a, b := string(line[w1[0]:w1[1]]), string(line[w2[0]:w2[1]])
		if a == "if" || b == "if" || b == "and" && bytes.HasPrefix(line[w2[0]:], []byte("and-if")) ||
			w1[0] >= 4 && string(line[w1[0]-4:w1[0]]) == "and-" {
			continue
		}
		end = w2[1]
		j := end
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j < len(line) && line[j] == '(' {
			depth := 0
			for ; j < len(line); j++ {
				if line[j] == '(' {
					depth++
				} else if line[j] == ')' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if j < len(line) {
				end = j + 1
			}
		}
		return w1[0], a, string(line[w2[0]:end]), end, true
	}
	return 0, "", "", 0, false
}
