package fromir

import (
	"strings"
	"testing"
	"time"

	"gpuc/analysis/termination"
)

// TestCHRFixpointKernel checks that sum.chr's cooperative fixpoint kernel (main_coop1: the step
// loop with every rule's owner loop and partner scan inside it) is TRUE, under a condition on
// its parameters where it needs one: the nest is proved piece by piece (Note [Loop nests proved
// piece by piece] in analysis/termination), a condition on no value in memory. The processor-time budget is raised so that the
// work budget, which does not depend on the machine's load, decides the verdict.
func TestCHRFixpointKernel(t *testing.T) {
	r := analyzeExample(t, termination.Config{CPU: 30 * time.Second}, "../../examples/chr/sum.chr", "main_coop1")
	if r.Verdict != termination.True || len(r.Certificate) == 0 {
		t.Errorf("got %s, want TRUE (or TRUE if ...) with a certificate", r.Line())
	}
	// The store's top is a checked fact (Note [Store tops] in frontends/chr): the
	// condition is on parameters, not on a value in memory.
	if strings.Contains(r.Condition, "[") {
		t.Errorf("got %s, want a condition on parameters only", r.Line())
	}
}

// TestCHRLoopPositions checks that every loop CHR generates reports the position of what it
// comes from (Note [Positions of generated code] in frontends/chr): in gcd.chr, the constraint's
// declaration (line 4: the store's scans, compaction and output sort), a rule (lines 6 and 7:
// its owner loop and partner search, and its commit) or the query (line 9: the fixpoint and its
// claim rounds). Before, 43 of gcd's 47 loops said gcd.chr:1:1.
func TestCHRLoopPositions(t *testing.T) {
	f := "../../examples/chr/gcd.chr"
	ss, ok := exampleSystems(t, f)
	if !ok {
		t.Fatal("gcd.chr did not translate")
	}
	lines := map[string]int{}
	for _, s := range ss {
		for _, l := range s.Locs {
			if !l.LoopHead {
				continue
			}
			rest, found := strings.CutPrefix(l.Pos, f+":")
			line, _, _ := strings.Cut(rest, ":")
			switch {
			case !found:
				t.Errorf("%s: loop %s at %q, want a position in %s", s.Name, l.Name, l.Pos, f)
			case line != "4" && line != "6" && line != "7" && line != "9":
				t.Errorf("%s: loop %s at %s, want the declaration (line 4), a rule (6, 7) or the query (9)", s.Name, l.Name, l.Pos)
			}
			lines[line]++
		}
	}
	for _, want := range []string{"4", "6", "7", "9"} {
		if lines[want] == 0 {
			t.Errorf("no loop at %s:%s; loops by line: %v", f, want, lines)
		}
	}
}
