package termination_test

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"gpuc/analysis/termination"
	"gpuc/internal/irtest"
	"gpuc/ir"
)

// holdsAt reports whether cond, a condition of the condition search's form (a conjunction of
// "1 <= X <= N", "X <= N" and "X >= 1"), holds at m's parameter defaults; it fails the test on a
// part it cannot read or a variable that is no parameter of m.
func holdsAt(t *testing.T, m *ir.Module, cond string) bool {
	t.Helper()
	if cond == "" {
		return true
	}
	val := func(name string) int64 {
		p := m.Param(name)
		if p == nil {
			t.Fatalf("condition %q: %s is no parameter of %s", cond, name, m.Name)
		}
		return p.Default
	}
	num := func(s string) int64 {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("condition %q: %v", cond, err)
		}
		return n
	}
	ok := true
	for _, part := range strings.Split(cond, " && ") {
		f := strings.Fields(part)
		switch {
		case len(f) == 5 && f[0] == "1" && f[1] == "<=" && f[3] == "<=":
			v := val(f[2])
			ok = ok && 1 <= v && v <= num(f[4])
		case len(f) == 3 && f[1] == "<=":
			ok = ok && val(f[0]) <= num(f[2])
		case len(f) == 3 && f[1] == ">=" && f[2] == "1":
			ok = ok && val(f[0]) >= 1
		default:
			t.Fatalf("condition %q: cannot read %q", cond, part)
		}
	}
	return ok
}

// TestConditionAtDefaults checks that gcd.chr's cooperative fixpoint kernel (main_coop1: the
// step loop `step + 1 <= MAXSTEPS` around the owner loops that stride by PROCS and scan up to
// CAP_gcd1) is TRUE under a condition that holds at the program's own defaults (CAP_gcd1 =
// PROCS = 4096, MAXSTEPS = 2^30). On main at 3e9ab3e the condition search ran out of the
// processor-time budget in its third piece and printed the strongest condition tried, every
// parameter in [1, 1024] (Note [Rankings of a stronger condition first], Note [The widest
// bounds first]). The processor-time budget is raised, as in analysis/fromir's
// TestCHRFixpointKernel, so that the work budget, which does not depend on the machine's load,
// decides.
func TestConditionAtDefaults(t *testing.T) {
	irtest.LongOnly(t, "TestCooperativeKernelAtDefaults finds a condition at a CHR kernel's defaults too")
	if _, err := exec.LookPath("z3"); err != nil {
		t.Skip("z3 is not installed")
	}
	eng, err := termination.NewEngine(termination.Config{CPU: -1, Work: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	systems, m := systemsOf(t, "../../examples/chr/gcd.chr")
	seen := false
	for _, sys := range systems {
		if sys.Name != "main_coop1" {
			continue
		}
		seen = true
		r := eng.Analyze(sys)
		t.Logf("%s [%.0f ms]", r.Line(), r.TimeMS)
		if r.Verdict != termination.True {
			t.Fatalf("got %s, want TRUE under a condition", r.Line())
		}
		if !holdsAt(t, m, r.Condition) {
			t.Errorf("got %s: the condition does not hold at the defaults CAP_gcd1 = %d, PROCS = %d, MAXSTEPS = %d", r.Line(),
				m.Param("CAP_gcd1").Default, m.Param("PROCS").Default, m.Param("MAXSTEPS").Default)
		}
	}
	if !seen {
		t.Fatal("gcd.chr has no main_coop1")
	}
}
