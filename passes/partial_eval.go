package passes

import (
	"fmt"
	"strings"

	"gpuc/internal/enum"
	"gpuc/ir"
)

var partialEvalPass = &Pass{
	Name: "partial-eval",
	Doc:  "specialize kernels on their static buffers: fold loads, unroll, prune, and place what remains",
	From: ir.LaunchLevel,
	To:   ir.LaunchLevel,
	Run:  partialEval,
}

// Note [Partial evaluation]
//
// A static buffer's contents are known when gpuc compiles (ir.Role
// Static: a Fork const array, or --static NAME=FILE). partial-eval
// specializes every kernel and device function that reads one, in the
// manner of TinyGo's interp: it evaluates what it can and rolls back what
// it cannot.
//
//   - Each function is walked once, in program order, with an environment
//     of the locals whose values are known. A load from a static buffer at
//     a known, in-range index becomes the element; known locals become
//     constants; constants fold with ir's scalar semantics (foldExpr).
//   - An if or switch whose control is known keeps only the branch taken.
//     Otherwise both branches are specialized, and afterwards a local is
//     known only if both agree on it.
//   - A loop that reads a static buffer is unrolled while its condition is
//     decided at each iteration: each iteration's body is a copy, its
//     locals renamed, specialized in the environment the previous one
//     left. A condition that is unknown but holds a known conjunct (`hit
//     && j < len`) is peeled: the iteration and the rest of the loop go
//     into `if cond { ... }`, at most maxPeelDepth deep. A loop that may
//     break is unrolled inside `while true { ...; break; }`, so that break
//     still leaves it; a loop that holds continue is kept.
//   - Any other loop is kept: the locals it assigns are unknown in it and
//     after it, and its body is specialized in that environment.
//   - The budget (--pe-budget, Config.PEBudget) bounds the statements
//     that unrolled iterations emit in one function, plus one per
//     iteration. When an unrolling passes it, the outermost loop being
//     unrolled is rolled back and kept as it was, and the report says
//     where. Every unrolling thus ends: each iteration costs at least one.
//   - Folding never hides a run-time error: a load at an index outside the
//     buffer stays a load, and simplify's folds keep divisions by zero.
//
// Afterwards simplify's folding, pruning and dead-local removal tidy each
// specialized function, and every static buffer is placed (Note
// [Placement of static data]).
//
// The pass runs on launch-level modules, after lower: regions are kernels
// by then, and the kernels are what it specializes. Host code is left
// alone.

// Note [Placement of static data]
//
// After specialization each static buffer is held where its remaining
// reads want it, unless --pe-placement (Config.PEPlacement) forces a
// choice:
//
//   - auto (the default): a buffer that nothing reads any more was folded
//     into code and leaves the module. One still read is put in constant
//     memory if it fits, with the other constant buffers, in 64 KiB and
//     every remaining device read is at an index that is the same for all
//     threads (the constant cache serves one address per warp at a time);
//     otherwise in global memory.
//   - code: as auto, but a buffer that is still read is an error, which
//     names the first read left.
//   - constant: no specialization; every static buffer in constant memory
//     (an error if they do not fit).
//   - global: no specialization; every static buffer in global memory.

// DefaultPEBudget is the unrolling budget of partial-eval when
// Config.PEBudget is 0: statements emitted by unrolled loops per function.
const DefaultPEBudget = 20000

// maxPeelDepth bounds the nesting of ifs that peeling a loop with an
// unknown condition builds.
const maxPeelDepth = 256

func partialEval(m *ir.Module, cfg *Config) error {
	placement, err := cfg.pePlacement()
	if err != nil {
		return err
	}
	statics := staticBuffers(m)
	if len(statics) == 0 {
		return nil
	}
	rep := cfg.report()
	var filters []*prefilter
	if placement == PlaceAuto || placement == PlaceCode {
		var specialized []*ir.Func
		for _, f := range m.Funcs {
			if f.Kind != ir.HostFunc && readsAny(f.Body, statics) {
				specializeFunc(m, f, statics, cfg.peBudget(), rep)
				specialized = append(specialized, f)
			}
		}
		if cfg == nil || !cfg.PENoPrefilter {
			names := newNamer(m) // after specialization, which makes locals
			for _, f := range specialized {
				filters = append(filters, prefilterFunc(m, f, names, rep)...)
			}
		}
	}
	if err := placeStatics(m, statics, placement, rep); err != nil {
		return err
	}
	installPrefilters(m, filters) // after placement: the tables stay global
	return nil
}

// pePlacement checks and returns the placement of static data.
func (c *Config) pePlacement() (Placement, error) {
	if c == nil || c.PEPlacement == "" {
		return PlaceAuto, nil
	}
	p := c.PEPlacement
	if err := new(Placement).Set(string(p)); err != nil {
		return PlaceAuto, fmt.Errorf("--pe-placement=%s: %v", p, err)
	}
	return p, nil
}

func (c *Config) peBudget() int {
	if c == nil || c.PEBudget <= 0 {
		return DefaultPEBudget
	}
	return c.PEBudget
}

// staticBuffers maps the names of m's static buffers to them.
func staticBuffers(m *ir.Module) map[string]*ir.Buffer {
	out := map[string]*ir.Buffer{}
	for _, b := range m.Buffers {
		if b.Role == ir.Static {
			out[b.Name] = b
		}
	}
	return out
}

// StaticReaders names the functions of m that read static data: the host
// functions that load from or copy out of a static buffer, and the kernels
// and device functions that load from one, themselves or through the
// device functions they call. Run-time specialization specializes the
// kernels among them again (Note [Run-time specialization] in
// backends/cuda).
func StaticReaders(m *ir.Module) map[string]bool {
	statics := staticBuffers(m)
	reads := map[string]bool{}
	for _, f := range m.Funcs {
		copies := ir.AnyStmt(f.Body, func(s ir.Stmt) bool {
			c, ok := s.(*ir.Copy)
			return ok && statics[c.Src] != nil
		})
		if f.Kind == ir.HostFunc && (readsAny(f.Body, statics) || copies) {
			reads[f.Name] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, f := range m.Funcs {
			if f.Kind == ir.HostFunc || reads[f.Name] {
				continue
			}
			calls := ir.AnyExprIn(f.Body, func(e ir.Expr) bool {
				c, ok := e.(*ir.Call)
				return ok && reads[c.Func]
			})
			if readsAny(f.Body, statics) || calls {
				reads[f.Name], changed = true, true
			}
		}
	}
	return reads
}

// readsAny reports whether body loads from one of bufs.
func readsAny(body []ir.Stmt, bufs map[string]*ir.Buffer) bool {
	return ir.AnyExprIn(body, func(e ir.Expr) bool {
		l, ok := e.(*ir.Load)
		return ok && bufs[l.Buf] != nil
	})
}

// countStmts counts the statements of body, nested ones included.
func countStmts(body []ir.Stmt) int {
	n := 0
	ir.WalkStmts(body, func(ir.Stmt) bool { n++; return true })
	return n
}

// specializeFunc specializes f on the static buffers, tidies it with
// simplify's machinery and reports what it did.
func specializeFunc(m *ir.Module, f *ir.Func, statics map[string]*ir.Buffer, budget int, rep *Report) {
	before, reads := countStmts(f.Body), staticReads(f.Body, statics)
	p := &specializer{statics: statics, names: newNamer(m), budget: budget}
	f.Body = p.list(f.Body, env{})
	ir.RewriteAllExprs(f.Body, foldExpr)
	f.Body = simplifyBody(f.Body, declCounts(f))
	// Dropping dead locals can empty an if, as a wildcard's iteration of
	// a peeled loop does; simplify drops those.
	f.Body = collapseIfs(simplifyBody(dropDeadLocals(f.Body), declCounts(f)))
	f.Body = threadFlags(foldFlags(f.Body))
	var switches []switchNote
	f.Body, switches = formSwitches(f.Body)
	seen := map[peNote]bool{}
	for _, n := range p.notes {
		if !seen[n] { // a loop kept in every iteration of one unrolled
			seen[n] = true
			rep.note(n.pos, "%s", n.msg)
		}
	}
	rep.note(f.Pos, "%s %s specialized on %s: %s folded, %s unrolled (%s), %s; %d -> %d statements",
		f.Kind, f.Name, reads, plural(p.folded, "load"), plural(p.unrolled, "loop"),
		plural(p.iterations, "iteration"), plural(p.kept, "loop")+" kept", before, countStmts(f.Body))
	for _, sw := range mergeSwitchNotes(switches) {
		rep.note(sw.pos, "%d tests of %s against constants became %s of %s in all",
			sw.tests, sw.x, countSwitches(sw.switches), plural(sw.values, "case"))
	}
}

// staticReads lists the static buffers that body reads, in order of first
// read.
func staticReads(body []ir.Stmt, statics map[string]*ir.Buffer) string {
	seen := map[string]bool{}
	var names []string
	ir.WalkAllExprs(body, func(e ir.Expr) bool {
		if l, ok := e.(*ir.Load); ok && statics[l.Buf] != nil && !seen[l.Buf] {
			seen[l.Buf] = true
			names = append(names, l.Buf)
		}
		return true
	})
	return strings.Join(names, ", ")
}

// collapseIfs turns `if c { if c { S } }` into `if c { S }`: peeling
// leaves such pairs where an iteration specializes to nothing, as a
// wildcard in a pattern does.
func collapseIfs(body []ir.Stmt) []ir.Stmt {
	return ir.RewriteStmts(body, func(s ir.Stmt) []ir.Stmt {
		outer, ok := s.(*ir.If)
		if !ok || outer.Else != nil || len(outer.Then) != 1 || !ir.IsPure(outer.Cond) {
			return []ir.Stmt{s}
		}
		inner, ok := outer.Then[0].(*ir.If)
		if ok && inner.Else == nil && ir.PrintExpr(inner.Cond) == ir.PrintExpr(outer.Cond) {
			outer.Then = inner.Then
		}
		return []ir.Stmt{s}
	})
}

// Placement is where partial-eval holds static data (Config.PEPlacement,
// Note [Placement of static data]); "" means PlaceAuto.
type Placement string

const (
	PlaceAuto     Placement = "auto"
	PlaceCode     Placement = "code"
	PlaceConstant Placement = "constant"
	PlaceGlobal   Placement = "global"
)

func (p Placement) String() string { return string(p) }

// Type names the flag's value in help.
func (Placement) Type() string { return "placement" }

// Set parses a placement, as a flag's value.
func (p *Placement) Set(s string) error {
	return enum.Set(p, s, PlaceAuto, PlaceCode, PlaceConstant, PlaceGlobal)
}
