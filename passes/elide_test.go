package passes_test

import (
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"gpuc/internal/irtest"
)

// TestElideBarriers runs elide-barriers on testdata/elide/*.txtar; the
// archives' comments say which barriers must stay and why. The result
// must print what the input printed.
func TestElideBarriers(t *testing.T) {
	irtest.Golden(t, "testdata/elide/*.txtar", func(t *testing.T, a *txtar.Archive) map[string]string {
		out := runPass(t, a, "elide-barriers")
		m := irtest.Parse(t, "out.kir", []byte(out["out.kir"]))
		out["barriers"] = strings.TrimSpace(irtest.CountStmts(m)) + "\n"
		return out
	})
}
