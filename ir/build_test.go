package ir_test

import (
	"testing"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// The builder's helpers that CHR needs: Cast keeps a conversion of a
// constant (Conv folds it) and drops one to the same type, And treats nil
// as true, and every node carries the builder's position.
func TestBuilderCastAndPositions(t *testing.T) {
	pos := diag.Pos{File: "x.chr", Line: 3, Col: 7}
	b := ir.NewBuilder(&ir.Module{}, pos, new([]ir.Stmt))
	c, ok := b.Cast(ir.I64, b.I32(2)).(*ir.Convert)
	if !ok || c.T != ir.I64 || c.Pos != pos {
		t.Fatalf("Cast(i64, 2) = %#v, want a positioned conversion", b.Cast(ir.I64, b.I32(2)))
	}
	if _, ok := b.Conv(ir.I64, b.I32(2)).(*ir.Const); !ok {
		t.Errorf("Conv(i64, 2) is not folded")
	}
	x := b.Local("x", ir.I64)
	if got := b.Cast(ir.I64, x); got != x {
		t.Errorf("Cast to the expression's own type = %v, want it unchanged", got)
	}
	if b.And(nil, nil) != nil || b.And(nil, x) != x || b.And(x, nil) != x {
		t.Errorf("And does not treat nil as true")
	}
	for _, e := range []ir.Expr{b.F64(0.5), b.Neg(x), b.And(x, x)} {
		if e.At() != pos {
			t.Errorf("%v at %v, want %v", e, e.At(), pos)
		}
	}
	if f := b.F64(0.5).(*ir.Const); f.T != ir.F64 || f.Float() != 0.5 {
		t.Errorf("F64(0.5) = %v", f)
	}
}
