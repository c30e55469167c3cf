package passes

import (
	"fmt"
	"io"
	"sort"

	"gpuc/ir"
)

// Report collects what the lowering passes did to each source construct,
// for `gpuc compile --report`: which barriers went and why, which loops
// run on the host, which kernels and launches a region became.
type Report struct {
	entries []reportEntry
	pass    string // the pass that runs now, which Run sets
}

type reportEntry struct {
	pos  ir.Pos
	pass string
	msg  string
}

// note records one fact about the construct at pos, stamped with the name
// of the pass that runs; a nil Report records nothing.
func (r *Report) note(pos ir.Pos, format string, args ...any) {
	if r != nil {
		r.noteAs(r.pass, pos, format, args...)
	}
}

// noteAs is note for a fact that the code of the pass called pass
// records while another pass runs it.
func (r *Report) noteAs(pass string, pos ir.Pos, format string, args ...any) {
	if r == nil {
		return
	}
	r.entries = append(r.entries, reportEntry{pos: pos, pass: pass, msg: fmt.Sprintf(format, args...)})
}

// Write prints the report sorted by source position, one fact per line:
// "file:line:col: pass: what".
func (r *Report) Write(w io.Writer) {
	es := append([]reportEntry(nil), r.entries...)
	sort.SliceStable(es, func(i, j int) bool { return es[i].pos.Before(es[j].pos) })
	for _, e := range es {
		fmt.Fprintf(w, "%s: %s: %s\n", e.pos, e.pass, e.msg)
	}
}

// Len is the number of facts recorded.
func (r *Report) Len() int { return len(r.entries) }

// reporting makes a pass's Run of a transformation that cannot fail and
// needs only the report from the configuration.
func reporting(f func(*ir.Module, *Report)) func(*ir.Module, *Config) error {
	return func(m *ir.Module, cfg *Config) error {
		f(m, cfg.report())
		return nil
	}
}

func (c *Config) report() *Report {
	if c == nil {
		return nil
	}
	return c.Report
}

// plural writes n and noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
