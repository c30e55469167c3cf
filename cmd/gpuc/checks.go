package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// addChecksFlag adds --checks, which keeps or leaves out the generated
// program's checks of indices and divisors (Note [Checks] in
// backends/abi).
func addChecksFlag(cmd *cobra.Command, checks *string) {
	cmd.Flags().StringVar(checks, "checks", "on", "check indices and divisors in device code, failing as `gpuc run` does (on), or not at all (off); CHECKS=0 on the program's command line turns them off at run time")
	_ = cmd.RegisterFlagCompletionFunc("checks", cobra.FixedCompletions([]string{"on", "off"}, cobra.ShellCompDirectiveNoFileComp))
}

// checksOff reads --checks.
func checksOff(checks string) (bool, error) {
	switch checks {
	case "on":
		return false, nil
	case "off":
		return true, nil
	}
	return false, fmt.Errorf("--checks=%s: want on or off", checks)
}
