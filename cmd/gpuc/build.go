package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"gpuc/internal/driver"
	"gpuc/internal/toolkit"
)

// buildFlags are the flags that build and exec share.
type buildFlags struct {
	toolchain, arch, checks string
	verbose                 bool
	in                      *driver.Inputs
}

func (b *buildFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&b.toolchain, "toolchain", toolkit.Auto, "how to build: hybrid (a TRS's CPU and GPU program, with llc-16 and clang-16), nvcc (the CUDA program), host (the LLVM backend's CPU build with clang-16), or auto (hybrid for a TRS where llc-16 is on PATH, else nvcc where it is, else host)")
	cmd.Flags().StringVar(&b.arch, "arch", "sm_90", "nvcc's GPU architecture")
	cmd.Flags().BoolVarP(&b.verbose, "verbose", "v", false, "print each tool's command line on standard error")
	addChecksFlag(cmd, &b.checks)
	_ = cmd.RegisterFlagCompletionFunc("toolchain", cobra.FixedCompletions([]string{toolkit.Auto, toolkit.Hybrid, toolkit.NVCC, toolkit.Host}, cobra.ShellCompDirectiveNoFileComp))
	b.in = driver.AddInputFlags(cmd.Flags(), false)
}

func (b *buildFlags) options(stderr io.Writer) (toolkit.Options, error) {
	off, err := checksOff(b.checks)
	o := toolkit.Options{Toolchain: b.toolchain, Arch: b.arch, Frontend: b.in.Args(), NoChecks: off}
	if b.verbose {
		o.Log = func(cmd string) { fmt.Fprintln(stderr, cmd) }
	}
	return o, err
}

// selfOptions is options, with the path of the running gpuc, which bench
// and test run the interpreter through.
func (b *buildFlags) selfOptions(stderr io.Writer) (toolkit.Options, string, error) {
	o, err := b.options(stderr)
	if err != nil {
		return o, "", err
	}
	self, err := os.Executable()
	return o, self, err
}

func newBuild() *cobra.Command {
	var out string
	var bf buildFlags
	cmd := &cobra.Command{
		Use:   "build FILE -o PROG",
		Short: "Compile a program to a native executable (hybrid, nvcc, or clang for the CPU)",
		Long: `build compiles FILE and builds the generated program with the toolchain
at hand (--toolchain chooses):
  - a term rewrite system, where llc-16 and clang-16 are on PATH: the
    hybrid program, which starts rewriting on the CPU at once and moves
    its store to the GPU (a CUDA driver is all it needs there) while
    the work is wide enough to gain from it, and back for a sequential
    tail; it needs no CUDA toolkit, and runs on the CPU alone where
    there is no GPU (HYBRID=cpu forces that, HYBRID=0 the GPU);
  - otherwise nvcc for the CUDA program where nvcc is on PATH (GPU only;
    --toolchain=nvcc asks for it for a TRS too);
  - otherwise clang-16 for the LLVM backend's host build, whose kernels
    run on the CPU's cores.
PROG takes NAME=VALUE and BUF=FILE as gpuc run does, prints the same
bytes, and answers --help with its parameters and input buffers.
The build goes through gpuc exec's cache: building the same file with
the same options again, or running it with gpuc exec, runs no compiler.`,
		Example: `  gpuc build examples/fork/sieve.fork -o sieve && ./sieve N=1000000
  gpuc build examples/trs/mergesort.trs -o msort && ./msort --time
  gpuc build prog.kir -o prog --toolchain=host
  gpuc build prog.chr --query q.pl -o prog --checks=off`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("build: -o PROG is required")
			}
			o, err := bf.options(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			built, err := toolkit.Install(args[0], out, o)
			if err == nil && !built && bf.verbose {
				fmt.Fprintf(cmd.ErrOrStderr(), "gpuc build: %s from the cache\n", out)
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the executable to write")
	bf.add(cmd)
	return cmd
}
