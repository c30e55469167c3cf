package chr

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"gpuc/ir"
)

// Note [Output]
//
// The program prints the final store one constraint per line, in Prolog
// syntax and in the standard order of terms, so that it can be compared
// with SWI-Prolog's store sorted by msort/2: constraints of lower arity
// first, then by name, then argument by argument (every position holds
// numbers of one type, compared by value). Integers print as %ld; floats
// as %.15e, which SWI-Prolog reads back and the test harness prints the
// same way. The device packs each store's live constraints into arrays
// of their own after the fixpoint (an atomic counter hands out places,
// in any order) and sorts an index of them with a bitonic network (Note
// [Device sort] in package ir); the host copies back only the packed
// constraints and the index, and prints them in its order: no host pass
// over the store's slots, no sorting on the host, and no backend knows
// about it.

// printStores emits the host code that prints the final store, then the
// statistics, if asked for, to the standard error stream.
func (l *lowerer) printStores() []ir.Stmt {
	b := newBlock(l.m, l.pos)
	types := append([]*ctype(nil), l.prog.types...)
	sort.SliceStable(types, func(i, j int) bool {
		if types[i].arity != types[j].arity {
			return types[i].arity < types[j].arity
		}
		return types[i].name < types[j].name
	})
	for _, ct := range types {
		l.printStore(b, l.stores[ct])
	}
	if l.opts.Stats {
		b.Emit(&ir.Printf{Pos: l.pos, Stderr: true, Format: "%% steps: %ld\n", Args: []ir.Expr{load(l.steps, i32c(0), ir.I64)}})
		b.Emit(&ir.Printf{Pos: l.pos, Stderr: true, Format: "%% claim rounds: %ld\n", Args: []ir.Expr{load(l.steps, i32c(1), ir.I64)}})
		for _, r := range l.prog.rules {
			b.Emit(&ir.Printf{Pos: r.pos, Stderr: true, Format: "%% " + strings.ReplaceAll(r.label(), "%", "%%") + ": %ld firings\n",
				Args: []ir.Expr{load(l.fired, i32c(int64(r.index)), ir.I64)}})
		}
	}
	return b.stmts()
}

// printStore copies one store's packed live constraints and their sorted
// index back and prints them in that order.
func (l *lowerer) printStore(b *block, s *store) {
	var hargs []string
	for i, t := range s.ct.args {
		hargs = append(hargs, l.array(fmt.Sprintf("%s_ha%d", s.base, i), t, s.capRef()))
	}
	live := b.decl(l.locals.fresh("live_"+s.base), ir.I32, load(s.live, i32c(0), ir.I32))
	for i, h := range hargs {
		b.Emit(&ir.Copy{Pos: b.Pos, Dst: h, DstOff: i32c(0), Src: s.packed[i], SrcOff: i32c(0), Count: live})
	}
	j := local(l.locals.fresh("j"), ir.I32)
	format := atomText(s.ct.name)
	var args []ir.Expr
	if s.ct.arity > 0 {
		idx := l.array(s.base+"_idx", ir.I32, s.capRef())
		b.Emit(&ir.Copy{Pos: b.Pos, Dst: idx, DstOff: i32c(0), Src: s.order, SrcOff: i32c(0), Count: live})
		slot := load(idx, j, ir.I32)
		var parts []string
		for a, t := range s.ct.args {
			if t == ir.F64 {
				parts = append(parts, "%.15e")
			} else {
				parts = append(parts, "%ld")
			}
			args = append(args, load(hargs[a], slot, t))
		}
		format += "(" + strings.Join(parts, ",") + ")"
	}
	b.Emit(l.countLoop(j.Name, live, []ir.Stmt{&ir.Printf{Pos: b.Pos, Format: strings.ReplaceAll(format, "%%", "%%%%") + "\n", Args: args}}))
}

// countLoop is `for var i = 0; i < n; i = i + 1 { body }`.
func (l *lowerer) countLoop(i string, n ir.Expr, body []ir.Stmt) ir.Stmt {
	return &ir.For{Pos: l.pos,
		Init: &ir.Decl{Pos: l.pos, Name: i, T: ir.I32, Init: i32c(0)},
		Cond: binop(ir.Lt, local(i, ir.I32), n),
		Post: &ir.Assign{Pos: l.pos, Name: i, Value: binop(ir.Add, local(i, ir.I32), i32c(1))},
		Body: body}
}

func (l *lowerer) array(base string, t ir.Type, n ir.Expr) string {
	name := l.name(base)
	l.m.Arrays = append(l.m.Arrays, &ir.Array{Pos: l.pos, Name: name, Elem: t, Len: n})
	return name
}

// atomText writes an atom as SWI-Prolog's writeq/1 does for the names
// gpuc meets: plain when it is a word that starts with a lower-case
// letter, or a run of symbol characters (~>, →) other than . and what
// opens a comment; quoted otherwise.
func atomText(name string) string {
	if plainAtom(name) {
		return strings.ReplaceAll(name, "%", "%%")
	}
	q := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "%", "%%").Replace(name)
	return "'" + q + "'"
}

func plainAtom(name string) bool {
	if name == "" || name == "." || strings.HasPrefix(name, "/*") {
		return false
	}
	word, symbol := true, true
	for i, r := range name {
		word = word && (i == 0 && unicode.IsLower(r) || i > 0 && (r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)))
		symbol = symbol && (strings.ContainsRune(`#$&*+-./:<=>?@^~\`, r) || r >= 0x80 && unicode.IsSymbol(r))
	}
	return word || symbol
}

func sortStrings(s []string) { sort.Strings(s) }
