package cuda

import "gpuc/ir"

// effectful lists the functions whose calls have effects that evaluation
// order can show: they write memory, launch, copy, swap, print or raise,
// themselves or through the functions they call.
func effectful(m *ir.Module) map[string]bool {
	eff := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, f := range m.Funcs {
			if !eff[f.Name] && hasEffect(f.Body, eff) {
				eff[f.Name] = true
				changed = true
			}
		}
	}
	return eff
}

// hasEffect reports whether body has an effect, given the functions known
// to be effectful so far.
func hasEffect(body []ir.Stmt, eff map[string]bool) bool {
	return ir.AnyStmt(body, func(s ir.Stmt) bool {
		switch s.(type) {
		case *ir.Store, *ir.Atomic, *ir.Launch, *ir.Copy, *ir.Swap, *ir.Printf, *ir.Write, *ir.Raise:
			return true
		}
		return false
	}) || ir.AnyExprIn(body, func(e ir.Expr) bool {
		c, ok := e.(*ir.Call)
		return ok && eff[c.Func]
	})
}
