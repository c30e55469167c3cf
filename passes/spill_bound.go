package passes

import (
	"strconv"

	"gpuc/ir"
)

// Note [Bounded spills]
//
// A local that every assignment clamps to a range, `max(min(x, P), 0)`
// or `min(max(x, 0), P)` with P a parameter or a constant (CHR's snapshot
// of a store's top, and its sort size), keeps that range in its spill
// buffer (Note [Spilling]): the buffer is bounded by P (Note [Bounded
// buffers]), so the termination analysis reads a piece's loop up to the
// spilled value as a loop up to at most P, a parameter the user sets or
// a constant, not up to a value in memory. A
// declaration without a value spills zero, which is in the range. The
// interpreter checks the fact on every spill store, as on every bounded
// buffer. A spill of a spilled value, read back from a bounded spill
// buffer, keeps the bound.

// spillBound gives the parameter that bounds every value pieces assign to
// local name, or "" where some assignment is not such a clamp.
func spillBound(m *ir.Module, name string, bodies [][]ir.Stmt) string {
	bound, ok := "", true
	see := func(e ir.Expr) {
		p := clampParam(m, e)
		if p == "" || (bound != "" && bound != p) {
			ok = false
			return
		}
		bound = p
	}
	for _, body := range bodies {
		ir.WalkStmts(body, func(s ir.Stmt) bool {
			switch s := s.(type) {
			case *ir.Decl:
				if s.Name == name && s.Init != nil {
					see(s.Init)
				}
			case *ir.Assign:
				if s.Name == name {
					see(s.Value)
				}
			case *ir.Atomic:
				ok = ok && s.Dst != name
			case *ir.For:
				// Its init and post are visited as statements of their own
				// only here.
				for _, x := range []ir.Stmt{s.Init, s.Post} {
					if a, isAssign := x.(*ir.Assign); isAssign && a.Name == name {
						see(a.Value)
					}
					if d, isDecl := x.(*ir.Decl); isDecl && d.Name == name {
						ok = false
					}
				}
			}
			return ok
		})
	}
	if !ok {
		return ""
	}
	return bound
}

// clampParam gives P where e is max(min(x, P), 0) or min(max(x, 0), P)
// with P an integer parameter or a constant (then its decimal text), or a load from a buffer bounded by P (a
// spill made by an earlier cut), else "".
func clampParam(m *ir.Module, e ir.Expr) string {
	if l, ok := e.(*ir.Load); ok {
		if b := m.Buffer(l.Buf); b != nil && b.Bound != "" {
			return b.Bound
		}
		return ""
	}
	outer, ok := e.(*ir.Builtin)
	if !ok || len(outer.Args) != 2 {
		return ""
	}
	inner, ok := outer.Args[0].(*ir.Builtin)
	if !ok || len(inner.Args) != 2 {
		return ""
	}
	zero := func(x ir.Expr) bool {
		c, ok := x.(*ir.Const)
		return ok && c.Bits == 0
	}
	param := func(x ir.Expr) string {
		switch x := x.(type) {
		case *ir.ParamRef:
			return x.Name
		case *ir.Const:
			if x.T.IsInt() && int64(x.Bits) >= 0 && int64(x.Bits) <= 1<<31-1 {
				return strconv.FormatInt(int64(x.Bits), 10)
			}
		}
		return ""
	}
	switch {
	case outer.Op == ir.Max && inner.Op == ir.Min && zero(outer.Args[1]):
		return param(inner.Args[1])
	case outer.Op == ir.Min && inner.Op == ir.Max && zero(inner.Args[1]):
		return param(outer.Args[1])
	}
	return ""
}
