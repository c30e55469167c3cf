package passes_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"gpuc/internal/driver"
	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// runPass applies the named passes to the archive's in.kir and returns the
// printed result as section out.kir, checking that the interpreter prints
// the same before and after.
func runPass(t *testing.T, a *txtar.Archive, names ...string) map[string]string {
	t.Helper()
	m := irtest.Parse(t, "in.kir", irtest.Section(t, a, "in.kir"))
	before := irtest.Run(t, m, nil)
	irtest.RunPasses(t, m, nil, names...)
	// After lowering, every path must print the same: cooperative launches
	// where they fit, their fallbacks where they do not, and both race-free.
	for _, cfg := range []interp.Config{{}, {CoopThreads: 1}, {Race: true}, {Race: true, CoopThreads: 1}} {
		if after := irtest.RunWith(t, m, cfg); after != before {
			t.Errorf("output changed by %v (%+v):\nbefore:\n%s\nafter:\n%s", names, cfg, before, after)
		}
	}
	return map[string]string{"out.kir": ir.Print(m)}
}

// golden runs the named passes on the archives that pattern matches:
// in.kir becomes out.kir, stays valid, and prints what it printed, by
// every path (see runPass); section structure counts what is left.
func golden(t *testing.T, pattern string, names ...string) {
	irtest.Golden(t, pattern, func(t *testing.T, a *txtar.Archive) map[string]string {
		out := runPass(t, a, names...)
		m := irtest.Parse(t, "out.kir", []byte(out["out.kir"]))
		out["structure"] = irtest.CountStmts(m) + "\n"
		return out
	})
}

// TestLowerPipeline lowers testdata/lower/*.txtar to the launch level
// with the lower pipeline.
func TestLowerPipeline(t *testing.T) { golden(t, "testdata/lower/*.txtar", "lower") }

// TestPipelinesKeepExamples runs every pipeline on every .kir example and
// checks that the interpreter's output does not change.
func TestPipelinesKeepExamples(t *testing.T) {
	for _, file := range irtest.Glob(t, "../examples/*/*.kir") {
		for _, pl := range passes.Pipelines() {
			t.Run(filepath.Base(file)+"/"+pl.Name, func(t *testing.T) {
				m := irtest.ParseFile(t, file)
				small := map[string]int64{}
				if m.Param("N") != nil {
					small["N"] = 3000
				}
				before := irtest.Run(t, m, small)
				irtest.RunPasses(t, m, nil, pl.Name)
				if after := irtest.Run(t, m, small); after != before {
					t.Errorf("output changed:\nbefore:\n%s\nafter:\n%s", before, after)
				}
			})
		}
	}
}

// TestPipelinesKeepForkExamples lowers every Fork example with the default
// pipeline and checks that the interpreter prints what the SPMD program
// prints: with cooperative launches, with their relaunch fallbacks, and
// race-free under the race checker.
func TestPipelinesKeepForkExamples(t *testing.T) {
	for _, file := range irtest.Glob(t, "../examples/fork/*.fork") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			m, err := driver.Load(file, "--procs=64", "--crcw=priority")
			if err != nil {
				t.Fatal(err)
			}
			params := irtest.ArgsFile(t, strings.TrimSuffix(file, ".fork")+".args")
			before := irtest.Run(t, m, params)
			irtest.RunPasses(t, m, nil, "default")
			for _, cfg := range []interp.Config{{Params: params}, {Params: params, CoopThreads: 1}, {Params: params, Race: true}} {
				if after := irtest.RunWith(t, m, cfg); after != before {
					t.Errorf("output changed (coop threads %d, race %v):\nbefore:\n%s\nafter:\n%s", cfg.CoopThreads, cfg.Race, before, after)
				}
			}
		})
	}
}

// TestVerifyAtLevelAfter checks that the runner verifies a module at the
// level it must have after a pass: a pass that takes and gives SPMD-level
// modules may not raise a launch-level one, here by adding a region.
func TestVerifyAtLevelAfter(t *testing.T) {
	m := irtest.Parse(t, "l.kir", []byte(`module l;
buffer o: i32[1] global output;
host main() {
  o[0] = 1;
}
`))
	raise := &passes.Pass{Name: "raise", From: ir.SPMDLevel, To: ir.SPMDLevel, Run: func(m *ir.Module, _ *passes.Config) error {
		main := m.Func("main")
		main.Body = []ir.Stmt{&ir.Region{Pos: main.Pos, Procs: ir.IntConst(ir.I32, 1), Body: main.Body}}
		return nil
	}}
	err := passes.Run(m, []*passes.Pass{raise}, &passes.Config{VerifyEach: true})
	if err == nil || !strings.Contains(err.Error(), "invalid IR after pass raise") {
		t.Errorf("error %v, want invalid IR after pass raise", err)
	}
}
