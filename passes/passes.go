// Package passes holds gpuc's IR-to-IR transformations and the machinery
// that runs them: a registry of passes, named pipelines, verification after
// each pass and dumps between them.
//
// A pass is data: a name, a one-line doc, the level it takes and the level
// it produces, and a function. Nothing outside a pass's own file knows its
// name, and nothing here knows about frontends or backends.
package passes

import (
	"fmt"
	"io"
	"strings"

	"gpuc/ir"
)

// Pass is one transformation of a module.
type Pass struct {
	Name string   // lowercase, hyphenated: "simplify", "split-barriers"
	Doc  string   // one line for `gpuc passes`
	From ir.Level // the highest level the pass accepts
	To   ir.Level // the level of the result, for a module at From
	Run  func(m *ir.Module, cfg *Config) error
}

// Config carries options to passes and to the runner.
type Config struct {
	// VerifyEach runs ir.Verify after every pass, at the level the pass
	// produces. Tests always set it.
	VerifyEach bool
	// DumpAfter names passes after which the module is printed to Dump;
	// "all" dumps after every pass.
	DumpAfter []string
	Dump      io.Writer
	// BlockSize is the threads per block of the kernels that regions
	// become (default 256).
	BlockSize int
	// Report, if not nil, collects what the lowering passes did.
	Report *Report
	// GridSync chooses how regions with grid barriers run: "auto" (the
	// default) launches them cooperatively where the device holds them,
	// "always" only so, "never" with kernel relaunches (Note [Grid sync]).
	GridSync GridSync
	// PEBudget bounds the statements that partial-eval's unrolled loops
	// emit in one function (--pe-budget; 0: DefaultPEBudget).
	PEBudget int
	// PEPlacement says where partial-eval holds static data: "auto" (or
	// ""), "code", "constant" or "global" (--pe-placement; Note
	// [Placement of static data]).
	PEPlacement Placement
	// PENoPrefilter keeps partial-eval from putting prefilters in front of
	// specialized matchers (--pe-prefilter=false; Note [Static
	// prefilters]).
	PENoPrefilter bool
}

// Pipeline is a named sequence of passes.
type Pipeline struct {
	Name   string
	Doc    string
	Passes []string
}

// registry lists every pass, in the order `gpuc passes` prints them.
var registry = []*Pass{
	simplifyPass,
	lowerPriorityPass,
	elideBarriersPass,
	groupSplitPass,
	gridSyncPass,
	hostLoopsPass,
	lowerMultiprefixPass,
	splitBarriersPass,
	partialEvalPass,
	distributeWorldPass,
}

// pipelines lists the named pipelines.
var pipelines = []*Pipeline{
	{Name: "lower", Doc: "lower SPMD regions to kernels and host code",
		Passes: []string{lowerPriorityPass.Name, elideBarriersPass.Name, groupSplitPass.Name, elideBarriersPass.Name, gridSyncPass.Name, hostLoopsPass.Name, lowerMultiprefixPass.Name, splitBarriersPass.Name}},
	{Name: "default", Doc: "lower to the launch level, specialize on static data and simplify, as compile does",
		Passes: []string{"lower", partialEvalPass.Name, simplifyPass.Name}},
}

// passOrder holds pairs (a, b): when both run, a must come before b. Each
// pair carries its reason, in the manner of Go's SSA compiler.
var passOrder = []struct{ before, after, why string }{
	{distributeWorldPass.Name, lowerPriorityPass.Name, "claims are distributed where their buffer is"},
	{distributeWorldPass.Name, groupSplitPass.Name, "group counters are distributed in world regions"},
	{distributeWorldPass.Name, gridSyncPass.Name, "world regions become world launches"},
	{distributeWorldPass.Name, hostLoopsPass.Name, "host-loop conditions are distributed in world regions"},
	{distributeWorldPass.Name, splitBarriersPass.Name, "world regions become world launches"},
	{lowerPriorityPass.Name, elideBarriersPass.Name, "the claims of priority stores add barriers that elision then judges"},
	{lowerPriorityPass.Name, splitBarriersPass.Name, "regions with priority stores cannot become kernels"},
	{hostLoopsPass.Name, splitBarriersPass.Name, "split-barriers needs grid barriers at the top level of regions"},
	{groupSplitPass.Name, hostLoopsPass.Name, "host-loops cannot cut regions inside group constructs"},
	{groupSplitPass.Name, gridSyncPass.Name, "cooperative kernels are made of flat regions"},
	{gridSyncPass.Name, hostLoopsPass.Name, "the cooperative kernel keeps the loops that host-loops would lift"},
	{hostLoopsPass.Name, lowerMultiprefixPass.Name, "multiprefix cuts need regions without lifted control flow"},
	{lowerMultiprefixPass.Name, splitBarriersPass.Name, "regions with multiprefix atomics cannot become kernels"},
	{elideBarriersPass.Name, hostLoopsPass.Name, "every barrier that goes saves a launch, and some a lifted loop"},
}

func init() {
	for _, p := range pipelines {
		if _, err := Expand(p.Passes); err != nil {
			panic(fmt.Sprintf("passes: pipeline %s: %v", p.Name, err))
		}
	}
}

// All returns the registered passes.
func All() []*Pass { return registry }

// Pipelines returns the named pipelines.
func Pipelines() []*Pipeline { return pipelines }

// Lookup returns the pass called name, or nil.
func Lookup(name string) *Pass {
	for _, p := range registry {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// LookupPipeline returns the pipeline called name, or nil.
func LookupPipeline(name string) *Pipeline {
	for _, p := range pipelines {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Expand resolves a list of pass and pipeline names into passes.
func Expand(names []string) ([]*Pass, error) {
	var out []*Pass
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if pl := LookupPipeline(name); pl != nil {
			sub, err := Expand(pl.Passes)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
			continue
		}
		p := Lookup(name)
		if p == nil {
			return nil, fmt.Errorf("unknown pass %q (see `gpuc passes`)", name)
		}
		out = append(out, p)
	}
	var seq []string
	for _, p := range out {
		seq = append(seq, p.Name)
	}
	if err := checkOrder(seq); err != nil {
		return nil, err
	}
	return out, nil
}

func checkOrder(seq []string) error {
	index := map[string]int{}
	for i, n := range seq {
		if _, ok := index[n]; !ok {
			index[n] = i
		}
	}
	for _, o := range passOrder {
		a, okA := index[o.before]
		b, okB := index[o.after]
		if okA && okB && a > b {
			return fmt.Errorf("pass %s must run before %s: %s", o.before, o.after, o.why)
		}
	}
	return nil
}

// Run applies passes to m in order. A pass that meets a module above its
// From level is an error; a panic inside a pass is reported as
// "panic during <pass>" rather than crashing the compiler. Run stamps
// report entries with the name of the pass that notes them.
func Run(m *ir.Module, ps []*Pass, cfg *Config) error {
	if cfg == nil {
		cfg = &Config{}
	}
	if err := cfg.check(); err != nil {
		return err
	}
	for _, p := range ps {
		lvl := m.Level()
		if lvl > p.From {
			return fmt.Errorf("pass %s takes %s-level modules, but %s is at the %s level", p.Name, p.From, m.Name, lvl)
		}
		if cfg.Report != nil {
			cfg.Report.pass = p.Name
		}
		if err := runOne(m, p, cfg); err != nil {
			return err
		}
		if cfg.VerifyEach {
			// A pass brings a module to its To level, or leaves one that
			// is already nearer the launch level where it was.
			if err := ir.Verify(m, min(lvl, p.To)); err != nil {
				return fmt.Errorf("invalid IR after pass %s:\n%v\n%s", p.Name, err, ir.Print(m))
			}
		}
		if cfg.Dump != nil && dumps(cfg.DumpAfter, p.Name) {
			fmt.Fprintf(cfg.Dump, "// after %s\n%s", p.Name, ir.Print(m))
		}
	}
	return nil
}

func runOne(m *ir.Module, p *Pass, cfg *Config) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: panic during %s: %v", p.Name, r)
		}
	}()
	return p.Run(m, cfg)
}

func dumps(after []string, name string) bool {
	for _, a := range after {
		if a == name || a == "all" {
			return true
		}
	}
	return false
}

// Describe writes the pass and pipeline list that `gpuc passes` prints.
func Describe(w io.Writer) {
	fmt.Fprintln(w, "Passes:")
	for _, p := range registry {
		fmt.Fprintf(w, "  %-18s %s (%s -> %s)\n", p.Name, p.Doc, p.From, p.To)
	}
	fmt.Fprintln(w, "Pipelines:")
	for _, p := range pipelines {
		fmt.Fprintf(w, "  %-18s %s: %s\n", p.Name, p.Doc, strings.Join(p.Passes, ","))
	}
}
