package termination_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gpuc/analysis/termination"
	"gpuc/internal/irtest"
)

// TestConstructedKernelsCVC5 runs the constructed kernels under cvc5 as TestConstructedKernels
// runs them under z3: the same expected verdict for every kernel, so the two solvers agree on
// them (issue 16: CI runs the constructed cases under both). The .kir forms only, and the .cl
// forms that have none: TestConstructedKernels checks that the two forms agree, and cvc5 on
// every .cl form cost 17 s of processor time (clang and cvc5) where the suite has 4 minutes.
func TestConstructedKernelsCVC5(t *testing.T) {
	irtest.LongOnly(t, "TestConstructedKernels runs the same cases under z3")
	if _, err := exec.LookPath("cvc5"); err != nil {
		t.Skip("cvc5 is not installed")
	}
	clang := true
	for _, tool := range []string{"clang-16", "opt-16"} {
		if _, err := exec.LookPath(tool); err != nil {
			clang = false
		}
	}
	kir := map[string]bool{}
	kirs, _ := filepath.Glob("testdata/kernels/*.kir")
	for _, f := range kirs {
		kir[strings.TrimSuffix(f, ".kir")] = true
	}
	// No processor-time budget (Note [Processor-time budget]): the expected verdicts and
	// conditions are the work budget's, which do not depend on the machine (wide_stride's
	// condition moved with the machine's speed under the 3 s default).
	eng, err := termination.NewEngine(termination.Config{Solver: "cvc5", Budget: time.Minute, CPU: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	files, _ := filepath.Glob("testdata/kernels/*")
	for _, f := range files {
		if filepath.Ext(f) == ".cl" && kir[strings.TrimSuffix(f, ".cl")] {
			continue
		}
		if filepath.Ext(f) == ".cl" && !clang {
			t.Logf("%s: skipped: clang-16 and opt-16 are not installed", f)
			continue
		}
		checkKernels(t, eng, f, "cvc5: ", nil)
	}
}
