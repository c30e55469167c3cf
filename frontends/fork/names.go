package fork

import (
	"fmt"
	"path/filepath"
	"strings"

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

// irWords are the names .kir reserves: the keywords of grammars/KIR.g4 and
// the names of builtins and types.
var irWords = func() map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.Fields(`module param buffer array kernel func host var atomic
		prio if else while for break continue return switch case default barrier raise
		split fork launch region copy swap printf true false inf nan`) {
		words[w] = true
	}
	for op := ir.ThreadID; op <= ir.Sqrt; op++ {
		words[op.String()] = true
	}
	for t := ir.Void; t <= ir.F64; t++ {
		words[t.String()] = true
	}
	return words
}()

// freshName returns base, or base_1, base_2, ... if taken says base is
// taken.
func freshName(base string, taken func(string) bool) string {
	name := base
	for i := 1; taken(name); i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	return name
}

// moduleName derives the module's name from the file's base name.
func moduleName(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	var b strings.Builder
	for i, c := range base {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digit := c >= '0' && c <= '9'
		switch {
		case letter || digit && i > 0:
			b.WriteRune(c)
		case digit:
			b.WriteString("_")
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	if name == "" || irWords[name] {
		name += "_"
	}
	return name
}

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
	taken := map[string]bool{}
	for name := range l.moduleNames {
		taken[name] = true
	}
	for _, f := range l.m.Funcs {
		for _, p := range f.Params {
			taken[p.Name] = true
		}
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if d, ok := s.(*ir.Decl); ok {
				taken[d.Name] = true
			}
			if f, ok := s.(*ir.For); ok {
				if d, ok := f.Init.(*ir.Decl); ok {
					taken[d.Name] = true
				}
			}
			return true
		})
	}
	final := map[string]string{}
	for _, p := range l.placeholders {
		name := freshName(p.base, func(n string) bool { return taken[n] || irWords[n] })
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
