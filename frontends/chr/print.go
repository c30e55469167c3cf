package chr

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

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
// same way. After the fixpoint the device counts each store's live
// constraints and packs them into arrays of their own: in slot order
// when no slot below the top is dead, else in any order (an atomic
// counter hands out places). If the packed constraints are not already
// in order, it sorts an index of them with a bitonic network (Note
// [Device sort] in package ir). A store of integer constraints is then
// formatted on the device as well (Note [Device formatting] in package
// ir), and the host copies back its text and writes it in one write;
// a store with float arguments is copied back packed and printed by the
// host with printf, in the index's order. No host pass over the store's
// slots, no sorting or formatting on the host for integer stores, and
// no backend knows about it.

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
	live := b.decl(l.locals.fresh("live_"+s.base), ir.I32, load(s.live, i32c(0), ir.I32))
	if s.text != "" {
		// Formatted on the device: the text's length is the last line's end.
		text := l.array(s.base+"_htext", ir.U8, s.textLen())
		end := load(s.lines, builtin(ir.Max, binop(ir.Sub, live, i32c(1)), i32c(0)), ir.I64)
		n := b.decl(l.locals.fresh("bytes_"+s.base), ir.I64, &ir.Select{Cond: binop(ir.Gt, live, i32c(0)), X: end, Y: i64c(0)})
		b.Emit(&ir.Copy{Pos: b.Pos, Dst: text, DstOff: i32c(0), Src: s.text, SrcOff: i32c(0), Count: n},
			&ir.Write{Pos: b.Pos, Array: text, Count: n})
		return
	}
	var hargs []string
	for i, t := range s.ct.args {
		hargs = append(hargs, l.array(fmt.Sprintf("%s_ha%d", s.base, i), t, s.capRef()))
	}
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

var plainAtom = regexp.MustCompile(`^[a-z][a-zA-Z0-9_]*$`)

// atomText writes an atom as writeq/1 does, as a printf format.
func atomText(name string) string { return strings.ReplaceAll(atomLiteral(name), "%", "%%") }

// atomLiteral writes an atom as writeq/1 does for the names gpuc meets:
// plain when it is a letter-digit word, quoted otherwise.
func atomLiteral(name string) string {
	if plainAtom.MatchString(name) {
		return name
	}
	q := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(name)
	return "'" + q + "'"
}

func sortStrings(s []string) { sort.Strings(s) }
