package termination_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"gpuc/analysis/termination"
)

// analyzeKernel analyses the kernel name of the example at path with a fresh engine under cfg;
// it gives the result and the solver's resource units.
func analyzeKernel(t *testing.T, path, name string, cfg termination.Config) (*termination.Result, int64) {
	t.Helper()
	if _, err := exec.LookPath("z3"); err != nil {
		t.Skip("z3 is not installed")
	}
	systems, _ := systemsOf(t, path)
	for _, sys := range systems {
		if sys.Name != name {
			continue
		}
		eng, err := termination.NewEngine(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		r := eng.Analyze(sys)
		t.Logf("%s [%.0f ms, %d units]", r.Line(), r.TimeMS, eng.Units())
		return r, eng.Units()
	}
	t.Fatalf("%s has no %s", path, name)
	return nil, 0
}

// TestEffortInUnits: the solver's effort is counted in z3's resource units (Note [Solver work in
// resource units]), so a budget that cuts the analysis cuts it at the same query on any machine:
// two engines give the same line and count the same units. sum.chr's cooperative kernel with
// 100 ms of solver effort runs out in the proof.
func TestEffortInUnits(t *testing.T) {
	cfg := termination.Config{CPU: 100 * time.Millisecond}
	r1, u1 := analyzeKernel(t, "../../examples/chr/sum.chr", "main_coop1", cfg)
	r2, u2 := analyzeKernel(t, "../../examples/chr/sum.chr", "main_coop1", cfg)
	if r1.Verdict != termination.Unknown || !strings.Contains(r1.Reason, "300000 resource units") {
		t.Errorf("got %s, want UNKNOWN for the budget of 300000 resource units", r1.Line())
	}
	if r1.Line() != r2.Line() || u1 != u2 {
		t.Errorf("two runs differ: %s (%d units) and %s (%d units)", r1.Line(), u1, r2.Line(), u2)
	}
}

// TestEffortPerPiece: the condition search gets a nest's share of solver effort for each stuck
// piece past the first (Note [Solver effort per piece]). sum.chr's cooperative kernel leaves six
// pieces stuck after a proof of about 0.9 million units, and its condition search needs about
// 3.6 million more; with a budget of 1 s of solver effort (3 million units) for the system, the
// pieces' shares (5 x 0.75 million) are what lets it finish with a condition that holds at the
// program's defaults (all bounds 2^30). Without them its pieces' searches ran out and it printed
// the joint try's condition, every bound 1024, below the defaults. Deterministic: the budget is
// in resource units.
func TestEffortPerPiece(t *testing.T) {
	r, _ := analyzeKernel(t, "../../examples/chr/sum.chr", "main_coop1", termination.Config{CPU: time.Second})
	if r.Verdict != termination.True {
		t.Fatalf("got %s, want TRUE under a condition", r.Line())
	}
	_, m := systemsOf(t, "../../examples/chr/sum.chr")
	if !holdsAt(t, m, r.Condition) {
		t.Errorf("got %s: the condition does not hold at the program's defaults", r.Line())
	}
}
