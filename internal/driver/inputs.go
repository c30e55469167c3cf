package driver

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"gpuc/frontends/frontend"
	"gpuc/ir"
	"gpuc/ir/interp"
)

// Inputs are the flags of a command that reads source files: every
// frontend's own and the buffer roles (Note [Frontend flags] in package
// frontend). Load applies those given to the input's frontend.
type Inputs struct {
	running bool        // gpuc run: flags marked run-only are accepted
	flags   []*recorder // in the order they were defined
}

// recorder is one flag name on a command: the values given, in order, and
// the frontends that define it.
type recorder struct {
	name   string
	owners []*frontend.Frontend // nil stands for the buffer roles, on every input
	check  []pflag.Value        // one scratch value per owner, to check values with
	vals   []string
	shown  string // the default, as help shows it
	typ    string
}

func (r *recorder) String() string {
	if len(r.vals) > 0 {
		return r.vals[len(r.vals)-1]
	}
	return r.shown
}

func (r *recorder) Type() string { return r.typ }

// Set checks v against every definition of the flag and records it.
func (r *recorder) Set(v string) error {
	for _, c := range r.check {
		if err := c.Set(v); err != nil {
			return err
		}
	}
	r.vals = append(r.vals, v)
	return nil
}

// roles are the driver's own input flags, which apply to every input.
type roles struct {
	static []string
	inputs []string
}

// define defines the role flags on fs, but for any that a frontend
// already defined there: that frontend takes the name over.
func (r *roles) define(fs *pflag.FlagSet) {
	if fs.Lookup("static") == nil {
		fs.StringArrayVar(&r.static, "static", nil, "make a buffer static, NAME=FILE: its contents (text values, or raw binary with NAME=@FILE) are known at compile time")
	}
	if fs.Lookup("input") == nil {
		fs.StringArrayVar(&r.inputs, "input", nil, "make a global scratch buffer an input buffer, read from the file that NAME=FILE names when the program runs")
	}
}

// AddInputFlags defines the flags of every frontend and the buffer roles
// on fs. running says the command interprets the program (gpuc run): the
// others refuse flags that only it can honour.
func AddInputFlags(fs *pflag.FlagSet, running bool) *Inputs {
	in := &Inputs{running: running}
	byName := map[string]*recorder{}
	usage := map[string][]string{}
	add := func(owner *frontend.Frontend, f *pflag.Flag) {
		r := byName[f.Name]
		if r == nil {
			r = &recorder{name: f.Name, shown: f.DefValue, typ: f.Value.Type()}
			if r.shown == "[]" { // an empty list, which help leaves out
				r.shown = ""
			}
			byName[f.Name] = r
			in.flags = append(in.flags, r)
		}
		r.owners = append(r.owners, owner)
		r.check = append(r.check, f.Value)
		usage[f.Name] = append(usage[f.Name], f.Usage)
	}
	scratch := pflag.NewFlagSet("roles", pflag.ContinueOnError)
	(&roles{}).define(scratch)
	scratch.VisitAll(func(f *pflag.Flag) { add(nil, f) })
	noOpt := map[string]string{}
	for _, fe := range frontends {
		scratch := pflag.NewFlagSet(fe.Name, pflag.ContinueOnError)
		fe.Bind(scratch)
		scratch.VisitAll(func(f *pflag.Flag) {
			add(fe, f)
			noOpt[f.Name] = f.NoOptDefVal
		})
	}
	for _, r := range in.flags {
		fs.Var(r, r.name, strings.Join(usage[r.name], "; "))
		fs.Lookup(r.name).NoOptDefVal = noOpt[r.name]
		fs.Lookup(r.name).DefValue = r.shown
	}
	return in
}

// Load reads, parses and verifies a source file, with the input flags
// given. It also returns the frontend as the flags configured it.
func (in *Inputs) Load(path string) (*ir.Module, *frontend.Session, error) {
	m, _, s, err := in.load(path, false)
	return m, s, err
}

// LoadWithOne is Load, and also the module for one device where the
// frontend lowers a world program differently (frontend.Session's
// OneDevice), else nil. A source whose one-device program does not load
// (a --capacity that only a world holds) has none.
func (in *Inputs) LoadWithOne(path string) (m, one *ir.Module, s *frontend.Session, err error) {
	return in.load(path, true)
}

func (in *Inputs) load(path string, withOne bool) (*ir.Module, *ir.Module, *frontend.Session, error) {
	fail := func(err error) (*ir.Module, *ir.Module, *frontend.Session, error) { return nil, nil, nil, err }
	fe, err := frontendFor(path)
	if err != nil {
		return fail(err)
	}
	fs := pflag.NewFlagSet(fe.Name, pflag.ContinueOnError)
	s := fe.Bind(fs)
	var r roles
	r.define(fs)
	for _, rec := range in.flags {
		if len(rec.vals) == 0 {
			continue
		}
		f := fs.Lookup(rec.name)
		if f == nil {
			return fail(fmt.Errorf("--%s applies to %s inputs, not %s", rec.name, extsOf(rec.owners), fe.Exts[0]))
		}
		if frontend.IsRunOnly(f) && !in.running {
			return fail(fmt.Errorf("--%s applies to gpuc run only", rec.name))
		}
		for _, v := range rec.vals {
			if err := fs.Set(rec.name, v); err != nil {
				return fail(fmt.Errorf("--%s=%s: %v", rec.name, v, err))
			}
		}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return fail(err)
	}
	m, err := s.Parse(path, src)
	if err != nil {
		return fail(err)
	}
	if err := SetRoles(m, r.static, r.inputs); err != nil {
		return fail(err)
	}
	if err := ir.Verify(m, m.Level()); err != nil {
		return fail(err)
	}
	var one *ir.Module
	if withOne && s.OneDevice != nil {
		if one, err = s.OneDevice(path, src); err != nil {
			one = nil
		} else if one != nil && (SetRoles(one, r.static, r.inputs) != nil || ir.Verify(one, one.Level()) != nil) {
			one = nil
		}
	}
	return m, one, s, nil
}

// Load reads, parses and verifies a source file with the input flags that
// args give (["--procs=64"]), as a command line would: for tests and tools.
func Load(path string, args ...string) (*ir.Module, error) {
	fs := pflag.NewFlagSet("load", pflag.ContinueOnError)
	in := AddInputFlags(fs, false)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	m, _, err := in.Load(path)
	return m, err
}

// LoadWithOne is Load, and also the source's module for one device
// where a world program's differs (Inputs.LoadWithOne), else nil.
func LoadWithOne(path string, args ...string) (m, one *ir.Module, err error) {
	fs := pflag.NewFlagSet("load", pflag.ContinueOnError)
	in := AddInputFlags(fs, false)
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	m, one, _, err = in.LoadWithOne(path)
	return m, one, err
}

// Run runs m in the interpreter as gpuc run does: args are its NAME=VALUE
// arguments (see Bind), and the frontend session s, if not nil, may split
// the program's output (TRS's --trace) and send its printf stderr
// elsewhere (CHR's --stats=FILE). cfg gives the other settings; its
// Params and Inputs are replaced.
func Run(m *ir.Module, s *frontend.Session, args []string, cfg interp.Config) error {
	b, err := Bind(m, args)
	if err != nil {
		return err
	}
	if cfg.DeviceMemory < 0 {
		return fmt.Errorf("--device-memory=%d: want a number of bytes", cfg.DeviceMemory)
	}
	out, done := cfg.Stdout, func() error { return nil }
	if s != nil && s.RunOutput != nil {
		if out, done, err = s.RunOutput(cfg.Stdout); err != nil {
			return err
		}
	}
	errOut, closeErr := cfg.Stderr, func() error { return nil }
	if s != nil && s.RunStderr != nil {
		if errOut, closeErr, err = s.RunStderr(cfg.Stderr); err != nil {
			return errors.Join(err, done())
		}
	}
	cfg.Stdout, cfg.Stderr, cfg.Params, cfg.Inputs = out, errOut, b.Params, b.Inputs
	return errors.Join(interp.Run(m, cfg), done(), closeErr())
}

// JSONArgs returns args after the arguments that make the program of
// session s print its own reports as JSON (frontend.Session.JSONArgs),
// for gpuc run --json.
func JSONArgs(s *frontend.Session, args []string) []string {
	if s == nil || s.JSONArgs == nil {
		return args
	}
	return append(s.JSONArgs(), args...)
}

// Args returns the input flags given, as command-line arguments
// (["--procs=64", "--static=tbl=t.txt"]), for tools that load the same
// input again elsewhere, as Load takes them.
func (in *Inputs) Args() []string {
	var args []string
	for _, r := range in.flags {
		for _, v := range r.vals {
			args = append(args, "--"+r.name+"="+v)
		}
	}
	return args
}
