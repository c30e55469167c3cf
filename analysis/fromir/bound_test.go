package fromir

import (
	"strings"
	"testing"

	"gpuc/analysis/termination"
)

// TestBoundedBuffer checks that a buffer's bound reaches the analysis (Note [Bounded buffers]
// in package ir): a grid-stride loop up to a counter that the kernel itself bumps is TRUE under
// a condition on the bound's parameter with the bound, and not TRUE without it.
func TestBoundedBuffer(t *testing.T) {
	eng, err := termination.NewEngine(termination.Config{})
	if err != nil {
		t.Skipf("no solver: %v", err)
	}
	defer eng.Close()
	for _, c := range []struct{ file, want string }{
		{"testdata/bounded.kir", "fill: TRUE if CAP <= "},
		{"testdata/unbounded.kir", "fill: UNKNOWN"},
	} {
		ss, ok := exampleSystems(t, c.file)
		if !ok || len(ss) != 1 {
			t.Fatalf("%s: %d systems", c.file, len(ss))
		}
		if line := eng.Analyze(ss[0]).Line(); !strings.Contains(line, c.want) {
			t.Errorf("%s: got %q, want %q", c.file, line, c.want)
		}
	}
}
