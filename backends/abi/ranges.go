package abi

import (
	"math"
	"math/bits"

	"gpuc/ir"
)

// Note [Constant ranges]
//
// An index computed from data by masks and shifts, such as the carve
// scan's pre-filter `pfs[2048 + ((b0 & 255) << 8 | (b1 & 255)) >> 5]`,
// has no fact of Note [Range facts] (its operands are loads), but its
// value lies in a range that constants bound: & with a constant c that
// is not negative gives [0, c], a shift by a constant scales the range,
// and so on. valueRange computes such a range bottom-up, in exact
// arithmetic, and falls back to the type's range wherever an operation
// could wrap in its type (so that the range always holds the computed
// value). An access whose index lies in [0, n) for a constant length n
// needs no check: the interpreter cannot fault there either.

// span is a range [lo, hi] of integer values.
type span struct{ lo, hi int64 }

// typeSpan is the values of integer type t, where they fit an int64.
func typeSpan(t ir.Type) (span, bool) {
	switch t {
	case ir.I8:
		return span{math.MinInt8, math.MaxInt8}, true
	case ir.U8:
		return span{0, math.MaxUint8}, true
	case ir.I32:
		return span{math.MinInt32, math.MaxInt32}, true
	case ir.U32:
		return span{0, math.MaxUint32}, true
	case ir.I64:
		return span{math.MinInt64, math.MaxInt64}, true
	}
	return span{}, false
}

// fits reports whether s lies within the values of type t.
func fits(s span, t ir.Type) bool {
	ts, ok := typeSpan(t)
	return ok && s.lo >= ts.lo && s.hi <= ts.hi
}

// valueRange is the range of integer expression e: exact where no
// operation in it could wrap, else its type's (Note [Constant ranges]);
// false for u64 values beyond that.
//
// A local set once, by its declaration (singles), has its value's range:
// ranges depend on constants and types only, not on memory, so the range
// of the value computed there holds wherever the local is read. depth
// bounds the locals followed.
func valueRange(e ir.Expr, singles map[string]ir.Expr, depth int) (span, bool) {
	t := e.Type()
	if !t.IsInt() {
		return span{}, false
	}
	switch x := e.(type) {
	case *ir.Var:
		if d := singles[x.Name]; d != nil && depth > 0 && d.Type() == t {
			return valueRange(d, singles, depth-1)
		}
	case *ir.Const:
		if t == ir.U64 && x.Bits > math.MaxInt64 {
			return span{}, false
		}
		v := int64(ir.Normalize(t, x.Bits))
		return span{v, v}, true
	case *ir.Convert:
		if s, ok := valueRange(x.X, singles, depth); ok && x.X.Type().IsInt() && fits(s, t) {
			return s, true
		}
	case *ir.Select:
		a, ok1 := valueRange(x.X, singles, depth)
		b, ok2 := valueRange(x.Y, singles, depth)
		if ok1 && ok2 {
			return span{min(a.lo, b.lo), max(a.hi, b.hi)}, true
		}
	case *ir.Binary:
		if s, ok := binaryRange(x, singles, depth); ok && fits(s, t) {
			return s, true
		}
	}
	return typeSpan(t) // whatever it is, a value of its type
}

// binaryRange is the exact range of x's value, before any wrap.
func binaryRange(x *ir.Binary, singles map[string]ir.Expr, depth int) (span, bool) {
	if x.Op == ir.And { // a mask: either side's range, where it is not negative
		a, ok1 := valueRange(x.X, singles, depth)
		b, ok2 := valueRange(x.Y, singles, depth)
		switch {
		case ok1 && ok2 && a.lo >= 0 && b.lo >= 0:
			return span{0, min(a.hi, b.hi)}, true
		case ok1 && a.lo >= 0:
			return span{0, a.hi}, true
		case ok2 && b.lo >= 0:
			return span{0, b.hi}, true
		}
		return span{}, false
	}
	a, ok1 := valueRange(x.X, singles, depth)
	b, ok2 := valueRange(x.Y, singles, depth)
	if !ok1 || !ok2 {
		return span{}, false
	}
	width := int64(x.Type().Size() * 8)
	switch x.Op {
	case ir.Add:
		return addSpan(a, b)
	case ir.Sub:
		if b.lo > math.MinInt64 {
			return addSpan(a, span{-b.hi, -b.lo})
		}
	case ir.Mul:
		if a.lo >= 0 && b.lo >= 0 && (a.hi == 0 || b.hi <= math.MaxInt64/a.hi) {
			return span{a.lo * b.lo, a.hi * b.hi}, true
		}
	case ir.Div:
		if a.lo >= 0 && b.lo > 0 {
			return span{a.lo / b.hi, a.hi / b.lo}, true
		}
	case ir.Rem:
		if a.lo >= 0 && b.lo > 0 {
			return span{0, min(a.hi, b.hi-1)}, true
		}
	case ir.Or, ir.Xor:
		if a.lo >= 0 && b.lo >= 0 {
			return span{0, int64(1)<<bits.Len64(uint64(max(a.hi, b.hi))) - 1}, true
		}
	case ir.Shl:
		if b.lo == b.hi && a.lo >= 0 {
			k := b.lo & (width - 1)
			if k < 63 && a.hi <= math.MaxInt64>>k {
				return span{a.lo << k, a.hi << k}, true
			}
		}
	case ir.Shr:
		if b.lo == b.hi && a.lo >= 0 {
			k := b.lo & (width - 1)
			return span{a.lo >> k, a.hi >> k}, true
		}
	}
	return span{}, false
}

// addSpan is a + b, or false where an end overflows an int64.
func addSpan(a, b span) (span, bool) {
	lo, hi := a.lo+b.lo, a.hi+b.hi
	if (b.lo > 0 && lo < a.lo) || (b.lo < 0 && lo > a.lo) || (b.hi > 0 && hi < a.hi) || (b.hi < 0 && hi > a.hi) {
		return span{}, false
	}
	return span{lo, hi}, true
}

// rangeDepth bounds the locals that valueRange follows to their values.
const rangeDepth = 8

// constInRange reports whether index lies in [0, length) by the ranges
// of Note [Constant ranges], for a constant length.
func (pl *planner) constInRange(index, length ir.Expr) bool {
	n, ok := length.(*ir.Const)
	if !ok || !n.T.IsInt() {
		return false
	}
	s, ok := valueRange(index, pl.singles, rangeDepth)
	nv := int64(ir.Normalize(n.T, n.Bits))
	return ok && s.lo >= 0 && s.hi < nv && !(n.T == ir.U64 && n.Bits > math.MaxInt64)
}
