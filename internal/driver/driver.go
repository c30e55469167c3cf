// Package driver connects gpuc's stages: it picks a frontend by file
// extension, verifies what the frontend produced, and runs pipelines. The
// CLI, the GPU artifact generator and end-to-end tests share it, so that
// they all compile a file the same way.
package driver

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gpuc/frontends/fork"
	"gpuc/frontends/kir"
	"gpuc/ir"
	"gpuc/passes"
)

// Options are the frontend options of the command line.
type Options struct {
	// Procs is the number of processors of Fork's `start S` (--procs).
	Procs int64
	// CRCW is Fork's concurrent-write rule: "priority" (the default) or
	// "arbitrary" (--crcw).
	CRCW string
}

// Frontend turns a source file into a module at any level.
type Frontend func(file string, src []byte, opts Options) (*ir.Module, error)

// frontends maps file extensions to frontends. An extension that gpuc
// knows but cannot yet read maps to nil.
var frontends = map[string]Frontend{
	".kir":  func(file string, src []byte, _ Options) (*ir.Module, error) { return kir.Parse(file, src) },
	".fork": parseFork,
	".trs":  nil,
	".chr":  nil,
}

// parseFork adapts the Fork frontend, which cannot import this package.
func parseFork(file string, src []byte, o Options) (*ir.Module, error) {
	return fork.Parse(file, src, fork.Options{Procs: o.Procs, CRCW: o.CRCW})
}

// Load reads, parses and verifies a source file.
func Load(path string, opts Options) (*ir.Module, error) {
	ext := filepath.Ext(path)
	fe, known := frontends[ext]
	switch {
	case !known:
		return nil, fmt.Errorf("%s: unknown file type %q (want .kir, .fork, .trs or .chr)", path, ext)
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
	if err := ir.Verify(m, m.Level()); err != nil {
		return nil, err
	}
	return m, nil
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
