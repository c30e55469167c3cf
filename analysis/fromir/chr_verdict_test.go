package fromir

import (
	"errors"
	"strings"
	"testing"
	"time"

	"gpuc/analysis/smt"
	"gpuc/analysis/termination"
)

// TestCHRFixpointKernel checks that sum.chr's cooperative fixpoint kernel (main_coop1: the step
// loop with every rule's owner loop and partner scan inside it) is TRUE, under a condition on
// its parameters where it needs one: the nest is proved piece by piece (Note [Loop nests proved
// piece by piece] in analysis/termination), a condition on no value in memory. The processor-time budget is raised so that the
// work budget, which does not depend on the machine's load, decides the verdict.
func TestCHRFixpointKernel(t *testing.T) {
	eng, err := termination.NewEngine(termination.Config{CPU: 30 * time.Second})
	if errors.Is(err, smt.ErrNoSolver) {
		t.Skip("z3 is not installed")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ss, ok := exampleSystems(t, "../../examples/chr/sum.chr")
	if !ok {
		t.Fatal("sum.chr did not translate")
	}
	seen := false
	for _, s := range ss {
		if s.Name != "main_coop1" {
			continue
		}
		seen = true
		r := eng.Analyze(s)
		t.Logf("%s [%.0f ms]", r.Line(), r.TimeMS)
		if r.Verdict != termination.True || len(r.Certificate) == 0 {
			t.Errorf("got %s, want TRUE (or TRUE if ...) with a certificate", r.Line())
		}
		// The store's top is a checked fact (Note [Store tops] in frontends/chr): the
		// condition is on parameters, not on a value in memory.
		if strings.Contains(r.Condition, "[") {
			t.Errorf("got %s, want a condition on parameters only", r.Line())
		}
	}
	if !seen {
		t.Fatal("sum.chr has no main_coop1")
	}
}
