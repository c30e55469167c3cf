package fromir

import (
	"errors"
	"testing"

	"gpuc/analysis/smt"
	"gpuc/analysis/termination"
)

// TestReadOnlyLoopBound checks that carve.fork's plant_dev, whose last loop runs `for (j = 0; j <
// sigs[k]; j++)` with sigs a buffer no kernel writes and k unchanged in the loop, is TRUE
// unconditionally (Note [Loads at invariant addresses] in analysis/termination); it was UNKNOWN.
func TestReadOnlyLoopBound(t *testing.T) {
	eng, err := termination.NewEngine(termination.Config{})
	if errors.Is(err, smt.ErrNoSolver) {
		t.Skip("z3 is not installed")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ss, ok := exampleSystems(t, "../../examples/fork/carve.fork")
	if !ok {
		t.Fatal("carve.fork did not translate")
	}
	seen := false
	for _, s := range ss {
		if s.Name != "plant_dev" {
			continue
		}
		seen = true
		r := eng.Analyze(s)
		if r.Verdict != termination.True || r.Condition != "" || len(r.Certificate) == 0 {
			t.Errorf("got %s, want TRUE with a certificate", r.Line())
		}
	}
	if !seen {
		t.Fatal("carve.fork has no plant_dev")
	}
}
