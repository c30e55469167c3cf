package passes_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"gpuc/internal/driver"
	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/passes"
)

// TestGroupSplit, TestHostLoops and TestGridSync run one pass each on
// their testdata archives: in.kir becomes out.kir, stays valid, and prints
// what it printed, by every path (see runPass).
func TestGroupSplit(t *testing.T) { golden(t, "group_split", "group-split") }
func TestHostLoops(t *testing.T)  { golden(t, "host_loops", "host-loops") }
func TestGridSync(t *testing.T)   { golden(t, "grid_sync", "grid-sync") }

func golden(t *testing.T, dir string, names ...string) {
	irtest.Golden(t, filepath.Join("testdata", dir, "*.txtar"), func(t *testing.T, a *txtar.Archive) map[string]string {
		out := runPass(t, a, names...)
		m := irtest.Parse(t, "out.kir", []byte(out["out.kir"]))
		out["structure"] = irtest.CountStmts(m) + "\n"
		return out
	})
}

// TestForkBarriers pins how many grid barriers each Fork example keeps
// after elide-barriers: the frontend puts one after every step, and the
// dependence analysis decides which stay. testdata/fork_barriers.golden
// holds one line per example; -update rewrites it.
func TestForkBarriers(t *testing.T) {
	files, _ := filepath.Glob("../examples/fork/*.fork")
	var lines []string
	for _, file := range files {
		m, err := driver.Load(file, "--procs=64", "--crcw=priority")
		if err != nil {
			t.Fatal(err)
		}
		before := countGrid(m)
		ps, _ := passes.Expand([]string{"lower-priority", "elide-barriers"})
		if err := passes.Run(m, ps, &passes.Config{VerifyEach: true}); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("%s: %d grid barriers from the frontend, %d after elide-barriers", filepath.Base(file), before, countGrid(m)))
	}
	sort.Strings(lines)
	got := strings.Join(lines, "\n") + "\n"
	const golden = "testdata/fork_barriers.golden"
	if *irtest.Update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("barrier counts differ from %s:\n%s", golden, got)
	}
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
