package passes_test

import "testing"

// TestHostLoops runs host-loops on testdata/host_loops/*.txtar.
func TestHostLoops(t *testing.T) { golden(t, "testdata/host_loops/*.txtar", "host-loops") }
