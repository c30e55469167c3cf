package fork_test

import (
	"bytes"
	"testing"

	"gpuc/frontends/fork"
	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
)

var defaultOpts = fork.Options{Procs: 1024, CRCW: "priority"}

// mustParse lowers a Fork program and checks that the result verifies at
// the SPMD level and that its printed form parses back unchanged.
func mustParse(t *testing.T, file, src string, opts fork.Options) *ir.Module {
	t.Helper()
	m, err := fork.Parse(file, []byte(src), opts)
	if err != nil {
		t.Fatalf("%s:\n%v", file, err)
	}
	irtest.CheckLowered(t, file, m)
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
