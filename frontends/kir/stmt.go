package kir

import (
	"gpuc/frontends/kir/parser"
	"gpuc/ir"
)

func (b *builder) stmt(ctx parser.IStmtContext) ir.Stmt {
	pos := b.pos(ctx)
	switch s := ctx.(type) {
	case *parser.SimpleContext:
		return b.simple(s.SimpleStmt())
	case *parser.AtomicStmtContext:
		ids := s.AllIDENT()
		at := &ir.Atomic{Pos: pos, Buf: s.GetBuf().GetText()}
		if len(ids) == 3 {
			at.Dst = ids[0].GetText()
			if _, ok := b.local(at.Dst); !ok {
				b.errorf(b.tpos(ids[0]), "undeclared variable %s", at.Dst)
			}
		}
		op, ok := ir.ParseAtomicOp(s.GetOp().GetText())
		if !ok {
			b.errorf(b.tokPos(s.GetOp()), "unknown atomic operation %s", s.GetOp().GetText())
		}
		at.Op = op
		b.memory(at.Buf, b.tokPos(s.GetBuf()))
		exprs := s.AllExpr()
		at.Index = b.expr(exprs[0])
		for _, e := range exprs[1:] {
			at.Args = append(at.Args, b.expr(e))
		}
		return at
	case *parser.StoreStmtContext:
		st := &ir.Store{Pos: pos, Buf: s.IDENT().GetText(), Priority: s.GetStart().GetText() == "prio"}
		b.memory(st.Buf, b.tpos(s.IDENT()))
		st.Index = b.expr(s.Expr(0))
		st.Value = b.expr(s.Expr(1))
		return st
	case *parser.CallStmtContext:
		call, ok := b.call(pos, s.IDENT(), s.Args()).(*ir.Call)
		if !ok {
			b.errorf(pos, "%s(...) is not a function call and cannot stand as a statement", s.IDENT().GetText())
			return nil
		}
		return &ir.CallStmt{Pos: pos, Call: call}
	case *parser.IfContext:
		return b.ifStmt(s.IfStmt())
	case *parser.WhileStmtContext:
		return &ir.While{Pos: pos, Cond: b.expr(s.Expr()), Body: b.block(s.Block())}
	case *parser.ForStmtContext:
		b.push()
		defer b.pop()
		f := &ir.For{Pos: pos}
		if s.GetInit() != nil {
			f.Init = b.simple(s.GetInit())
		}
		f.Cond = b.expr(s.Expr())
		if s.GetPost() != nil {
			f.Post = b.simple(s.GetPost())
		}
		f.Body = b.block(s.Block())
		return f
	case *parser.BreakStmtContext:
		return &ir.Break{Pos: pos}
	case *parser.ContinueStmtContext:
		return &ir.Continue{Pos: pos}
	case *parser.ReturnStmtContext:
		r := &ir.Return{Pos: pos}
		if s.Expr() != nil {
			r.Value = b.expr(s.Expr())
		}
		return r
	case *parser.SwitchStmtContext:
		sw := &ir.Switch{Pos: pos, X: b.expr(s.Expr())}
		for _, c := range s.AllCaseClause() {
			cs := &ir.Case{Pos: b.pos(c)}
			for _, n := range c.AllSignedNumber() {
				if k := b.number(n, ir.I64); k != nil {
					cs.Values = append(cs.Values, k.Int())
				}
			}
			cs.Body = b.block(c.Block())
			sw.Cases = append(sw.Cases, cs)
		}
		if s.Block() != nil {
			sw.Default = b.block(s.Block())
		}
		return sw
	case *parser.BarrierStmtContext:
		bar := &ir.Barrier{Pos: pos}
		if id := s.IDENT(); id != nil {
			if id.GetText() != "grid" {
				b.errorf(b.tpos(id), "unknown barrier scope %s (want grid, or nothing for a block barrier)", id.GetText())
			}
			bar.Grid = true
		}
		return bar
	case *parser.RaiseStmtContext:
		return &ir.Raise{Pos: pos, Msg: b.str(s.STRING())}
	case *parser.SplitStmtContext:
		sp := &ir.Split{Pos: pos, Cond: b.expr(s.Expr()), Then: b.block(s.Block(0))}
		if s.Block(1) != nil {
			sp.Else = b.block(s.Block(1))
		}
		return sp
	case *parser.SplitWhileStmtContext:
		return &ir.SplitWhile{Pos: pos, Cond: b.expr(s.Expr()), Body: b.block(s.Block())}
	case *parser.ForkStmtContext:
		ids := s.AllIDENT()
		if ids[0].GetText() != "group" {
			b.errorf(b.tpos(ids[0]), "fork: expected group = ..., found %s", ids[0].GetText())
		}
		if ids[1].GetText() != "member" {
			b.errorf(b.tpos(ids[1]), "fork: expected member = ..., found %s", ids[1].GetText())
		}
		return &ir.Fork{Pos: pos, Count: b.expr(s.Expr(0)), Group: b.expr(s.Expr(1)),
			Member: b.expr(s.Expr(2)), Body: b.block(s.Block())}
	case *parser.LaunchStmtContext:
		ids := s.AllIDENT()
		l := &ir.Launch{Pos: pos, Kernel: ids[0].GetText()}
		if f := b.m.Func(l.Kernel); f == nil {
			b.errorf(b.tpos(ids[0]), "undeclared kernel %s", l.Kernel)
		}
		if ids[1].GetText() != "grid" {
			b.errorf(b.tpos(ids[1]), "launch: expected grid, found %s", ids[1].GetText())
		}
		if ids[2].GetText() != "block" {
			b.errorf(b.tpos(ids[2]), "launch: expected block, found %s", ids[2].GetText())
		}
		l.Args = b.args(s.Args())
		l.Grid = b.expr(s.Expr(0))
		l.Block = b.expr(s.Expr(1))
		for _, a := range s.GetAttrs() {
			switch a.GetText() {
			case "coop":
				if l.Coop || l.World {
					b.errorf(b.tokPos(a), "launch: coop must come once and before world")
				}
				l.Coop = true
			case "stride":
				if !l.Coop || l.Stride || l.World {
					b.errorf(b.tokPos(a), "launch: stride must come once, after coop and before world")
				}
				l.Stride = true
			case "world":
				if l.World {
					b.errorf(b.tokPos(a), "launch: world twice")
				}
				l.World = true
			default:
				b.errorf(b.tokPos(a), "launch: expected coop, stride or world, found %s", a.GetText())
			}
		}
		if s.Block() != nil {
			if !l.Coop {
				b.errorf(pos, "launch: only a cooperative launch has a fallback")
			}
			l.Fallback = b.block(s.Block())
		}
		return l
	case *parser.RegionStmtContext:
		r := &ir.Region{Pos: pos, Procs: b.expr(s.Expr())}
		if w := s.GetWorld(); w != nil {
			if w.GetText() != "world" {
				b.errorf(b.tokPos(w), "region: expected world or a block, found %s", w.GetText())
			}
			r.World = true
		}
		r.Body = b.block(s.Block())
		return r
	case *parser.WorldBarrierStmtContext:
		return &ir.WorldBarrier{Pos: pos}
	case *parser.AllGatherStmtContext:
		g := &ir.AllGather{Pos: pos, Buf: s.IDENT().GetText()}
		b.memory(g.Buf, b.tpos(s.IDENT()))
		return g
	case *parser.AllReduceStmtContext:
		r := &ir.AllReduce{Pos: pos, Dst: s.IDENT(0).GetText()}
		if _, ok := b.local(r.Dst); !ok {
			b.errorf(b.tpos(s.IDENT(0)), "undeclared variable %s", r.Dst)
		}
		op, ok := ir.ParseAtomicOp(s.GetOp().GetText())
		if !ok || !op.IsReduction() {
			b.errorf(b.tokPos(s.GetOp()), "unknown reduction %s (want add, min, max, and, or or xor)", s.GetOp().GetText())
		}
		r.Op = op
		r.Value = b.expr(s.Expr())
		return r
	case *parser.CopyStmtContext:
		ids := s.AllIDENT()
		c := &ir.Copy{Pos: pos, Dst: ids[0].GetText(), Src: ids[1].GetText()}
		b.memory(c.Dst, b.tpos(ids[0]))
		b.memory(c.Src, b.tpos(ids[1]))
		c.DstOff = b.expr(s.Expr(0))
		c.SrcOff = b.expr(s.Expr(1))
		c.Count = b.expr(s.Expr(2))
		return c
	case *parser.SwapStmtContext:
		ids := s.AllIDENT()
		sw := &ir.Swap{Pos: pos, A: ids[0].GetText(), B: ids[1].GetText()}
		b.memory(sw.A, b.tpos(ids[0]))
		b.memory(sw.B, b.tpos(ids[1]))
		return sw
	case *parser.WriteStmtContext:
		w := &ir.Write{Pos: pos, Array: s.IDENT().GetText(), Count: b.expr(s.Expr())}
		b.memory(w.Array, b.tpos(s.IDENT()))
		return w
	case *parser.PrintfStmtContext:
		pf := &ir.Printf{Pos: pos, Format: b.str(s.STRING())}
		if id := s.IDENT(); id != nil {
			switch id.GetText() {
			case "stderr":
				pf.Stderr = true
			case "stdout":
			default:
				b.errorf(b.tpos(id), "printf to %s: want stdout or stderr", id.GetText())
			}
		}
		for _, e := range s.AllExpr() {
			pf.Args = append(pf.Args, b.expr(e))
		}
		return pf
	}
	b.errorf(pos, "unsupported statement")
	return nil
}

func (b *builder) simple(ctx parser.ISimpleStmtContext) ir.Stmt {
	pos := b.pos(ctx)
	switch s := ctx.(type) {
	case *parser.DeclStmtContext:
		d := &ir.Decl{Pos: pos, Name: s.IDENT(0).GetText(), T: b.typ(s.IDENT(1))}
		if s.Expr() != nil {
			d.Init = b.expr(s.Expr())
		}
		b.declare(d.Name, d.T)
		return d
	case *parser.AssignStmtContext:
		name := s.IDENT().GetText()
		if _, ok := b.local(name); !ok {
			if b.m.Param(name) != nil {
				b.errorf(b.tpos(s.IDENT()), "cannot assign to parameter %s", name)
			} else {
				b.errorf(b.tpos(s.IDENT()), "undeclared variable %s", name)
			}
		}
		return &ir.Assign{Pos: pos, Name: name, Value: b.expr(s.Expr())}
	}
	b.errorf(pos, "unsupported statement")
	return nil
}

func (b *builder) ifStmt(ctx parser.IIfStmtContext) *ir.If {
	s := &ir.If{Pos: b.pos(ctx), Cond: b.expr(ctx.Expr()), Then: b.block(ctx.Block(0))}
	switch {
	case ctx.IfStmt() != nil:
		s.Else = []ir.Stmt{b.ifStmt(ctx.IfStmt())}
	case ctx.Block(1) != nil:
		s.Else = b.block(ctx.Block(1))
	}
	return s
}

// memory checks that name is a buffer or a host array and returns its
// element type.
func (b *builder) memory(name string, pos ir.Pos) ir.Type {
	if buf := b.m.Buffer(name); buf != nil {
		return buf.Elem
	}
	if arr := b.m.Array(name); arr != nil {
		return arr.Elem
	}
	b.errorf(pos, "undeclared buffer or array %s", name)
	return ir.Invalid
}
