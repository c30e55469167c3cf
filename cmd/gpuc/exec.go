package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"gpuc/internal/toolkit"
)

func newExec(stdout io.Writer) *cobra.Command {
	var bf buildFlags
	cmd := &cobra.Command{
		Use:   "exec [FLAGS] FILE [PROGRAM-ARGS ...]",
		Short: "Build a program natively (cached) and run it",
		Long: `exec builds FILE as gpuc build does, into a cache keyed by the source, the
options and gpuc's version ($GPUC_CACHE/exec, else ~/.cache/gpuc/exec),
and runs it with the arguments that follow FILE, which are the program's:
NAME=VALUE, BUF=FILE, --time, --json, CHECKS=0. gpuc's own flags come
before FILE.
The program prints what gpuc run prints, many times faster (the CPU host
build 2 to 42 times on the examples, a GPU more); gpuc run stays the
reference, with --race.`,
		Example: `  gpuc exec examples/fork/sieve.fork N=1000000
  gpuc exec prog.kir N=4096 data=in.txt --time --json
  gpuc exec --toolchain=host --checks=off prog.fork`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := bf.options(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			exe, built, err := toolkit.Cached(args[0], o)
			if err != nil {
				return err
			}
			if built && bf.verbose {
				fmt.Fprintf(cmd.ErrOrStderr(), "gpuc exec: built %s\n", exe)
			}
			prog := exec.Command(exe, args[1:]...)
			prog.Stdin, prog.Stdout, prog.Stderr = os.Stdin, stdout, cmd.ErrOrStderr()
			var ee *exec.ExitError
			if err := prog.Run(); errors.As(err, &ee) {
				code := ee.ExitCode()
				if code < 0 {
					code = 2 // killed by a signal
				}
				return &exitStatus{code}
			} else if err != nil {
				return err
			}
			return nil
		},
	}
	bf.add(cmd)
	cmd.Flags().SetInterspersed(false) // after FILE, the program's arguments
	return cmd
}
