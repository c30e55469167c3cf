package main

import (
	"io"
	"testing"
)

// TestEveryCommandHasExamples checks that each visible command's help has
// an Examples section.
func TestEveryCommandHasExamples(t *testing.T) {
	root := newRoot(io.Discard, io.Discard)
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if c.Example == "" {
			t.Errorf("gpuc %s has no Examples", c.Name())
		}
	}
}
