package fromir

import (
	"strings"
	"testing"

	"gpuc/analysis/termination"
	"gpuc/frontends/kir"
)

// TestRaiseIsNoDivergence: a raise in a loop that holds a barrier ends
// the whole launch with the error (no thread waits at the barrier), so a
// thread-dependent raise is no barrier divergence, where a
// thread-dependent return is.
func TestRaiseIsNoDivergence(t *testing.T) {
	eng, err := termination.NewEngine(termination.Config{})
	if err != nil {
		t.Skip(err)
	}
	defer eng.Close()
	const src = `module m;
param N: i32 = 64;
buffer a: i32[N] global output;
kernel k() {
  for var r: i32 = 0; r < 4; r = r + 1 {
    if a[tid()] == 7 && tid() == 3 {
      %s
    }
    barrier;
    a[tid()] = a[tid()] + 1;
  }
}
host main() {
  launch k() grid 1 block N;
}
`
	for _, c := range []struct {
		stmt    string
		warning bool
	}{{`raise "bad";`, false}, {`return;`, true}} {
		m, err := kir.Parse("m.kir", []byte(strings.Replace(src, "%s", c.stmt, 1)))
		if err != nil {
			t.Fatal(err)
		}
		ss, err := Systems(m, "m.kir")
		if err != nil {
			t.Fatal(err)
		}
		var warns []string
		for _, s := range ss {
			warns = append(warns, eng.Analyze(s).Warnings...)
		}
		if got := strings.Contains(strings.Join(warns, "\n"), "barrier divergence"); got != c.warning {
			t.Errorf("%s: barrier divergence warned %v, want %v (%q)", c.stmt, got, c.warning, warns)
		}
	}
}
