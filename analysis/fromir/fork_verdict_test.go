package fromir

import (
	"strings"
	"testing"
	"time"

	"gpuc/analysis/termination"
)

// TestForkGroupFacts checks that the group facts of Fork's group recursion (Note [Checked
// facts] in package ir, groupFacts in frontends/fork) reach the analysis: quicksort's
// main_r3_k3, a kernel of the split level that runs the partition's loops `for (i = lo + $; i
// < hi; i += groupsize())` with the group size read back from a spill, is TRUE under a
// condition that bounds no group size in memory (main at 3e9ab3e: TRUE if 1 <=
// fr_size_spill_3[...] <= 1073741824 && hi_spill_3[...] <= 1073741824). The fact checked
// before the loop bounds the size by P; the range's end hi is the program's own value.
func TestForkGroupFacts(t *testing.T) {
	r := analyzeExample(t, termination.Config{CPU: 30 * time.Second}, "../../examples/fork/quicksort.fork", "main_r3_k3")
	if r.Verdict != termination.True || strings.Contains(r.Condition, "fr_size") {
		t.Errorf("got %s, want TRUE or TRUE if, with no condition on a group size in memory", r.Line())
	}
}
