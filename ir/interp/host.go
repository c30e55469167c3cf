package interp

import (
	"io"
	"strings"

	"gpuc/ir"
)

// runMain runs the host program, on every device (Note [Devices]).
func (x *machine) runMain() {
	if x.world != nil {
		x.runWorld()
		return
	}
	x.runMainOn(0)
}

// runMainOn runs device d's copy of the host program.
func (x *machine) runMainOn(d int) {
	main := x.funcs["main"]
	main.body(&frame{regs: make([]ir.Bits, main.nslots), th: &x.hosts[d].thread})
}

// hostStmt compiles the statements that only host code has.
func (c *compiler) hostStmt(s ir.Stmt) stmtFn {
	if _, ok := s.(*ir.Printf); ok && c.mode == modeRegion {
		return c.printf(s.(*ir.Printf))
	}
	if c.mode != modeHost {
		c.errorf(s.At(), "%s in %s; it is a host statement", stmtName(s), c.mode)
		return nop
	}
	switch s := s.(type) {
	case *ir.Launch:
		return c.launch(s)
	case *ir.Region:
		return c.region(s)
	case *ir.Copy:
		return c.copyStmt(s)
	case *ir.Swap:
		return c.swap(s)
	case *ir.Printf:
		return c.printf(s)
	case *ir.Write:
		return c.write(s)
	case *ir.WorldBarrier:
		return c.worldBarrier(s)
	case *ir.AllGather:
		return c.allGather(s)
	case *ir.AllReduce:
		return c.allReduce(s)
	}
	return nop
}

// write writes the first n bytes of a u8 host array or device buffer to
// the output.
func (c *compiler) write(s *ir.Write) stmtFn {
	src, count, nt, pos := c.hostMemory(s.Array, s.Pos), c.expr(s.Count), typeOf(s.Count), s.Pos
	switch {
	case src == nil:
		return nop
	case src.elem != ir.U8:
		c.errorf(pos, "write of %s, which holds %s; write takes a host array or buffer of u8", s.Array, src.elem)
		return nop
	}
	out := c.x.out
	return func(f *frame) ctl {
		n := asInt(nt, count(f))
		if n < 0 {
			fault(pos, "write of a negative count %d", n)
		}
		checkRange(pos, src, 0, n)
		if f.th.mute {
			return ctlNext // only device 0 writes (Note [Devices])
		}
		text := make([]byte, n)
		for i, b := range src.at(f.th.dev)[:n] {
			text[i] = byte(b)
		}
		out.Write(text)
		return ctlNext
	}
}

func stmtName(s ir.Stmt) string {
	switch s.(type) {
	case *ir.Launch:
		return "launch"
	case *ir.Region:
		return "region"
	case *ir.Copy:
		return "copy"
	case *ir.Swap:
		return "swap"
	case *ir.Write:
		return "write"
	case *ir.WorldBarrier:
		return "world_barrier"
	case *ir.AllGather:
		return "allgather"
	case *ir.AllReduce:
		return "allreduce"
	}
	return "printf"
}

func (c *compiler) launch(s *ir.Launch) stmtFn {
	k := c.x.funcs[s.Kernel]
	switch {
	case k == nil || k.fn.Kind != ir.KernelFunc:
		c.errorf(s.Pos, "launch of %s, which is not a kernel", s.Kernel)
		return nop
	case len(s.Args) != len(k.fn.Params):
		c.errorf(s.Pos, "kernel %s takes %d arguments, not %d", s.Kernel, len(k.fn.Params), len(s.Args))
		return nop
	}
	args, grid, blockSize := c.exprs(s.Args), c.expr(s.Grid), c.expr(s.Block)
	gt, bt, x, pos, coop, world, stride := typeOf(s.Grid), typeOf(s.Block), c.x, s.Pos, s.Coop, s.World, s.Stride
	var fallback stmtFn
	if s.Fallback != nil {
		fallback = c.stmts(s.Fallback)
	}
	return func(f *frame) ctl {
		vals := make([]ir.Bits, len(args))
		for i, a := range args {
			vals[i] = a(f)
		}
		g, b := asInt(gt, grid(f)), asInt(bt, blockSize(f))
		x.step(pos)
		// A world launch's cooperative capacity is each device's.
		if perDevice := (g + int64(x.devices) - 1) / int64(x.devices); world && (!coop || x.coopFits(perDevice, b)) {
			x.worldRun(f, "a world launch of "+k.fn.Name, pos, func([][]ir.Bits) {
				if coop {
					x.coopLaunch(k, vals, g, b, pos)
				} else {
					x.launch(k, vals, g, b, pos)
				}
			})
			return ctlNext
		}
		x.place = placement{dev: f.th.dev}
		if !coop {
			x.launch(k, vals, g, b, pos)
			return ctlNext
		}
		if !world && x.coopFits(g, b) {
			x.coopLaunch(k, vals, g, b, pos)
			return ctlNext
		}
		// A strided launch runs as many blocks as fit, where one does.
		if held := x.coopThreads() / max(b, 1); stride && g > 0 && held >= 1 {
			x.coopLaunch(k, vals, min(g, held), b, pos)
			return ctlNext
		}
		if fallback == nil {
			fault(pos, "cooperative launch of %d blocks of %d threads does not fit: at most %d threads run at once", g, b, x.coopThreads())
		}
		return fallback(f)
	}
}

// hostMemory resolves a memory that a copy or swap names.
func (c *compiler) hostMemory(name string, pos ir.Pos) *memory {
	m := c.x.mems[name]
	switch {
	case m == nil:
		c.errorf(pos, "undeclared buffer or array %s", name)
	case m.shared >= 0:
		c.errorf(pos, "shared buffer %s in host code; shared memory belongs to the blocks of a kernel", name)
	default:
		return m
	}
	return nil
}

func (c *compiler) copyStmt(s *ir.Copy) stmtFn {
	dst, src := c.hostMemory(s.Dst, s.Pos), c.hostMemory(s.Src, s.Pos)
	dOff, sOff, count := c.expr(s.DstOff), c.expr(s.SrcOff), c.expr(s.Count)
	dt, st, nt, pos, x := typeOf(s.DstOff), typeOf(s.SrcOff), typeOf(s.Count), s.Pos, c.x
	switch {
	case dst == nil || src == nil:
		return nop
	case dst.elem != src.elem:
		c.errorf(pos, "copy from %s of %s to %s of %s; element types differ", src.name, src.elem, dst.name, dst.elem)
		return nop
	}
	return func(f *frame) ctl {
		do, so, n := asInt(dt, dOff(f)), asInt(st, sOff(f)), asInt(nt, count(f))
		if n < 0 {
			fault(pos, "copy of a negative count %d", n)
		}
		checkRange(pos, dst, do, n)
		checkRange(pos, src, so, n)
		d, s := dst.at(f.th.dev), src.at(f.th.dev)
		if x.world != nil && dst.world && dst.space == ir.Distributed {
			// Each device's host writes the elements it owns.
			lo, hi := x.block(f.th.dev, int64(len(d)))
			lo, hi = max(lo, do), min(hi, do+n)
			if lo < hi {
				copy(d[lo:hi], s[so+lo-do:so+hi-do])
			}
			return ctlNext
		}
		copy(d[do:do+n], s[so:so+n])
		return ctlNext
	}
}

// checkRange checks that m holds the n elements from off.
func checkRange(pos ir.Pos, m *memory, off, n int64) {
	size := int64(len(m.data))
	if off < 0 || n > size || off > size-n {
		fault(pos, "copy range [%d, %d+%d) is out of bounds for %s %s of length %d", off, off, n, m.kind, m.name, size)
	}
}

func (c *compiler) swap(s *ir.Swap) stmtFn {
	a, b, pos, x := c.hostMemory(s.A, s.Pos), c.hostMemory(s.B, s.Pos), s.Pos, c.x
	switch {
	case a == nil || b == nil:
		return nop
	case a.host || b.host:
		c.errorf(pos, "swap of a host array; swap exchanges device buffers")
		return nop
	case a.elem != b.elem:
		c.errorf(pos, "swap of %s (%s) and %s (%s), which differ in type", a.name, a.elem, b.name, b.elem)
		return nop
	}
	return func(f *frame) ctl {
		if len(a.data) != len(b.data) {
			fault(pos, "swap of %s (length %d) and %s (length %d), which differ in length", a.name, len(a.data), b.name, len(b.data))
		}
		switch {
		case a.inst != nil && b.inst != nil:
			d := f.th.dev
			a.inst[d], b.inst[d] = b.inst[d], a.inst[d]
			a.data, b.data = a.inst[0], b.inst[0]
		case x.world != nil:
			// One storage for the world: the swap is a collective.
			x.arrive(f.th.dev, arrival{what: "swap " + a.name + ", " + b.name, pos: pos}, func([]arrival) {
				a.data, b.data = b.data, a.data
			})
		default:
			a.data, b.data = b.data, a.data
		}
		return ctlNext
	}
}

// discard is an io.StringWriter that drops what it is given.
type discard struct{}

func (discard) WriteString(s string) (int, error) { return len(s), nil }

// printfArg is one compiled printf argument: a value or a string literal.
type printfArg struct {
	value evalFn
	t     ir.Type
	str   string
}

func (c *compiler) printf(s *ir.Printf) stmtFn {
	pieces, err := ir.ParseFormat(s.Format)
	if err != nil {
		c.errorf(s.Pos, "%v", err)
		return nop
	}
	var args []printfArg
	for _, p := range pieces {
		if p.Verb == 0 {
			continue
		}
		if len(args) == len(s.Args) {
			c.errorf(s.Pos, "printf format has more conversions than the %d arguments", len(s.Args))
			return nop
		}
		e := s.Args[len(args)]
		a := printfArg{t: typeOf(e)}
		if str, ok := e.(*ir.Str); ok {
			a.str = str.Value
		} else {
			a.value = c.expr(e)
		}
		if !p.Accepts(a.t) {
			c.errorf(s.Pos, "printf argument %d for %s has type %s, want %s", len(args)+1, p.Spec(), a.t, p.Want())
		}
		args = append(args, a)
	}
	if len(args) != len(s.Args) {
		c.errorf(s.Pos, "printf format has %d conversions but %d arguments", len(args), len(s.Args))
		return nop
	}
	format := func(f *frame, out io.StringWriter) {
		vals := make([]ir.Bits, len(args))
		for i, a := range args {
			if a.value != nil {
				vals[i] = a.value(f)
			}
		}
		i := 0
		for _, p := range pieces {
			if p.Verb == 0 {
				out.WriteString(p.Lit)
				continue
			}
			out.WriteString(p.FormatC(args[i].t, vals[i], args[i].str))
			i++
		}
	}
	if s.Stderr {
		stderr := c.x.cfg.Stderr
		return func(f *frame) ctl {
			var line strings.Builder
			format(f, &line)
			if stderr != nil && !f.th.mute {
				// Unbuffered, as C's stderr: the text in one write.
				io.WriteString(stderr, line.String())
			}
			return ctlNext
		}
	}
	out := c.x.out
	return func(f *frame) ctl {
		if f.th.mute {
			// A muted device evaluates the arguments, which may call.
			format(f, discard{})
		} else {
			format(f, out)
		}
		return ctlNext
	}
}
