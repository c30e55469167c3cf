package passes_test

import "testing"

// TestSplitBarriers runs split-barriers alone on
// testdata/split_barriers/*.txtar, regions whose grid barriers stand at
// their top level.
func TestSplitBarriers(t *testing.T) {
	golden(t, "testdata/split_barriers/*.txtar", "split-barriers")
}
