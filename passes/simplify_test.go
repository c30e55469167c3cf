package passes_test

import (
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"gpuc/internal/irtest"
)

// TestSimplify runs simplify on testdata/simplify/*.txtar: in.kir must
// become out.kir, stay valid, and print what it printed before.
func TestSimplify(t *testing.T) {
	irtest.Golden(t, "testdata/simplify/*.txtar", func(t *testing.T, a *txtar.Archive) map[string]string {
		return runPass(t, a, "simplify")
	})
}
