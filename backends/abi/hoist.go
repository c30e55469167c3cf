package abi

import (
	"math"

	"gpuc/ir"
)

// Hoisting the checks of loops: Note [Check placement].

// loopShape is a counted loop: v runs from v0 (nil: v's value on entry)
// while v < bound (or <= where incl), stepped by v = v + step.
type loopShape struct {
	loop  ir.Stmt
	v     *ir.Var
	v0    ir.Expr
	bound ir.Expr
	incl  bool
	step  ir.Expr
	body  []ir.Stmt
	// set holds the locals the loop sets, v included; written the
	// buffers it writes (all where it calls a function).
	set     map[string]bool
	written map[string]bool
	calls   bool
}

// maxVersioned bounds the nesting of versioned loops: a loop inside n of
// them is emitted 2^n times.
const maxVersioned = 2

// hoistAll plans the loops of body, innermost first, and returns the
// deepest nesting of versioned loops in it.
func (pl *planner) hoistAll(body []ir.Stmt) int {
	depth := 0
	for _, s := range body {
		d := 0
		for _, sub := range ir.SubBodies(s) {
			d = max(d, pl.hoistAll(sub))
		}
		if sh := pl.shape(s); sh != nil && d < maxVersioned && pl.hoistLoop(sh) {
			d++
		}
		depth = max(depth, d)
	}
	return depth
}

// shape recognises a counted loop without barriers.
func (pl *planner) shape(s ir.Stmt) *loopShape {
	sh := &loopShape{loop: s}
	var cond ir.Expr
	switch s := s.(type) {
	case *ir.While:
		cond, sh.body = s.Cond, s.Body
		if len(s.Body) == 0 {
			return nil
		}
		last, ok := s.Body[len(s.Body)-1].(*ir.Assign)
		if !ok {
			return nil
		}
		sh.v, sh.step = increment(last)
		if sh.v == nil || countAssigns(s.Body, sh.v.Name) != 1 {
			return nil
		}
	case *ir.For:
		cond, sh.body = s.Cond, s.Body
		post, ok := s.Post.(*ir.Assign)
		if !ok || s.Init == nil {
			return nil
		}
		sh.v, sh.step = increment(post)
		if sh.v == nil || countAssigns(s.Body, sh.v.Name) != 0 {
			return nil
		}
		switch in := s.Init.(type) {
		case *ir.Decl:
			if in.Name != sh.v.Name || in.Init == nil {
				return nil
			}
			sh.v0 = in.Init
		case *ir.Assign:
			if in.Name != sh.v.Name {
				return nil
			}
			sh.v0 = in.Value
		default:
			return nil
		}
	default:
		return nil
	}
	if ir.HasBarrier(sh.body, false) || !sh.v.T.IsInt() || sh.v.T == ir.U64 {
		return nil
	}
	c, ok := cond.(*ir.Binary)
	if !ok {
		return nil
	}
	switch {
	case (c.Op == ir.Lt || c.Op == ir.Le) && isVar(c.X, sh.v.Name):
		sh.bound, sh.incl = c.Y, c.Op == ir.Le
	case (c.Op == ir.Gt || c.Op == ir.Ge) && isVar(c.Y, sh.v.Name):
		sh.bound, sh.incl = c.X, c.Op == ir.Ge
	default:
		return nil
	}
	sh.set = map[string]bool{sh.v.Name: true}
	for _, n := range assignedIn(sh.body) {
		sh.set[n] = true
	}
	sh.written = map[string]bool{}
	ir.WalkBufferUses(sh.body, func(buf string, use ir.BufferUse) {
		if use != ir.UseRead {
			sh.written[buf] = true
		}
	})
	sh.calls = ir.AnyExprIn(sh.body, func(e ir.Expr) bool { _, ok := e.(*ir.Call); return ok }) ||
		ir.AnyStmt(sh.body, func(s ir.Stmt) bool { _, ok := s.(*ir.CallStmt); return ok })
	if !pl.invariant(sh, sh.bound) || !pl.invariant(sh, sh.step) || sh.v0 != nil && !pl.safe(sh.v0, nil) {
		return nil
	}
	return sh
}

// increment reads v = v + step (or step + v).
func increment(a *ir.Assign) (*ir.Var, ir.Expr) {
	b, ok := a.Value.(*ir.Binary)
	if !ok || b.Op != ir.Add {
		return nil, nil
	}
	if v, ok := b.X.(*ir.Var); ok && v.Name == a.Name {
		return v, b.Y
	}
	if v, ok := b.Y.(*ir.Var); ok && v.Name == a.Name {
		return v, b.X
	}
	return nil, nil
}

func isVar(e ir.Expr, name string) bool { v, ok := e.(*ir.Var); return ok && v.Name == name }

func countAssigns(body []ir.Stmt, name string) int {
	n := 0
	for _, a := range assignedIn(body) {
		if a == name {
			n++
		}
	}
	return n
}

// invariant reports whether e has one value throughout the loop and is
// safe to evaluate before it.
func (pl *planner) invariant(sh *loopShape, e ir.Expr) bool { return pl.safe(e, sh) }

// safe reports whether evaluating e cannot fault and has no effect; with
// sh, also that e is invariant in sh's loop.
func (pl *planner) safe(e ir.Expr, sh *loopShape) bool {
	ok := true
	ir.WalkExpr(e, func(x ir.Expr) bool {
		switch x := x.(type) {
		case *ir.Var:
			ok = ok && (sh == nil || !sh.set[x.Name])
		case *ir.Const, *ir.ParamRef, *ir.Unary, *ir.Convert, *ir.Select:
		case *ir.Binary:
			ok = ok && !CheckedDivisor(x)
		case *ir.Builtin:
			switch x.Op {
			case ir.ThreadID, ir.BlockID, ir.BlockDim, ir.GridDim, ir.GlobalID, ir.Min, ir.Max, ir.Abs, ir.Sqrt:
			default:
				ok = false
			}
		case *ir.Load:
			b := pl.m.Buffer(x.Buf)
			ok = ok && b != nil && IndexInRange(b, x.Index) &&
				(sh == nil || !sh.calls && !sh.written[x.Buf])
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// affine splits e as a*v + r, with a and r invariant in sh's loop; a is nil
// where e does not depend on v, r where it is zero. Arithmetic stays in
// one type.
func (pl *planner) affine(sh *loopShape, e ir.Expr) (a, r ir.Expr, ok bool) {
	if pl.invariant(sh, e) {
		return nil, e, true
	}
	t := e.Type()
	switch x := e.(type) {
	case *ir.Var:
		if x.Name == sh.v.Name && x.T == t {
			return ir.IntConst(t, 1), nil, true
		}
	case *ir.Binary:
		if x.X.Type() != t {
			return nil, nil, false
		}
		switch x.Op {
		case ir.Add, ir.Sub:
			a1, r1, ok1 := pl.affine(sh, x.X)
			a2, r2, ok2 := pl.affine(sh, x.Y)
			if !ok1 || !ok2 {
				return nil, nil, false
			}
			return combine(x.Op, a1, a2), combine(x.Op, r1, r2), true
		case ir.Mul:
			for _, k := range [2][2]ir.Expr{{x.X, x.Y}, {x.Y, x.X}} {
				if pl.invariant(sh, k[0]) {
					a, r, ok := pl.affine(sh, k[1])
					if ok {
						return scale(k[0], a), scale(k[0], r), true
					}
				}
			}
		}
	}
	return nil, nil, false
}

// combine is x op y where either may be nil (zero).
func combine(op ir.BinOp, x, y ir.Expr) ir.Expr {
	switch {
	case y == nil:
		return x
	case x == nil && op == ir.Add:
		return y
	case x == nil:
		return &ir.Unary{Op: ir.Neg, X: y}
	}
	return &ir.Binary{Op: op, X: x, Y: y}
}

func scale(k, x ir.Expr) ir.Expr {
	switch {
	case x == nil:
		return nil
	case isOne(x):
		return k
	case isOne(k):
		return x
	}
	return &ir.Binary{Op: ir.Mul, X: k, Y: x}
}

func isOne(e ir.Expr) bool { c, ok := e.(*ir.Const); return ok && c.T.IsInt() && c.Int() == 1 }

// hoistLoop covers the checks of sh's body that one test before the loop
// can settle, and reports whether there were any.
func (pl *planner) hoistLoop(sh *loopShape) bool {
	h := &Hoist{covered: map[any]bool{}}
	var conds []ir.Expr
	seen := map[string]bool{}
	add := func(c ir.Expr) {
		if k := ir.PrintExpr(c); !seen[k] {
			seen[k] = true
			conds = append(conds, c)
		}
	}
	i64 := func(k int64) ir.Expr { return ir.IntConst(ir.I64, k) }
	ext := func(e ir.Expr) ir.Expr {
		if e.Type() == ir.I64 {
			return e
		}
		return &ir.Convert{T: ir.I64, X: e}
	}
	bin := func(op ir.BinOp, x, y ir.Expr) ir.Expr { return &ir.Binary{Op: op, X: x, Y: y} }
	v0 := sh.v0
	if v0 == nil {
		v0 = sh.v
	}
	vmax := int64(math.MaxInt64)
	switch sh.v.T {
	case ir.I32:
		vmax = math.MaxInt32
	case ir.U32:
		vmax = math.MaxUint32
	case ir.I8:
		vmax = math.MaxInt8
	case ir.U8:
		vmax = math.MaxUint8
	}
	lo, hi := ext(v0), ext(sh.bound)
	if !sh.incl {
		hi = bin(ir.Sub, hi, i64(1))
	}
	// v stays in [lo, hi]: the step is positive and v + step does not wrap.
	var guard []ir.Expr
	if k, ok := sh.step.(*ir.Const); !ok || k.Int() <= 0 {
		guard = append(guard, bin(ir.Gt, ext(sh.step), i64(0)))
	}
	guard = append(guard, bin(ir.Le, hi, bin(ir.Sub, i64(vmax), ext(sh.step))))
	inRange := func(x ir.Expr, b *ir.Buffer, max int64) {
		// A comparison that the type of a converted value settles is
		// left out: C compilers warn about it.
		var from ir.Type
		if c, ok := x.(*ir.Convert); ok {
			from = c.X.Type()
		}
		if from != ir.U32 && from != ir.U8 {
			add(bin(ir.Ge, x, i64(0)))
		}
		add(bin(ir.Lt, x, ext(b.Len)))
		if max < math.MaxInt64 && !(from.IsInt() && from.Size() <= 4 && (from != ir.U32 || max >= math.MaxUint32)) {
			add(bin(ir.Le, x, i64(max)))
		}
	}
	access := func(node any, buf string, index ir.Expr) {
		b := pl.m.Buffer(buf)
		if b == nil || index == nil || IndexInRange(b, index) || pl.p.elided[node] || pl.p.covered[node] {
			return
		}
		t := index.Type()
		switch t {
		case ir.I32, ir.U32:
			if sh.v.T != t && !pl.invariant(sh, index) {
				return
			}
			a, r, ok := pl.affine(sh, index)
			if !ok {
				return
			}
			max := int64(math.MaxInt32)
			if t == ir.U32 {
				max = math.MaxUint32
			}
			at := func(v ir.Expr) ir.Expr {
				x := v
				if !isOne(a) {
					x = bin(ir.Mul, ext(a), v)
				}
				if r != nil {
					x = bin(ir.Add, x, ext(r))
				}
				return x
			}
			if a == nil {
				inRange(ext(r), b, max)
			} else {
				inRange(at(lo), b, max)
				inRange(at(hi), b, max)
			}
		case ir.I64:
			if pl.invariant(sh, index) {
				inRange(index, b, math.MaxInt64)
				break
			}
			// v + c, with c a constant of less than 2^31: v in
			// [-2^31, 2^62] keeps v + c from wrapping.
			a, r, ok := pl.affine(sh, index)
			c, isConst := r.(*ir.Const)
			if !ok || sh.v.T != ir.I64 || !isOne(a) || r != nil && (!isConst || c.Int() <= math.MinInt32 || c.Int() >= math.MaxInt32) {
				return
			}
			at := func(v ir.Expr) ir.Expr {
				if r == nil {
					return v
				}
				return bin(ir.Add, v, r)
			}
			if r != nil {
				add(bin(ir.Ge, lo, i64(math.MinInt32)))
				add(bin(ir.Le, hi, i64(1<<62)))
			}
			inRange(at(lo), b, math.MaxInt64)
			inRange(at(hi), b, math.MaxInt64)
		default:
			return
		}
		h.covered[node] = true
	}
	ir.WalkStmts(sh.body, func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Store:
			access(s, s.Buf, s.Index)
		case *ir.Atomic:
			access(s, s.Buf, s.Index)
		}
		for _, e := range ir.StmtExprs(s) {
			ir.WalkExpr(e, func(x ir.Expr) bool {
				switch x := x.(type) {
				case *ir.Load:
					access(x, x.Buf, x.Index)
				case *ir.Binary:
					if CheckedDivisor(x) && !pl.p.covered[x] && pl.invariant(sh, x.Y) {
						add(bin(ir.Ne, x.Y, ir.IntConst(x.Y.Type(), 0)))
						h.covered[x] = true
					}
				}
				return true
			})
		}
		return true
	})
	if len(h.covered) == 0 {
		return false
	}
	for _, c := range append(guard, conds...) {
		if h.Pre == nil {
			h.Pre = c
		} else {
			h.Pre = bin(ir.LogAnd, h.Pre, c)
		}
	}
	for n := range h.covered {
		pl.p.covered[n] = true
	}
	pl.p.hoists[sh.loop] = h
	return true
}
