package passes

import (
	"fmt"

	"gpuc/ir"
)

// This file is partial-eval's loop unrolling (Note [Partial evaluation]).

// loop specializes a loop: l is a for loop, or a while loop seen as one,
// and orig the statement itself. A loop that reads static data is
// unrolled if it can be, and otherwise kept with a note saying why.
func (p *specializer) loop(l *ir.For, orig ir.Stmt, e env) []ir.Stmt {
	if !readsAny([]ir.Stmt{l}, p.statics) {
		return p.keep(l, orig, e)
	}
	why := unrollBlocker(l)
	if why == "" {
		var out []ir.Stmt
		if out, why = p.unroll(l, e); why == "" {
			return out
		}
	}
	p.kept++
	p.note(l.Pos, "loop kept: "+why)
	return p.keep(l, orig, e)
}

// unrollBlocker says why a loop cannot be unrolled by its shape, or "".
func unrollBlocker(l *ir.For) string {
	switch {
	case ir.JumpsOut(l.Body, false):
		return "it holds continue"
	case ir.JumpsOut(l.Body, true) && ir.HasBarrier(l.Body, false):
		return "it holds a barrier and break"
	}
	return ""
}

// keep specializes a loop that stays a loop: the locals it assigns are
// unknown in it and after it. The post statement is specialized in the
// environment of the loop's start, since continue may skip the body.
func (p *specializer) keep(l *ir.For, orig ir.Stmt, e env) []ir.Stmt {
	if l.Init != nil {
		p.simple(l.Init, e)
	}
	e.kill([]ir.Stmt{l})
	body := e.copy()
	l.Cond = p.expr(l.Cond, body)
	l.Body = p.list(l.Body, body)
	if l.Post != nil {
		p.simple(l.Post, e.copy())
	}
	if w, ok := orig.(*ir.While); ok {
		w.Cond, w.Body = l.Cond, l.Body
	}
	if p.unrolling > 0 {
		p.cost++
	}
	return []ir.Stmt{orig}
}

// unroll unrolls a copy of l in e. It returns the statements that replace
// l, or why it kept l: then the statistics, notes and e are as before,
// unless an enclosing unrolling is rolled back anyway.
func (p *specializer) unroll(l *ir.For, e env) ([]ir.Stmt, string) {
	saved, notes := p.peStats, len(p.notes)
	work := e.copy()
	c := ir.CloneStmt(l).(*ir.For)
	if d, ok := c.Init.(*ir.Decl); ok {
		renameLocals([]ir.Stmt{c}, map[string]string{d.Name: p.names.fresh(d.Name)})
	}
	var out []ir.Stmt
	if c.Init != nil {
		p.simple(c.Init, work)
		out = append(out, c.Init)
	}
	p.unrolling++
	iters, why := p.iterate(c, work, 0)
	p.unrolling--
	if why != "" {
		if !p.over || p.unrolling == 0 {
			p.peStats, p.notes, p.over = saved, p.notes[:notes], false
		}
		return nil, why
	}
	p.unrolled++
	if !ir.JumpsOut(l.Body, true) {
		e.replace(work)
		return append(out, iters...), ""
	}
	// break leaves a one-trip loop around the iterations.
	p.cost += 2
	e.kill([]ir.Stmt{l})
	b := ir.NewBuilder(nil, l.Pos, &out)
	b.While(b.Bool(true), func() {
		b.Emit(iters...)
		b.Break()
	})
	return out, ""
}

// iterate emits the iterations of l from the state e, which it leaves as
// the state after them; a non-empty reason says why it cannot.
func (p *specializer) iterate(l *ir.For, e env, depth int) ([]ir.Stmt, string) {
	var out []ir.Stmt
	for {
		if p.over {
			return nil, p.budgetNote()
		}
		known := p.knownConjunct(l.Cond, e)
		c := ir.Expr(&ir.Const{Pos: l.Pos, T: ir.Bool, Bits: 1})
		if l.Cond != nil {
			c = p.expr(ir.CloneExpr(l.Cond), e)
		}
		k, decided := c.(*ir.Const)
		switch {
		case decided && k.Bits == 0:
			return out, ""
		case !decided && !known:
			return nil, "its condition is not known at compile time"
		case !decided && (depth >= maxPeelDepth || ir.HasBarrier(l.Body, false)):
			return nil, fmt.Sprintf("its condition is not known at compile time after %d iterations", depth)
		}
		body := p.iteration(l)
		p.iterations++
		if p.cost++; p.cost > p.budget {
			p.over = true
			return nil, p.budgetNote()
		}
		if decided {
			it := p.list(body, e)
			out = append(out, it...)
			if endsList(it) {
				return out, ""
			}
			continue
		}
		peeled, why := p.peel(l, c, body, e, depth)
		return append(out, peeled), why
	}
}

// peel emits one iteration whose condition c is unknown, with the rest
// of the loop inside it: if c { body; rest }. Afterwards e holds what both
// ways out agree on.
func (p *specializer) peel(l *ir.For, c ir.Expr, body []ir.Stmt, e env, depth int) (ir.Stmt, string) {
	inner := e.copy()
	it := p.list(body, inner)
	if !endsList(it) {
		rest, why := p.iterate(l, inner, depth+1)
		if why != "" {
			return nil, why
		}
		e.meet(inner)
		it = append(it, rest...)
	}
	p.cost++
	return &ir.If{Pos: l.Pos, Cond: c, Then: it}, ""
}

func (p *specializer) budgetNote() string {
	return fmt.Sprintf("unrolling it passed the budget of %d statements (--pe-budget)", p.budget)
}

// iteration returns a copy of l's body and post statement, its locals
// renamed to fresh names so that iterations can follow one another.
func (p *specializer) iteration(l *ir.For) []ir.Stmt {
	body := ir.CloneStmts(l.Body)
	if l.Post != nil {
		body = append(body, ir.CloneStmt(l.Post))
	}
	to := map[string]string{}
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		if d := ir.DeclOf(s); d != nil && to[d.Name] == "" {
			to[d.Name] = p.names.fresh(d.Name)
		}
		return true
	})
	renameLocals(body, to)
	return body
}

// knownConjunct reports whether one of the conjuncts of cond (an && chain)
// is known in e: a loop whose condition has one ends after a number of
// iterations known at compile time. An absent condition is true.
func (p *specializer) knownConjunct(cond ir.Expr, e env) bool {
	if cond == nil {
		return true
	}
	if b, ok := cond.(*ir.Binary); ok && b.Op == ir.LogAnd {
		return p.knownConjunct(b.X, e) || p.knownConjunct(b.Y, e)
	}
	return p.known(cond, e)
}

// known reports whether x reads only constants, known locals and static
// buffers, so that it folds once those are substituted.
func (p *specializer) known(x ir.Expr, e env) bool {
	ok := true
	ir.WalkExpr(x, func(x ir.Expr) bool {
		switch x := x.(type) {
		case *ir.Var:
			_, isKnown := e[x.Name]
			ok = ok && isKnown
		case *ir.Load:
			ok = ok && p.statics[x.Buf] != nil
		case *ir.ParamRef, *ir.Call:
			ok = false
		case *ir.Builtin:
			ok = ok && x.Op.Arity() > 0 && x.Op != ir.Hybrid
		}
		return ok
	})
	return ok
}
