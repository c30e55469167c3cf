package chr

import (
	"fmt"
	"math"

	"gpuc/ir"
)

// maxSteps bounds the fixpoint loop: claim priorities hold the birth step
// in 24 bits.
const maxSteps = 1<<24 - 2

// regionBody builds the fixpoint loop (Note [Parallel firing]).
func (l *lowerer) regionBody() []ir.Stmt {
	b := newBlock(l.m, l.pos)
	l.copyQuery(b)
	b.Barrier(true)
	step := b.decl(l.locals.fresh("step"), ir.I32, i32c(0))
	goOn := b.decl(l.locals.fresh("go"), ir.Bool, boolc(true))
	body := b.sub()
	body.Set(step.Name, binop(ir.Add, step, i32c(1)))
	body.ifThen(binop(ir.Gt, step, i32c(maxSteps)), []ir.Stmt{&ir.Raise{Pos: l.pos, Msg: "the fixpoint loop ran out of steps"}})
	total := load(l.fired, i32c(int64(len(l.prog.rules))), ir.I64)
	before := body.decl(l.locals.fresh("before"), ir.I64, total)
	l.phaseA(body)
	l.phaseB(body)
	for _, p := range l.plans {
		if p.delta < 0 {
			l.matchRemoval(body, p, step)
		}
	}
	body.Barrier(true)
	for _, p := range l.plans {
		if p.delta < 0 {
			l.commit(body, p, step)
		}
	}
	body.Barrier(true)
	for _, p := range l.plans {
		if p.delta >= 0 {
			l.matchPropagation(body, p, step)
		}
	}
	body.Barrier(true)
	body.Set(goOn.Name, binop(ir.Ne, load(l.fired, i32c(int64(len(l.prog.rules))), ir.I64), before))
	b.while(goOn, body.stmts())
	b.ifThen(binop(ir.Eq, builtin(ir.ProcID), i32c(0)), []ir.Stmt{&ir.Store{Pos: l.pos, Buf: l.steps, Index: i32c(0), Value: conv(ir.I64, step)}})
	return b.stmts()
}

// forSlots emits a grid-stride loop over 0..n-1.
func (l *lowerer) forSlots(b *block, n ir.Expr, body func(b *block, slot ir.Expr)) {
	name := l.locals.fresh("i")
	i := local(name, ir.I32)
	inner := b.sub()
	body(inner, i)
	b.Emit(&ir.For{Pos: b.Pos,
		Init: &ir.Decl{Pos: b.Pos, Name: name, T: ir.I32, Init: builtin(ir.ProcID)},
		Cond: binop(ir.Lt, i, n),
		Post: &ir.Assign{Pos: b.Pos, Name: name, Value: binop(ir.Add, i, builtin(ir.NumProcs))},
		Body: inner.stmts()})
}

// copyQuery copies the query's constraints into the stores.
func (l *lowerer) copyQuery(b *block) {
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		if s.query == 0 {
			continue
		}
		l.forSlots(b, i32c(int64(s.query)), func(b *block, i ir.Expr) {
			for a, q := range s.qargs {
				b.Store(s.args[a], i, load(q, i, ct.args[a]))
			}
			b.Store(s.state, i, i32c(1))
			b.Store(s.born, i, i32c(1))
		})
	}
}

// phaseA takes the step's snapshot of each store and clears claims,
// index heads and extrema.
func (l *lowerer) phaseA(b *block) {
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		s.n = l.locals.fresh("n_" + s.base)
		s.hs = l.locals.fresh("hs_" + s.base)
		b.decl(s.n, ir.I32, load(s.top, i32c(0), ir.I32))
		b.decl(s.hs, ir.I32, i32c(1))
		if len(s.indices) > 0 {
			b.while(binop(ir.Lt, local(s.hs, ir.I32), s.nRef()), []ir.Stmt{&ir.Assign{Pos: b.Pos, Name: s.hs, Value: binop(ir.Mul, local(s.hs, ir.I32), i32c(2))}})
		}
		if s.claim != "" {
			l.forSlots(b, s.nRef(), func(b *block, i ir.Expr) { b.Store(s.claim, i, u64c(0)) })
		}
		for _, ix := range s.indices {
			l.forSlots(b, local(s.hs, ir.I32), func(b *block, i ir.Expr) { b.Store(ix.head, i, i32c(-1)) })
		}
	}
	var init []ir.Stmt
	for _, ct := range l.prog.types {
		for _, x := range l.stores[ct].exts {
			for cellNo, v := range []int64{math.MaxInt64, math.MaxInt64, -1, math.MaxInt64} {
				init = append(init, &ir.Store{Pos: l.pos, Buf: x.buf, Index: i32c(int64(cellNo)), Value: i64c(v)})
			}
		}
	}
	if init != nil {
		b.ifThen(binop(ir.Eq, builtin(ir.ProcID), i32c(0)), init)
	}
	b.Barrier(true)
}

// phaseB builds the indices and extrema of the step.
func (l *lowerer) phaseB(b *block) {
	anyExt := false
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		if len(s.indices) == 0 && len(s.exts) == 0 {
			continue
		}
		anyExt = anyExt || len(s.exts) > 0
		l.forSlots(b, s.nRef(), func(b *block, i ir.Expr) {
			in := b.sub()
			for _, ix := range s.indices {
				var keys []ir.Expr
				for _, p := range ix.pos {
					keys = append(keys, s.arg(p, i))
				}
				old := l.locals.fresh("old")
				in.decl(old, ir.I32, i32c(0))
				in.Atomic(old, ir.AtomicExch, ix.head, s.bucket(hash(keys)), i)
				in.Store(ix.next, i, local(old, ir.I32))
			}
			for _, x := range s.exts {
				in.Atomic("", ir.AtomicMin, x.buf, i32c(0), x.keyOf(s.arg(x.pos, i)))
			}
			b.ifThen(binop(ir.Eq, load(s.state, i, ir.I32), i32c(1)), in.stmts())
		})
	}
	b.Barrier(true)
	if !anyExt {
		return
	}
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		for _, x := range s.exts {
			l.extremumPass(b, s, x)
		}
	}
	b.Barrier(true)
}

// extremumPass finds the slots with the least key and the next key.
func (l *lowerer) extremumPass(b *block, s *store, x *extremum) {
	l.forSlots(b, s.nRef(), func(b *block, i ir.Expr) {
		k := l.locals.fresh("k")
		in := b.sub()
		kv := in.decl(k, ir.I64, x.keyOf(s.arg(x.pos, i)))
		least := load(x.buf, i32c(0), ir.I64)
		eq := b.sub()
		eq.Atomic("", ir.AtomicMin, x.buf, i32c(1), conv(ir.I64, i))
		eq.Atomic("", ir.AtomicMax, x.buf, i32c(2), conv(ir.I64, i))
		gt := b.sub()
		gt.Atomic("", ir.AtomicMin, x.buf, i32c(3), kv)
		in.Emit(&ir.If{Pos: b.Pos, Cond: binop(ir.Eq, kv, least), Then: eq.stmts(),
			Else: []ir.Stmt{&ir.If{Pos: b.Pos, Cond: binop(ir.Gt, kv, least), Then: gt.stmts()}}})
		b.ifThen(binop(ir.Eq, load(s.state, i, ir.I32), i32c(1)), in.stmts())
	})
}

// declareRuleBuffers declares the proposal buffers of removal rules and
// names their variables.
func (l *lowerer) declareRuleBuffers() {
	for _, p := range l.plans {
		if p.delta >= 0 {
			continue
		}
		s := l.stores[p.owner.ct]
		stem := fmt.Sprintf("r%d", p.r.index+1)
		p.on = l.name(stem + "_on")
		p.claim = l.name(stem + "_cl")
		l.buffer(p.on, ir.I32, s.capRef(), ir.Scratch)
		l.buffer(p.claim, ir.U64, s.capRef(), ir.Scratch)
		p.slots = map[*head]string{}
		for _, st := range p.steps {
			p.slots[st.h] = l.name(fmt.Sprintf("%s_h%d", stem, st.h.index))
			l.buffer(p.slots[st.h], ir.I32, s.capRef(), ir.Scratch)
		}
		p.inputs = map[*ruleVar]string{}
		for _, v := range bodyInputs(p.r) {
			n := l.name(fmt.Sprintf("%s_%s", stem, identifier(v.name, "v")))
			l.buffer(n, v.cell.find().t, s.capRef(), ir.Scratch)
			p.inputs[v] = n
		}
	}
}
