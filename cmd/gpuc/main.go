// Command gpuc compiles term rewrite systems, Constraint Handling Rules,
// Fork/PRAM programs and kernel IR to GPUs, and runs them in a reference
// interpreter. See README.md.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"gpuc/internal/diag"
	"gpuc/internal/driver"
	"gpuc/internal/version"
	"gpuc/ir/interp"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run executes one gpuc command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "gpuc: internal error: %v\n", r)
			status = 2
		}
	}()
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		var ex *exitStatus
		if errors.As(err, &ex) {
			return ex.code
		}
		report(stderr, err)
		return 1
	}
	return 0
}

// report prints an error the way compilers do: positioned diagnostics as
// they are, a raise as "error: MSG", anything else prefixed with "gpuc:".
func report(w io.Writer, err error) {
	var list diag.List
	var one *diag.Error
	var raise *interp.RaiseError
	var race *interp.RaceError
	switch {
	case errors.As(err, &list):
		fmt.Fprintln(w, list.Error())
	case errors.As(err, &one):
		fmt.Fprintln(w, one.Error())
	case errors.As(err, &raise):
		fmt.Fprintf(w, "error: %s\n", raise.Msg)
	case errors.As(err, &race):
		fmt.Fprintln(w, race.Error())
	default:
		fmt.Fprintf(w, "gpuc: error: %v\n", err)
	}
}

// exitStatus ends gpuc with the status code and prints nothing more:
// the status of a program that gpuc exec ran, or check --fail-on's 3.
type exitStatus struct{ code int }

func (e *exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "gpuc",
		Short: "Compile rule-based and parallel programs to GPUs",
		Long: `gpuc compiles term rewrite systems (.trs, or .rec in the REC format),
Constraint Handling Rules (.chr), Fork/PRAM programs (.fork) and kernel IR
(.kir) to CUDA C or LLVM IR, and runs them in a reference interpreter with
GPU semantics.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Version,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		newCompile(stdout),
		newRun(stdout),
		newOpt(stdout),
		newPasses(stdout),
		newVersion(stdout),
		newCheck(stdout),
		newBuild(),
		newExec(stdout),
		newTest(stdout),
		newBench(stdout),
		newMan(),
		newLSP(),
	)
	root.AddCommand(driver.FrontendCommands(stdout)...)
	root.InitDefaultCompletionCmd() // now, so that polish gives it Examples too
	polish(root)
	return root
}

func newVersion(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print gpuc's version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(stdout, "gpuc %s\n", version.Full())
			return nil
		},
	}
}

// flagError words a bad flag value as gpuc's other errors are worded:
// "--print=tree: want term or summary".
func flagError(_ *cobra.Command, err error) error {
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		return fmt.Errorf("--%s=%s: %w", bad.GetFlag().Name, bad.GetValue(), errors.Unwrap(bad))
	}
	return err
}
