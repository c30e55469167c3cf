package syntax_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

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
