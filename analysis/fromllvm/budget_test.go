package fromllvm

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gpuc/analysis/termination"
)

// TestProcessorTimeBudget: a kernel whose proof takes the solver some hundreds of milliseconds
// (polybench seidel-2d, TRUE in corpus-verdicts.txt) is UNKNOWN, never TRUE, under a processor-
// time budget far below that, and the reason names the budget: with z3, counted in its resource
// units (Note [Processor-time budget], Note [Solver work in resource units]).
func TestProcessorTimeBudget(t *testing.T) {
	corpusKernels(t) // skips without the corpus or clang
	f := filepath.Join(corpusDir, "opencl-gpuverify-annotated/polybench__stencils__seidel-2d__kernel0.cl")
	ss, err := TranslateFile(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := termination.NewEngine(termination.Config{CPU: 20 * time.Millisecond})
	if err != nil {
		t.Skipf("no solver: %v", err)
	}
	defer eng.Close()
	for _, s := range ss {
		r := eng.Analyze(s)
		if r.Verdict != termination.Unknown {
			t.Fatalf("within 20 ms of solver time: %s, want UNKNOWN", r.Line())
		}
		if !strings.Contains(r.Reason, "solver work budget of 60000 resource units (20ms of solver time)") {
			t.Errorf("reason %q does not name the budget in resource units", r.Reason)
		}
	}
}
