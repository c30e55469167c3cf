package fromir

import (
	"fmt"

	"gpuc/analysis/its"
	"gpuc/ir"
)

// expr translates e on a path whose assigned values are env (nil: none). Float values and
// anything else untracked are fresh values of their sort.
func (x *fx) expr(e ir.Expr, env map[string]its.Expr) its.Expr {
	s, ok := sortOf(e.Type())
	fresh := func(why string) its.Expr {
		if !ok {
			s = its.I32
		}
		return &its.Nondet{Sort: s, Why: why}
	}
	switch e := e.(type) {
	case *ir.Const:
		if !ok {
			return fresh("float constant")
		}
		if s.IsBool() {
			if e.Bits != 0 {
				return its.True()
			}
			return its.False()
		}
		return &its.Const{Val: s.Norm(bigOf(e.T, e.Bits)), Sort: s}
	case *ir.Var:
		if r, ok := env[e.Name]; ok {
			return r
		}
		if v, ok := x.vars[e.Name]; ok {
			if v.Sort == bit {
				return its.B(its.Ne, its.R(v), its.C(0, bit))
			}
			return its.R(v)
		}
		return fresh("untracked " + e.Name)
	case *ir.ParamRef:
		if !ok {
			return fresh("parameter " + e.Name)
		}
		if v, ok := x.sys.Var(e.Name); ok {
			return its.R(v)
		}
		v := its.Var{Name: e.Name, Sort: s}
		if s.IsBool() {
			v.Sort = bit
		}
		x.sys.Vars = append(x.sys.Vars, v)
		x.sys.Params = append(x.sys.Params, v.Name)
		if v.Sort == bit {
			return its.B(its.Ne, its.R(v), its.C(0, bit))
		}
		return its.R(v)
	case *ir.Load:
		return x.load(e, s, ok, env)
	case *ir.Unary:
		if !ok {
			return fresh("float")
		}
		a := x.expr(e.X, env)
		switch e.Op {
		case ir.Not:
			return its.Negate(a)
		case ir.Neg:
			return &its.Unary{Op: its.Neg, X: a}
		case ir.BitNot:
			return &its.Unary{Op: its.BNot, X: a}
		}
	case *ir.Binary:
		return x.binary(e, s, ok, env)
	case *ir.Select:
		if !ok {
			return fresh("float")
		}
		return &its.Ite{C: x.expr(e.Cond, env), T: x.expr(e.X, env), E: x.expr(e.Y, env)}
	case *ir.Convert:
		from, fok := sortOf(e.X.Type())
		if !ok || !fok {
			return fresh("float conversion")
		}
		a := x.expr(e.X, env)
		return resize(a, from, s, e.X.Type().IsSigned())
	case *ir.Call:
		return fresh("call " + e.Func)
	case *ir.Builtin:
		switch e.Op {
		case ir.ThreadID, ir.BlockID, ir.BlockDim, ir.GridDim, ir.DeviceID, ir.NumDevices:
			return x.launchVar(e.Op)
		case ir.GlobalID:
			return its.B(its.Add, its.B(its.Mul, x.launchVar(ir.BlockID), x.launchVar(ir.BlockDim)), x.launchVar(ir.ThreadID))
		case ir.Min, ir.Max:
			if !ok {
				return fresh("float " + e.Op.String())
			}
			a, b := x.expr(e.Args[0], env), x.expr(e.Args[1], env)
			op := its.Ule
			if s.Signed {
				op = its.Sle
			}
			if e.Op == ir.Min {
				return &its.Ite{C: its.B(op, a, b), T: a, E: b}
			}
			return &its.Ite{C: its.B(op, a, b), T: b, E: a}
		case ir.Abs:
			if !ok {
				return fresh("float abs")
			}
			a := x.expr(e.Args[0], env)
			if !s.Signed {
				return a
			}
			return &its.Ite{C: its.B(its.Slt, a, its.C(0, s)), T: &its.Unary{Op: its.Neg, X: a}, E: a}
		}
		return fresh(e.Op.String())
	}
	return fresh(fmt.Sprintf("%T", e))
}

func (x *fx) binary(e *ir.Binary, s its.Sort, ok bool, env map[string]its.Expr) its.Expr {
	ot, ook := sortOf(e.X.Type())
	if !ook {
		return &its.Nondet{Sort: orI32(s, ok), Why: "float " + e.Op.String()}
	}
	a, b := x.expr(e.X, env), x.expr(e.Y, env)
	signed := e.X.Type().IsSigned()
	if ot.IsBool() {
		switch e.Op {
		case ir.LogAnd, ir.And:
			return its.B(its.LAnd, a, b)
		case ir.LogOr, ir.Or:
			return its.B(its.LOr, a, b)
		case ir.Eq:
			return its.B(its.Eq, boolBit(a), boolBit(b))
		case ir.Ne, ir.Xor:
			return its.B(its.Ne, boolBit(a), boolBit(b))
		}
		return &its.Nondet{Sort: orI32(s, ok), Why: "bool " + e.Op.String()}
	}
	pick := func(sop, uop its.Op) its.Op {
		if signed {
			return sop
		}
		return uop
	}
	switch e.Op {
	case ir.Add:
		return its.B(its.Add, a, b)
	case ir.Sub:
		return its.B(its.Sub, a, b)
	case ir.Mul:
		return its.B(its.Mul, a, b)
	case ir.Div:
		return its.B(pick(its.SDiv, its.UDiv), a, b)
	case ir.Rem:
		return its.B(pick(its.SRem, its.URem), a, b)
	case ir.And:
		return its.B(its.And, a, b)
	case ir.Or:
		return its.B(its.Or, a, b)
	case ir.Xor:
		return its.B(its.Xor, a, b)
	case ir.Shl, ir.Shr:
		// The count is taken modulo the width (Note [Semantics] in ir).
		if c, isC := b.(*its.Const); !isC || c.Val.Sign() < 0 || c.Val.Int64() >= int64(ot.Width) {
			b = its.B(its.And, b, its.C(int64(ot.Width-1), ot))
		}
		if e.Op == ir.Shl {
			return its.B(its.Shl, a, b)
		}
		return its.B(pick(its.AShr, its.LShr), a, b)
	case ir.Eq:
		return its.B(its.Eq, a, b)
	case ir.Ne:
		return its.B(its.Ne, a, b)
	case ir.Lt:
		return its.B(pick(its.Slt, its.Ult), a, b)
	case ir.Le:
		return its.B(pick(its.Sle, its.Ule), a, b)
	case ir.Gt:
		return its.B(pick(its.Sgt, its.Ugt), a, b)
	case ir.Ge:
		return its.B(pick(its.Sge, its.Uge), a, b)
	}
	return &its.Nondet{Sort: orI32(s, ok), Why: e.Op.String()}
}

func orI32(s its.Sort, ok bool) its.Sort {
	if !ok {
		return its.I32
	}
	return s
}

func boolBit(e its.Expr) its.Expr {
	return &its.Ite{C: e, T: its.C(1, bit), E: its.C(0, bit)}
}

// resize converts between integer sorts and bool as C does.
func resize(a its.Expr, from, to its.Sort, signed bool) its.Expr {
	switch {
	case from.IsBool() && to.IsBool():
		return a
	case from.IsBool():
		return &its.Ite{C: a, T: its.C(1, to), E: its.C(0, to)}
	case to.IsBool():
		return its.B(its.Ne, a, its.C(0, from))
	case from.Width == to.Width:
		if from == to {
			return a
		}
		// Same bits, another reading: a cast to the other signedness of one width.
		return &its.Cast{Op: its.ZExt, X: a, To: to}
	case from.Width > to.Width:
		// trunc(ext(x)) back to x's own sort is x.
		if c, ok := a.(*its.Cast); ok && (c.Op == its.SExt || c.Op == its.ZExt) && its.SortOf(c.X) == to {
			return c.X
		}
		return &its.Cast{Op: its.Trunc, X: a, To: to}
	case signed:
		return &its.Cast{Op: its.SExt, X: a, To: to}
	}
	return &its.Cast{Op: its.ZExt, X: a, To: to}
}

// load reads a buffer: fresh where the function writes it (or another thread may), an
// uninterpreted function of the index otherwise; a variable no transition updates where the
// index depends only on parameters and launch values (Note [Hoisted loads] in analysis/fromllvm).
func (x *fx) load(e *ir.Load, s its.Sort, ok bool, env map[string]its.Expr) its.Expr {
	if !ok {
		return &its.Nondet{Sort: its.I32, Why: "float load " + e.Buf}
	}
	if x.m.Buffer(e.Buf) == nil || x.written[e.Buf] || x.written["*"] {
		return x.bounded(e.Buf, &its.Nondet{Sort: s, Why: "load " + e.Buf}, s)
	}
	idx := x.expr(e.Index, env)
	vs := s
	if vs.IsBool() {
		vs = bit
	}
	if x.fixed(idx) {
		key := e.Buf + "|" + idx.String()
		v, have := x.loads[key]
		if !have {
			name := fmt.Sprintf("%s[%s]", e.Buf, idx)
			for i := 2; x.taken(name); i++ {
				name = fmt.Sprintf("%s[%s]_%d", e.Buf, idx, i)
			}
			v = its.Var{Name: name, Sort: vs}
			x.loads[key] = v
			x.sys.Vars = append(x.sys.Vars, v)
			if in := x.inBound(e.Buf, its.R(v), vs); in != nil {
				x.sys.Facts = append(x.sys.Facts, its.Fact{Expr: in, Why: its.BoundWhy + e.Buf + " (checked)"})
			}
		}
		if vs == bit {
			return its.B(its.Ne, its.R(v), its.C(0, bit))
		}
		return its.R(v)
	}
	if vs == bit {
		return its.B(its.Ne, &its.Load{Buffer: e.Buf, Addr: idx, Sort: bit}, its.C(0, bit))
	}
	return x.bounded(e.Buf, &its.Load{Buffer: e.Buf, Addr: idx, Sort: s}, s)
}

// fixed reports whether e reads only variables no statement assigns: parameters and launch
// values.
func (x *fx) fixed(e its.Expr) bool {
	return its.ReadsOnly(e, func(name string) bool {
		for _, p := range x.sys.Params {
			if p == name {
				return !x.assigned(p)
			}
		}
		for _, v := range x.launch {
			if v.Name == name {
				return true
			}
		}
		return false
	})
}

// assigned reports whether the function assigns the local or parameter name anywhere.
func (x *fx) assigned(name string) bool {
	found := false
	ir.WalkStmts(x.f.Body, func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Assign:
			found = found || s.Name == name
		case *ir.Atomic:
			found = found || s.Dst == name
		case *ir.For:
			if a, ok := s.Post.(*ir.Assign); ok && a.Name == name {
				found = true
			}
			if a, ok := s.Init.(*ir.Assign); ok && a.Name == name {
				found = true
			}
		}
		return true
	})
	return found
}
