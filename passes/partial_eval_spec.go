package passes

import (
	"gpuc/ir"
)

// This file is partial-eval's walk over statements and expressions (Note
// [Partial evaluation]); partial_eval_loop.go unrolls loops.

// env maps the locals whose values are known at a point of a function to
// their values.
type env map[string]ir.Bits

func (e env) copy() env {
	out := make(env, len(e))
	for k, v := range e {
		out[k] = v
	}
	return out
}

// replace makes e hold exactly what o holds.
func (e env) replace(o env) {
	for k := range e {
		delete(e, k)
	}
	for k, v := range o {
		e[k] = v
	}
}

// meet keeps in e the values that o agrees on.
func (e env) meet(o env) {
	for k, v := range e {
		if w, ok := o[k]; !ok || w != v {
			delete(e, k)
		}
	}
}

// kill forgets the locals that body assigns, for a loop's body or a code
// path that is not followed.
func (e env) kill(body []ir.Stmt) {
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		for _, name := range ir.Assigned(s) {
			delete(e, name)
		}
		return true
	})
}

// specializer specializes one function.
type specializer struct {
	statics map[string]*ir.Buffer
	names   *namer
	budget  int
	peStats
	over      bool // the budget ran out; the outermost unrolling rolls back
	unrolling int  // unrollings under way
	notes     []peNote
}

// peStats are the counts that the report gives, rolled back with an
// unrolling.
type peStats struct {
	cost       int // statements emitted by unrollings, plus one per iteration
	folded     int // loads folded
	unrolled   int // loops unrolled
	iterations int // their iterations
	kept       int // loops that read static data but stay loops
}

type peNote struct {
	pos ir.Pos
	msg string
}

func (p *specializer) note(pos ir.Pos, msg string) {
	p.notes = append(p.notes, peNote{pos, msg})
}

// list specializes body in e, dropping what follows a statement that
// never falls through. A nil body stays nil.
func (p *specializer) list(body []ir.Stmt, e env) []ir.Stmt {
	if body == nil {
		return nil
	}
	out := []ir.Stmt{}
	for _, s := range body {
		if p.over {
			break
		}
		res := p.stmt(s, e)
		if p.unrolling > 0 && !isLoop(s) {
			p.cost += len(res)
		}
		out = append(out, res...)
		if endsList(res) {
			break
		}
	}
	return out
}

func isLoop(s ir.Stmt) bool {
	switch s.(type) {
	case *ir.While, *ir.For:
		return true
	}
	return false
}

// endsList reports whether control never passes the end of body: its
// last statement jumps, or is an if whose branches both end.
func endsList(body []ir.Stmt) bool {
	if len(body) == 0 {
		return false
	}
	switch s := body[len(body)-1].(type) {
	case *ir.Return, *ir.Break, *ir.Continue, *ir.Raise:
		return true
	case *ir.If:
		return s.Else != nil && endsList(s.Then) && endsList(s.Else)
	}
	return false
}

// stmt specializes s in e and returns what replaces it.
func (p *specializer) stmt(s ir.Stmt, e env) []ir.Stmt {
	switch s := s.(type) {
	case *ir.Decl, *ir.Assign:
		p.simple(s, e)
	case *ir.Store:
		s.Index, s.Value = p.expr(s.Index, e), p.expr(s.Value, e)
	case *ir.Atomic:
		s.Index = p.expr(s.Index, e)
		p.exprs(s.Args, e)
		delete(e, s.Dst)
	case *ir.CallStmt:
		p.exprs(s.Call.Args, e)
	case *ir.Return:
		s.Value = p.expr(s.Value, e)
	case *ir.If:
		return p.ifStmt(s, e)
	case *ir.Switch:
		return p.switchStmt(s, e)
	case *ir.While:
		return p.loop(&ir.For{Pos: s.Pos, Cond: s.Cond, Body: s.Body}, s, e)
	case *ir.For:
		return p.loop(s, s, e)
	}
	return []ir.Stmt{s}
}

// simple specializes a declaration or an assignment and records the value
// it gives its local, if known. A declaration without a value gives zero.
func (p *specializer) simple(s ir.Stmt, e env) {
	var name string
	var v ir.Expr
	switch s := s.(type) {
	case *ir.Decl:
		s.Init = p.expr(s.Init, e)
		name, v = s.Name, s.Init
		if v == nil {
			e[name] = 0
			return
		}
	case *ir.Assign:
		s.Value = p.expr(s.Value, e)
		name, v = s.Name, s.Value
	default:
		return
	}
	if c, ok := v.(*ir.Const); ok {
		e[name] = c.Bits
	} else {
		delete(e, name)
	}
}

// ifStmt keeps the branch that a known condition takes, as `if true`,
// which simplify then inlines; otherwise it specializes both branches and
// keeps what they agree on.
func (p *specializer) ifStmt(s *ir.If, e env) []ir.Stmt {
	s.Cond = p.expr(s.Cond, e)
	if c, ok := s.Cond.(*ir.Const); ok {
		taken := s.Then
		if c.Bits == 0 {
			taken = s.Else
		}
		return p.taken(s.Pos, taken, e)
	}
	et, ee := e.copy(), e.copy()
	s.Then, s.Else = p.list(s.Then, et), p.list(s.Else, ee)
	switch {
	case endsList(s.Then):
		e.replace(ee)
	case endsList(s.Else):
		e.replace(et)
	default:
		et.meet(ee)
		e.replace(et)
	}
	return []ir.Stmt{s}
}

// taken specializes the body of a branch decided at compile time.
func (p *specializer) taken(pos ir.Pos, body []ir.Stmt, e env) []ir.Stmt {
	if body == nil {
		return nil
	}
	var out []ir.Stmt
	b := ir.NewBuilder(nil, pos, &out)
	b.If(b.Bool(true), func() { b.Emit(p.list(body, e)...) })
	return out
}

// switchStmt is ifStmt for switches.
func (p *specializer) switchStmt(s *ir.Switch, e env) []ir.Stmt {
	s.X = p.expr(s.X, e)
	if x, ok := s.X.(*ir.Const); ok {
		return p.taken(s.Pos, s.Taken(x), e)
	}
	var after env
	join := func(body []ir.Stmt, out env) {
		switch {
		case endsList(body):
		case after == nil:
			after = out
		default:
			after.meet(out)
		}
	}
	for _, c := range s.Cases {
		ec := e.copy()
		c.Body = p.list(c.Body, ec)
		join(c.Body, ec)
	}
	ed := e.copy()
	s.Default = p.list(s.Default, ed)
	join(s.Default, ed)
	if after != nil {
		e.replace(after)
	}
	return []ir.Stmt{s}
}

// expr specializes x in e: known locals become constants, loads from
// static buffers at known in-range indices become the elements, and
// constants fold. Nodes are rewritten in place; nil stays nil.
func (p *specializer) expr(x ir.Expr, e env) ir.Expr {
	return ir.RewriteExpr(x, func(x ir.Expr) ir.Expr {
		switch x := x.(type) {
		case *ir.Var:
			if v, ok := e[x.Name]; ok {
				return &ir.Const{Pos: x.Pos, T: x.T, Bits: v}
			}
		case *ir.Load:
			if v, ok := p.load(x); ok {
				p.folded++
				return &ir.Const{Pos: x.Pos, T: x.T, Bits: v}
			}
		case *ir.Binary:
			return foldLogical(foldExpr(x))
		}
		return foldExpr(x)
	})
}

func (p *specializer) exprs(xs []ir.Expr, e env) {
	for i := range xs {
		xs[i] = p.expr(xs[i], e)
	}
}

// load returns the element a load reads, if its buffer is static and its
// index known and in range.
func (p *specializer) load(l *ir.Load) (ir.Bits, bool) {
	b := p.statics[l.Buf]
	c, ok := l.Index.(*ir.Const)
	if b == nil || !ok {
		return 0, false
	}
	i := c.Int() // a u64 index past 2^63 is negative here, so out of range
	if i < 0 || i >= int64(len(b.Init)) {
		return 0, false
	}
	return b.Init[i], true
}

// foldLogical folds what foldExpr leaves of && and || with a known right
// operand: x && false and x || true, when x has no effect, and x && true
// and x || false.
func foldLogical(x ir.Expr) ir.Expr {
	b, ok := x.(*ir.Binary)
	if !ok || !b.Op.IsLogical() {
		return x
	}
	y, ok := b.Y.(*ir.Const)
	if !ok {
		return x
	}
	absorbs := (b.Op == ir.LogAnd) == (y.Bits == 0) // false for &&, true for ||
	switch {
	case !absorbs:
		return b.X
	case ir.IsPure(b.X):
		return y
	}
	return x
}
