package fork

import (
	"gpuc/internal/diag"
	"gpuc/ir"
)

// Note [Shadowed loop counters]
// A synchronous `for (r = 0; r < N; r++)` over a sh scalar r (oddeven's rounds, sieve's
// primes) is the group's loop: every processor writes the same r in the same step, and tests
// the same value after the step's barrier. Its code reads r back from memory for the test, and
// the termination analysis, which analyses one thread (a read of shared memory returns any
// value), cannot count it: the loop was UNKNOWN. Where nothing else can write r while the loop
// runs, the lowering keeps a copy of the counter in a local as well, set and stepped beside
// every write of r, and the condition reads the copy: the same value, so the same loop, and a
// counting loop for the analysis. "Nothing else": the init is `r = K` with K a literal or a
// constant, the step `r++`, `r--`, `r += K` or `r -= K`, no other expression of the program
// assigns r, steps it or takes its address, and the loop runs on the whole group of its region,
// outside group recursion, subgroups and inlined sync functions (which sibling groups may run at
// the same time, each with its own loop over the one r). The body reads the copy too: between
// two steps nothing writes r, so every read of r in the body gives the copy's value, and the
// analysis sees the body's uses of r (sieve's stride p) as the counter, not as any value. Reads
// after the loop go to memory again (the binding lasts while the loop is lowered), and so do
// device functions the body calls (lowered later, from the queue). Fewer reads of r also let
// barrier placement drop the grid barriers that only ordered them against the step's write.

// shadowed is a loop counter kept in a local (Note [Shadowed loop counters]).
type shadowed struct {
	v     *variable
	start expr
	step  int64 // +1, -1, +K or -K
}

// shadowCounter finds the counter of a synchronous for loop that may be kept in a local, or nil.
func (b *body) shadowCounter(init stmt, cond expr, post []expr) *shadowed {
	if b.mode != syncMode || !b.whole || b.sub != nil || b.rec != nil || b.ids != nil || b.inline != nil ||
		init == nil || cond == nil || len(post) != 1 {
		return nil
	}
	if bl, ok := init.(*block); ok && len(bl.items) == 1 {
		init = bl.items[0]
	}
	es, ok := init.(*exprStmt)
	if !ok {
		return nil
	}
	a, ok := es.x.(*assign)
	if !ok || a.op != "=" {
		return nil
	}
	id, ok := a.l.(*ident)
	if !ok || id.v == nil || !id.v.shared || id.v.isArray() || !id.v.t.IsInt() || !constExpr(a.r) {
		return nil
	}
	v := id.v
	sh := &shadowed{v: v, start: a.r}
	switch p := post[0].(type) {
	case *incDec:
		if x, ok := p.x.(*ident); !ok || x.v != v {
			return nil
		}
		sh.step = 1
		if p.op == "--" {
			sh.step = -1
		}
	case *assign:
		x, ok := p.l.(*ident)
		k, okk := p.r.(*lit)
		if !ok || !okk || x.v != v || (p.op != "+=" && p.op != "-=") || !k.t.IsInt() {
			return nil
		}
		sh.step = int64(k.bits)
		if p.op == "-=" {
			sh.step = -sh.step
		}
	default:
		return nil
	}
	reads := false
	walkExpr(cond, func(e expr) {
		if x, ok := e.(*ident); ok && x.v == v {
			reads = true
		}
	})
	if !reads {
		return nil
	}
	// No other write of v anywhere in the program.
	for _, f := range b.l.prog.funcs {
		others := false
		walkExprs(f.body, func(e expr) {
			if e == expr(a) || e == post[0] {
				return
			}
			var target expr
			switch e := e.(type) {
			case *assign:
				target = e.l
			case *incDec:
				target = e.x
			case *addrOf:
				target = e.x
			}
			if x, ok := target.(*ident); ok && x.v == v {
				others = true
			}
		})
		if others {
			return nil
		}
	}
	return sh
}

// constExpr reports whether e is a literal or a constant (no memory, the same everywhere).
func constExpr(e expr) bool {
	switch e := e.(type) {
	case *lit:
		return true
	case *ident:
		return e.c != nil
	case *unary:
		return constExpr(e.x)
	case *cast:
		return constExpr(e.x)
	}
	return false
}

// declareShadow declares the local copy of sh's counter, set to its start.
func (b *body) declareShadow(pos diag.Pos, sh *shadowed) string {
	return b.local(pos, sh.v.name+"_count", sh.v.t, convert(b.expr(sh.start), sh.v.t))
}

// stepShadow steps the local copy as the loop's post steps the counter.
func (b *body) stepShadow(pos diag.Pos, sh *shadowed, local string) {
	x := &ir.Var{Pos: pos, Name: local, T: sh.v.t}
	b.Emit(&ir.Assign{Pos: pos, Name: local, Value: &ir.Binary{Pos: pos, Op: ir.Add, X: x, Y: intConst(pos, sh.v.t, sh.step)}})
}

// withShadow lowers fn with sh's counter read from the local copy.
func (b *body) withShadow(sh *shadowed, local string, fn func()) {
	if sh == nil {
		fn()
		return
	}
	bd := &binding{v: sh.v, local: local}
	if g, ok := b.l.globals[sh.v]; ok {
		b.l.globals[sh.v] = bd
		defer func() { b.l.globals[sh.v] = g }()
	} else {
		old, had := b.vars[sh.v]
		b.vars[sh.v] = bd
		defer func() {
			if had {
				b.vars[sh.v] = old
			} else {
				delete(b.vars, sh.v)
			}
		}()
	}
	fn()
}
