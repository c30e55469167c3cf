package fork

import (
	"fmt"

	"gpuc/ir"
)

// Note [Names]
//
// IR names must be identifiers that are not .kir keywords, module-level
// names must not be builtin or type names, and no local may have the name
// of a module-level declaration or of a visible local. C allows all of
// that, so the lowering renames:
//
//   - Globals, constants and the host versions of functions keep their
//     source names unless these are .kir words (then name_1, ...).
//   - Locals of one IR function (source locals, inlined parameters,
//     temporaries and flags) get distinct names, avoiding every
//     module-level source name.
//   - Names the lowering invents at module level (buffers for sh locals,
//     device versions of functions) are placeholders until the whole
//     module is built, and are then chosen to clash with nothing, locals
//     included (settleNames).

// placeholder is a module-level name the lowering invents: its final name
// is chosen at the end, from base.
type placeholder struct {
	key  string // what the IR holds until then
	base string
}

// newPlaceholder invents a module-level name.
func (l *lowerer) newPlaceholder(base string) string {
	key := fmt.Sprintf("\x00%d", len(l.placeholders))
	l.placeholders = append(l.placeholders, placeholder{key: key, base: base})
	return key
}

// settleNames gives every placeholder its final name and rewrites the
// module to use it.
func (l *lowerer) settleNames() {
	if len(l.placeholders) == 0 {
		return
	}
	taken := ir.DeclaredNames(l.m)
	for name := range l.moduleNames {
		taken[name] = true
	}
	final := map[string]string{}
	for _, p := range l.placeholders {
		name := ir.FreshName(p.base, 1, func(n string) bool { return taken[n] })
		taken[name] = true
		final[p.key] = name
	}
	l.rename(final)
}

// rename replaces module-level names in declarations, loads, stores,
// atomics and calls.
func (l *lowerer) rename(final map[string]string) {
	fix := func(name *string) {
		if n, ok := final[*name]; ok {
			*name = n
		}
	}
	for _, b := range l.m.Buffers {
		fix(&b.Name)
	}
	for _, f := range l.m.Funcs {
		fix(&f.Name)
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			switch s := s.(type) {
			case *ir.Store:
				fix(&s.Buf)
			case *ir.Atomic:
				fix(&s.Buf)
			}
			for _, e := range ir.StmtExprs(s) {
				ir.WalkExpr(e, func(e ir.Expr) bool {
					switch e := e.(type) {
					case *ir.Load:
						fix(&e.Buf)
					case *ir.Call:
						fix(&e.Func)
					}
					return true
				})
			}
			return true
		})
	}
}
