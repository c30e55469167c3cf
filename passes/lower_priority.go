package passes

import (
	"gpuc/ir"
)

var lowerPriorityPass = &Pass{
	Name: "lower-priority",
	Doc:  "implement Priority CRCW stores with plain stores, exchanges or claims; unused multiprefixes become atomics",
	From: ir.SPMDLevel,
	To:   ir.SPMDLevel,
	Run:  reporting(lowerPriority),
}

// Note [Priority stores]
//
// A priority store lets the lowest pid() among the processors that store
// to one address between two barriers win. lowerPriority implements each
// one in the cheapest way that keeps that meaning:
//
//   - If every priority store to a buffer in the region writes the
//     processor's own element (its index is in owner form, Note
//     [Cross-processor conflicts]), no two processors meet: a plain store.
//   - If the value is the same on every processor, any winner will do. If
//     the address is the same too, and the whole group runs the store
//     (no split, fork or processor-dependent condition around it),
//     processor 0 alone stores: a shared counter's update costs one store,
//     not one contended atomic per processor. Otherwise an atomic
//     exchange, for element types the atomics support.
//   - Otherwise processors claim the address first. Each does an atomic
//     max of (2^31-1 - pid) on a claim buffer of the target's length
//     (zero means unclaimed); after a grid barrier the processor whose
//     claim is still there wins, takes the claim back with a
//     compare-and-swap, and stores. The claim barrier sits where the store
//     was, so the store must stand where a barrier may: in synchronous code
//     at group-uniform control flow, which is where frontends put priority
//     stores.
//
// It runs before elide-barriers, whose analysis sees that the claim and
// the compare-and-swap do not commute and keeps the claim barrier.

func lowerPriority(m *ir.Module, rep *Report) {
	// Multiprefix atomics without a result impose no order either; relaxing
	// them here lets elide-barriers drop the barriers around them.
	dropUnusedPrefixes(m, rep)
	names := newNamer(m)
	claims := map[string]string{}
	forEachRegion(m, func(r *ir.Region) { lowerRegionPriority(m, r, names, claims, rep) })
}

func lowerRegionPriority(m *ir.Module, r *ir.Region, names *namer, claims map[string]string, rep *Report) {
	info := newAccessInfo(m, r.Body)
	exclusive := exclusiveBuffers(info, r.Body)
	inFork := map[ir.Stmt]bool{}
	markForks(r.Body, false, inFork)
	u := newUniformity(m, r.Body, false)
	whole := wholeGroupStmts(r.Body, u)
	r.Body = ir.RewriteStmts(r.Body, func(s ir.Stmt) []ir.Stmt {
		st, ok := s.(*ir.Store)
		if !ok || !st.Priority {
			return []ir.Stmt{s}
		}
		buf := m.Buffer(st.Buf)
		switch {
		case exclusive[st.Buf] && !inFork[st]:
			rep.note(st.Pos, "priority store to %s: a plain store, since each processor writes its own element", st.Buf)
			st.Priority = false
			return []ir.Stmt{st}
		case whole[st] && !u.varies(st.Value) && !u.varies(st.Index):
			rep.note(st.Pos, "priority store to %s: processor 0 stores, since every processor stores the same value to the same address", st.Buf)
			st.Priority = false
			return []ir.Stmt{&ir.If{Pos: st.Pos, Cond: &ir.Binary{Pos: st.Pos, Op: ir.Eq,
				X: &ir.Builtin{Pos: st.Pos, Op: ir.ProcID}, Y: ir.IntConst(ir.I32, 0)}, Then: []ir.Stmt{st}}}
		case !u.varies(st.Value) && atomicExchangeable(buf.Elem):
			rep.note(st.Pos, "priority store to %s: an atomic exchange, since every processor stores the same value", st.Buf)
			return []ir.Stmt{&ir.Atomic{Pos: st.Pos, Op: ir.AtomicExch, Buf: st.Buf, Index: st.Index, Args: []ir.Expr{st.Value}}}
		}
		rep.note(st.Pos, "priority store to %s: processors claim the address (atomic max on a claim buffer), then the lowest pid stores after a grid barrier", st.Buf)
		return claimStore(m, st, names, claims)
	})
}

// wholeGroupStmts finds the statements that every processor of the region
// runs: those under no group construct and no processor-dependent
// condition.
func wholeGroupStmts(body []ir.Stmt, u *uniformity) map[ir.Stmt]bool {
	out := map[ir.Stmt]bool{}
	var visit func([]ir.Stmt)
	visit = func(list []ir.Stmt) {
		for _, s := range list {
			out[s] = true
			switch s := s.(type) {
			case *ir.If:
				if !u.varies(s.Cond) {
					visit(s.Then)
					visit(s.Else)
				}
			case *ir.While:
				if !u.varies(s.Cond) {
					visit(s.Body)
				}
			case *ir.For:
				if !u.varies(s.Cond) {
					visit(s.Body)
				}
			case *ir.Switch:
				if !u.varies(s.X) {
					for _, c := range s.Cases {
						visit(c.Body)
					}
					visit(s.Default)
				}
			}
		}
	}
	visit(body)
	return out
}

// exclusiveBuffers finds the buffers whose priority stores all write the
// storing processor's own element.
func exclusiveBuffers(info *accessInfo, body []ir.Stmt) map[string]bool {
	forms := map[string]*owner{}
	out := map[string]bool{}
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		st, ok := s.(*ir.Store)
		if !ok || !st.Priority {
			return true
		}
		o, ok := info.ownerForm(st.Index, false)
		prev, seen := forms[st.Buf]
		switch {
		case !seen:
			forms[st.Buf] = &o
			out[st.Buf] = ok
		case !ok || *prev != o:
			out[st.Buf] = false
		}
		return true
	})
	return out
}

func atomicExchangeable(t ir.Type) bool {
	switch t {
	case ir.I32, ir.U32, ir.I64, ir.U64, ir.F32, ir.F64:
		return true
	}
	return false
}

// claimStore replaces a priority store by a claim, a grid barrier, and a
// store by the winner.
func claimStore(m *ir.Module, st *ir.Store, names *namer, claims map[string]string) []ir.Stmt {
	pos := st.Pos
	buf := m.Buffer(st.Buf)
	claim, ok := claims[st.Buf]
	if !ok {
		claim = names.fresh(st.Buf + "_claim")
		claims[st.Buf] = claim
		m.Buffers = append(m.Buffers, &ir.Buffer{Pos: pos, Name: claim, Elem: ir.I32, Len: ir.CloneExpr(buf.Len), Space: worldSpace(buf.Space == ir.Distributed), Role: ir.Scratch})
	}
	idx, val, old := names.fresh("prio_index"), names.fresh("prio_value"), names.fresh("prio_claim")
	mine := func() ir.Expr {
		return &ir.Binary{Pos: pos, Op: ir.Sub, X: ir.IntConst(ir.I32, 2147483647), Y: &ir.Builtin{Pos: pos, Op: ir.ProcID}}
	}
	it := st.Index.Type()
	return []ir.Stmt{
		&ir.Decl{Pos: pos, Name: idx, T: it, Init: st.Index},
		&ir.Decl{Pos: pos, Name: val, T: buf.Elem, Init: st.Value},
		&ir.Atomic{Pos: pos, Op: ir.AtomicMax, Buf: claim, Index: &ir.Var{Pos: pos, Name: idx, T: it}, Args: []ir.Expr{mine()}},
		&ir.Barrier{Pos: pos, Grid: true},
		&ir.Decl{Pos: pos, Name: old, T: ir.I32},
		&ir.Atomic{Pos: pos, Dst: old, Op: ir.AtomicCAS, Buf: claim, Index: &ir.Var{Pos: pos, Name: idx, T: it}, Args: []ir.Expr{mine(), ir.IntConst(ir.I32, 0)}},
		&ir.If{Pos: pos, Cond: &ir.Binary{Pos: pos, Op: ir.Eq, X: &ir.Var{Pos: pos, Name: old, T: ir.I32}, Y: mine()},
			Then: []ir.Stmt{&ir.Store{Pos: pos, Buf: st.Buf, Index: &ir.Var{Pos: pos, Name: idx, T: it}, Value: &ir.Var{Pos: pos, Name: val, T: buf.Elem}}}},
	}
}
