package interp

import (
	"math"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// memory is a device buffer or a host array. A shared buffer has no data
// of its own: each block holds an instance (block.shared).
type memory struct {
	name   string
	kind   string // "buffer" or "array", for messages
	elem   ir.Type
	space  ir.Space
	host   bool        // a host array
	data   []ir.Bits   // nil for shared buffers
	shared int         // the index of a shared buffer's instances, else -1
	shadow pagedShadow // race mode: one per element, made on first access
	prio   []prioMark  // one per element if a priority store writes here
	// inst holds each device's instance of a per-device memory when the
	// world has several devices (Note [Devices]); data is inst[0].
	inst    [][]ir.Bits
	shadows []pagedShadow // race mode: the shadow of each instance but the first
	marks   []devMark     // race mode: cross-device state of a distributed buffer
	world   bool          // distributed or replicated: one storage for the world
}

// at is the instance of m that device dev sees.
func (m *memory) at(dev int) []ir.Bits {
	if m.inst != nil {
		return m.inst[dev]
	}
	return m.data
}

// allocate sizes every buffer and array from the parameters, zeroes them
// and fills static buffers.
func (x *machine) allocate() error {
	var errs diag.List
	x.mems = map[string]*memory{}
	var total int64
	declare := func(m *memory, pos ir.Pos, lenExpr ir.Expr) int64 {
		if _, dup := x.mems[m.name]; dup {
			errs.Add(pos, "%s %s declared twice", m.kind, m.name)
			return 0
		}
		x.mems[m.name] = m
		n := x.length(lenExpr, pos, m.kind+" "+m.name, &errs)
		if m.space == ir.Shared {
			if n > maxShared {
				errs.Add(pos, "shared buffer %s of %d elements is larger than the interpreter's limit of %d", m.name, n, maxShared)
				n = 0
			}
			m.shared = len(x.shared)
			x.shared = append(x.shared, n)
			return n
		}
		if total+n < total { // a huge length wraps the sum
			total = math.MaxInt64
		} else {
			total += n
		}
		if !m.world {
			n *= int64(x.devices) // an instance per device
		}
		if total > maxElements {
			errs.Add(pos, "buffers and arrays up to %s hold %d elements, more than the interpreter's limit of %d (it keeps 8 bytes an element)", m.name, total, maxElements)
			return 0
		}
		if !m.world && x.devices > 1 {
			n /= int64(x.devices)
			all := make([]ir.Bits, n*int64(x.devices))
			for d := range x.devices {
				m.inst = append(m.inst, all[int64(d)*n:int64(d+1)*n:int64(d+1)*n])
			}
			m.data = m.inst[0]
		} else {
			m.inst = nil
			m.data = make([]ir.Bits, n)
		}
		return n
	}
	for _, b := range x.mod.Buffers {
		m := &memory{name: b.Name, kind: "buffer", elem: b.Elem, space: b.Space, shared: -1}
		if b.Space == ir.Distributed || b.Space == ir.Replicated {
			m.world = true
		}
		n := declare(m, b.Pos, b.Len)
		switch {
		case b.Space == ir.Shared && b.Role != ir.Scratch:
			errs.Add(b.Pos, "shared buffer %s cannot be %s; shared buffers are scratch", b.Name, b.Role)
		case b.Role == ir.Static && int64(len(b.Init)) != n:
			errs.Add(b.Pos, "static buffer %s has %d values for length %d", b.Name, len(b.Init), n)
		case b.Role == ir.Static:
			copy(m.data, b.Init)
		}
	}
	for _, a := range x.mod.Arrays {
		declare(&memory{name: a.Name, kind: "array", elem: a.Elem, host: true, shared: -1}, a.Pos, a.Len)
	}
	return errs.Err()
}

// replicate copies device 0's instance of every per-device static or
// input buffer to the other devices' instances; the rest start zeroed
// everywhere, and are left untouched so that their pages stay unmapped.
func (x *machine) replicate() error {
	for _, b := range x.mod.Buffers {
		if m := x.mems[b.Name]; m != nil && (b.Role == ir.Static || b.Role == ir.Input) {
			for _, d := range m.inst[min(1, len(m.inst)):] {
				copy(d, m.inst[0])
			}
		}
	}
	return nil
}

// length evaluates the length of a buffer or array.
func (x *machine) length(e ir.Expr, pos ir.Pos, owner string, errs *diag.List) int64 {
	if e == nil {
		errs.Add(pos, "%s has no length", owner)
		return 0
	}
	n0 := len(*errs)
	fn := newCompiler(x, modeConst, errs).expr(e)
	if len(*errs) > n0 {
		return 0
	}
	n := asInt(e.Type(), fn(nil))
	if n < 0 {
		errs.Add(pos, "%s has negative length %d", owner, n)
		return 0
	}
	return n
}

// printOutputs prints every output buffer, in declaration order, one
// element per line (Note [Semantics] in package ir).
func (x *machine) printOutputs() {
	for _, b := range x.mod.Buffers {
		if b.Role != ir.Output {
			continue
		}
		p := outputFormat(b.Elem)
		for _, v := range x.mems[b.Name].data {
			x.out.WriteString(p.FormatC(b.Elem, v, ""))
			x.out.WriteByte('\n')
		}
	}
}

// outputFormat is the printf conversion that prints an output element of
// type t.
func outputFormat(t ir.Type) ir.FormatPiece {
	p := ir.FormatPiece{Verb: 'd', Width: -1, Prec: -1}
	switch t {
	case ir.U8, ir.U32:
		p.Verb = 'u'
	case ir.I64:
		p.Long = true
	case ir.U64:
		p.Verb, p.Long = 'u', true
	case ir.F32, ir.F64:
		p.Verb = 'f'
	}
	return p
}
