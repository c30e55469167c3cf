package passes_test

import (
	"strings"
	"testing"

	"gpuc/internal/irtest"
	"gpuc/passes"
)

// TestLowerPriority runs lower-priority on testdata/lower_priority/*.txtar.
func TestLowerPriority(t *testing.T) { golden(t, "testdata/lower_priority/*.txtar", "lower-priority") }

// TestLowerPriorityReport checks the runner's stamps: lower-priority's own
// entries carry its name, and the multiprefix it relaxes with
// lower-multiprefix's code is credited to lower-multiprefix.
func TestLowerPriorityReport(t *testing.T) {
	m := irtest.Parse(t, "r.kir", []byte(`module r;
buffer c: i32[1] global scratch;
buffer a: i32[4] global scratch;
host main() {
  region 4 {
    atomic mpadd c[0], 1;
    prio a[pid()] = pid();
    barrier grid;
  }
}
`))
	cfg := &passes.Config{Report: &passes.Report{}}
	irtest.RunPasses(t, m, cfg, "lower-priority")
	var rep strings.Builder
	cfg.Report.Write(&rep)
	want := "r.kir:6:5: lower-multiprefix: mpadd without a result: an atomic add\nr.kir:7:5: lower-priority: "
	if !strings.HasPrefix(rep.String(), want) {
		t.Errorf("report:\n%s\nwant it to start\n%s", rep.String(), want)
	}
}
