package abi

import (
	"strconv"

	"gpuc/ir"
)

// Checks of the values written into buffers with a below bound (Note
// [Bounded buffers] in package ir), and the facts their loads give (Note
// [Range facts]): a load from such a buffer of length B, bounded below B,
// lies in [0, B), so it indexes any buffer of B elements unchecked. The
// length must be the bound: the load's own access in range then shows
// that B is at least 1, so that the buffer's first contents, zeros, are
// below it too. A store into the buffer checks its value unless the
// facts there put it in [0, B).

// writeOf is the plan's key of the check of the value that a store
// writes, beside the store's own (the index's).
type writeOf struct{ s *ir.Store }

// WriteCheck is the node of the check of the value that s writes, for
// Elide and Settled.
func WriteCheck(s *ir.Store) any { return writeOf{s} }

// BoundExpr is the below bound of b as an expression over parameters
// and constants, or nil where b has none or it names no parameter.
func BoundExpr(m *ir.Module, b *ir.Buffer) ir.Expr {
	if b == nil || !b.Below || b.Bound == "" {
		return nil
	}
	if n, err := strconv.ParseInt(b.Bound, 10, 64); err == nil {
		if int64(int32(n)) == n {
			return ir.IntConst(ir.I32, n)
		}
		return ir.IntConst(ir.I64, n)
	}
	if p := m.Param(b.Bound); p != nil {
		return &ir.ParamRef{Pos: b.Pos, Name: p.Name, T: p.Type}
	}
	return nil
}

// below is the bound B where e, stripped of conversions that keep its
// value, is a load from a buffer of length B bounded below B, or a
// select of two such loads; nil otherwise.
func (pl *planner) below(e ir.Expr) ir.Expr {
	switch x := strip(e).(type) {
	case *ir.Load:
		b := pl.m.Buffer(x.Buf)
		if n := BoundExpr(pl.m, b); n != nil && pl.sameLength(n, b.Len) {
			return n
		}
	case *ir.Select:
		if n := pl.below(x.X); n != nil {
			if n2 := pl.below(x.Y); n2 != nil && ir.PrintExpr(n) == ir.PrintExpr(n2) {
				return n
			}
		}
	}
	return nil
}

// write notes the check of the value that s writes, where its buffer has
// a below bound, under after (what holds after the store's operands and
// index), and returns after with the value's facts.
func (pl *planner) write(s *ir.Store, after *known) *known {
	b := pl.m.Buffer(s.Buf)
	n := BoundExpr(pl.m, b)
	if !CheckedWrite(b) || s.Value == nil {
		return after
	}
	pl.note(writeOf{s}, n != nil && pl.inRange(s.Value, n, after))
	if n == nil || !stable(s.Value) {
		return after
	}
	return after.add(newFact(s.Value, nil), newFact(s.Value, n))
}
