package fromir

import (
	"bytes"
	"strings"
	"testing"

	"gpuc/analysis/termination"
	"gpuc/internal/driver"
	"gpuc/ir/interp"
)

// TestBoundedBuffer checks that a buffer's bound reaches the analysis (Note [Bounded buffers]
// in package ir): a grid-stride loop up to a counter that the kernel itself bumps is TRUE under
// a condition on the bound's parameter with the bound, and not TRUE without it.
func TestBoundedBuffer(t *testing.T) {
	eng, err := termination.NewEngine(termination.Config{})
	if err != nil {
		t.Skipf("no solver: %v", err)
	}
	defer eng.Close()
	for _, c := range []struct{ file, want string }{
		{"testdata/bounded.kir", "fill: TRUE if CAP <= "},
		{"testdata/unbounded.kir", "fill: UNKNOWN"},
		// CHR's store top (Note [Store tops] in frontends/chr): the loop to the bounded
		// top is TRUE if; to the counter the adds advance, never TRUE.
		{"testdata/storetop.kir", "step: TRUE if CAP <= "},
		{"testdata/storetop_taken.kir", "step: UNKNOWN"},
	} {
		ss, ok := exampleSystems(t, c.file)
		if !ok || len(ss) != 1 {
			t.Fatalf("%s: %d systems", c.file, len(ss))
		}
		if line := eng.Analyze(ss[0]).Line(); !strings.Contains(line, c.want) {
			t.Errorf("%s: got %q, want %q", c.file, line, c.want)
		}
	}
}

// TestStoreTopChecked checks that the interpreter holds the store top's bound (Note [Store
// tops] in frontends/chr): with a store too small for the 256 threads, the two-counter
// allocator raises "store full", and one counter bounded alike (whose adds pass CAP before the
// check) fails the bound's check instead, so a fact stated wrongly shows in a run.
func TestStoreTopChecked(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"testdata/storetop.kir", "store full"},
		{"testdata/storetop_onecounter.kir", "buffer top is bounded by CAP = 100 (Note [Bounded buffers]), but a write stores 101"},
	} {
		m, err := driver.Load(c.file)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		err = interp.Run(m, interp.Config{Stdout: &out, Params: map[string]int64{"CAP": 100}})
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s CAP=100: got error %v, want one ending %q", c.file, err, c.want)
		}
		if err := interp.Run(m, interp.Config{Stdout: &out}); err != nil {
			t.Errorf("%s: %v", c.file, err)
		}
	}
}
