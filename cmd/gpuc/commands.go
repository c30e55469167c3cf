package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"gpuc/internal/driver"
	"gpuc/internal/enum"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

func newCompile(stdout io.Writer) *cobra.Command {
	var out, emit, target, checks string
	var report, peRuntime, asJSON bool
	var pf *driver.PassFlags
	var in *driver.Inputs
	cmd := &cobra.Command{
		Use:   "compile FILE [NAME=VALUE ...] [-o OUT]",
		Short: "Compile a program to CUDA C, LLVM IR, PTX or lowered kernel IR",
		Long: `compile lowers FILE to the launch level and emits it. The backend follows
from OUT's extension (.cu: CUDA C, .ll: LLVM IR, .ptx: PTX, .kir: kernel
IR) or from --emit:

  cuda       a self-contained CUDA C program
  llvm       an LLVM module: NVPTX kernels, or with --target=host kernels
             that run on the CPU
  ptx        the NVPTX module compiled by llc (llc-16 or llc on PATH)
  llvm-host  the C++ host program that runs the LLVM module's kernels:
             through the CUDA driver API with the PTX embedded (runs llc),
             or with --target=host, calling the kernels compiled by clang
  llvm-hybrid the C++ host program that runs each launch on the CPU (the
             --target=host kernels, linked in) or the GPU (the PTX,
             embedded), moving the data at the program's hybrid points
  ir         the lowered kernel IR
  nvrtc      the kernels that read static data, as CUDA C for NVRTC, for
             a --pe-runtime program that specializes them again

NAME=VALUE makes VALUE parameter NAME's default, as if the source said
so: the program still takes NAME=VALUE when it runs, and each kernel is
compiled for the block sizes its launches have at the defaults.
DEVICES=k adds the parameter DEVICES where the module lacks it: the CUDA
program then runs on a world of k GPUs, one process each, joined by
NVSHMEM (README, "Several GPUs"), and ./prog DEVICES=j runs it on j.

Without -o the result goes to standard output.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, one, _, err := in.LoadWithOne(args[0])
			if err != nil {
				return err
			}
			noChecks, err := checksOff(checks)
			if err != nil {
				return err
			}
			text, err := driver.Compile(m, driver.Compilation{Emit: emit, Out: out, Target: target, PERuntime: peRuntime,
				Report: report, JSON: asJSON, NoChecks: noChecks, Defaults: args[1:], Passes: pf, One: one, Stderr: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err = stdout.Write(text)
				return err
			}
			return os.WriteFile(out, text, 0o644)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "output file (default: standard output)")
	cmd.Flags().StringVar(&emit, "emit", "", "what to emit: "+enum.List(driver.Emits()...)+" (default: from -o's extension, else cuda)")
	cmd.Flags().StringVar(&target, "target", "nvptx", "target of --emit=llvm and llvm-host: nvptx or host (the CPU)")
	cmd.Flags().BoolVar(&peRuntime, "pe-runtime", false, "let the CUDA program specialize its kernels again on --static data given when it runs (NVRTC; link with -lnvrtc -lcuda)")
	addChecksFlag(cmd, &checks)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print --report as JSON (docs/TOOLKIT.md)")
	cmd.Flags().BoolVar(&report, "report", false, "print, per source construct, what the lowering passes made of it (on standard error)")
	pf = driver.AddPassFlags(cmd.Flags(), []string{"default"})
	in = driver.AddInputFlags(cmd.Flags(), false)
	return cmd
}

func newRun(stdout io.Writer) *cobra.Command {
	var race, asJSON bool
	var workers, devices int
	var coop, memory int64
	var pf *driver.PassFlags
	var in *driver.Inputs
	var lim runLimits
	cmd := &cobra.Command{
		Use:   "run FILE [NAME=VALUE ...]",
		Short: "Run a program in the reference interpreter",
		Long: `run executes FILE on the CPU with GPU semantics. NAME=VALUE sets a
parameter, or names the file of an input buffer (BUF=FILE for text values,
BUF=@FILE for raw little-endian binary). With --race, two unsynchronised
conflicting accesses to one address are reported with both positions.

run is the reference semantics: use it to check a program, find races
and see every error with its position. For speed use gpuc exec, which
builds the program natively (cached) and runs it many times faster with
the same output and the same checks.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, fe, err := in.Load(args[0])
			if err != nil {
				return err
			}
			if err := pf.Run(m, cmd.ErrOrStderr()); err != nil {
				return err
			}
			if memory < 0 {
				return fmt.Errorf("--device-memory=%d: want a number of bytes", memory)
			}
			cfg := interp.Config{Stdout: stdout, Stderr: cmd.ErrOrStderr(), Race: race, Workers: workers,
				CoopThreads: coop, DeviceMemory: memory, MaxSteps: lim.maxSteps, Timeout: lim.timeout, Devices: devices,
				Progress: lim.progressTo(cmd.ErrOrStderr())}
			if !asJSON {
				return driver.Run(m, fe, args[1:], cfg)
			}
			cfg.Stats = &interp.Stats{}
			err = driver.Run(m, fe, driver.JSONArgs(fe, args[1:]), cfg)
			if cfg.Stats.Elapsed > 0 {
				io.WriteString(cmd.ErrOrStderr(), cfg.Stats.JSON())
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&race, "race", false, "report data races between threads")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run's statistics (steps, the program's counters, time) as JSON on stderr at the end, and --stats as JSON (docs/TOOLKIT.md)")
	cmd.Flags().IntVar(&workers, "workers", 0, "goroutines that run blocks in parallel (default: all cores)")
	cmd.Flags().Int64Var(&coop, "coop-threads", 0, "threads a cooperative launch may have before its fallback runs (default: an H100's 270336)")
	cmd.Flags().IntVar(&devices, "devices", 0, "simulate a world of this many devices, each running a copy of the host program; sets DEVICES where the module has it (default: DEVICES, or 1)")
	cmd.Flags().Int64Var(&memory, "device-memory", 0, "free device memory in bytes that parameters with a fit fraction are fitted to, such as TRS's CAPACITY (default: 256 MiB)")
	pf = driver.AddPassFlags(cmd.Flags(), nil)
	in = driver.AddInputFlags(cmd.Flags(), true)
	lim.add(cmd)
	return cmd
}

func newOpt(stdout io.Writer) *cobra.Command {
	var pf *driver.PassFlags
	var in *driver.Inputs
	cmd := &cobra.Command{
		Use:   "opt --passes=a,b FILE",
		Short: "Run passes on a program and print the resulting kernel IR",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, _, err := in.Load(args[0])
			if err != nil {
				return err
			}
			if err := pf.Run(m, cmd.ErrOrStderr()); err != nil {
				return err
			}
			_, err = io.WriteString(stdout, ir.Print(m))
			return err
		},
	}
	pf = driver.AddPassFlags(cmd.Flags(), nil)
	in = driver.AddInputFlags(cmd.Flags(), false)
	return cmd
}

func newPasses(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "passes",
		Short: "List the passes and pipelines",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			passes.Describe(stdout)
			return nil
		},
	}
}
