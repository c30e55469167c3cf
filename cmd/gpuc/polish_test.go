package main

import (
	"io"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHasExamples checks that each visible command's help has
// an Examples section.
func TestEveryCommandHasExamples(t *testing.T) {
	root := newRoot(io.Discard, io.Discard)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, c := range c.Commands() {
			if c.Hidden || c.Name() == "help" {
				continue
			}
			if c.Example == "" {
				t.Errorf("gpuc %s has no Examples", c.CommandPath())
			}
			walk(c)
		}
	}
	walk(root)
}
