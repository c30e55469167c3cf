package interp

import (
	"strconv"

	"gpuc/ir"
)

// boundCheck gives the check of a write into a bounded buffer (Note
// [Bounded buffers] in package ir), or nil where the buffer has no bound.
// The check faults at pos when the value written lies outside [0, B].
func (c *compiler) boundCheck(buf string, pos ir.Pos) func(ir.Bits) {
	b := c.x.mod.Buffer(buf)
	if b == nil || b.Bound == "" {
		return nil
	}
	if b.Below {
		return c.belowCheck(b, pos)
	}
	var hi int64
	if n, err := strconv.ParseInt(b.Bound, 10, 64); err == nil {
		hi = n
	} else {
		p := c.x.mod.Param(b.Bound)
		v, ok := c.x.params[b.Bound]
		if p == nil || !ok {
			c.errorf(b.Pos, "buffer %s has bound %s, which is no parameter", b.Name, b.Bound)
			return nil
		}
		hi = int64(v)
		if !p.Type.IsSigned() && hi < 0 {
			hi = -1 // an unsigned bound past 2^63 bounds nothing an i64 holds
		}
	}
	t := b.Elem
	return func(v ir.Bits) {
		in := hi >= 0 && v <= uint64(hi)
		if t.IsSigned() {
			in = int64(v) >= 0 && int64(v) <= hi
		}
		if !in {
			fault(pos, "buffer %s is bounded by %s = %d (Note [Bounded buffers]), but a write stores %s", b.Name, b.Bound, hi, ir.FormatValue(t, v))
		}
	}
}

// belowCheck is boundCheck of a buffer with a below bound B: the value
// written, widened to 64 bits by its type, must be below B as unsigned
// 64-bit integers, the comparison generated code makes (Note [Bounded
// buffers] in package ir; abi.BelowFault is its message).
func (c *compiler) belowCheck(b *ir.Buffer, pos ir.Pos) func(ir.Bits) {
	var hi ir.Bits
	if n, err := strconv.ParseInt(b.Bound, 10, 64); err == nil {
		hi = ir.Bits(n)
	} else {
		p := c.x.mod.Param(b.Bound)
		v, ok := c.x.params[b.Bound]
		if p == nil || !ok {
			c.errorf(b.Pos, "buffer %s has bound %s, which is no parameter", b.Name, b.Bound)
			return nil
		}
		hi = ir.Normalize(p.Type, v)
	}
	t := b.Elem
	return func(v ir.Bits) {
		if x := ir.Normalize(t, v); x >= hi {
			fault(pos, "%s", ir.BelowMessage(b, ir.FormatValue(t, v), strconv.FormatInt(int64(hi), 10)))
		}
	}
}
