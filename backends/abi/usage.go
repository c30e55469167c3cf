package abi

import "gpuc/ir"

// usage is what a kernel or device function touches, in its own body or
// through the device functions it calls: the global and shared buffers
// (constant buffers are module globals that need no passing) and the
// module parameters, with those of the touched buffers' lengths where
// checks need them (Note [Checks]). Kernels and device functions receive these
// as arguments.
type usage struct {
	bufs    map[*ir.Buffer]bool
	written map[*ir.Buffer]bool // buffers stored to or updated atomically
	params  map[*ir.Param]bool
	callees map[*ir.Func]bool // device functions called directly
}

// analyzeUsage computes the usage of every kernel and device function: the
// direct uses of each, then the closure over the call graph by fixpoint,
// which recursion needs.
func analyzeUsage(m *ir.Module, checks bool) map[*ir.Func]*usage {
	use := map[*ir.Func]*usage{}
	for _, f := range m.Funcs {
		if f.Kind != ir.HostFunc {
			use[f] = directUsage(m, f, checks)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, f := range m.Funcs {
			u := use[f]
			if u == nil {
				continue
			}
			for g := range u.callees {
				if u.absorb(use[g]) {
					changed = true
				}
			}
		}
	}
	return use
}

func directUsage(m *ir.Module, f *ir.Func, checks bool) *usage {
	u := &usage{bufs: map[*ir.Buffer]bool{}, written: map[*ir.Buffer]bool{},
		params: map[*ir.Param]bool{}, callees: map[*ir.Func]bool{}}
	param := func(e ir.Expr) bool {
		if r, ok := e.(*ir.ParamRef); ok {
			if p := m.Param(r.Name); p != nil {
				u.params[p] = true
			}
		}
		return true
	}
	touch := func(name string, write bool) {
		b := m.Buffer(name)
		if b != nil && checks {
			ir.WalkExpr(b.Len, param)
		}
		if n := BoundExpr(m, b); n != nil && write && checks {
			ir.WalkExpr(n, param) // the check of a value written (BelowFault)
		}
		if b != nil && b.Space != ir.Constant {
			u.bufs[b] = true
			if write {
				u.written[b] = true
			}
		}
	}
	ir.WalkBufferUses(f.Body, func(buf string, use ir.BufferUse) { touch(buf, use != ir.UseRead) })
	ir.WalkAllExprs(f.Body, func(e ir.Expr) bool {
		switch e := e.(type) {
		case *ir.ParamRef:
			param(e)
		case *ir.Call:
			if g := m.Func(e.Func); g != nil && g.Kind == ir.DeviceFunc {
				u.callees[g] = true
			}
		}
		return true
	})
	return u
}

// absorb adds v's buffers and parameters to u and reports whether u grew.
func (u *usage) absorb(v *usage) bool {
	if v == nil {
		return false
	}
	n := len(u.bufs) + len(u.written) + len(u.params)
	for b := range v.bufs {
		u.bufs[b] = true
	}
	for b := range v.written {
		u.written[b] = true
	}
	for p := range v.params {
		u.params[p] = true
	}
	return len(u.bufs)+len(u.written)+len(u.params) != n
}
