package fromir

import (
	"testing"
	"time"

	"gpuc/analysis/termination"
)

func TestZZProf(t *testing.T) {
	eng, err := termination.NewEngine(termination.Config{CPU: 3 * time.Second})
	if err != nil {
		t.Skip(err)
	}
	defer eng.Close()
	ss, _ := exampleSystems(t, "../../examples/chr/gcd.chr")
	for _, s := range ss {
		if s.Name == "main_stride1" {
			r := eng.Analyze(s)
			t.Logf("%s [%.0f ms]", r.Line(), r.TimeMS)
		}
	}
}
