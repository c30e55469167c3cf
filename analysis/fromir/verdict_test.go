package fromir

import (
	"flag"
	"path/filepath"
	"testing"

	"gpuc/analysis/termination"
)

var examplesAnalyze = flag.Bool("analyze-examples", false, "print the termination verdict of every example kernel")

// TestExampleVerdicts prints every example kernel's verdict (a measuring aid, with
// -analyze-examples; the expected verdicts are checked by gpuc check's script tests).
func TestExampleVerdicts(t *testing.T) {
	if !*examplesAnalyze {
		t.Skip("needs -analyze-examples")
	}
	eng, err := termination.NewEngine(termination.Config{})
	if err != nil {
		t.Skip(err)
	}
	defer eng.Close()
	var files []string
	for _, pat := range []string{"*/*.kir", "*/*.fork", "*/*.chr", "*/*.trs", "*/*.rec"} {
		m, _ := filepath.Glob(filepath.Join("../../examples", pat))
		files = append(files, m...)
	}
	for _, f := range files {
		ss, _ := exampleSystems(t, f)
		for _, s := range ss {
			r := eng.Analyze(s)
			t.Logf("%s [%.0f ms]", r.Line(), r.TimeMS)
		}
	}
}
