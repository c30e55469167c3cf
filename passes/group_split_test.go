package passes_test

import "testing"

// TestGroupSplit runs group-split on testdata/group_split/*.txtar.
func TestGroupSplit(t *testing.T) { golden(t, "testdata/group_split/*.txtar", "group-split") }
