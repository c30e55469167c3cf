package syntax_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"gpuc/frontends/chr"
	"gpuc/frontends/fork"
	"gpuc/frontends/kir"
	"gpuc/frontends/trs"
	"gpuc/ir"
)

// parsers are the frontends that read source text, by extension.
var parsers = map[string]func(file string, src []byte) (*ir.Module, error){
	".fork": func(f string, s []byte) (*ir.Module, error) { return fork.Parse(f, s, fork.Options{}) },
	".chr":  func(f string, s []byte) (*ir.Module, error) { return chr.Parse(f, s, chr.Options{}) },
	".kir":  kir.Parse,
	".trs":  func(f string, s []byte) (*ir.Module, error) { return trs.Parse(f, s, trs.Options{Input: "f(a)"}) },
}

// oneLine is a diagnostic as every frontend must print it.
var oneLine = regexp.MustCompile(`^[^\n]+:\d+:\d+: error: [^\n]*$`)

// TestDiagnosticsOnOneLine checks that every frontend's diagnostics fit
// file:line:col: error: message on one line, for an empty file and for
// a token that cannot be recognized and spans lines.
func TestDiagnosticsOnOneLine(t *testing.T) {
	for ext, parse := range parsers {
		for _, src := range []string{"", "\"ab\n", "'x\ny", "\x01\n", "#\r\n"} {
			_, err := parse("a"+ext, []byte(src))
			if err == nil {
				if src != "" || ext != ".chr" { // an empty CHR program is one
					t.Errorf("%s %q: no error", ext, src)
				}
				continue
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !oneLine.MatchString(line) {
					t.Errorf("%s %q: diagnostic %q", ext, src, line)
				}
			}
		}
	}
}

// TestBOM checks that every frontend reads a UTF-8 byte-order mark as
// nothing, on its examples.
func TestBOM(t *testing.T) {
	for _, file := range []string{"../../examples/fork/crcw.fork", "../../examples/chr/gcd.chr", "../../examples/kir/vecadd.kir", "../../examples/trs/AG01__h3.1.trs"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		ext := file[strings.LastIndexByte(file, '.'):]
		parse := parsers[ext]
		if ext == ".trs" {
			in, _, _ := trs.InputBeside(file)
			parse = func(f string, s []byte) (*ir.Module, error) { return trs.Parse(f, s, trs.Options{Input: in}) }
		}
		if _, err := parse(file, append([]byte("\uFEFF"), src...)); err != nil {
			t.Errorf("%s with a BOM: %v", file, err)
		}
	}
}

// TestDeepNesting checks Note [Nesting limit]: input nested 200,000 deep
// ends in a positioned error that names the limit, in every frontend and
// in seconds, where it used to overflow the Go stack or take minutes;
// nesting below the limit parses, in linear time.
func TestDeepNesting(t *testing.T) {
	deep := func(open, mid, close string, n int) string {
		return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
	}
	goals := strings.Repeat("gcd(3), ", 100000)
	for _, c := range []struct {
		file, src string
		ok        bool
	}{
		{"a.fork", "void main() { int x; x = " + deep("(", "1", ")", 200000) + "; }\n", false},
		{"a.fork", "void main() { int x; x = " + deep("-", "1", "", 200000) + "; }\n", false},
		{"a.fork", "void main() { int x; x = " + strings.Repeat("1+", 200000) + "1; }\n", false},
		{"a.fork", "void main() { " + deep("{", "", "}", 200000) + " }\n", false},
		{"a.fork", "void main() { int x; x = " + deep("(", "1", ")", 10000) + "; printf(\"%d\\n\", x); }\n", true},
		{"a.chr", ":- chr_constraint gcd(+int).\ngcd(0) <=> true.\n?- " + goals + "gcd(1).\n", false},
		{"a.chr", ":- chr_constraint gcd(+int).\ngcd(0) <=> true.\n?- " + goals[:8*5000] + "gcd(1).\n", true},
		{"a.chr", ":- chr_constraint g(+int).\n?- g(" + deep("(", "1", ")", 200000) + ").\n", false},
		{"a.kir", "module m;\nhost main() {\n  var x: i32 = " + deep("(", "1", ")", 200000) + ";\n}\n", false},
		{"a.kir", "module m;\nhost main() {\n  var x: i32 = " + deep("(", "1", ")", 30000) + ";\n}\n", true},
		{"a.trs", "(VAR x)\n(RULES f(x) -> x)\n", false},
	} {
		parse := parsers[c.file[1:]]
		if c.file == "a.trs" {
			in := deep("f(", "a", ")", 200000)
			parse = func(f string, s []byte) (*ir.Module, error) { return trs.Parse(f, s, trs.Options{Input: in}) }
		}
		start := time.Now()
		_, err := parse(c.file, []byte(c.src))
		switch {
		case c.ok && err != nil:
			t.Errorf("%s %.40q: %v", c.file, c.src, err)
		case !c.ok && (err == nil || !strings.Contains(err.Error(), "levels of brackets and operators, gpuc's limit")):
			t.Errorf("%s %.40q: got %v, want the nesting limit", c.file, c.src, err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s %.40q: took %v", c.file, c.src, d)
		}
	}
}
