package termination_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gpuc/analysis/fromir"
	"gpuc/analysis/fromllvm"
	"gpuc/analysis/its"
	"gpuc/analysis/termination"
	"gpuc/internal/driver"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// wants reads "// want KERNEL: VERDICT" lines.
func wants(t *testing.T, path string) map[string]string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(l, "// want "); ok {
			k, v, _ := strings.Cut(rest, ": ")
			m[k] = strings.TrimSpace(v)
		}
	}
	if len(m) == 0 {
		t.Fatalf("%s: no // want line", path)
	}
	return m
}

func systemsOf(t *testing.T, path string) ([]*its.System, *ir.Module) {
	t.Helper()
	if filepath.Ext(path) == ".cl" {
		ss, err := fromllvm.Systems(path, fromllvm.Options{Semantics: "wrap"})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return ss, nil
	}
	m, err := driver.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := driver.Lower(m, []string{"default"}, &passes.Config{}); err != nil {
		t.Fatal(err)
	}
	ss, err := fromir.Systems(m, path)
	if err != nil {
		t.Fatal(err)
	}
	return ss, m
}

// replay runs m in the interpreter with params and a loop limit; it reports whether some loop
// passed the limit.
func replay(t *testing.T, m *ir.Module, params map[string]int64) (looped, ran bool) {
	t.Helper()
	err := interp.Run(m, interp.Config{Params: params, LoopLimit: 20000})
	var ll *interp.LoopLimitError
	switch {
	case errors.As(err, &ll):
		return true, true
	case err != nil && strings.Contains(err.Error(), "larger than the interpreter's limit"):
		// A launch the GPU takes but the interpreter does not simulate
		// (more than 2^31-1 threads): nothing to replay.
		t.Logf("%s: not replayed: %v", m.Name, err)
		return false, false
	case err != nil:
		t.Fatalf("%s: %v", m.Name, err)
	}
	return false, true
}

func verdictText(r *termination.Result) string {
	v := string(r.Verdict)
	if r.Condition != "" {
		v += " if " + r.Condition
	}
	return v
}

// TestConstructedKernels runs the constructed soundness cases, each written in .kir and in .cl,
// through the translators and the engine: every kernel gets its expected verdict, and the .kir
// and .cl forms of a case agree up to parameter names.
func TestConstructedKernels(t *testing.T) {
	if _, err := exec.LookPath("z3"); err != nil {
		t.Skip("z3 is not installed")
	}
	clang := true
	for _, tool := range []string{"clang-16", "opt-16"} {
		if _, err := exec.LookPath(tool); err != nil {
			clang = false
		}
	}
	// No processor-time budget (Note [Processor-time budget]): the expected verdicts and
	// conditions are the work budget's, which do not depend on the machine (wide_stride's
	// condition moved with the machine's speed under the 3 s default).
	eng, err := termination.NewEngine(termination.Config{Budget: time.Minute, CPU: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	files, _ := filepath.Glob("testdata/kernels/*")
	for _, f := range files {
		if filepath.Ext(f) == ".cl" && !clang {
			t.Logf("%s: skipped: clang-16 and opt-16 are not installed", f)
			continue
		}
		checkKernels(t, eng, f, "", func(r *termination.Result, m *ir.Module) {
			if m == nil {
				return
			}
			// Differential check in the interpreter: a witness's parameters make a loop pass
			// any limit; a TRUE kernel ends at the defaults (which meet every condition here).
			if r.Witness != nil {
				params := map[string]int64{}
				for k, v := range r.Witness.Launch {
					if m.Param(k) != nil {
						n, _ := strconv.ParseInt(v, 10, 64)
						params[k] = n
					}
				}
				if r.Witness.Launch != nil && len(params) == len(paramsIn(m, r.Witness.Launch)) && launchFits(r.Witness.Launch) {
					if looped, ran := replay(t, m, params); ran && !looped {
						t.Errorf("%s: the witness %v does not loop in the interpreter", f, r.Witness.Launch)
					}
				}
			}
			if r.Verdict != termination.True {
				return
			}
			if looped, _ := replay(t, m, nil); looped {
				t.Errorf("%s: TRUE, but the interpreter passed the loop limit at the defaults", f)
			}
		})
	}
}

// checkKernels analyses with eng each kernel of f that wants a verdict, checks the verdict
// (and that a FALSE has a witness), hands each result to more where it is not nil, and
// reports the wanted kernels that f lacks. who prefixes the messages (the solver).
func checkKernels(t *testing.T, eng *termination.Engine, f, who string, more func(*termination.Result, *ir.Module)) {
	want := wants(t, f)
	systems, m := systemsOf(t, f)
	for _, sys := range systems {
		w, ok := want[sys.Name]
		if !ok {
			continue
		}
		delete(want, sys.Name)
		r := eng.Analyze(sys)
		if got := verdictText(r); got != w {
			t.Errorf("%s: %sgot %s, want %s", f, who, r.Line(), w)
		}
		if r.Verdict == termination.False && r.Witness == nil {
			t.Errorf("%s: %sFALSE without a witness", f, who)
		}
		if more != nil {
			more(r, m)
		}
	}
	for k := range want {
		t.Errorf("%s: no kernel %s", f, k)
	}
}

func paramsIn(m *ir.Module, launch map[string]string) []string {
	var out []string
	for k := range launch {
		if m.Param(k) != nil {
			out = append(out, k)
		}
	}
	return out
}

// launchFits reports whether the witness's thread lies in the launch main makes at those
// parameters: the interpreter runs main's launches, not the witness's block and grid.
func launchFits(launch map[string]string) bool {
	v, ok := launch["bid"]
	return !ok || v == "0"
}
