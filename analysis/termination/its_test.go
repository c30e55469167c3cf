package termination

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gpuc/analysis/its"
	"gpuc/analysis/smt"
	"gpuc/internal/irtest"
)

func engine(t *testing.T, solver string) *Engine {
	t.Helper()
	// No processor-time budget (Note [Processor-time budget]): the expected verdicts are the
	// work budget's, which do not depend on the machine or its load (nest-inner-spins.its
	// under cvc5 was UNKNOWN on a loaded 2-core machine).
	e, err := NewEngine(Config{Solver: solver, Timeout: 5 * time.Second, Budget: time.Minute, CPU: -1})
	if errors.Is(err, smt.ErrNoSolver) {
		t.Skipf("%s is not installed", solver)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// constructed holds the z3 analyses of the constructed systems, made once per test binary:
// TestConstructedSystems, TestDifferential and TestMutants check the same results
// (TestMutants also the originals' verdicts), so each system is proved once, not three times.
var constructed struct {
	sync.Mutex
	res map[string]*Result
	sys map[string]*its.System
}

// constructedZ3 parses f and gives the z3 verdict on it, analysed with e at the first call.
func constructedZ3(t *testing.T, e *Engine, f string) (*its.System, *Result) {
	t.Helper()
	constructed.Lock()
	defer constructed.Unlock()
	if r, ok := constructed.res[f]; ok {
		return constructed.sys[f], r
	}
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := its.Parse(string(src), f)
	if err != nil {
		t.Fatal(err)
	}
	r := e.Analyze(sys)
	if constructed.res == nil {
		constructed.res, constructed.sys = map[string]*Result{}, map[string]*its.System{}
	}
	constructed.res[f], constructed.sys[f] = r, sys
	return sys, r
}

// want reads "# want: VERDICT" and "# warn: TEXT" lines.
func want(src string) (verdict string, warns []string) {
	for _, l := range strings.Split(src, "\n") {
		if v, ok := strings.CutPrefix(l, "# want: "); ok {
			verdict = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(l, "# warn: "); ok {
			warns = append(warns, strings.TrimSpace(v))
		}
	}
	return verdict, warns
}

// TestConstructedSystems runs the constructed cases at the ITS level under both solvers; the
// verdicts must be the expected ones and the same for both.
func TestConstructedSystems(t *testing.T) {
	files, _ := filepath.Glob("testdata/its/*.its")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	got := map[string]map[string]string{}
	for _, solver := range []string{"z3", "cvc5"} {
		t.Run(solver, func(t *testing.T) {
			if solver == "cvc5" {
				irtest.LongOnly(t, "the z3 run checks the same expected verdicts")
			}
			e := engine(t, solver)
			got[solver] = map[string]string{}
			for _, f := range files {
				src, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				sys, err := its.Parse(string(src), f)
				if err != nil {
					t.Fatal(err)
				}
				wantV, warns := want(string(src))
				q0 := e.Queries()
				var r *Result
				if solver == "z3" {
					_, r = constructedZ3(t, e, f)
				} else {
					r = e.Analyze(sys)
				}
				t.Logf("%s: %s [%.0f ms, %d queries]", filepath.Base(f), r.Verdict, r.TimeMS, e.Queries()-q0)
				v := string(r.Verdict)
				if r.Condition != "" {
					v += " if " + r.Condition
				}
				got[solver][f] = v
				if v != wantV {
					t.Errorf("%s: got %s, want %s\n%s", f, r.Line(), wantV, dump(r))
				}
				if r.Verdict == False && r.Witness == nil {
					t.Errorf("%s: FALSE without a witness", f)
				}
				for _, w := range warns {
					if !strings.Contains(strings.Join(r.Warnings, "\n"), w) {
						t.Errorf("%s: no warning %q in %q", f, w, r.Warnings)
					}
				}
				if len(warns) == 0 && len(r.Warnings) > 0 {
					t.Errorf("%s: unexpected warnings %q", f, r.Warnings)
				}
			}
		})
	}
	if got["z3"] != nil && got["cvc5"] != nil {
		for f, v := range got["z3"] {
			if got["cvc5"][f] != v {
				t.Errorf("%s: z3 says %s, cvc5 says %s", f, v, got["cvc5"][f])
			}
		}
	}
}

func dump(r *Result) string {
	var b strings.Builder
	for _, l := range r.Loops {
		b.WriteString("  loop " + l.Loc + " " + string(l.Verdict) + " " + l.Reason + "\n")
		for _, i := range l.Invariants {
			b.WriteString("    inv " + i + "\n")
		}
		for _, f := range l.Ranking {
			b.WriteString("    rank " + f + "\n")
		}
	}
	if r.Witness != nil {
		b.WriteString("  witness " + launchText(r.Witness.Launch) + "\n")
		for _, s := range r.Witness.Recurrent {
			b.WriteString("    recurrent " + s + "\n")
		}
	}
	return b.String()
}
