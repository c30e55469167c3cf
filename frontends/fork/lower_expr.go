package fork

import (
	"fmt"
	"strings"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// expr lowers e as a value. Side effects become statements, emitted as
// the operands are lowered; the result is a side-effect-free expression
// apart from calls. It is never nil: after an error it is a zero.
func (b *body) expr(e expr) ir.Expr {
	if v := b.value(e); v != nil {
		return v
	}
	return zero(e.exprPos(), ir.I32)
}

func (b *body) value(e expr) ir.Expr {
	switch e := e.(type) {
	case *lit:
		return &ir.Const{Pos: e.pos, T: e.t, Bits: e.bits}
	case *procID:
		return b.groupValue(e.pos, "$", 0)
	case *groupID:
		return b.groupValue(e.pos, "@", 1)
	case *ident:
		return b.identValue(e)
	case *index:
		if p := b.place(e); p != nil {
			return b.load(p)
		}
	case *call:
		return b.callExpr(e, true)
	case *unary:
		return unaryOp(e.pos, e.op, b.expr(e.x), e.t)
	case *incDec:
		return b.incDec(e, true)
	case *cast:
		return convert(b.expr(e.x), e.t)
	case *binary:
		if e.op == "&&" || e.op == "||" {
			return b.logical(e)
		}
		return binaryOp(e.pos, e.op, b.expr(e.x), b.expr(e.y), e.opT)
	case *condExpr:
		return b.selectExpr(e)
	case *assign:
		return b.assign(e, true)
	}
	return nil
}

// cond lowers a condition to its truth value.
func (b *body) cond(e expr) ir.Expr { return truth(b.expr(e)) }

// effect lowers an expression statement, whose value is dropped.
func (b *body) effect(e expr) {
	switch x := e.(type) {
	case *assign:
		b.assign(x, false)
	case *incDec:
		b.incDec(x, false)
	case *call:
		if v := b.callExpr(x, false); v != nil {
			b.drop(v)
		}
	default:
		b.drop(b.expr(e))
	}
}

// zeroOf is a stand-in for e's value after an error.
func (b *body) zeroOf(e expr) ir.Expr {
	if t := e.typ(); t.IsScalar() {
		return zero(e.exprPos(), t)
	}
	return nil
}

// groupValue lowers $ (i = 0), @ (1) and groupsize() (2): builtins in a
// region, parameters in a device function, locals in a group-recursive
// function (Note [Group recursion]).
func (b *body) groupValue(pos diag.Pos, what string, i int) ir.Expr {
	switch {
	case b.mode == hostMode:
		b.errorf(pos, "%s used outside start%s", what, b.sequentialCaller())
		return zero(pos, ir.I32)
	case b.mode == deviceMode:
		return &ir.Var{Pos: pos, Name: b.group[i], T: ir.I32}
	case i == 2 && b.rec != nil && !b.whole:
		b.errorf(pos, "groupsize() in recursive sync function %s under a condition that differs between the processors of its group, or in a fork body, is not supported", b.rec.fn.name)
		return zero(pos, ir.I32)
	case b.ids != nil:
		return &ir.Var{Pos: pos, Name: b.ids[i], T: ir.I32}
	}
	ops := [3]ir.BuiltinOp{ir.ProcID, ir.GroupID, ir.GroupSize}
	return &ir.Builtin{Pos: pos, Op: ops[i]}
}

// sequentialCaller explains, in a function other than main, why its code
// is sequential.
func (b *body) sequentialCaller() string {
	if f := b.inst.key.fn; f.name != "main" {
		return fmt.Sprintf(" (function %s is called from sequential code)", f.name)
	}
	return ""
}

func (b *body) identValue(e *ident) ir.Expr {
	if e.c != nil {
		return constValue(e.c, e)
	}
	bd := b.binding(e.v)
	switch {
	case bd == nil:
		return nil // an error was reported at the declaration
	case bd.local != "":
		return &ir.Var{Pos: e.pos, Name: bd.local, T: e.v.t}
	}
	return b.load(&place{pos: e.pos, bd: bd, buf: bd.buf, index: b.instanceIndex(bd, intConst(e.pos, ir.I32, 0)), t: e.v.t})
}

// place is an lvalue: a local, or an element of a buffer.
type place struct {
	pos   diag.Pos
	bd    *binding
	local string
	buf   string
	index ir.Expr
	t     ir.Type
}

// place lowers an lvalue, evaluating its subscripts; nil after an error.
func (b *body) place(e expr) *place {
	switch x := e.(type) {
	case *ident:
		bd := b.binding(x.v)
		switch {
		case bd == nil:
			return nil
		case bd.local != "":
			return &place{pos: x.pos, bd: bd, local: bd.local, t: x.v.t}
		}
		return &place{pos: x.pos, bd: bd, buf: bd.buf, index: b.instanceIndex(bd, intConst(x.pos, ir.I32, 0)), t: x.v.t}
	case *index:
		base, idx := subscripts(x)
		v := arrayOf(base)
		bd := b.binding(v)
		if bd == nil {
			return nil
		}
		var ix []ir.Expr
		for _, i := range idx {
			ix = append(ix, b.expr(i))
		}
		return &place{pos: x.pos, bd: bd, buf: bd.buf, index: b.instanceIndex(bd, flatIndex(x.pos, ix, rowLen(v))), t: v.t}
	}
	return nil
}

// flatIndex computes the position of element [i] or [i][j] of an array
// stored row by row: i * cols + j.
func flatIndex(pos diag.Pos, ix []ir.Expr, cols ir.Expr) ir.Expr {
	if len(ix) == 1 {
		return convert(ix[0], promote(ix[0].Type()))
	}
	t := usual(usual(ix[0].Type(), ix[1].Type()), cols.Type())
	row := binaryOp(pos, "*", ix[0], cols, t)
	return binaryOp(pos, "+", row, ix[1], t)
}

// load reads a place.
func (b *body) load(p *place) ir.Expr {
	if p.local != "" {
		return &ir.Var{Pos: p.pos, Name: p.local, T: p.t}
	}
	if b.step != nil {
		b.step.reads = true
	}
	return &ir.Load{Pos: p.pos, Buf: p.buf, Index: p.index, T: p.t}
}

// storeTo writes v to a place and returns an expression for the value
// written, valid after the statement if needValue. In synchronous code a
// shared write is deferred to the end of the step (Note [Steps]).
func (b *body) storeTo(p *place, v ir.Expr, needValue bool) ir.Expr {
	if p.local != "" {
		if b.inRegion && !p.bd.region {
			b.errorf(p.pos, "cannot assign %s inside start: it is a local of the sequential code, which start only reads; declare it sh at global scope", p.bd.v.name)
			return v
		}
		b.Emit(&ir.Assign{Pos: p.pos, Name: p.local, Value: v})
		return &ir.Var{Pos: p.pos, Name: p.local, T: p.t}
	}
	if b.step != nil {
		st := &ir.Store{Pos: p.pos, Buf: p.buf, Index: b.hold(p.index), Value: b.hold(v), Priority: b.l.prio}
		b.step.writes = append(b.step.writes, st)
		return st.Value
	}
	if needValue {
		v = b.hold(v)
	}
	b.Emit(&ir.Store{Pos: p.pos, Buf: p.buf, Index: p.index, Value: v})
	return v
}

// assign lowers = and the compound assignments.
func (b *body) assign(e *assign, needValue bool) ir.Expr {
	p := b.place(e.l)
	if p == nil {
		return nil
	}
	if e.op == "=" {
		return b.storeTo(p, convert(b.expr(e.r), p.t), needValue)
	}
	if p.buf != "" {
		p.index = b.hold(p.index) // evaluated once
	}
	old := b.load(p)
	v := binaryOp(e.pos, strings.TrimSuffix(e.op, "="), old, b.expr(e.r), e.opT)
	return b.storeTo(p, convert(v, p.t), needValue)
}

// incDec lowers ++ and --.
func (b *body) incDec(e *incDec, needValue bool) ir.Expr {
	p := b.place(e.x)
	if p == nil {
		return nil
	}
	if p.buf != "" {
		p.index = b.hold(p.index)
	}
	old := b.load(p)
	if e.post && needValue {
		old = b.temp(old)
	}
	one := intConst(e.pos, ir.I32, 1)
	v := convert(binaryOp(e.pos, e.op[:1], old, one, usual(p.t, ir.I32)), p.t)
	v = b.storeTo(p, v, needValue && !e.post)
	if e.post {
		return old
	}
	return v
}

// logical lowers && and ||, which evaluate their right operand only when
// needed: the IR's operator if that operand has no side effects, an if
// otherwise.
func (b *body) logical(e *binary) ir.Expr {
	x := b.cond(e.x)
	k := b.writeMark()
	var y ir.Expr
	pre := b.Nest(func() { y = b.cond(e.y) })
	if len(pre) == 0 && b.writeMark() == k {
		return binaryOp(e.pos, e.op, x, y, ir.Bool)
	}
	r := b.temp(x)
	then := append(pre, &ir.Assign{Pos: e.pos, Name: r.Name, Value: y})
	if b.writeMark() > k {
		g := b.stepLocal(e.pos, "taken", ir.Bool)
		then = append([]ir.Stmt{setFlag(e.pos, g, true)}, then...)
		b.guardWrites(k, b.writeMark(), &ir.Var{Pos: e.pos, Name: g, T: ir.Bool})
	}
	var c ir.Expr = r
	if e.op == "||" {
		c = unaryOp(e.pos, "!", r, ir.Bool)
	}
	b.Emit(b.branch(e.pos, b.isPrivate(e.x), c, then, nil))
	return r
}

// selectExpr lowers ?:, the IR's select if neither arm has side effects,
// an if into a temporary otherwise.
func (b *body) selectExpr(e *condExpr) ir.Expr {
	c := b.cond(e.cond)
	k := b.writeMark()
	var x, y ir.Expr
	preX := b.Nest(func() { x = convert(b.expr(e.x), e.t) })
	kx := b.writeMark()
	preY := b.Nest(func() { y = convert(b.expr(e.y), e.t) })
	if len(preX) == 0 && len(preY) == 0 && b.writeMark() == k {
		if k, ok := c.(*ir.Const); ok {
			if k.Bits != 0 {
				return x
			}
			return y
		}
		return &ir.Select{Pos: e.pos, Cond: c, X: x, Y: y}
	}
	cv := b.temp(c)
	if b.writeMark() > k {
		b.guardWrites(kx, b.writeMark(), unaryOp(e.pos, "!", cv, ir.Bool))
		b.guardWrites(k, kx, cv)
	}
	r := b.stepLocal(e.pos, "t", e.t)
	then := append(preX, &ir.Assign{Pos: e.pos, Name: r, Value: x})
	els := append(preY, &ir.Assign{Pos: e.pos, Name: r, Value: y})
	b.Emit(b.branch(e.pos, b.isPrivate(e.cond), cv, then, els))
	return &ir.Var{Pos: e.pos, Name: r, T: e.t}
}

// writeMark is the number of deferred writes of the current step.
func (b *body) writeMark() int {
	if b.step == nil {
		return 0
	}
	return len(b.step.writes)
}

// guardWrites makes the deferred writes from..to-1 conditional on g: they
// were made in code that runs only where g holds.
func (b *body) guardWrites(from, to int, g ir.Expr) {
	ws := b.step.writes
	if from == to {
		return
	}
	guarded := &ir.If{Pos: g.At(), Cond: g, Then: append([]ir.Stmt(nil), ws[from:to]...)}
	b.step.writes = append(append(append([]ir.Stmt(nil), ws[:from]...), guarded), ws[to:]...)
}
