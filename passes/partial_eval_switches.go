package passes

import (
	"fmt"

	"gpuc/ir"
)

// Note [Guard switches]
//
// Specializing a matcher on its table (partial-eval) leaves one guarded
// block per table entry, each testing the same input against its own
// constant:
//
//	var hit_2: bool = 255 == (i32(data[i]) & 255)
//	if hit_2 && i + 6l > N { hit_2 = false }
//	if hit_2 { ... }
//	var hit_3: bool = 74 == (i32(data[i]) & 255)
//	...
//
// Run one after another, the tests cost every position a compare and a
// branch per entry, although at most the entries of one constant can
// pass; and the flag's chain of ifs is three statements per element,
// which NVRTC compiles slowly at run time. Three rewrites turn the run
// into one dispatch on conditions:
//
//   - foldFlags: a flag's chain of ifs becomes one condition. With h a
//     boolean local, `if h && c { h = false }` is `h = h && !c`; in the
//     body of `if h`, or right after `var h: bool = true`, where h holds,
//     `if c { h = false }` is `h = !c`; `if h { h = e }` is
//     `h = h && e`; and `h = a; h = h && b` is `h = a && b` when b does
//     not read h. Each keeps when every operand is evaluated, since && is
//     short-circuit, so a load that a test guards stays guarded;
//   - threadFlags: a boolean local whose every later use is in ifs that
//     it guards (`if h` or `if h && ...`) is only ever acted on when its
//     first value holds, so the declaration and those ifs move under
//     `if G { var h: bool = true; ... }`, where G was its first value
//     (just `if G { S }` when that leaves `if h { S }` alone);
//   - formSwitches: a run of at least minSwitchGuards ifs without else,
//     each `if E == C { ... }` or `if E == C && R { ... }` on one
//     expression E and an integer constant C, becomes `switch E`, with
//     the bodies of equal constants in one case in their order (`if R`
//     around a body where there was an R). At most the bodies of one
//     constant run in either form, in the same order, so it is the same
//     program. E is evaluated once, where the first test evaluated it:
//     so no body may assign a local that E reads or write a buffer that
//     it loads, and bodies whose top-level declarations share a name stay
//     apart.
//
// The CUDA backend emits such a switch as a C switch, which NVCC compiles
// to a jump table: on an H100 the specialized scan of carve.fork over 67
// headers went from 86 to 55 ms (docs/BENCHMARKS.md). The passes are
// general; partial-eval runs them as part of its tidying.

// minSwitchGuards is the fewest tests that formSwitches merges.
const minSwitchGuards = 3

// switchNote describes switches that formSwitches made.
type switchNote struct {
	pos                     ir.Pos
	x                       string // the expression switched on, printed
	switches, tests, values int
}

// countSwitches says n switches.
func countSwitches(n int) string {
	if n == 1 {
		return "a switch"
	}
	return fmt.Sprintf("%d switches", n)
}

// mergeSwitchNotes sums the notes of one position and expression, as the
// switches of one unrolled loop are.
func mergeSwitchNotes(notes []switchNote) []switchNote {
	var out []switchNote
	at := map[[2]string]int{}
	for _, n := range notes {
		k := [2]string{n.pos.String(), n.x}
		if i, ok := at[k]; ok {
			out[i].switches += n.switches
			out[i].tests += n.tests
			out[i].values += n.values
			continue
		}
		at[k] = len(out)
		out = append(out, n)
	}
	return out
}

// foldFlags applies the first rewrite of Note [Guard switches] to every
// list in body.
func foldFlags(body []ir.Stmt) []ir.Stmt {
	return ir.RewriteLists(body, func(l []ir.Stmt) []ir.Stmt {
		out := []ir.Stmt{}
		for _, s := range l {
			s = foldFlag(s)
			if n := len(out); n > 0 {
				if merged := mergeFlag(out[n-1], s); merged != nil {
					out[n-1] = merged
					continue
				}
			}
			out = append(out, s)
		}
		return out
	})
}

// foldFlag rewrites `if h && c { h = false }` and `if h { h = e }` (after
// folding the start of its body) into assignments to h.
func foldFlag(s ir.Stmt) ir.Stmt {
	f, ok := s.(*ir.If)
	if !ok || f.Else != nil {
		return s
	}
	if h, c := flagTest(f.Cond); h != "" && c != nil && killsFlag(f, h) {
		return &ir.Assign{Pos: f.Pos, Name: h, Value: conj(f.Cond.(*ir.Binary).Pos, flagVar(f.Cond), negate(c))}
	}
	h, c := flagTest(f.Cond)
	if h == "" || c != nil || len(f.Then) == 0 {
		return s
	}
	if first, ok := f.Then[0].(*ir.If); ok && first.Else == nil && killsFlag(first, h) {
		// h holds here: `if c { h = false }` is `h = !c`.
		set := &ir.Assign{Pos: first.Pos, Name: h, Value: negate(first.Cond)}
		if len(f.Then) > 1 {
			if merged := mergeFlag(set, f.Then[1]); merged != nil {
				f.Then = append([]ir.Stmt{merged}, f.Then[2:]...)
			} else {
				f.Then = append([]ir.Stmt{set}, f.Then[1:]...)
			}
		} else {
			f.Then = []ir.Stmt{set}
		}
	}
	if a, ok := f.Then[0].(*ir.Assign); ok && len(f.Then) == 1 && a.Name == h {
		return &ir.Assign{Pos: f.Pos, Name: h, Value: conj(f.Pos, f.Cond, a.Value)}
	}
	return s
}

// mergeFlag merges `var h: bool = true` or `h = a` with the statement
// after it, s, if s is `if c { h = false }` (after the declaration) or
// `h = h && b`; it returns nil if it cannot.
func mergeFlag(prev, s ir.Stmt) ir.Stmt {
	h, a, _ := setsLocal(prev)
	if a == nil {
		return nil
	}
	var b ir.Expr
	switch s := s.(type) {
	case *ir.If:
		if isTrue(a) && s.Else == nil && killsFlag(s, h) {
			b = negate(s.Cond)
		}
	case *ir.Assign:
		if x, ok := s.Value.(*ir.Binary); ok && s.Name == h && x.Op == ir.LogAnd && isFlag(x, h) {
			b = dropFirst(x)
		}
	}
	if b == nil || readsLocal(h, b) {
		return nil
	}
	v := b
	if !isTrue(a) {
		v = conj(a.At(), a, b)
	}
	switch p := prev.(type) {
	case *ir.Decl:
		return &ir.Decl{Pos: p.Pos, Name: h, T: p.T, Init: v}
	default:
		return &ir.Assign{Pos: prev.(*ir.Assign).Pos, Name: h, Value: v}
	}
}

// flagTest splits cond into a flag and the rest: h for `h`, h and c for
// `h && c`, "" if cond does not start with a boolean local.
func flagTest(cond ir.Expr) (string, ir.Expr) {
	v := flagVar(cond)
	if v == nil || v.T != ir.Bool {
		return "", nil
	}
	if b, ok := cond.(*ir.Binary); ok {
		return v.Name, dropFirst(b)
	}
	return v.Name, nil
}

// flagVar is the local that cond, a local or a chain of &&, starts with.
func flagVar(cond ir.Expr) *ir.Var {
	for {
		switch c := cond.(type) {
		case *ir.Var:
			return c
		case *ir.Binary:
			if c.Op != ir.LogAnd {
				return nil
			}
			cond = c.X
		default:
			return nil
		}
	}
}

// isFlag reports whether cond is the local name, or name && ... .
func isFlag(cond ir.Expr, name string) bool {
	v := flagVar(cond)
	return v != nil && v.Name == name
}

// killsFlag reports whether f's body is `h = false`.
func killsFlag(f *ir.If, h string) bool {
	if len(f.Then) != 1 {
		return false
	}
	a, ok := f.Then[0].(*ir.Assign)
	if !ok || a.Name != h {
		return false
	}
	c, ok := a.Value.(*ir.Const)
	return ok && c.T == ir.Bool && c.Bits == 0
}

func isTrue(e ir.Expr) bool {
	c, ok := e.(*ir.Const)
	return ok && c.T == ir.Bool && c.Bits != 0
}

// conj is a && b, as one chain of && from the left (&& is associative).
func conj(pos ir.Pos, a, b ir.Expr) ir.Expr {
	out := a
	for _, x := range conjuncts(b) {
		out = &ir.Binary{Pos: pos, Op: ir.LogAnd, X: out, Y: x}
	}
	return out
}

// conjuncts lists the operands of a chain of &&, from the left.
func conjuncts(e ir.Expr) []ir.Expr {
	if b, ok := e.(*ir.Binary); ok && b.Op == ir.LogAnd {
		return append(conjuncts(b.X), conjuncts(b.Y)...)
	}
	return []ir.Expr{e}
}

// dropFirst is a chain of && without its first operand.
func dropFirst(b *ir.Binary) ir.Expr {
	cs := conjuncts(b)
	out := cs[1]
	for _, x := range cs[2:] {
		out = &ir.Binary{Pos: b.Pos, Op: ir.LogAnd, X: out, Y: x}
	}
	return out
}

// negate is !c, with a comparison of integers turned around instead.
func negate(c ir.Expr) ir.Expr {
	flip := map[ir.BinOp]ir.BinOp{ir.Eq: ir.Ne, ir.Ne: ir.Eq, ir.Lt: ir.Ge, ir.Ge: ir.Lt, ir.Le: ir.Gt, ir.Gt: ir.Le}
	switch x := c.(type) {
	case *ir.Binary:
		if op, ok := flip[x.Op]; ok && (x.X.Type().IsInt() || x.X.Type() == ir.Bool) {
			return &ir.Binary{Pos: x.Pos, Op: op, X: x.X, Y: x.Y}
		}
	case *ir.Unary:
		if x.Op == ir.Not {
			return x.X
		}
	}
	return &ir.Unary{Pos: c.At(), Op: ir.Not, X: c}
}

// threadFlags applies the second rewrite of Note [Guard switches] to every
// list in body.
func threadFlags(body []ir.Stmt) []ir.Stmt {
	return ir.RewriteLists(body, func(l []ir.Stmt) []ir.Stmt {
		var out []ir.Stmt
		for i := 0; i < len(l); i++ {
			d, ok := l[i].(*ir.Decl)
			end := -1
			if ok {
				end = flagRun(d, l[i+1:])
			}
			if end < 0 {
				out = append(out, l[i])
				continue
			}
			then := append([]ir.Stmt{&ir.Decl{Pos: d.Pos, Name: d.Name, T: d.T, Init: ir.BoolConst(true)}}, l[i+1:i+1+end]...)
			first := then[1].(*ir.If) // flagRun made sure
			if b, ok := first.Cond.(*ir.Binary); ok {
				first.Cond = dropFirst(b) // the flag still holds its first value there
			} else if end == 1 && !mentionsIn(d.Name, first.Then) {
				then = first.Then // if G { S }
			}
			out = append(out, &ir.If{Pos: d.Pos, Cond: d.Init, Then: then})
			i += end
		}
		if out == nil {
			out = []ir.Stmt{}
		}
		return out
	})
}

// flagRun returns how many statements of rest belong under d's first
// value, or -1 if d is not such a flag: a bool with a value that is not
// a constant, and rest, up to its last mention of d, made only of ifs
// without else that it guards.
func flagRun(d *ir.Decl, rest []ir.Stmt) int {
	if d.T != ir.Bool || d.Init == nil {
		return -1
	}
	if _, ok := d.Init.(*ir.Const); ok {
		return -1
	}
	end := 0
	for k, s := range rest {
		if mentions(d.Name, s) {
			end = k + 1
		}
	}
	if end == 0 {
		return -1
	}
	for _, s := range rest[:end] {
		f, ok := s.(*ir.If)
		if !ok || f.Else != nil || !isFlag(f.Cond, d.Name) {
			return -1
		}
	}
	return end
}

// mentions reports whether s reads or assigns the local name.
func mentions(name string, s ir.Stmt) bool { return mentionsIn(name, []ir.Stmt{s}) }

// mentionsIn reports whether body reads or assigns the local name.
func mentionsIn(name string, body []ir.Stmt) bool {
	return readIn(name, body) || assignedIn(name, body)
}

// formSwitches applies the third rewrite of Note [Guard switches] to
// every list in body and describes the switches it made.
func formSwitches(body []ir.Stmt) ([]ir.Stmt, []switchNote) {
	var notes []switchNote
	body = ir.RewriteLists(body, func(l []ir.Stmt) []ir.Stmt {
		var out []ir.Stmt
		for i := 0; i < len(l); {
			n := guardRun(l[i:])
			if n < minSwitchGuards {
				out = append(out, l[i])
				i++
				continue
			}
			sw, note := guardSwitch(l[i : i+n])
			out = append(out, sw)
			notes = append(notes, note)
			i += n
		}
		if out == nil {
			out = []ir.Stmt{}
		}
		return out
	})
	return body, notes
}

// guardRun returns how many statements at the start of l make one run of
// guarded ifs on one expression.
func guardRun(l []ir.Stmt) int {
	x, _, _ := guardTest(l[0])
	if x == nil {
		return 0
	}
	key := ir.PrintExpr(x)
	var bodies []ir.Stmt
	names := map[caseDecl]bool{}
	n := 0
	for _, s := range l {
		y, c, then := guardTest(s)
		if y == nil || ir.PrintExpr(y) != key {
			break
		}
		bodies = append(bodies, then...)
		if !stable(x, bodies) || !declsApart(c, then, names) {
			break
		}
		n++
	}
	return n
}

// guardTest returns E, C and the body of s if s is `if E == C { body }`
// without else, with C an integer constant of E's type; for
// `if E == C && R { S }` the body is `if R { S }`.
func guardTest(s ir.Stmt) (ir.Expr, *ir.Const, []ir.Stmt) {
	f, ok := s.(*ir.If)
	if !ok || f.Else != nil {
		return nil, nil, nil
	}
	cond, then := f.Cond, f.Then
	if b, ok := cond.(*ir.Binary); ok && b.Op == ir.LogAnd {
		// E == C && R: the body is `if R { ... }`.
		cond = conjuncts(b)[0]
		then = []ir.Stmt{&ir.If{Pos: f.Pos, Cond: dropFirst(b), Then: f.Then}}
	}
	b, ok := cond.(*ir.Binary)
	if !ok || b.Op != ir.Eq {
		return nil, nil, nil
	}
	x, y := b.X, b.Y
	if _, ok := x.(*ir.Const); ok {
		x, y = y, x
	}
	c, ok := y.(*ir.Const)
	if !ok || !c.T.IsInt() || c.T != x.Type() || (!c.T.IsSigned() && c.Int() < 0) {
		return nil, nil, nil // a case value is an int64 in the type's range
	}
	if _, ok := x.(*ir.Const); ok {
		return nil, nil, nil
	}
	return x, c, then
}

// stable reports whether body leaves x's value alone: it assigns no local
// that x reads, writes no buffer that x loads and, if x loads, calls
// nothing, launches nothing and waits at no barrier.
func stable(x ir.Expr, body []ir.Stmt) bool {
	vars, bufs := map[string]bool{}, map[string]bool{}
	ok := true
	ir.WalkExpr(x, func(e ir.Expr) bool {
		switch e := e.(type) {
		case *ir.Var:
			vars[e.Name] = true
		case *ir.Load:
			bufs[e.Buf] = true
		case *ir.Call:
			ok = false
		}
		return ok
	})
	for v := range vars {
		ok = ok && !assignedIn(v, body)
	}
	if !ok || len(bufs) == 0 {
		return ok
	}
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Store:
			ok = ok && !bufs[s.Buf]
		case *ir.Atomic:
			ok = ok && !bufs[s.Buf]
		case *ir.CallStmt, *ir.Launch, *ir.Region, *ir.Copy, *ir.Swap:
			ok = false
		case *ir.Barrier, *ir.Split, *ir.SplitWhile, *ir.Fork:
			ok = false // other threads' writes become visible
		}
		for _, e := range ir.StmtExprs(s) {
			ir.WalkExpr(e, func(e ir.Expr) bool {
				if _, call := e.(*ir.Call); call {
					ok = false
				}
				return ok
			})
		}
		return ok
	})
	return ok
}

// declsApart records the top-level declarations of then, a body for
// constant c, in names, and reports whether none of them shares a name
// with another body's for the same constant: those bodies would share
// one case, and so one scope.
func declsApart(c *ir.Const, then []ir.Stmt, names map[caseDecl]bool) bool {
	for _, s := range then {
		if d, ok := s.(*ir.Decl); ok {
			k := caseDecl{c.Int(), d.Name}
			if names[k] {
				return false
			}
			names[k] = true
		}
	}
	return true
}

// caseDecl is a declaration at the top of one case.
type caseDecl struct {
	value int64
	name  string
}

// guardSwitch merges a run that guardRun found into one switch.
func guardSwitch(run []ir.Stmt) (*ir.Switch, switchNote) {
	x, _, _ := guardTest(run[0])
	sw := &ir.Switch{Pos: run[0].(*ir.If).Pos, X: x}
	cases := map[int64]*ir.Case{}
	for _, s := range run {
		_, c, then := guardTest(s)
		k := cases[c.Int()]
		if k == nil {
			k = &ir.Case{Pos: s.(*ir.If).Pos, Values: []int64{c.Int()}, Body: []ir.Stmt{}}
			cases[c.Int()] = k
			sw.Cases = append(sw.Cases, k)
		}
		k.Body = append(k.Body, then...)
	}
	return sw, switchNote{pos: sw.Pos, x: ir.PrintExpr(x), switches: 1, tests: len(run), values: len(sw.Cases)}
}
