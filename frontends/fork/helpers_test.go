package fork_test

import (
	"bytes"
	"os"
	"testing"

	"gpuc/frontends/fork"
	"gpuc/frontends/kir"
	"gpuc/ir"
	"gpuc/ir/interp"
)

var defaultOpts = fork.Options{Procs: 1024, CRCW: "priority"}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// mustParse lowers a Fork program and checks that the result verifies at
// the SPMD level and that its printed form parses back unchanged.
func mustParse(t *testing.T, file, src string, opts fork.Options) *ir.Module {
	t.Helper()
	m, err := fork.Parse(file, []byte(src), opts)
	if err != nil {
		t.Fatalf("%s:\n%v", file, err)
	}
	text := ir.Print(m)
	if err := ir.Verify(m, ir.SPMDLevel); err != nil {
		t.Fatalf("%s does not verify:\n%v\n%s", file, err, text)
	}
	back, err := kir.Parse(file+".kir", []byte(text))
	if err != nil {
		t.Fatalf("printed %s does not parse: %v\n%s", file, err, text)
	}
	if again := ir.Print(back); again != text {
		t.Fatalf("printed %s does not print back the same:\n%s\n---\n%s", file, text, again)
	}
	return m
}

// mustRun runs m in the interpreter and returns its output.
func mustRun(t *testing.T, m *ir.Module, params map[string]int64, race bool) string {
	t.Helper()
	var out bytes.Buffer
	if err := interp.Run(m, interp.Config{Stdout: &out, Params: params, Race: race}); err != nil {
		t.Fatalf("run %s %v (race %v): %v\noutput so far:\n%s", m.Name, params, race, err, out.String())
	}
	return out.String()
}

// run lowers and runs a program with the default options.
func run(t *testing.T, src string, params map[string]int64) string {
	t.Helper()
	return mustRun(t, mustParse(t, "test.fork", src, defaultOpts), params, true)
}

// count counts the statements of m's functions for which f holds.
func count(m *ir.Module, f func(ir.Stmt) bool) int {
	n := 0
	for _, fn := range m.Funcs {
		ir.WalkStmts(fn.Body, func(s ir.Stmt) bool {
			if f(s) {
				n++
			}
			return true
		})
	}
	return n
}

func isSplit(s ir.Stmt) bool      { _, ok := s.(*ir.Split); return ok }
func isSplitWhile(s ir.Stmt) bool { _, ok := s.(*ir.SplitWhile); return ok }
func isIf(s ir.Stmt) bool         { _, ok := s.(*ir.If); return ok }
func isWhile(s ir.Stmt) bool      { _, ok := s.(*ir.While); return ok }
