package passes

import (
	"maps"
	"slices"

	"gpuc/ir"
)

// Note [Spilling]
//
// When a region is cut into pieces that run as separate launches (at grid
// barriers, or around code lifted to the host), a private used in two
// pieces must survive between them. It lives in a spill buffer with one
// element per processor, indexed by gid(): each piece that uses it loads
// it at its start, unless the piece declares it, and each piece that
// assigns it stores it at its end. Pieces may run in any order and any
// number of times (loops lifted to the host run their pieces again), so
// the rule does not depend on their order. A spilled declaration without
// a value gets zero, so that every store has a value to store.

// piece is one part of a cut region: device statements run by procs
// processors (each piece becomes a region, then a kernel).
type piece struct {
	body *[]ir.Stmt
}

// spillAcross spills the locals that several pieces use; host pieces are
// seq bodies run on the host for processor 0 (see hostSeq). It returns
// the spill buffers by local.
func (o *outliner) spillAcross(pieces []piece, hostPieces []*[]ir.Stmt, procs ir.Expr, types map[string]ir.Type, pos ir.Pos) (map[string]string, error) {
	count := map[string]int{}
	for _, p := range pieces {
		for name := range localsUsed(*p.body, types) {
			count[name]++
		}
	}
	for _, h := range hostPieces {
		for name := range localsUsed(*h, types) {
			count[name]++
		}
	}
	bufs := map[string]string{}
	sp := &spill{bufs: bufs, types: map[string]ir.Type{}}
	for _, name := range slices.Sorted(maps.Keys(count)) {
		if count[name] < 2 {
			continue
		}
		if !paramOnly(procs) {
			return nil, errorf(pos, "the privates of this region live on across launches in spill buffers of one element per processor, so its size must be made of parameters and constants")
		}
		b := o.spillBuffer(sp, name, types[name], procs, pos)
		var bodies [][]ir.Stmt
		for _, p := range pieces {
			bodies = append(bodies, *p.body)
		}
		for _, h := range hostPieces {
			bodies = append(bodies, *h)
		}
		if p := spillBound(o.m, name, bodies); p != "" && types[name].IsInt() {
			o.m.Buffer(b).Bound = p // Note [Bounded spills]
		}
	}
	for _, p := range pieces {
		*p.body = withSpill(*p.body, sp)
	}
	for _, h := range hostPieces {
		*h = hostSpill(*h, sp)
	}
	return bufs, nil
}

// localsUsed returns the locals of types that body reads or writes.
func localsUsed(body []ir.Stmt, types map[string]ir.Type) map[string]bool {
	out := map[string]bool{}
	note := func(name string) {
		if _, ok := types[name]; ok {
			out[name] = true
		}
	}
	walkSetLocals(body, func(name *string) { note(*name) })
	ir.WalkAllExprs(body, func(e ir.Expr) bool {
		if v, ok := e.(*ir.Var); ok {
			note(v.Name)
		}
		return true
	})
	return out
}

// withSpill adds the loads and stores of spilled locals to a device piece.
func withSpill(body []ir.Stmt, sp *spill) []ir.Stmt {
	declared := map[string]*ir.Decl{}
	for _, s := range body {
		if d, ok := s.(*ir.Decl); ok {
			declared[d.Name] = d
		}
	}
	used := localsUsed(body, sp.types)
	var head, tail []ir.Stmt
	for _, name := range slices.Sorted(maps.Keys(sp.bufs)) {
		if !used[name] {
			continue
		}
		buf, t := sp.bufs[name], sp.types[name]
		if d, ok := declared[name]; ok {
			if d.Init == nil {
				d.Init = &ir.Const{Pos: d.Pos, T: t}
			}
		} else {
			head = append(head, &ir.Decl{Name: name, T: t, Init: &ir.Load{Buf: buf, Index: &ir.Builtin{Op: ir.GlobalID}, T: t}})
		}
		if declared[name] != nil || assignedIn(name, body) {
			tail = append(tail, &ir.Store{Buf: buf, Index: &ir.Builtin{Op: ir.GlobalID}, Value: &ir.Var{Name: name, T: t}})
		}
	}
	out := append(head, body...)
	return append(out, tail...)
}

// hostSpill rewrites a host piece (processor 0's seq code) to use the
// spilled locals in their buffers' element 0.
func hostSpill(body []ir.Stmt, sp *spill) []ir.Stmt {
	zero := func() ir.Expr { return ir.IntConst(ir.I32, 0) }
	ir.RewriteAllExprs(body, func(e ir.Expr) ir.Expr {
		if v, ok := e.(*ir.Var); ok {
			if buf, ok := sp.bufs[v.Name]; ok {
				return &ir.Load{Pos: v.Pos, Buf: buf, Index: zero(), T: v.T}
			}
		}
		return e
	})
	return ir.RewriteStmts(body, func(s ir.Stmt) []ir.Stmt {
		switch s := s.(type) {
		case *ir.Assign:
			if buf, ok := sp.bufs[s.Name]; ok {
				return []ir.Stmt{&ir.Store{Pos: s.Pos, Buf: buf, Index: zero(), Value: s.Value}}
			}
		case *ir.Decl:
			if buf, ok := sp.bufs[s.Name]; ok {
				init := s.Init
				if init == nil {
					init = &ir.Const{Pos: s.Pos, T: s.T}
				}
				return []ir.Stmt{&ir.Store{Pos: s.Pos, Buf: buf, Index: zero(), Value: init}}
			}
		}
		return []ir.Stmt{s}
	})
}

// regionLocals returns the type of every local a region body declares.
func regionLocals(body []ir.Stmt) map[string]ir.Type {
	types := map[string]ir.Type{}
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		if d := ir.DeclOf(s); d != nil {
			types[d.Name] = d.T
		}
		return true
	})
	return types
}
