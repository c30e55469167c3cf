package passes_test

import (
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// TestSimplify runs simplify on testdata/simplify/*.txtar: in.kir must
// become out.kir, stay valid, and print what it printed before.
func TestSimplify(t *testing.T) {
	irtest.Golden(t, "testdata/simplify/*.txtar", func(t *testing.T, a *txtar.Archive) map[string]string {
		return runPass(t, a, "simplify")
	})
}

// runPass applies the named passes to the archive's in.kir and returns the
// printed result as section out.kir, checking that the interpreter prints
// the same before and after.
func runPass(t *testing.T, a *txtar.Archive, names ...string) map[string]string {
	t.Helper()
	m := irtest.Parse(t, "in.kir", irtest.Section(t, a, "in.kir"))
	before := irtest.Run(t, m, nil)
	ps, err := passes.Expand(names)
	if err != nil {
		t.Fatal(err)
	}
	if err := passes.Run(m, ps, &passes.Config{VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
	// After lowering, every path must print the same: cooperative launches
	// where they fit, their fallbacks where they do not, and both race-free.
	for _, cfg := range []interp.Config{{}, {CoopThreads: 1}, {Race: true}, {Race: true, CoopThreads: 1}} {
		if after := irtest.RunWith(t, m, cfg); after != before {
			t.Errorf("output changed by %v (%+v):\nbefore:\n%s\nafter:\n%s", names, cfg, before, after)
		}
	}
	return map[string]string{"out.kir": ir.Print(m)}
}

// TestPipelinesKeepExamples runs every pipeline on every .kir example and
// checks that the interpreter's output does not change.
func TestPipelinesKeepExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/*/*.kir")
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	for _, file := range files {
		for _, pl := range passes.Pipelines() {
			t.Run(filepath.Base(file)+"/"+pl.Name, func(t *testing.T) {
				m := irtest.ParseFile(t, file)
				small := map[string]int64{}
				if m.Param("N") != nil {
					small["N"] = 3000
				}
				before := irtest.Run(t, m, small)
				ps, _ := passes.Expand([]string{pl.Name})
				if err := passes.Run(m, ps, &passes.Config{VerifyEach: true}); err != nil {
					t.Fatal(err)
				}
				if after := irtest.Run(t, m, small); after != before {
					t.Errorf("output changed:\nbefore:\n%s\nafter:\n%s", before, after)
				}
			})
		}
	}
}
