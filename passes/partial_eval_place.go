package passes

import (
	"fmt"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// This file places static data after partial-eval's specialization (Note
// [Placement of static data]).

// staticUse is one read of a static buffer left in the module.
type staticUse struct {
	pos    ir.Pos
	varies bool // in device code, at an index that may differ between threads
}

// placeStatics decides where each static buffer of m lives, dropping the
// ones that nothing reads any more.
func placeStatics(m *ir.Module, statics map[string]*ir.Buffer, placement Placement, rep *Report) error {
	uses := staticUses(m, statics)
	constBytes := int64(0)
	for _, b := range m.Buffers {
		if b.Space == ir.Constant && b.Role != ir.Static {
			constBytes += constSize(b)
		}
	}
	var errs diag.List
	var kept []*ir.Buffer
	for _, b := range m.Buffers {
		if b.Role != ir.Static {
			kept = append(kept, b)
			continue
		}
		size := int64(len(b.Init) * b.Elem.Size())
		place, why, ok := placeStatic(b, uses[b.Name], placement, size, constBytes)
		switch {
		case !ok:
			errs.Add(why.pos, "partial-eval: %s", why.msg)
			continue
		case place == PlaceCode:
			rep.note(b.Pos, "static buffer %s (%d bytes): folded into code; %s", b.Name, size, why.msg)
			continue
		case place == PlaceConstant:
			b.Space = ir.Constant
			constBytes += size
		default:
			b.Space = ir.Global
		}
		rep.note(b.Pos, "static buffer %s (%d bytes): in %s memory: %s", b.Name, size, place, why.msg)
		kept = append(kept, b)
	}
	m.Buffers = kept
	return errs.Err()
}

// placeStatic decides where b lives, PlaceCode, PlaceConstant or
// PlaceGlobal, and why; or, with ok false, why it cannot live where
// placement says.
func placeStatic(b *ir.Buffer, uses []staticUse, placement Placement, size, constBytes int64) (place Placement, why peNote, ok bool) {
	fits := fitsConstant(size, constBytes)
	switch {
	case placement == PlaceGlobal:
		return PlaceGlobal, peNote{b.Pos, "--pe-placement=global"}, true
	case placement == PlaceConstant && !fits:
		return placement, peNote{b.Pos, fmt.Sprintf("--pe-placement=constant: static buffer %s (%d bytes) does not fit in the 64 KiB of constant memory with the %d bytes before it", b.Name, size, constBytes)}, false
	case placement == PlaceConstant:
		return PlaceConstant, peNote{b.Pos, "--pe-placement=constant"}, true
	case len(uses) == 0:
		return PlaceCode, peNote{b.Pos, "nothing reads it any more"}, true
	case placement == PlaceCode:
		return placement, peNote{uses[0].pos, fmt.Sprintf("--pe-placement=code, but static buffer %s is still read here, at an index not known at compile time", b.Name)}, false
	}
	reads := plural(len(uses), "read") + " left, the first at " + uses[0].pos.String()
	for _, u := range uses {
		if u.varies {
			return PlaceGlobal, peNote{b.Pos, fmt.Sprintf("%s; the one at %s may differ between threads", reads, u.pos)}, true
		}
	}
	if !fits {
		return PlaceGlobal, peNote{b.Pos, reads + "; it does not fit in the 64 KiB of constant memory"}, true
	}
	return PlaceConstant, peNote{b.Pos, reads + ", all the same for every thread"}, true
}

// fitsConstant says whether size bytes fit in constant memory after the
// constBytes already there.
func fitsConstant(size, constBytes int64) bool {
	return constBytes+size <= ir.MaxConstantMemory
}

// Note [Static data before placement]
//
// --static binds a buffer's contents when the module is loaded
// (driver.SetRoles), long before partial-eval places static data, and
// many paths never run partial-eval at all: gpuc run without --passes,
// compile --passes=lower, opt with a pipeline of its own. On those paths
// the buffer stays in the space it was declared in, and the verifier,
// which runs right after loading and again on the lowered module, rejects
// constant buffers beyond ir.MaxConstantMemory. So the binding applies this part of
// placement at once: a constant buffer whose bound contents alone do not
// fit moves to global memory (FitStatic). Only buffers bound by --static
// move; contents written in the source are the author's choice, and the
// verifier's error stands for them. Where partial-eval runs, placeStatics
// decides again for every static buffer, with the rest of constant memory
// counted too.

// FitStatic moves the static buffer b, whose contents --static has just
// bound, to global memory if it is declared constant and its contents do
// not fit in constant memory (Note [Static data before placement]).
func FitStatic(b *ir.Buffer) {
	if b.Space == ir.Constant && !fitsConstant(int64(len(b.Init)*b.Elem.Size()), 0) {
		b.Space = ir.Global
	}
}

// staticUses lists, per static buffer, the reads of it that m still
// holds: loads anywhere, and host copies out of it.
func staticUses(m *ir.Module, statics map[string]*ir.Buffer) map[string][]staticUse {
	out := map[string][]staticUse{}
	for _, f := range m.Funcs {
		var u *uniformity
		if f.Kind != ir.HostFunc {
			u = &uniformity{m: m, varying: map[string]bool{}}
			if f.Kind == ir.DeviceFunc {
				for _, p := range f.Params {
					u.varying[p.Name] = true // callers may pass anything
				}
			}
			u.run(f.Body)
		}
		ir.WalkAllExprs(f.Body, func(e ir.Expr) bool {
			if l, ok := e.(*ir.Load); ok && statics[l.Buf] != nil {
				out[l.Buf] = append(out[l.Buf], staticUse{pos: l.Pos, varies: u != nil && u.varies(l.Index)})
			}
			return true
		})
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if c, ok := s.(*ir.Copy); ok && statics[c.Src] != nil {
				out[c.Src] = append(out[c.Src], staticUse{pos: c.Pos})
			}
			return true
		})
	}
	return out
}

// constSize is the size of a constant buffer, whose length the verifier
// keeps constant.
func constSize(b *ir.Buffer) int64 {
	if c, ok := b.Len.(*ir.Const); ok {
		return c.Int() * int64(b.Elem.Size())
	}
	return 0
}
