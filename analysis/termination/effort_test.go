package termination_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"gpuc/analysis/termination"
	"gpuc/internal/irtest"
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
// two engines give the same line and count the same units, within the cut query's one. wide_stride.kir with 5 ms of solver
// effort (15000 units) runs out in its proof.
func TestEffortInUnits(t *testing.T) {
	cfg := termination.Config{CPU: 5 * time.Millisecond}
	r1, u1 := analyzeKernel(t, "testdata/kernels/wide_stride.kir", "wide_stride", cfg)
	r2, u2 := analyzeKernel(t, "testdata/kernels/wide_stride.kir", "wide_stride", cfg)
	if r1.Verdict != termination.Unknown || !strings.Contains(r1.Reason, "15000 resource units") {
		t.Errorf("got %s, want UNKNOWN for the budget of 15000 resource units", r1.Line())
	}
	// The query cut at the budget may stop a unit later in one run (Note [Resource units] in
	// analysis/smt): the counts agree within a hundredth, the lines exactly.
	if r1.Line() != r2.Line() || 100*(u1-u2) > u1 || 100*(u2-u1) > u1 {
		t.Errorf("two runs differ: %s (%d units) and %s (%d units)", r1.Line(), u1, r2.Line(), u2)
	}
}

// TestCooperativeKernelAtDefaults: exchange_sort.chr's cooperative fixpoint kernel is TRUE, with
// the default budgets, under a condition that holds at the program's defaults (CAP_a2 = PROCS =
// 4096, MAXSTEPS = 2^30, ROUNDS = 15). Main at 42d1aa7 gave it UNKNOWN on the 3 s of processor
// time on one 2-core machine and `... <= 1024` on another. Two changes make it: its condition
// search needs about 11.6 million resource units where a kernel's budget is 10.5 million, and gets
// a nest's share for each of its eight stuck pieces (Note [Solver effort per piece]); and its
// rule loop is ranked only with Houdini's invariants found under the condition, which its own
// search now looks for, keeping the widest bounds (Note [Houdini under the condition, piece by
// piece]); without it the search printed the joint try's condition, every bound 1024. The
// budget is in resource units, so the result does not depend on the machine.
func TestCooperativeKernelAtDefaults(t *testing.T) {
	r, _ := analyzeKernel(t, "../../examples/chr/exchange_sort.chr", "main_coop1", termination.Config{})
	if r.Verdict != termination.True {
		t.Fatalf("got %s, want TRUE under a condition", r.Line())
	}
	_, m := systemsOf(t, "../../examples/chr/exchange_sort.chr")
	if !holdsAt(t, m, r.Condition) {
		t.Errorf("got %s: the condition does not hold at the program's defaults", r.Line())
	}
}

// TestFarmLoopAtDefaults: sieve's farm loop steps by `(long)p * groupsize()`; its proof needs
// bounds, and the condition search's tries must leave the weakening enough of the solver's
// effort to loosen the strongest condition (every value at most 2^10) past the program's
// defaults, N = 100000 (Note [A quick first stage in the condition search]). p_count, the
// kernel's argument that the host sets from p, is no parameter of the program.
func TestFarmLoopAtDefaults(t *testing.T) {
	irtest.LongOnly(t, "4 s of solver work; the short mode's TestCooperativeKernelAtDefaults checks a condition at a program's defaults")
	r, _ := analyzeKernel(t, "../../examples/fork/sieve.fork", "main_r2_k2", termination.Config{})
	if r.Verdict != termination.True {
		t.Fatalf("got %s, want TRUE under a condition", r.Line())
	}
	_, m := systemsOf(t, "../../examples/fork/sieve.fork")
	var params []string
	for _, part := range strings.Split(r.Condition, " && ") {
		if !strings.Contains(part, "p_count") {
			params = append(params, part)
		}
	}
	if !holdsAt(t, m, strings.Join(params, " && ")) {
		t.Errorf("got %s: the condition does not hold at the program's defaults", r.Line())
	}
}
