package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"gpuc/backends/cuda"
	"gpuc/backends/llvm"
	"gpuc/internal/driver"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// frontendFlags are the frontend options that compile, run and opt share.
type frontendFlags struct {
	procs  int64
	crcw   string
	static []string
	inputs []string
	query  string
	stats  string // "" off, "-" standard error, else a file (CHR, run)
	// The TRS frontend's: --capacity, --print, --trace.
	capacity int64
	print    string
	trace    string
}

func (f *frontendFlags) add(cmd *cobra.Command) {
	cmd.Flags().Int64Var(&f.procs, "procs", 1024, "processors of a Fork `start` without a count")
	cmd.Flags().StringVar(&f.crcw, "crcw", "priority", "Fork's concurrent-write rule: priority or arbitrary")
	cmd.Flags().StringArrayVar(&f.static, "static", nil, "make a buffer static, NAME=FILE: its contents (text values, or raw binary with NAME=@FILE) are known at compile time")
	cmd.Flags().StringArrayVar(&f.inputs, "input", nil, "make a global scratch buffer an input buffer, read from the file that NAME=FILE names when the program runs; TRS: the input term (default: FILE.input beside FILE.trs, if any)")
	cmd.Flags().StringVar(&f.query, "query", "", "CHR: a file of constraints, one per line, that replaces the program's query")
	cmd.Flags().StringVar(&f.stats, "stats", "", "CHR: print rule firings, fixpoint steps and claim rounds to stderr, or with --stats=FILE (run) to FILE; TRS: print iterations, rewrites, live terms and peak parallelism")
	cmd.Flags().Lookup("stats").NoOptDefVal = "-"
	cmd.Flags().Int64Var(&f.capacity, "capacity", 0, "TRS: term slots of the store, the CAPACITY parameter's default; without it, CAPACITY is fitted to the device: the most slots, up to 2^30, whose buffers fit in 80% of its free memory")
	cmd.Flags().StringVar(&f.print, "print", "term", "TRS: print the normal form (term) or its size and hash (summary)")
	cmd.Flags().StringVar(&f.trace, "trace", "", "TRS: write the per-iteration parallelism as CSV to this file (run; a compiled program prints it after its output)")
}

func (f *frontendFlags) options() driver.Options {
	return driver.Options{Procs: f.procs, CRCW: f.crcw, Static: f.static, Inputs: f.inputs, Query: f.query, Stats: f.stats != "",
		Capacity: f.capacity, Print: f.print, Trace: f.trace != ""}
}

// passFlags are the pass options that compile, run and opt share.
type passFlags struct {
	passes      []string
	verifyEach  bool
	dumpAfter   []string
	gridSync    string
	peBudget    int
	pePlacement string
	pePrefilter bool
}

func (p *passFlags) add(cmd *cobra.Command, def []string) {
	cmd.Flags().StringSliceVar(&p.passes, "passes", def, "comma-separated passes and pipelines to run (see `gpuc passes`)")
	cmd.Flags().BoolVar(&p.verifyEach, "verify-each", false, "verify the IR after every pass")
	cmd.Flags().StringSliceVar(&p.dumpAfter, "dump-after", nil, "print the IR to stderr after these passes (\"all\" for every pass)")
	cmd.Flags().StringVar(&p.gridSync, "grid-sync", "auto", "grid barriers as cooperative grid-wide syncs where the device holds the whole region (auto), always, or never (kernel relaunches)")
	cmd.Flags().IntVar(&p.peBudget, "pe-budget", passes.DefaultPEBudget, "the most statements that partial-eval's unrolled loops may emit in one function")
	cmd.Flags().StringVar(&p.pePlacement, "pe-placement", "auto", "where partial-eval holds static data: auto, code (folded, or an error), constant or global (not specialized)")
	cmd.Flags().BoolVar(&p.pePrefilter, "pe-prefilter", true, "let partial-eval put a table-driven prefilter in front of a specialized matcher")
}

// respecArgs are the gpuc arguments with which a --pe-runtime program
// runs the passes from partial-eval on again. They turn prefilters off:
// the program sizes the shared memory of the kernels it specializes again
// by the module as partial-eval received it (Note [Static prefilters]).
func (p *passFlags) respecArgs(rest []string) []string {
	return []string{"--passes=" + strings.Join(rest, ","), fmt.Sprintf("--pe-budget=%d", p.peBudget), "--pe-placement=" + p.pePlacement, "--pe-prefilter=false"}
}

func (p *passFlags) config(stderr io.Writer) *passes.Config {
	return &passes.Config{VerifyEach: p.verifyEach, DumpAfter: p.dumpAfter, Dump: stderr, GridSync: p.gridSync,
		PEBudget: p.peBudget, PEPlacement: p.pePlacement, PENoPrefilter: !p.pePrefilter}
}

func newCompile(stdout io.Writer) *cobra.Command {
	var out, emit, target string
	var report, peRuntime bool
	var pf passFlags
	var fo frontendFlags
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
  ir         the lowered kernel IR
  nvrtc      the kernels that read static data, as CUDA C for NVRTC, for
             a --pe-runtime program that specializes them again

NAME=VALUE makes VALUE parameter NAME's default, as if the source said
so: the program still takes NAME=VALUE when it runs, and each kernel is
compiled for the block sizes its launches have at the defaults.

Without -o the result goes to standard output.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind, err := emitKind(emit, out)
			if err != nil {
				return err
			}
			tgt, ok := llvm.ParseTarget(target)
			if !ok {
				return fmt.Errorf("--target=%s: want nvptx or host", target)
			}
			m, err := driver.Load(args[0], fo.options())
			if err != nil {
				return err
			}
			if err := setDefaults(m, args[1:]); err != nil {
				return err
			}
			cfg := pf.config(cmd.ErrOrStderr())
			if kind != "cuda" && kind != "ir" {
				// Only CUDA C programs launch cooperatively.
				if cfg.GridSync == "always" {
					return fmt.Errorf("--grid-sync=always needs the CUDA C backend")
				}
				cfg.GridSync = "never"
			}
			if report {
				cfg.Report = &passes.Report{}
			}
			opts, before, err := lowerFor(m, kind, peRuntime, &pf, cfg)
			if err != nil {
				return err
			}
			if report {
				cfg.Report.Write(cmd.ErrOrStderr())
			}
			var text []byte
			if kind == "nvrtc" {
				text, err = cuda.EmitNVRTC(m, before)
			} else {
				text, err = emitModule(m, kind, tgt, opts)
			}
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
	cmd.Flags().StringVar(&emit, "emit", "", "what to emit: cuda, llvm, ptx, llvm-host, ir or nvrtc (default: from -o's extension, else cuda)")
	cmd.Flags().StringVar(&target, "target", "nvptx", "target of --emit=llvm and llvm-host: nvptx or host (the CPU)")
	cmd.Flags().BoolVar(&peRuntime, "pe-runtime", false, "let the CUDA program specialize its kernels again on --static data given when it runs (NVRTC; link with -lnvrtc -lcuda)")
	cmd.Flags().BoolVar(&report, "report", false, "print, per source construct, what the lowering passes made of it (on standard error)")
	pf.add(cmd, []string{"default"})
	fo.add(cmd)
	return cmd
}

// setDefaults makes each NAME=VALUE argument parameter NAME's default. A
// fitted parameter given a default is fitted no more.
func setDefaults(m *ir.Module, args []string) error {
	for _, a := range args {
		name, val, ok := strings.Cut(a, "=")
		if !ok || name == "" {
			return fmt.Errorf("argument %q: want NAME=VALUE", a)
		}
		p := m.Param(name)
		if p == nil {
			return fmt.Errorf("%s is not a parameter of %s", name, m.Name)
		}
		v, err := strconv.ParseInt(val, 0, 64)
		if err != nil {
			return fmt.Errorf("parameter %s: %q is not an integer", name, val)
		}
		if p.Type != ir.U64 && ir.Normalize(p.Type, uint64(v)) != uint64(v) {
			return fmt.Errorf("parameter %s: %d is out of range for %s", name, v, p.Type)
		}
		p.Default, p.Fit = v, 0
	}
	return nil
}

// lowerFor lowers m for the backend that kind names. For a program that
// specializes again at run time (--pe-runtime), and for the kernels that
// such a program asks for (--emit=nvrtc), it also returns the module as
// partial-eval received it, or as it was read.
func lowerFor(m *ir.Module, kind string, peRuntime bool, pf *passFlags, cfg *passes.Config) (cuda.Options, *ir.Module, error) {
	switch {
	case peRuntime && kind != "cuda":
		return cuda.Options{}, nil, fmt.Errorf("--pe-runtime needs the CUDA backend (-o X.cu or --emit=cuda)")
	case peRuntime:
		before, rest, err := driver.LowerAround(m, pf.passes, cfg, "partial-eval")
		return cuda.Options{Respec: &cuda.Respec{Before: before, Args: pf.respecArgs(rest)}}, before, err
	case kind == "nvrtc":
		before, err := driver.Snapshot(m)
		if err == nil {
			err = driver.Lower(m, pf.passes, cfg)
		}
		return cuda.Options{}, before, err
	}
	return cuda.Options{}, nil, driver.Lower(m, pf.passes, cfg)
}

// emitModule runs the backend that kind names on a lowered module.
func emitModule(m *ir.Module, kind string, tgt llvm.Target, opts cuda.Options) ([]byte, error) {
	switch kind {
	case "ir":
		return []byte(ir.Print(m)), nil
	case "cuda":
		return cuda.Emit(m, opts)
	case "ptx":
		if tgt != llvm.NVPTX {
			return nil, fmt.Errorf("--emit=ptx needs --target=nvptx")
		}
	}
	ll, err := llvm.Emit(m, llvm.Options{Target: tgt})
	switch {
	case err != nil || kind == "llvm":
		return ll, err
	case tgt == llvm.Host:
		return llvm.HostProgram(m, tgt, nil)
	}
	ptx, err := llvm.PTX(ll)
	if err != nil || kind == "ptx" {
		return ptx, err
	}
	return llvm.HostProgram(m, tgt, ptx)
}

// emitKind decides the backend from --emit and the output file name.
func emitKind(emit, out string) (string, error) {
	byExt := map[string]string{".cu": "cuda", ".ll": "llvm", ".ptx": "ptx", ".kir": "ir"}
	switch emit {
	case "cuda", "llvm", "ptx", "llvm-host", "ir", "nvrtc":
		return emit, nil
	case "":
	default:
		return "", fmt.Errorf("--emit=%s: want cuda, llvm, ptx, llvm-host, ir or nvrtc", emit)
	}
	if out == "" || out == "-" {
		return "cuda", nil
	}
	if k, ok := byExt[filepath.Ext(out)]; ok {
		return k, nil
	}
	return "", fmt.Errorf("cannot tell what to emit from %q: name it .cu, .ll, .ptx or .kir, or pass --emit", out)
}

func newRun(stdout io.Writer) *cobra.Command {
	var race bool
	var workers int
	var coop, memory int64
	var pf passFlags
	var fo frontendFlags
	cmd := &cobra.Command{
		Use:   "run FILE [NAME=VALUE ...]",
		Short: "Run a program in the reference interpreter",
		Long: `run executes FILE on the CPU with GPU semantics. NAME=VALUE sets a
parameter, or names the file of an input buffer (BUF=FILE for text values,
BUF=@FILE for raw little-endian binary). With --race, two unsynchronised
conflicting accesses to one address are reported with both positions.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := driver.Load(args[0], fo.options())
			if err != nil {
				return err
			}
			if len(pf.passes) > 0 {
				ps, err := passes.Expand(pf.passes)
				if err != nil {
					return err
				}
				if err := passes.Run(m, ps, pf.config(cmd.ErrOrStderr())); err != nil {
					return err
				}
			}
			b, err := driver.Bind(m, args[1:])
			if err != nil {
				return err
			}
			if memory < 0 {
				return fmt.Errorf("--device-memory=%d: want a number of bytes", memory)
			}
			out, done, err := traceOutput(stdout, fo.trace)
			if err != nil {
				return err
			}
			errOut, closeErr, err := statsOutput(cmd.ErrOrStderr(), fo.stats)
			if err != nil {
				return errors.Join(err, done())
			}
			err = interp.Run(m, interp.Config{
				Stdout: out, Stderr: errOut, Params: b.Params, Inputs: b.Inputs, Race: race, Workers: workers, CoopThreads: coop,
				DeviceMemory: memory,
			})
			return errors.Join(err, done(), closeErr())
		},
	}
	cmd.Flags().BoolVar(&race, "race", false, "report data races between threads")
	cmd.Flags().IntVar(&workers, "workers", 0, "goroutines that run blocks in parallel (default: all cores)")
	cmd.Flags().Int64Var(&coop, "coop-threads", 0, "threads a cooperative launch may have before its fallback runs (default: an H100's 270336)")
	cmd.Flags().Int64Var(&memory, "device-memory", 0, "free device memory in bytes that parameters with a fit fraction are fitted to, such as TRS's CAPACITY (default: 256 MiB)")
	pf.add(cmd, nil)
	fo.add(cmd)
	return cmd
}

func newOpt(stdout io.Writer) *cobra.Command {
	var pf passFlags
	var fo frontendFlags
	cmd := &cobra.Command{
		Use:   "opt --passes=a,b FILE",
		Short: "Run passes on a program and print the resulting kernel IR",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := driver.Load(args[0], fo.options())
			if err != nil {
				return err
			}
			ps, err := passes.Expand(pf.passes)
			if err != nil {
				return err
			}
			if err := passes.Run(m, ps, pf.config(cmd.ErrOrStderr())); err != nil {
				return err
			}
			_, err = io.WriteString(stdout, ir.Print(m))
			return err
		},
	}
	pf.add(cmd, nil)
	fo.add(cmd)
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

// statsOutput is where a run's printf stderr goes: standard error, or
// the file of --stats=FILE (Note [Output] in frontends/chr).
func statsOutput(stderr io.Writer, stats string) (io.Writer, func() error, error) {
	if stats == "" || stats == "-" {
		return stderr, func() error { return nil }, nil
	}
	f, err := os.Create(stats)
	if err != nil {
		return nil, nil, fmt.Errorf("--stats=%s: %v", stats, err)
	}
	return f, f.Close, nil
}
