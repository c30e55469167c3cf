package fromir

import "gpuc/ir"

// Note [Host locals in launches]
// Frontends often compute a launch's sizes and arguments through a host local:
//
//	var procs_32: i64 = i64(PROCS);
//	launch k(i32(procs_32)) grid (procs_32 + 255l) / 256l block 256l;
//
// A local declared once in the host program, with an initial value over parameters and
// constants, and never assigned again, stands for that value wherever it is read, so launch
// facts see through it (procs = PROCS and a grid of (PROCS + 255) / 256, which rules out
// PROCS = 0 in any thread that runs: CHR's kernels).

// hostDefs gives the host locals that name one value for the whole run (Note [Host locals in
// launches]), each by its initial value.
func hostDefs(m *ir.Module) map[string]ir.Expr {
	decls := map[string]int{}
	defs := map[string]ir.Expr{}
	changed := map[string]bool{}
	for _, h := range m.Funcs {
		if h == nil || h.Kind != ir.HostFunc {
			continue
		}
		ir.WalkStmts(h.Body, func(s ir.Stmt) bool {
			switch s := s.(type) {
			case *ir.Decl:
				decls[s.Name]++
				defs[s.Name] = s.Init
			case *ir.Assign:
				changed[s.Name] = true
			case *ir.Atomic:
				changed[s.Dst] = true
			case *ir.For:
				for _, st := range []ir.Stmt{s.Init, s.Post} {
					switch a := st.(type) {
					case *ir.Assign:
						changed[a.Name] = true
					case *ir.Decl:
						changed[a.Name] = true
					}
				}
			}
			return true
		})
		for _, p := range h.Params {
			changed[p.Name] = true
		}
	}
	out := map[string]ir.Expr{}
	for name, init := range defs {
		if decls[name] == 1 && !changed[name] && init != nil && overParams(init) {
			out[name] = init
		}
	}
	return out
}

// overParams reports whether e reads only constants and parameters (min,
// max and abs of them too: CHR's output regions have min(PROCS, 2^16)
// processors).
func overParams(e ir.Expr) bool {
	ok := true
	ir.WalkExpr(e, func(e ir.Expr) bool {
		switch e := e.(type) {
		case *ir.Const, *ir.ParamRef, *ir.Binary, *ir.Unary, *ir.Convert:
			return true
		case *ir.Builtin:
			if e.Op == ir.Min || e.Op == ir.Max || e.Op == ir.Abs {
				return true
			}
		}
		ok = false
		return false
	})
	return ok
}

// inlineHostDefs gives a copy of the host expression e with each such local replaced by its
// value.
func inlineHostDefs(e ir.Expr, defs map[string]ir.Expr) ir.Expr {
	return ir.RewriteExpr(ir.CloneExpr(e), func(e ir.Expr) ir.Expr {
		if v, ok := e.(*ir.Var); ok {
			if d, ok := defs[v.Name]; ok {
				return ir.CloneExpr(d)
			}
		}
		return e
	})
}
