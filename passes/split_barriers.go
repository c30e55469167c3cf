package passes

import (
	"fmt"
	"strings"

	"gpuc/ir"
)

var splitBarriersPass = &Pass{
	Name: "split-barriers",
	Doc:  "cut regions at their grid barriers and outline every region as kernels and launches",
	From: ir.SPMDLevel,
	To:   ir.LaunchLevel,
	Run:  splitBarriers,
}

// splitBarriers lowers every region to launch-level code (Note [Outlining
// regions]). A region may hold grid barriers only at the top level of its
// body: host-loops lifts barrier-holding control flow, and group-split
// removes group constructs, before this pass runs. Each grid barrier
// becomes a kernel boundary.
func splitBarriers(m *ir.Module, cfg *Config) error {
	return rewriteRegions(m, cfg, func(o *outliner, f *ir.Func, r *ir.Region, n int) ([]ir.Stmt, error) {
		return o.lowerRegion(r, fmt.Sprintf("%s_r%d", f.Name, n))
	})
}

// lowerRegion returns the host statements that replace r.
func (o *outliner) lowerRegion(r *ir.Region, base string) ([]ir.Stmt, error) {
	if err := checkFlat(r); err != nil {
		return nil, err
	}
	uniquifyLocals(r.Body, o.names)
	cut := cutAtBarriers(trimBarriers(r.Body))
	if len(cut) == 0 {
		return nil, nil // nothing to run
	}
	pieces := make([]piece, len(cut))
	for i := range cut {
		pieces[i] = piece{body: &cut[i]}
	}
	if _, err := o.spillAcross(pieces, nil, r.Procs, regionLocals(r.Body), r.Pos); err != nil {
		return nil, err
	}
	var out []ir.Stmt
	procsVar := o.procsLocal(r, &out)
	var kernels []string
	for i, body := range cut {
		rk := o.outline(body, procsVar, fmt.Sprintf("%s_k%d", base, i+1), r.Pos)
		out = append(out, rk.launch)
		kernels = append(kernels, rk.kernel.Name)
	}
	o.rep.note(r.Pos, "region of %s processors: %s", ir.PrintExpr(r.Procs), plural(len(kernels), "kernel")+": "+strings.Join(kernels, ", "))
	for _, s := range r.Body {
		if b, ok := s.(*ir.Barrier); ok && b.Grid {
			o.rep.note(b.Pos, "grid barrier: a kernel boundary")
		}
	}
	return out, nil
}

// checkFlat reports a region that still holds group constructs, priority
// stores, multiprefix atomics or barriers below its top level.
func checkFlat(r *ir.Region) error {
	var err error
	for _, s := range r.Body {
		for _, sub := range ir.SubBodies(s) {
			ir.WalkStmts(sub, func(s ir.Stmt) bool {
				if b, ok := s.(*ir.Barrier); ok && b.Grid && err == nil {
					err = errorf(b.Pos, "split-barriers: grid barrier inside control flow; run %s first", hostLoopsPass.Name)
				}
				return err == nil
			})
		}
	}
	ir.WalkStmts(r.Body, func(s ir.Stmt) bool {
		if err != nil {
			return false
		}
		switch s := s.(type) {
		case *ir.Split, *ir.SplitWhile, *ir.Fork:
			err = errorf(s.At(), "split-barriers: group construct in a region; run %s first", groupSplitPass.Name)
		case *ir.Store:
			if s.Priority {
				err = errorf(s.Pos, "split-barriers: priority store in a region; run %s first", lowerPriorityPass.Name)
			}
		case *ir.Atomic:
			if s.Op.IsMultiprefix() {
				err = errorf(s.Pos, "split-barriers: multiprefix atomic in a region; run %s first", lowerMultiprefixPass.Name)
			}
		case *ir.Printf:
			err = errorf(s.Pos, "split-barriers: printf in a region; run %s first, which moves it to the host", hostLoopsPass.Name)
		}
		return err == nil
	})
	return err
}

// trimBarriers drops the grid barriers at the start and the end of a
// region body: a region's launch already synchronises there.
func trimBarriers(body []ir.Stmt) []ir.Stmt {
	isBarrier := func(s ir.Stmt) bool { b, ok := s.(*ir.Barrier); return ok && b.Grid }
	for len(body) > 0 && isBarrier(body[0]) {
		body = body[1:]
	}
	for len(body) > 0 && isBarrier(body[len(body)-1]) {
		body = body[:len(body)-1]
	}
	return body
}

// cutAtBarriers splits a body at its top-level grid barriers. Empty
// pieces (a barrier first or last in the region, or two in a row) are
// dropped: the ends of a region already synchronise.
func cutAtBarriers(body []ir.Stmt) [][]ir.Stmt {
	var pieces [][]ir.Stmt
	var cur []ir.Stmt
	for _, s := range body {
		if b, ok := s.(*ir.Barrier); ok && b.Grid {
			if len(cur) > 0 {
				pieces = append(pieces, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, s)
	}
	if len(cur) > 0 {
		pieces = append(pieces, cur)
	}
	return pieces
}
