package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"gpuc/internal/toolkit"
)

func newTest(stdout io.Writer) *cobra.Command {
	var bf buildFlags
	var native bool
	cmd := &cobra.Command{
		Use:   "test FILES...",
		Short: "Test programs against their expected outputs, in the interpreter and natively",
		Long: `test runs each program's test cases in the interpreter (gpuc run) and
natively (as gpuc exec builds it), in the program's directory, and checks
each against the expected output and the two against each other. It
prints a line per case and "N passed, N failed", and fails if any did.

Cases come from a comment block in the program (//, % or # comments):

  // test: N=10
  // 55
  // test: N=0
  // error: integer division by zero

"test:" starts a case with its arguments; the comment lines after it are
the expected standard output, or "error: TEXT", an expected failure
(exit status 1, TEXT in the error). Without such a block, PROG.out beside
the program is the expected output, with the arguments in PROG.args.`,
		Example: `  gpuc test examples/fork/*.fork
  gpuc test --native=false prog.chr`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, self, err := bf.selfOptions(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if native {
				if _, err := toolkit.Resolve(o.Toolchain, nil); err != nil {
					return fmt.Errorf("%v (or --native=false)", err)
				}
			}
			if toolkit.Test(stdout, args, toolkit.TestOptions{Build: o, Native: native, Gpuc: self}) > 0 {
				return &exitStatus{1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&native, "native", true, "also build and run each program natively")
	bf.add(cmd)
	return cmd
}
