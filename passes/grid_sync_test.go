package passes_test

import "testing"

// TestGridSync runs grid-sync on testdata/grid_sync/*.txtar.
func TestGridSync(t *testing.T) { golden(t, "testdata/grid_sync/*.txtar", "grid-sync") }
