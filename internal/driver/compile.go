package driver

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"gpuc/backends/cuda"
	"gpuc/backends/llvm"
	"gpuc/internal/enum"
	"gpuc/ir"
	"gpuc/passes"
)

// PassFlags are the pass options of compile, run and opt.
type PassFlags struct {
	// Passes are the passes and pipelines to run, by name.
	Passes      []string
	verifyEach  bool
	dumpAfter   passNames
	gridSync    passes.GridSync
	peBudget    int
	pePlacement passes.Placement
	pePrefilter bool
}

// AddPassFlags defines the pass options on fs; def is the default of
// --passes.
func AddPassFlags(fs *pflag.FlagSet, def []string) *PassFlags {
	p := &PassFlags{gridSync: passes.GridSyncAuto, pePlacement: passes.PlaceAuto}
	fs.StringSliceVar(&p.Passes, "passes", def, "comma-separated passes and pipelines to run (see gpuc passes)")
	fs.BoolVar(&p.verifyEach, "verify-each", false, "verify the IR after every pass")
	fs.Var(&p.dumpAfter, "dump-after", "print the IR to stderr after these passes (\"all\" for every pass)")
	fs.Var(&p.gridSync, "grid-sync", "grid barriers as cooperative grid-wide syncs where the device holds the whole region (auto), always, or never (kernel relaunches)")
	fs.IntVar(&p.peBudget, "pe-budget", passes.DefaultPEBudget, "the most statements that partial-eval's unrolled loops may emit in one function")
	fs.Var(&p.pePlacement, "pe-placement", "where partial-eval holds static data: auto, code (folded, or an error), constant or global (not specialized)")
	fs.BoolVar(&p.pePrefilter, "pe-prefilter", true, "let partial-eval put a table-driven prefilter in front of a specialized matcher")
	return p
}

// Config returns the passes' configuration; dumps go to stderr.
func (p *PassFlags) Config(stderr io.Writer) *passes.Config {
	return &passes.Config{VerifyEach: p.verifyEach, DumpAfter: p.dumpAfter, Dump: stderr, GridSync: p.gridSync,
		PEBudget: p.peBudget, PEPlacement: p.pePlacement, PENoPrefilter: !p.pePrefilter}
}

// Run runs the passes on m, as run and opt do: the result may be at any
// level.
func (p *PassFlags) Run(m *ir.Module, stderr io.Writer) error {
	ps, err := passes.Expand(p.Passes)
	if err != nil {
		return err
	}
	return passes.Run(m, ps, p.Config(stderr))
}

// respecArgs are the gpuc arguments with which a --pe-runtime program
// runs the passes from partial-eval on again. They turn prefilters off:
// the program sizes the shared memory of the kernels it specializes again
// by the module as partial-eval received it (Note [Static prefilters]).
func (p *PassFlags) respecArgs(rest []string) []string {
	return []string{"--passes=" + strings.Join(rest, ","), fmt.Sprintf("--pe-budget=%d", p.peBudget), "--pe-placement=" + string(p.pePlacement), "--pe-prefilter=false"}
}

// passNames is the value of --dump-after: pass names, or "all".
type passNames []string

func (n *passNames) String() string { return strings.Join(*n, ",") }

func (n *passNames) Type() string { return "strings" }

func (n *passNames) Set(v string) error {
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		if name != "all" && passes.Lookup(name) == nil {
			return fmt.Errorf("unknown pass %q (see gpuc passes)", name)
		}
		*n = append(*n, name)
	}
	return nil
}

// Compilation says what Compile makes of a module.
type Compilation struct {
	// Emit names what to emit (see emitters); "" decides by Out's
	// extension, and without Out it is CUDA C.
	Emit, Out string
	// Target is the LLVM backend's target: "nvptx" or "host".
	Target string
	// PERuntime makes a CUDA program that specializes its kernels again
	// on static data given when it runs.
	PERuntime bool
	// Report prints, per source construct, what the lowering did; JSON
	// prints it as JSON (docs/TOOLKIT.md).
	Report, JSON bool
	// NoChecks leaves the checks of indices and divisors out of the
	// generated program (Note [Checks] in backends/abi).
	NoChecks bool
	// Defaults are NAME=VALUE arguments that set parameters' defaults.
	Defaults []string
	Passes   *PassFlags
	// One, if set, is the source's module for one device (Inputs.
	// LoadWithOne), not yet lowered: the CUDA program of a world module
	// runs it when DEVICES=1 (Note [A world of one runs the one-device
	// program] in backends/cuda). The other backends leave it out.
	One *ir.Module
	// Stderr receives dumps and the report.
	Stderr io.Writer
}

// emitter is one thing that compile emits.
type emitter struct {
	name string
	// coop: the backend has cooperative launches, so grid-sync may make
	// them.
	coop bool
}

// emitters lists what compile emits, in the order messages name them.
var emitters = []emitter{
	{"cuda", cuda.CooperativeLaunches},
	{"llvm", llvm.CooperativeLaunches},
	{"ptx", llvm.CooperativeLaunches},
	{"llvm-host", llvm.CooperativeLaunches},
	{"llvm-hybrid", llvm.CooperativeLaunches},
	{"ir", true}, // the lowered IR keeps every choice open
	{"nvrtc", cuda.CooperativeLaunches},
}

// Emits lists what compile can emit, for --emit's help.
func Emits() []string {
	var names []string
	for _, e := range emitters {
		names = append(names, e.name)
	}
	return names
}

// byExt maps output extensions to what is emitted.
var byExt = map[string]string{".cu": "cuda", ".ll": "llvm", ".ptx": "ptx", ".kir": "ir"}

// emitterFor decides what to emit from --emit and the output file name.
func emitterFor(emit, out string) (emitter, error) {
	if emit == "" {
		switch ext := filepath.Ext(out); {
		case out == "" || out == "-":
			emit = "cuda"
		case byExt[ext] != "":
			emit = byExt[ext]
		default:
			return emitter{}, fmt.Errorf("cannot tell what to emit from %q: name it .cu, .ll, .ptx or .kir, or pass --emit", out)
		}
	}
	for _, e := range emitters {
		if e.name == emit {
			return e, nil
		}
	}
	return emitter{}, fmt.Errorf("--emit=%s: %v", emit, enum.Check(emit, Emits()...))
}

// Compile sets m's parameter defaults, lowers it with the passes named and
// emits it as c asks. m is lowered in place.
func Compile(m *ir.Module, c Compilation) ([]byte, error) {
	em, err := emitterFor(c.Emit, c.Out)
	if err != nil {
		return nil, err
	}
	tgt, ok := llvm.ParseTarget(c.Target)
	if !ok {
		return nil, fmt.Errorf("--target=%s: want nvptx or host", c.Target)
	}
	if err := SetDefaults(m, c.Defaults); err != nil {
		return nil, err
	}
	cfg := c.Passes.Config(c.Stderr)
	if !em.coop {
		if cfg.GridSync == passes.GridSyncAlways {
			return nil, fmt.Errorf("--grid-sync=always needs the CUDA C backend")
		}
		cfg.GridSync = passes.GridSyncNever
	}
	if c.Report {
		cfg.Report = &passes.Report{}
	}
	opts, before, err := lowerFor(m, em.name, c.PERuntime, c.Passes, cfg)
	if err != nil {
		return nil, err
	}
	opts.NoChecks = c.NoChecks
	if opts.Respec != nil && opts.NoChecks {
		opts.Respec.Args = append(opts.Respec.Args, "--checks=off")
	}
	switch {
	case c.Report && c.JSON:
		if err := cfg.Report.WriteJSON(c.Stderr); err != nil {
			return nil, err
		}
	case c.Report:
		cfg.Report.Write(c.Stderr)
	}
	if em.name == "nvrtc" {
		return cuda.EmitNVRTC(m, before, !c.NoChecks)
	}
	if em.name == "cuda" && c.One != nil && opts.Respec == nil && cuda.UsesWorld(m) && devicesDefault(m) == 1 {
		if opts.One, err = lowerOne(c.One, c); err != nil {
			return nil, err
		}
	}
	return emitModule(m, em.name, tgt, opts)
}

// devicesDefault is the default of m's DEVICES. A world program compiled
// for k > 1 devices by default (DEVICES=k, as the GPU check's world
// programs are) carries no one-device program: nvcc compiles its device
// code once.
func devicesDefault(m *ir.Module) int64 {
	if p := m.Param(ir.DevicesParam); p != nil {
		return p.Default
	}
	return 1
}

// lowerOne lowers one, the one-device module of a world program, as
// Compile lowers the world module, with the same defaults but DEVICES
// (which would make it a world module) and no dumps or report.
func lowerOne(one *ir.Module, c Compilation) (*ir.Module, error) {
	var defaults []string
	for _, a := range c.Defaults {
		if name, _, err := splitArg(a); err == nil && name == ir.DevicesParam {
			continue
		}
		defaults = append(defaults, a)
	}
	if err := SetDefaults(one, defaults); err != nil {
		return nil, err
	}
	cfg := c.Passes.Config(io.Discard)
	cfg.DumpAfter = nil
	if err := Lower(one, c.Passes.Passes, cfg); err != nil {
		return nil, fmt.Errorf("the one-device program: %w", err)
	}
	return one, nil
}

// lowerFor lowers m for the backend that kind names. For a program that
// specializes again at run time (--pe-runtime), and for the kernels that
// such a program asks for (--emit=nvrtc), it also returns the module as
// partial-eval received it, or as it was read.
func lowerFor(m *ir.Module, kind string, peRuntime bool, pf *PassFlags, cfg *passes.Config) (cuda.Options, *ir.Module, error) {
	switch {
	case peRuntime && kind != "cuda":
		return cuda.Options{}, nil, fmt.Errorf("--pe-runtime needs the CUDA backend (-o X.cu or --emit=cuda)")
	case peRuntime:
		before, rest, err := LowerAround(m, pf.Passes, cfg, "partial-eval")
		return cuda.Options{Respec: &cuda.Respec{Before: before, Args: pf.respecArgs(rest)}}, before, err
	case kind == "nvrtc":
		before := ir.CloneModule(m)
		return cuda.Options{}, before, Lower(m, pf.Passes, cfg)
	}
	return cuda.Options{}, nil, Lower(m, pf.Passes, cfg)
}

// emitModule runs the backend that kind names on a lowered module,
// chaining llc for PTX and the LLVM path's host program.
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
	lo := llvm.Options{Target: tgt, NoChecks: opts.NoChecks}
	ll, err := llvm.Emit(m, lo)
	switch {
	case err != nil || kind == "llvm":
		return ll, err
	case tgt == llvm.Host && kind == "llvm-hybrid":
		return nil, fmt.Errorf("--emit=llvm-hybrid needs --target=nvptx; build the CPU kernels with --emit=llvm --target=host")
	case tgt == llvm.Host:
		return llvm.HostProgram(m, lo, nil)
	}
	ptx, err := llvm.PTX(ll)
	switch {
	case err != nil || kind == "ptx":
		return ptx, err
	case kind == "llvm-hybrid":
		return llvm.HybridProgram(m, lo, ptx)
	}
	return llvm.HostProgram(m, lo, ptx)
}
