package fromir

import (
	"math/big"

	"gpuc/analysis/its"
	"gpuc/ir"
)

// inBound gives the checked fact of a bounded buffer (Note [Bounded buffers] in package ir)
// about a value v of sort s loaded from it, 0 <= v <= B, or nil where the buffer has no bound.
// The interpreter faults on any write outside the range, so every value a load can see is in it
// or is the zero a scratch buffer starts with.
func (x *fx) inBound(buf string, v its.Expr, s its.Sort) its.Expr {
	b := x.m.Buffer(buf)
	if b == nil || b.Bound == "" || s.IsBool() || s.Width == 0 {
		return nil
	}
	var hi its.Expr
	if n, ok := new(big.Int).SetString(b.Bound, 10); ok {
		hi = &its.Const{Val: its.I64.Norm(n), Sort: its.I64}
	} else if p := x.m.Param(b.Bound); p != nil {
		ps, ok := sortOf(p.Type)
		if !ok || ps.IsBool() {
			return nil
		}
		hi = resize(x.expr(&ir.ParamRef{Pos: b.Pos, Name: p.Name, T: p.Type}, nil), ps, its.I64, ps.Signed)
	} else {
		return nil
	}
	w := resize(v, s, its.I64, s.Signed)
	return its.B(its.LAnd, its.B(its.Sle, its.C(0, its.I64), w), its.B(its.Sle, w, hi))
}

// bounded gives a loaded value v read through its buffer's bound: v where it is in range,
// else 0, which covers every value a load can see (see inBound).
func (x *fx) bounded(buf string, v its.Expr, s its.Sort) its.Expr {
	in := x.inBound(buf, v, s)
	if in == nil {
		return v
	}
	// Where the bound has the value's sort, two plain compares, which interval analysis reads
	// (its upper bound as the arm's); else one conjunction over 64 bits.
	b := x.m.Buffer(buf)
	if p := x.m.Param(b.Bound); p != nil {
		if ps, ok := sortOf(p.Type); ok && ps == s {
			hi := x.expr(&ir.ParamRef{Pos: b.Pos, Name: p.Name, T: p.Type}, nil)
			le, ge := its.Ule, its.Uge
			if s.Signed {
				le, ge = its.Sle, its.Sge
			}
			return &its.Ite{C: its.B(ge, v, its.C(0, s)), T: &its.Ite{C: its.B(le, v, hi), T: v, E: its.C(0, s)}, E: its.C(0, s)}
		}
	}
	return &its.Ite{C: in, T: v, E: its.C(0, s)}
}
