package fromir

import (
	"testing"

	"gpuc/analysis/termination"
)

// TestReadOnlyLoopBound checks that carve.fork's plant_dev, whose last loop runs `for (j = 0; j <
// sigs[k]; j++)` with sigs a buffer no kernel writes and k unchanged in the loop, is TRUE
// unconditionally (Note [Loads at invariant addresses] in analysis/termination); it was UNKNOWN.
func TestReadOnlyLoopBound(t *testing.T) {
	r := analyzeExample(t, termination.Config{}, "../../examples/fork/carve.fork", "plant_dev")
	if r.Verdict != termination.True || r.Condition != "" || len(r.Certificate) == 0 {
		t.Errorf("got %s, want TRUE with a certificate", r.Line())
	}
}
