package passes_test

import "testing"

// TestLowerMultiprefix runs lower-multiprefix on
// testdata/lower_multiprefix/*.txtar.
func TestLowerMultiprefix(t *testing.T) {
	golden(t, "testdata/lower_multiprefix/*.txtar", "lower-multiprefix")
}
