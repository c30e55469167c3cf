// Package driver connects gpuc's stages: it keeps the list of frontends,
// picks one by file extension and gives it the flags that apply to it,
// verifies what it produced, runs pipelines and compiles for a backend
// (Compile). The CLI, the GPU artifact generator and end-to-end tests share
// it, so that they all compile a file the same way; cmd/gpuc only wires
// flags to it.
package driver

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// SetRoles applies --static (NAME=FILE arguments) and --input (buffer
// names) to m, before the verifier and the passes see it. A static buffer
// takes the values of its file (see interp.ReadValues: text values, or raw
// binary with @FILE) as contents and length; one that no longer fits in
// constant memory moves to global memory (passes.FitStatic).
func SetRoles(m *ir.Module, static, inputs []string) error {
	for _, arg := range static {
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
		passes.FitStatic(b)
	}
	for _, name := range inputs {
		b := m.Buffer(name)
		switch {
		case b == nil:
			return fmt.Errorf("--input %s: %s has no buffer %s", name, m.Name, name)
		case b.Space != ir.Global || b.Role != ir.Scratch:
			return fmt.Errorf("--input %s: only a global scratch buffer can become an input buffer; %s is %s %s", name, name, b.Space, b.Role)
		}
		// A file's values meet no bound: no write checked them (Note
		// [Bounded buffers] in package ir).
		b.Role, b.Bound, b.Below = ir.Input, "", false
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
	before := ir.CloneModule(m)
	if err := passes.Run(m, ps[i:], cfg); err != nil {
		return nil, nil, err
	}
	var rest []string
	for _, p := range ps[i:] {
		rest = append(rest, p.Name)
	}
	return before, rest, checkLowered(m, names)
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
		name, val, err := splitArg(a)
		if err != nil {
			return b, err
		}
		switch {
		case m.Param(name) != nil:
			if b.Params[name], err = paramValue(name, val); err != nil {
				return b, err
			}
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

// SetDefaults makes each NAME=VALUE argument parameter NAME's default, as
// gpuc compile's arguments do. A fitted parameter given a default is
// fitted no more. DEVICES=k on a module without that parameter adds it
// (an i32): the module then runs on a world of k devices by default, each
// running every launch whole on its own instances (Note [World] in
// package ir), which the CUDA backend makes a world program.
func SetDefaults(m *ir.Module, args []string) error {
	for _, a := range args {
		name, val, err := splitArg(a)
		if err != nil {
			return err
		}
		p := m.Param(name)
		if p == nil && name == ir.DevicesParam {
			p = &ir.Param{Pos: m.Pos, Name: name, Type: ir.I32, Default: 1}
			m.Params = append(m.Params, p)
		}
		if p == nil {
			return fmt.Errorf("%s is not a parameter of %s", name, m.Name)
		}
		v, err := paramValue(name, val)
		if err != nil {
			return err
		}
		if p.Type != ir.U64 && ir.Normalize(p.Type, uint64(v)) != uint64(v) {
			return fmt.Errorf("parameter %s: %d is out of range for %s", name, v, p.Type)
		}
		p.Default, p.Fit = v, 0
	}
	return nil
}

// splitArg splits a NAME=VALUE argument.
func splitArg(a string) (name, val string, err error) {
	name, val, ok := strings.Cut(a, "=")
	if !ok || name == "" {
		return "", "", fmt.Errorf("argument %q: want NAME=VALUE", a)
	}
	return name, val, nil
}

// paramValue parses the value of parameter name.
func paramValue(name, val string) (int64, error) {
	v, err := strconv.ParseInt(val, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("parameter %s: %q is not an integer", name, val)
	}
	return v, nil
}
