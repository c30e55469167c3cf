package fromir

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/analysis/its"
	"gpuc/analysis/smt"
	"gpuc/analysis/termination"
	"gpuc/frontends/kir"
	"gpuc/internal/driver"
	"gpuc/passes"
)

// TestExamples: every kernel and device function of the examples (all but most TRS ones)
// translates, after the default pipeline, into a well-formed system.
func TestExamples(t *testing.T) {
	var files []string
	for _, pat := range []string{"*/*.kir", "*/*.fork", "*/*.chr", "*/*.trs", "*/*.rec"} {
		m, _ := filepath.Glob(filepath.Join("../../examples", pat))
		if len(m) > 4 && pat == "*/*.trs" {
			// Four of the 33 TRS examples, to keep the suite within CI's budget.
			m = m[:4]
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	for _, f := range files {
		ss, ok := exampleSystems(t, f)
		if !ok {
			continue
		}
		for _, s := range ss {
			for _, e := range s.Validate() {
				t.Errorf("%s: %v", f, e)
			}
			if testing.Verbose() {
				t.Logf("%s:\n%s", f, s)
			}
		}
	}
}

// TestScan: the textbook scan of ir's doc comment; its doubling loop reads bdim() and the
// launch gives the block size.
func TestScan(t *testing.T) {
	src := `module scan;
param N: i32 = 4096;
param B: i32 = 256;
buffer data: i32[N] global output;
buffer tmp: i32[B] shared scratch;
kernel scan() {
  var t: i32 = tid();
  var i: i32 = gid();
  tmp[t] = i < N ? data[i] : 0;
  barrier;
  for var off: i32 = 1; off < bdim(); off = off * 2 {
    var x: i32 = 0;
    if t >= off {
      x = tmp[t - off];
    }
    barrier;
    tmp[t] = tmp[t] + x;
    barrier;
  }
  if i < N {
    data[i] = tmp[t];
  }
}
host main() {
  launch scan() grid (N + B - 1) / B block B;
}
`
	m, err := kir.Parse("scan.kir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := Systems(m, "scan.kir")
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 {
		t.Fatalf("%d systems, want 1", len(ss))
	}
	s := ss[0]
	for _, e := range s.Validate() {
		t.Error(e)
	}
	got := s.String()
	for _, want := range []string{
		"(bdim == B)", "launch block B",
		"loop [loop barrier]",
		"loop -> loop [(off <s bdim)",
		"off := (off * 2)",
		"loop -> exit [(off >=s bdim)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

// exampleSystems loads an example with the input flags args, lowers it
// with the default pipeline and translates it; false, logged or
// reported, where it cannot.
func exampleSystems(t *testing.T, f string, args ...string) ([]*its.System, bool) {
	t.Helper()
	m, err := driver.Load(f, args...)
	if err != nil {
		t.Logf("%s: %v (skipped: the example needs options)", f, err)
		return nil, false
	}
	if err := driver.Lower(m, []string{"default"}, &passes.Config{}); err != nil {
		t.Errorf("%s: lowering: %v", f, err)
		return nil, false
	}
	ss, err := Systems(m, f)
	if err != nil {
		t.Errorf("%s: %v", f, err)
		return nil, false
	}
	return ss, true
}

// analyzeExample analyses kernel of example f with an engine of cfg and returns the result;
// it skips the test where z3 is missing and fails it where f does not translate or lacks
// kernel.
func analyzeExample(t *testing.T, cfg termination.Config, f, kernel string) *termination.Result {
	t.Helper()
	eng, err := termination.NewEngine(cfg)
	if errors.Is(err, smt.ErrNoSolver) {
		t.Skip("z3 is not installed")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ss, ok := exampleSystems(t, f)
	if !ok {
		t.Fatalf("%s did not translate", f)
	}
	for _, s := range ss {
		if s.Name == kernel {
			r := eng.Analyze(s)
			t.Logf("%s [%.0f ms]", r.Line(), r.TimeMS)
			return r
		}
	}
	t.Fatalf("%s has no %s", f, kernel)
	return nil
}
