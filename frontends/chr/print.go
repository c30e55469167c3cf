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
// same way. This is host work in IR: the host copies each store back,
// gathers the live slots, sorts them with a bottom-up merge sort in a
// generated host function and prints them; no backend knows about it.

// printStores emits the host code that prints the final store, then the
// statistics if asked for.
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
		b.Emit(&ir.Printf{Pos: l.pos, Format: "%% steps: %ld\n", Args: []ir.Expr{load(l.steps, i32c(0), ir.I64)}})
		for _, r := range l.prog.rules {
			b.Emit(&ir.Printf{Pos: r.pos, Format: "%% " + strings.ReplaceAll(r.label(), "%", "%%") + ": %ld firings\n",
				Args: []ir.Expr{load(l.fired, i32c(int64(r.index)), ir.I64)}})
		}
	}
	return b.stmts()
}

// printStore copies one store back, sorts its live constraints and
// prints them.
func (l *lowerer) printStore(b *block, s *store) {
	hst := l.array(s.base+"_hst", ir.I32, s.capRef())
	var hargs []string
	for i, t := range s.ct.args {
		hargs = append(hargs, l.array(fmt.Sprintf("%s_ha%d", s.base, i), t, s.capRef()))
	}
	idx := l.array(s.base+"_idx", ir.I32, s.capRef())
	tmp := l.array(s.base+"_tmp", ir.I32, s.capRef())
	n := b.decl(l.locals.fresh("top_"+s.base), ir.I32, builtin(ir.Min, load(s.top, i32c(0), ir.I32), s.capRef()))
	b.Emit(&ir.Copy{Pos: b.Pos, Dst: hst, DstOff: i32c(0), Src: s.state, SrcOff: i32c(0), Count: n})
	for i, h := range hargs {
		b.Emit(&ir.Copy{Pos: b.Pos, Dst: h, DstOff: i32c(0), Src: s.args[i], SrcOff: i32c(0), Count: n})
	}
	live := b.decl(l.locals.fresh("live_"+s.base), ir.I32, i32c(0))
	gather := b.sub()
	i := local(l.locals.fresh("i"), ir.I32)
	gather.Store(idx, live, i)
	gather.Set(live.Name, binop(ir.Add, live, i32c(1)))
	b.Emit(l.countLoop(i.Name, n, []ir.Stmt{&ir.If{Pos: b.Pos, Cond: binop(ir.Eq, load(hst, i, ir.I32), i32c(1)), Then: gather.stmts()}}))
	if s.ct.arity > 0 {
		sorter := l.sortFunc(s, hargs, idx, tmp)
		b.Emit(&ir.CallStmt{Pos: b.Pos, Call: &ir.Call{Func: sorter, Args: []ir.Expr{live}, T: ir.Void}})
	}
	j := local(l.locals.fresh("j"), ir.I32)
	slot := load(idx, j, ir.I32)
	format := atomText(s.ct.name)
	var args []ir.Expr
	if s.ct.arity > 0 {
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

// atomText writes an atom as writeq/1 does for the names gpuc meets:
// plain when it is a letter-digit word, quoted otherwise.
func atomText(name string) string {
	if plainAtom.MatchString(name) {
		return strings.ReplaceAll(name, "%", "%%")
	}
	q := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "%", "%%").Replace(name)
	return "'" + q + "'"
}

// sortFunc generates a host function that sorts idx[0..m) by the
// arguments of the slots it holds: a stable bottom-up merge sort through
// tmp.
func (l *lowerer) sortFunc(s *store, hargs []string, idx, tmp string) string {
	name := l.name("sort_" + s.base)
	v := func(n string) *ir.Var { return local(n, ir.I32) }
	b := newBlock(l.m, l.pos)
	x, y := v("x"), v("y")
	// less: does slot y sort strictly before slot x?
	var less ir.Expr = boolc(false)
	for a := len(hargs) - 1; a >= 0; a-- {
		xa, ya := load(hargs[a], y, s.ct.args[a]), load(hargs[a], x, s.ct.args[a])
		less = binop(ir.LogOr, binop(ir.Lt, xa, ya), and(binop(ir.Eq, xa, ya), less))
	}
	merge := b.sub()
	merge.decl("mid", ir.I32, builtin(ir.Min, binop(ir.Add, v("lo"), v("w")), v("m")))
	merge.decl("hi", ir.I32, builtin(ir.Min, binop(ir.Add, v("lo"), binop(ir.Mul, v("w"), i32c(2))), v("m")))
	merge.decl("i", ir.I32, v("lo"))
	merge.decl("j", ir.I32, v("mid"))
	step := merge.sub()
	step.decl("x", ir.I32, i32c(-1))
	step.decl("y", ir.I32, i32c(-1))
	step.ifThen(binop(ir.Lt, v("i"), v("mid")), []ir.Stmt{&ir.Assign{Pos: l.pos, Name: "x", Value: load(idx, v("i"), ir.I32)}})
	step.ifThen(binop(ir.Lt, v("j"), v("hi")), []ir.Stmt{&ir.Assign{Pos: l.pos, Name: "y", Value: load(idx, v("j"), ir.I32)}})
	// Take from the right run only when it is strictly smaller.
	takeRight := binop(ir.LogOr, binop(ir.Lt, x, i32c(0)), and(binop(ir.Ge, y, i32c(0)), less))
	step.decl("lt", ir.Bool, takeRight)
	step.Emit(&ir.If{Pos: l.pos, Cond: local("lt", ir.Bool),
		Then: []ir.Stmt{&ir.Store{Pos: l.pos, Buf: tmp, Index: v("k"), Value: y}, &ir.Assign{Pos: l.pos, Name: "j", Value: binop(ir.Add, v("j"), i32c(1))}},
		Else: []ir.Stmt{&ir.Store{Pos: l.pos, Buf: tmp, Index: v("k"), Value: x}, &ir.Assign{Pos: l.pos, Name: "i", Value: binop(ir.Add, v("i"), i32c(1))}}})
	merge.Emit(l.rangeLoop("k", v("lo"), v("hi"), step.stmts()))
	copyBack := &ir.Store{Pos: l.pos, Buf: idx, Index: v("k"), Value: load(tmp, v("k"), ir.I32)}
	merge.Emit(l.rangeLoop("k", v("lo"), v("hi"), []ir.Stmt{copyBack}))
	outer := b.sub()
	outer.Emit(&ir.For{Pos: l.pos,
		Init: &ir.Decl{Pos: l.pos, Name: "lo", T: ir.I32, Init: i32c(0)},
		Cond: binop(ir.Lt, v("lo"), v("m")),
		Post: &ir.Assign{Pos: l.pos, Name: "lo", Value: binop(ir.Add, v("lo"), binop(ir.Mul, v("w"), i32c(2)))},
		Body: merge.stmts()})
	b.Emit(&ir.For{Pos: l.pos,
		Init: &ir.Decl{Pos: l.pos, Name: "w", T: ir.I32, Init: i32c(1)},
		Cond: binop(ir.Lt, v("w"), v("m")),
		Post: &ir.Assign{Pos: l.pos, Name: "w", Value: binop(ir.Mul, v("w"), i32c(2))},
		Body: outer.stmts()})
	l.m.Funcs = append(l.m.Funcs, &ir.Func{Pos: l.pos, Kind: ir.HostFunc, Name: name,
		Params: []*ir.Field{{Pos: l.pos, Name: "m", Type: ir.I32}}, Result: ir.Void, Body: b.stmts()})
	return name
}

// rangeLoop is `for var k = lo; k < hi; k = k + 1 { body }`.
func (l *lowerer) rangeLoop(k string, lo, hi ir.Expr, body []ir.Stmt) ir.Stmt {
	return &ir.For{Pos: l.pos,
		Init: &ir.Decl{Pos: l.pos, Name: k, T: ir.I32, Init: lo},
		Cond: binop(ir.Lt, local(k, ir.I32), hi),
		Post: &ir.Assign{Pos: l.pos, Name: k, Value: binop(ir.Add, local(k, ir.I32), i32c(1))},
		Body: body}
}

func sortStrings(s []string) { sort.Strings(s) }
