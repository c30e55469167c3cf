package passes_test

import "testing"

// TestLowerPriority runs lower-priority on testdata/lower_priority/*.txtar.
func TestLowerPriority(t *testing.T) { golden(t, "testdata/lower_priority/*.txtar", "lower-priority") }
