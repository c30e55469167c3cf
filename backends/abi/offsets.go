package abi

import "gpuc/ir"

// Note [Offset facts]
//
// A scan that reads a window data[i], data[i + 1], ..., data[i + d] tests
// the window's end once, `i + d < n` or `i + d <= n`, and reads inside
// it: the carve scan's pre-filter, under `0 <= i && i + 67 < N`, and each
// header's match, under `i + len <= N` (examples/fork/carve.fork after
// partial evaluation). The facts of Note [Range facts] are about printed
// expressions, so `i + 67 < N` said nothing of `i + 1`. offsetInRange
// reads such a fact for an index x + c, with c a constant:
//
//	0 <= x,  x < n,  x + d < n (or x + d <= n, c < d),  0 <= c <= d
//	gives 0 <= x + c < n
//
// where n is the length of the buffer read and the sums are i64. It
// holds without a wrap: n, a buffer's length, is below 2^62 wherever
// device code runs (the host allocated the buffer first, and the bytes
// of 2^62 elements cannot be allocated: gpuc_add_bytes saturates), so
// x < n keeps x + d below 2^63 for d < 2^62. The fact x < n comes from
// a condition or an access as usual: the scan's loop `i < N`, or the
// read of data[i] itself.
//
// x + d <= n is a fact of its own kind (le), which nothing else reads:
// from `i + 6 <= N` the other rules must not conclude i + 6 < N.

// newLeFact is the fact x <= n (Note [Offset facts]).
func newLeFact(x, n ir.Expr) fact {
	f := newFact(x, n)
	f.le = true
	f.key += "\x00le"
	return f
}

// offsetLimit bounds the constants c and d of Note [Offset facts].
const offsetLimit = int64(1) << 62

// offset splits e, stripped, into x + c for an i64 sum with a constant
// c: false where e is no such sum.
func offset(e ir.Expr) (x ir.Expr, c int64, ok bool) {
	b, isBin := strip(e).(*ir.Binary)
	if !isBin || b.Op != ir.Add || b.Type() != ir.I64 {
		return nil, 0, false
	}
	if k, isConst := b.Y.(*ir.Const); isConst && k.T == ir.I64 {
		return strip(b.X), k.Int(), true
	}
	if k, isConst := b.X.(*ir.Const); isConst && k.T == ir.I64 {
		return strip(b.Y), k.Int(), true
	}
	return nil, 0, false
}

// offsetInRange reports whether index, x + c, lies in [0, length) by a
// fact about x + d under k (Note [Offset facts]).
func (pl *planner) offsetInRange(index, length ir.Expr, k *known) bool {
	x, c, ok := offset(index)
	if !ok || c < 0 || c >= offsetLimit {
		return false
	}
	kx := ir.PrintExpr(x)
	if !pl.nonNeg(x, kx, k) {
		return false
	}
	below := false
	for n := k; n != nil && !below; n = n.next {
		below = n.f.n != nil && !n.f.le && n.f.kx() == kx && pl.sameLength(n.f.n, length)
	}
	if !below {
		return false
	}
	for n := k; n != nil; n = n.next {
		if n.f.n == nil || !pl.sameLength(n.f.n, length) {
			continue
		}
		fx, d, ok := offset(n.f.x)
		if !ok || d >= offsetLimit || ir.PrintExpr(fx) != kx {
			continue
		}
		if c < d || c == d && !n.f.le {
			return true
		}
	}
	return false
}
