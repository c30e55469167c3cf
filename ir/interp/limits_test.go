package interp_test

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"gpuc/frontends/kir"
	"gpuc/ir/interp"
)

const loopSrc = `module loop;
param K: i32 = 1000000000;
buffer d: i32[1] global output;
kernel k() {
  var i: i32 = 0;
  while i < K {
    i = i + 1;
  }
  d[0] = i;
}
host main() {
  var n: i32 = 0;
  while n < 1000 {
    launch k() grid 1 block 1;
    n = n + 1;
  }
}`

// TestBoundedRuns checks --max-steps and --timeout (Note [Bounded runs]):
// a run past either stops with a positioned error, a kernel's endless
// loop included, and a run within them is untouched.
func TestBoundedRuns(t *testing.T) {
	m, err := kir.Parse("loop.kir", []byte(loopSrc))
	if err != nil {
		t.Fatal(err)
	}
	err = interp.Run(m, interp.Config{Params: map[string]int64{"K": 1}, MaxSteps: 50})
	if err == nil || !strings.Contains(err.Error(), "error: the run takes more than 50 steps: loop iterations, calls and threads (--max-steps)") {
		t.Errorf("max steps: got %v", err)
	}
	t0 := time.Now()
	err = interp.Run(m, interp.Config{Timeout: 100 * time.Millisecond})
	if err == nil || !strings.HasPrefix(err.Error(), "loop.kir:6:3: error: stopped after 100ms, the time limit (--timeout)") {
		t.Errorf("timeout: got %v", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("timeout of 100ms took %s", d)
	}
	var out strings.Builder
	if err := interp.Run(m, interp.Config{Stdout: &out, Params: map[string]int64{"K": 3}, MaxSteps: 10000, Timeout: time.Minute}); err != nil || out.String() != "3\n" {
		t.Errorf("within the limits: %q, %v", out.String(), err)
	}
}

// TestHugeBufferLengths checks that buffers whose lengths add up past
// MaxInt64 get the memory limit's error, not a wrapped total and a Go
// panic in make.
func TestHugeBufferLengths(t *testing.T) {
	m, err := kir.Parse("huge.kir", []byte(`module huge;
param N: i64 = 1;
buffer a: i32[2] global output;
buffer b: i32[N] global scratch;
host main() {
  a[0] = 1;
}`))
	if err != nil {
		t.Fatal(err)
	}
	err = interp.Run(m, interp.Config{Params: map[string]int64{"N": 9223372036854775807}})
	if err == nil || !strings.Contains(err.Error(), "huge.kir:4:1: error: buffers and arrays up to b hold 9223372036854775807 elements, more than the interpreter's limit") {
		t.Errorf("got %v", err)
	}
}

// counterSrc counts its launches in c[0], a progress counter named
// "launches" (Note [Progress counters] in package ir).
const counterSrc = `module counter;
param K: i32 = 1000000000;
buffer c: i64[1] global scratch progress "launches";
kernel k() {
  c[0] = c[0] + 1l;
}
host main() {
  var n: i32 = 0;
  while n < K {
    launch k() grid 1 block 1;
    n = n + 1;
  }
}`

// TestProgressCounters: the statistics and the progress line show the
// program's counter by its name, at its value.
func TestProgressCounters(t *testing.T) {
	m, err := kir.Parse("counter.kir", []byte(counterSrc))
	if err != nil {
		t.Fatal(err)
	}
	var st interp.Stats
	if err := interp.Run(m, interp.Config{Params: map[string]int64{"K": 7}, Stats: &st}); err != nil {
		t.Fatal(err)
	}
	if len(st.Counters) != 1 || st.Counters[0] != (interp.Counter{Name: "launches", Value: 7}) || st.Steps < 7 {
		t.Fatalf("stats %+v, want launches 7 and at least 7 steps", st)
	}
	if j := st.JSON(); !strings.HasPrefix(j, `{"gpuc": "run", "steps": `) || !strings.HasSuffix(j, `"counters": {"launches": 7}}`+"\n") {
		t.Errorf("JSON %q", j)
	}
	// A run stopped after 1.2 s has shown the progress line at least once.
	var progress syncBuffer
	err = interp.Run(m, interp.Config{Timeout: 1200 * time.Millisecond, Progress: &progress})
	if err == nil || !strings.Contains(err.Error(), "(--timeout)") {
		t.Fatalf("want the time limit, got %v", err)
	}
	if got := progress.String(); !regexp.MustCompile(`\rgpuc run: [0-9]+ steps, [1-9][0-9]* launches, [0-9.]+ s\x1b\[K`).MatchString(got) {
		t.Errorf("progress %q, want a line with the launches", got)
	}
}

// syncBuffer is a strings.Builder that the progress goroutine may write.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
