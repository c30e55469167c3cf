package fromllvm

import (
	"path/filepath"
	"testing"

	"gpuc/analysis/termination"
	"gpuc/internal/irtest"
)

// TestSameWorkEveryRun: a kernel's analysis asks the same queries in every run, so that its
// verdict, its solver queries and z3's resource units are the same (Note [Solver work in
// resource units] in analysis/termination). rodinia's IMGVF kernel is UNKNOWN after a witness
// search whose recurrent-set checks went through the loop's locations in a map's order: 384 to
// 389 queries from run to run, and other units, before they went in order.
func TestSameWorkEveryRun(t *testing.T) {
	irtest.LongOnly(t, "three analyses of one corpus kernel, 10 s; the short mode's corpus sample runs the same engine")
	corpusKernels(t)
	f := filepath.Join(corpusDir, "opencl-standalone/rodinia_2.4__leukocyte__IMGVF__UNDERSCORE.cl")
	tr := translateAll([]string{f})[f]
	if tr.err != nil {
		t.Fatal(tr.err)
	}
	type run struct {
		lines   string
		queries int
		units   int64
	}
	var runs []run
	for i := 0; i < 3; i++ {
		eng, err := termination.NewEngine(termination.Config{})
		if err != nil {
			t.Fatal(err)
		}
		var r run
		for _, s := range tr.systems {
			r.lines += eng.Analyze(s).Line() + "\n"
		}
		r.queries, r.units = eng.Queries(), eng.Units()
		eng.Close()
		t.Logf("run %d: %d queries, %d units", i+1, r.queries, r.units)
		runs = append(runs, r)
	}
	for i := 1; i < len(runs); i++ {
		if runs[i] != runs[0] {
			t.Errorf("run %d differs from run 1:\n%s%d queries, %d units\nagainst\n%s%d queries, %d units", i+1, runs[i].lines, runs[i].queries, runs[i].units, runs[0].lines, runs[0].queries, runs[0].units)
		}
	}
}
