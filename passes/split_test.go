package passes_test

import (
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"gpuc/internal/irtest"
)

// TestSplitBarriers lowers testdata/split/*.txtar to the launch level with
// elide-barriers and split-barriers.
func TestSplitBarriers(t *testing.T) {
	irtest.Golden(t, "testdata/split/*.txtar", func(t *testing.T, a *txtar.Archive) map[string]string {
		out := runPass(t, a, "lower")
		m := irtest.Parse(t, "out.kir", []byte(out["out.kir"]))
		out["structure"] = irtest.CountStmts(m) + "\n"
		return out
	})
}
