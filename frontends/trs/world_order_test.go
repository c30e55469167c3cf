package trs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/ir"
)

// worldReadOrder lists the host reads of a distributed buffer in host
// function fn (and the host functions it calls) that may come after a
// launch or region that is not world with no world barrier between (Note
// [The world's first decision]): on GPUs another device's host reads
// the element from its owner's memory, ordered only after its own
// stream's work, so such a read races with the owner's writes.
func worldReadOrder(m *ir.Module, fn string) []string {
	var bad []string
	seen := map[string]bool{}
	report := func(pos ir.Pos, what string) {
		if k := pos.String() + what; !seen[k] {
			seen[k] = true
			bad = append(bad, fmt.Sprintf("%s: %s after a launch that is not world, with no world barrier between", pos, what))
		}
	}
	distributed := func(name string) bool {
		b := m.Buffer(name)
		return b != nil && b.Space == ir.Distributed
	}
	reads := func(pos ir.Pos, es []ir.Expr, dirty bool) {
		if !dirty {
			return
		}
		for _, e := range es {
			ir.AnyExpr(e, func(x ir.Expr) bool {
				if l, ok := x.(*ir.Load); ok && distributed(l.Buf) {
					report(pos, "read of "+l.Buf)
				}
				return false
			})
		}
	}
	calls := map[string]bool{} // a host function's end, by its start
	var stmts func(body []ir.Stmt, dirty bool, depth int) bool
	stmts = func(body []ir.Stmt, dirty bool, depth int) bool {
		for _, s := range body {
			switch s := s.(type) {
			case *ir.Launch:
				reads(s.Pos, ir.StmtExprs(s), dirty)
				dirty = !s.World
			case *ir.Region:
				reads(s.Pos, []ir.Expr{s.Procs}, dirty)
				dirty = !s.World
			case *ir.WorldBarrier, *ir.AllGather:
				dirty = false
			case *ir.AllReduce:
				reads(s.Pos, ir.StmtExprs(s), dirty)
				dirty = false
			case *ir.Copy:
				if dirty && distributed(s.Src) {
					report(s.Pos, "copy from "+s.Src)
				}
				reads(s.Pos, ir.StmtExprs(s), dirty)
			case *ir.If:
				reads(s.Pos, []ir.Expr{s.Cond}, dirty)
				t := stmts(s.Then, dirty, depth)
				e := stmts(s.Else, dirty, depth)
				dirty = t || e
			case *ir.While:
				// A loop's body may follow its own end.
				reads(s.Pos, []ir.Expr{s.Cond}, dirty)
				again := dirty || stmts(s.Body, dirty, depth)
				reads(s.Pos, []ir.Expr{s.Cond}, again)
				dirty = again || stmts(s.Body, again, depth)
			case *ir.For:
				in := dirty
				if s.Init != nil {
					reads(s.Pos, ir.StmtExprs(s.Init), in)
				}
				reads(s.Pos, []ir.Expr{s.Cond}, in)
				again := in || stmts(s.Body, in, depth)
				reads(s.Pos, []ir.Expr{s.Cond}, again)
				dirty = again || stmts(s.Body, again, depth)
			case *ir.CallStmt:
				reads(s.Pos, ir.StmtExprs(s), dirty)
				if f := m.Func(s.Call.Func); f != nil && f.Kind == ir.HostFunc && depth < 8 {
					k := fmt.Sprint(f.Name, dirty)
					out, ok := calls[k]
					if !ok {
						out = stmts(f.Body, dirty, depth+1)
						calls[k] = out
					}
					dirty = out
				}
			default:
				reads(s.At(), ir.StmtExprs(s), dirty)
				for _, sub := range ir.SubBodies(s) {
					dirty = stmts(sub, dirty, depth) || dirty
				}
			}
		}
		return dirty
	}
	stmts(m.Func(fn).Body, false, 0)
	return bad
}

// Every host read of a distributed word in a world program comes after a
// world barrier where a launch that is not world came before it: the
// read of the first decision after trs_init raced on GPUs (Note [The
// world's first decision]), and the checker catches it where the barrier
// is taken out.
func TestWorldHostReadsAfterBarrier(t *testing.T) {
	files, err := filepath.Glob("../../examples/trs/*.trs")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{World: true}
		if in, err := os.ReadFile(strings.TrimSuffix(file, ".trs") + ".input"); err == nil {
			opts.Input = strings.TrimSpace(string(in))
		}
		m, err := Parse(filepath.Base(file), src, opts)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if bad := worldReadOrder(m, "main"); len(bad) > 0 {
			t.Errorf("%s:\n%v", file, bad)
		}
		if filepath.Base(file) != "Rubio_04__enno.trs" {
			continue
		}
		// The checker sees the race that the barrier closes.
		main := m.Func("main")
		var body []ir.Stmt
		for _, s := range main.Body {
			if _, ok := s.(*ir.WorldBarrier); !ok {
				body = append(body, s)
			}
		}
		if len(body) == len(main.Body) {
			t.Fatalf("%s: main has no world barrier after trs_init:\n%s", file, ir.Print(m))
		}
		main.Body = body
		if bad := worldReadOrder(m, "main"); len(bad) == 0 {
			t.Errorf("%s: without its barrier main's first read raises no complaint", file)
		}
	}
}
