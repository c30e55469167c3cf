// Package driver connects gpuc's stages: it picks a frontend by file
// extension, verifies what the frontend produced, and runs pipelines. The
// CLI, the GPU artifact generator and end-to-end tests share it, so that
// they all compile a file the same way.
package driver

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gpuc/frontends/chr"
	"gpuc/frontends/fork"
	"gpuc/frontends/kir"
	"gpuc/frontends/trs"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// Options are the frontend options of the command line.
type Options struct {
	// Procs is the number of processors of Fork's `start S` (--procs).
	Procs int64
	// CRCW is Fork's concurrent-write rule: "priority" (the default) or
	// "arbitrary" (--crcw).
	CRCW string
	// Query is a file of constraints that replaces a CHR program's query
	// (--query).
	Query string
	// Stats makes a CHR program print rule firings and steps, and a TRS
	// program its iterations, rewrites, live terms and peak parallelism
	// (--stats).
	Stats bool
	// Static makes buffers static, NAME=FILE (--static): the file's values
	// become the contents and the length (see SetRoles).
	Static []string
	// Inputs makes global scratch buffers input buffers (--input NAME),
	// whose files are named when the program runs. For a .trs file, the
	// one --input is the input term instead.
	Inputs []string
	// Capacity is the default size of a TRS program's term store, in
	// slots (--capacity); 0 for the frontend's default.
	Capacity int64
	// Print is how a TRS program prints its normal form: "term" or
	// "summary" (--print).
	Print string
	// Trace makes a TRS program print its per-iteration trace (--trace).
	Trace bool
}

// Frontend turns a source file into a module at any level.
type Frontend func(file string, src []byte, opts Options) (*ir.Module, error)

// frontends maps file extensions to frontends. An extension that gpuc
// knows but cannot yet read maps to nil.
var frontends = map[string]Frontend{
	".kir":  func(file string, src []byte, _ Options) (*ir.Module, error) { return kir.Parse(file, src) },
	".fork": parseFork,
	".trs":  parseTRS,
	".rec":  parseTRS, // the REC format (Note [REC] in frontends/trs)
	".chr":  parseCHR,
	".pl": func(f string, s []byte, o Options) (*ir.Module, error) {
		return chr.ParseProlog(f, s, chr.Options{Query: o.Query, Stats: o.Stats})
	},
}

// parseFork adapts the Fork frontend, which cannot import this package.
func parseFork(file string, src []byte, o Options) (*ir.Module, error) {
	return fork.Parse(file, src, fork.Options{Procs: o.Procs, CRCW: o.CRCW})
}

// parseTRS adapts the TRS frontend, whose --input is the input term; a
// file NAME.input beside NAME.trs stands in for it.
func parseTRS(file string, src []byte, o Options) (*ir.Module, error) {
	opts := trs.Options{Capacity: o.Capacity, Print: o.Print, Stats: o.Stats, Trace: o.Trace}
	switch len(o.Inputs) {
	case 0:
		var err error
		if opts.Input, opts.InputName, err = trs.InputBeside(file); err != nil {
			return nil, err
		}
	case 1:
		opts.Input = o.Inputs[0]
	default:
		return nil, fmt.Errorf("%s: --input gives a TRS its input term; there are %d", file, len(o.Inputs))
	}
	return trs.Parse(file, src, opts)
}

// parseCHR adapts the CHR frontend.
func parseCHR(file string, src []byte, o Options) (*ir.Module, error) {
	return chr.Parse(file, src, chr.Options{Query: o.Query, Stats: o.Stats})
}

// Load reads, parses and verifies a source file.
func Load(path string, opts Options) (*ir.Module, error) {
	ext := filepath.Ext(path)
	fe, known := frontends[ext]
	switch {
	case !known:
		return nil, fmt.Errorf("%s: unknown file type %q (want .kir, .fork, .trs, .rec, .chr, or .pl with CHR constraints)", path, ext)
	case fe == nil:
		return nil, fmt.Errorf("%s: the %s frontend is not available yet", path, ext)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := fe(path, src, opts)
	if err != nil {
		return nil, err
	}
	if ext == ".trs" || ext == ".rec" {
		opts.Inputs = nil // the input term, which parseTRS took
	}
	if err := SetRoles(m, opts); err != nil {
		return nil, err
	}
	if err := ir.Verify(m, m.Level()); err != nil {
		return nil, err
	}
	return m, nil
}

// SetRoles applies --static and --input to m, before the verifier and
// the passes see it. A static buffer takes the values of its file (see
// interp.ReadValues: text values, or raw binary with @FILE) as contents
// and length; one that no longer fits in constant memory moves to global
// memory.
func SetRoles(m *ir.Module, opts Options) error {
	for _, arg := range opts.Static {
		name, file, ok := strings.Cut(arg, "=")
		b := m.Buffer(name)
		switch {
		case !ok || name == "" || file == "":
			return fmt.Errorf("--static %s: want NAME=FILE or NAME=@FILE", arg)
		case b == nil:
			return fmt.Errorf("--static %s: %s has no buffer %s", arg, m.Name, name)
		case b.Space == ir.Shared:
			return fmt.Errorf("--static %s: %s is a shared buffer; static buffers are global or constant", arg, name)
		}
		vals, err := interp.ReadValues(file, b.Elem)
		if err != nil {
			return fmt.Errorf("--static %s: %w", arg, err)
		}
		if len(vals) == 0 {
			return fmt.Errorf("--static %s: %s holds no values", arg, strings.TrimPrefix(file, "@"))
		}
		if n, ok := b.Len.(*ir.Const); ok && b.Role == ir.Static && b.Init == nil && int(n.Int()) != len(vals) {
			// Declared with a size and no contents (Note [Static arrays
			// without initializers] in frontends/fork).
			return fmt.Errorf("--static %s: %s holds %d values; %s is declared with %d", arg, strings.TrimPrefix(file, "@"), len(vals), name, n.Int())
		}
		b.Role, b.Init, b.Len = ir.Static, vals, ir.IntConst(lengthType(len(vals)), int64(len(vals)))
		if b.Space == ir.Constant && len(vals)*b.Elem.Size() > 64<<10 {
			b.Space = ir.Global
		}
	}
	for _, name := range opts.Inputs {
		b := m.Buffer(name)
		switch {
		case b == nil:
			return fmt.Errorf("--input %s: %s has no buffer %s", name, m.Name, name)
		case b.Space != ir.Global || b.Role != ir.Scratch:
			return fmt.Errorf("--input %s: only a global scratch buffer can become an input buffer; %s is %s %s", name, name, b.Space, b.Role)
		}
		b.Role = ir.Input
	}
	return nil
}

// lengthType is the type of a buffer length n: i32 where it fits.
func lengthType(n int) ir.Type {
	if n > math.MaxInt32 {
		return ir.I64
	}
	return ir.I32
}

// Lower runs the named passes and pipelines on m, verifying after each
// when cfg asks, and then checks that the result is at the launch level,
// as backends need.
func Lower(m *ir.Module, names []string, cfg *passes.Config) error {
	ps, err := passes.Expand(names)
	if err != nil {
		return err
	}
	if err := passes.Run(m, ps, cfg); err != nil {
		return err
	}
	return checkLowered(m, names)
}

// LowerAround is Lower, and also returns the module as the pass named at
// received it and the names of the passes from at on, which can lower
// that module again: run-time specialization starts from there. The pass
// must be among those that run.
func LowerAround(m *ir.Module, names []string, cfg *passes.Config, at string) (*ir.Module, []string, error) {
	ps, err := passes.Expand(names)
	if err != nil {
		return nil, nil, err
	}
	i := slices.IndexFunc(ps, func(p *passes.Pass) bool { return p.Name == at })
	if i < 0 {
		return nil, nil, fmt.Errorf("pass %s does not run in %s", at, strings.Join(names, ","))
	}
	if err := passes.Run(m, ps[:i], cfg); err != nil {
		return nil, nil, err
	}
	before, err := Snapshot(m)
	if err != nil {
		return nil, nil, err
	}
	if err := passes.Run(m, ps[i:], cfg); err != nil {
		return nil, nil, err
	}
	var rest []string
	for _, p := range ps[i:] {
		rest = append(rest, p.Name)
	}
	return before, rest, checkLowered(m, names)
}

// Snapshot returns a copy of m, made by printing and parsing it.
func Snapshot(m *ir.Module) (*ir.Module, error) {
	return kir.Parse(m.Name+".kir", []byte(ir.Print(m)))
}

// checkLowered checks that m is at the launch level, as backends need.
func checkLowered(m *ir.Module, names []string) error {
	if m.Level() != ir.LaunchLevel {
		return fmt.Errorf("%s is at the SPMD level after passes %s; backends need the launch level", m.Name, strings.Join(names, ","))
	}
	return ir.Verify(m, ir.LaunchLevel)
}

// Bindings are the NAME=VALUE arguments of a run: parameter values and
// input files.
type Bindings struct {
	Params map[string]int64
	Inputs map[string]string
}

// Bind sorts NAME=VALUE arguments into parameter values and input buffer
// files, checking every name against m.
func Bind(m *ir.Module, args []string) (Bindings, error) {
	b := Bindings{Params: map[string]int64{}, Inputs: map[string]string{}}
	for _, a := range args {
		name, val, ok := strings.Cut(a, "=")
		if !ok || name == "" {
			return b, fmt.Errorf("argument %q: want NAME=VALUE", a)
		}
		switch {
		case m.Param(name) != nil:
			v, err := strconv.ParseInt(val, 0, 64)
			if err != nil {
				return b, fmt.Errorf("parameter %s: %q is not an integer", name, val)
			}
			b.Params[name] = v
		case m.Buffer(name) != nil && m.Buffer(name).Role == ir.Input:
			b.Inputs[name] = val
		case m.Buffer(name) != nil:
			return b, fmt.Errorf("buffer %s is not an input buffer", name)
		default:
			return b, fmt.Errorf("%s is neither a parameter nor an input buffer of %s", name, m.Name)
		}
	}
	return b, nil
}
