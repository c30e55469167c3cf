package chr_test

import (
	"path/filepath"
	"strings"
	"testing"

	"gpuc/frontends/chr"
	"gpuc/internal/irtest"
	"gpuc/ir"
)

// The examples in examples/chr are checked against SWI-Prolog, the
// independent oracle: each example's .out file holds SWI-Prolog's final
// store, sorted (testdata/chr_dump.pl), and gpuc must print exactly that,
// at the SPMD level and after lowering to kernels, with the race checker
// on. Every example is confluent (examples/chr/README.md), so any order
// of rule firings reaches that store.

// smallProcs runs the race-checked runs with few processors, so that
// every processor loops over many slots.
var smallProcs = map[string]int64{"PROCS": 7}

func TestExamples(t *testing.T) {
	files, _ := filepath.Glob("../../examples/chr/*.chr")
	if len(files) < 10 {
		t.Fatalf("found %d examples in examples/chr", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".chr")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := irtest.ReadFile(t, f)
			want := irtest.ReadFile(t, strings.TrimSuffix(f, ".chr")+".out")
			if got := mustRun(t, mustParse(t, name+".chr", src, chr.Options{}), nil, false, false); got != want {
				t.Errorf("gpuc run:\n%s\nwant (.out)\n%s", got, want)
			}
			if got := mustRun(t, mustParse(t, name+".chr", src, chr.Options{}), smallProcs, true, true); got != want {
				t.Errorf("gpuc run --race --passes=default PROCS=7:\n%s\nwant (.out)\n%s", got, want)
			}
			if got := swipl(t, src); got != want {
				t.Errorf("SWI-Prolog's store differs from %s.out:\n%s", name, got)
			}
		})
	}
}

// TestDeterministic checks that every example lowers to the same IR each
// time: nothing in the lowering may follow Go's map order.
func TestDeterministic(t *testing.T) {
	files := irtest.Glob(t, "../../examples/chr/*.chr")
	for _, file := range files {
		src := irtest.ReadFile(t, file)
		first := ""
		for i := 0; i < 8; i++ {
			m, err := chr.Parse(file, []byte(src), chr.Options{})
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			text := ir.Print(m)
			if i == 0 {
				first = text
			} else if text != first {
				t.Fatalf("%s lowers to different IR on different runs", file)
			}
		}
	}
}
