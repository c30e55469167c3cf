package fromir

import (
	"testing"

	"gpuc/analysis/termination"
)

// TestTRSGeneratedLoops: every loop that the TRS frontend generates is proved, the program's
// fixpoint under MAXITER alone (Note [Checked walk bounds] in frontends/trs): the store walks
// (trs_eq, trs_leave, trs_step), the grid-stride phases and the cooperative kernels. peano has
// the fixpoint, the walks and the summary; nonlinear compares terms (trs_eq).
func TestTRSGeneratedLoops(t *testing.T) {
	eng, err := termination.NewEngine(termination.Config{})
	if err != nil {
		t.Skip(err)
	}
	defer eng.Close()
	for _, f := range []string{"../../examples/trs/peano.trs", "../../examples/trs/nonlinear.trs"} {
		ss, ok := exampleSystems(t, f)
		if !ok {
			continue
		}
		seen := map[string]bool{}
		for _, s := range ss {
			r := eng.Analyze(s)
			seen[r.Kernel] = true
			switch {
			case r.Verdict == termination.True && r.Condition == "":
			case r.Verdict == termination.True && r.Condition == "MAXITER >= 1" && (r.Kernel == "trs_small" || r.Kernel == "main_coop2"):
			default:
				t.Errorf("%s", r.Line())
			}
		}
		for _, k := range []string{"trs_eq", "trs_leave", "trs_step", "trs_derive", "trs_commit", "trs_mark", "trs_fold", "trs_settle", "trs_output_coop1", "main_coop2", "trs_small"} {
			if !seen[k] {
				t.Errorf("%s: no verdict for %s", f, k)
			}
		}
	}
}
