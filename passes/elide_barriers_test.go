package passes_test

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"gpuc/internal/driver"
	"gpuc/internal/irtest"
	"gpuc/ir"
)

// TestElideBarriers runs elide-barriers on testdata/elide_barriers/*.txtar;
// the archives' comments say which barriers must stay and why. The result
// must print what the input printed.
func TestElideBarriers(t *testing.T) {
	irtest.Golden(t, "testdata/elide_barriers/*.txtar", func(t *testing.T, a *txtar.Archive) map[string]string {
		out := runPass(t, a, "elide-barriers")
		m := irtest.Parse(t, "out.kir", []byte(out["out.kir"]))
		out["barriers"] = strings.TrimSpace(irtest.CountStmts(m)) + "\n"
		return out
	})
}

// TestForkBarriers pins how many grid barriers each Fork example keeps
// after elide-barriers: the frontend puts one after every step, and the
// dependence analysis decides which stay.
// testdata/elide_barriers/fork_examples.golden holds one line per example;
// -update rewrites it.
func TestForkBarriers(t *testing.T) {
	var lines []string
	for _, file := range irtest.Glob(t, "../examples/fork/*.fork") {
		m, err := driver.Load(file, "--procs=64", "--crcw=priority")
		if err != nil {
			t.Fatal(err)
		}
		before := countGrid(m)
		irtest.RunPasses(t, m, nil, "lower-priority", "elide-barriers")
		lines = append(lines, fmt.Sprintf("%s: %d grid barriers from the frontend, %d after elide-barriers", filepath.Base(file), before, countGrid(m)))
	}
	sort.Strings(lines)
	got := strings.Join(lines, "\n") + "\n"
	irtest.GoldenFile(t, "testdata/elide_barriers/fork_examples.golden", got)
}

func countGrid(m *ir.Module) int {
	n := 0
	for _, f := range m.Funcs {
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if b, ok := s.(*ir.Barrier); ok && b.Grid {
				n++
			}
			return true
		})
	}
	return n
}
