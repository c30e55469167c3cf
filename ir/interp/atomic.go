package interp

import (
	"sync/atomic"

	"gpuc/ir"
)

// atomic compiles a read-modify-write. Blocks may run on several
// goroutines, so the update is a compare-and-swap loop on the element.
// Multiprefix operations are the same updates: processors of a region run
// in pid order, which serves them in pid order (Note [Segments]).
func (c *compiler) atomic(s *ir.Atomic) stmtFn {
	switch {
	case !c.mode.device():
		c.errorf(s.Pos, "atomic in %s", c.mode)
		return nop
	case s.Op.IsMultiprefix() && c.mode != modeRegion && c.mode != modeDevice:
		c.errorf(s.Pos, "%s in %s; multiprefix operations exist only in SPMD regions", s.Op, c.mode)
		return nop
	case len(s.Args) != s.Op.Operands():
		c.errorf(s.Pos, "atomic %s takes %d operands, not %d", s.Op, s.Op.Operands(), len(s.Args))
		return nop
	}
	m, addr := c.address(s.Buf, s.Index, s.Pos)
	if addr == nil {
		return nop
	}
	rmw := rmwOp(s.Op, m.elem)
	if rmw == nil {
		c.errorf(s.Pos, "atomic %s on %s", s.Op, m.elem)
		return nop
	}
	args := c.exprs(s.Args)
	a, b := args[0], evalFn(zero)
	if len(args) > 1 {
		b = args[1]
	}
	dst := -1
	if s.Dst != "" {
		var ok bool
		if dst, ok = c.lookup(s.Dst, s.Pos); !ok {
			return nop
		}
	}
	check := c.boundCheck(s.Buf, s.Pos)
	return func(f *frame) ctl {
		d, i := addr(f)
		va := a(f)
		vb := b(f)
		p := &d[i]
		var old, v ir.Bits
		for {
			old = atomic.LoadUint64(p)
			if v = rmw(old, va, vb); v == old || atomic.CompareAndSwapUint64(p, old, v) {
				break
			}
		}
		if check != nil {
			check(v)
		}
		if dst >= 0 {
			f.regs[dst] = old
		}
		return ctlNext
	}
}

// rmwOp returns the new value that op computes from the old value and its
// operands a (and b for cas) on elements of type t, or nil if op does not
// apply to t.
func rmwOp(op ir.AtomicOp, t ir.Type) func(old, a, b ir.Bits) ir.Bits {
	binary := func(o ir.BinOp) func(old, a, b ir.Bits) ir.Bits {
		return func(old, a, _ ir.Bits) ir.Bits {
			v, _ := ir.EvalBinary(o, t, old, a)
			return v
		}
	}
	builtin := func(o ir.BuiltinOp) func(old, a, b ir.Bits) ir.Bits {
		return func(old, a, _ ir.Bits) ir.Bits { return ir.EvalBuiltin(o, t, old, a) }
	}
	switch {
	case !t.IsScalar():
		return nil
	case op == ir.AtomicExch:
		return func(_, a, _ ir.Bits) ir.Bits { return a }
	case op == ir.AtomicCAS:
		return func(old, a, b ir.Bits) ir.Bits {
			if old == a {
				return b
			}
			return old
		}
	case !t.IsNumeric():
		return nil
	case op == ir.AtomicAdd || op == ir.MultiAdd:
		return binary(ir.Add)
	case op == ir.AtomicSub:
		return binary(ir.Sub)
	case op == ir.AtomicMin || op == ir.MultiMin:
		return builtin(ir.Min)
	case op == ir.AtomicMax || op == ir.MultiMax:
		return builtin(ir.Max)
	case !t.IsInt():
		return nil
	case op == ir.AtomicAnd || op == ir.MultiAnd:
		return binary(ir.And)
	case op == ir.AtomicOr || op == ir.MultiOr:
		return binary(ir.Or)
	case op == ir.AtomicXor:
		return binary(ir.Xor)
	case op == ir.AtomicInc:
		ge := binary(ir.Ge)
		return func(old, a, _ ir.Bits) ir.Bits {
			if ge(old, a, 0) != 0 {
				return 0
			}
			return ir.Normalize(t, old+1)
		}
	}
	return nil
}

// prioMark records the priority store that holds an element: its barrier
// interval and the pid() of its processor.
type prioMark struct {
	interval uint64
	pid      int64
}

// prioStore compiles a priority store: within one barrier interval of a
// group, the store of the lowest pid() wins; of one processor's stores,
// the last.
func (c *compiler) prioStore(s *ir.Store, m *memory, addr addrFn, v evalFn) stmtFn {
	if c.mode != modeRegion || m.shared >= 0 {
		c.errorf(s.Pos, "priority store in %s", c.mode)
		return nop
	}
	if m.prio == nil {
		m.prio = make([]prioMark, len(m.data))
	}
	rc, pos := c.x.race, uint32(0)
	if rc != nil {
		pos = rc.pos(s.Pos)
	}
	return func(f *frame) ctl {
		d, i := addr(f)
		val := v(f)
		if rc != nil {
			rc.prioWrite(f.th, m, i, pos)
		}
		mark, th := &m.prio[i], f.th
		if mark.interval == th.blk.interval && mark.pid < th.pid {
			return ctlNext
		}
		*mark = prioMark{interval: th.blk.interval, pid: th.pid}
		d[i] = val
		return ctlNext
	}
}
