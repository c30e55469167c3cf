package cuda

import "gpuc/ir"

// usage is what a kernel or device function touches, in its own body or
// through the device functions it calls: the global and shared buffers
// (constant buffers are __constant__ symbols that need no passing) and the
// module parameters. Kernels and device functions receive these as
// arguments.
type usage struct {
	bufs    map[*ir.Buffer]bool
	written map[*ir.Buffer]bool // buffers stored to or updated atomically
	params  map[*ir.Param]bool
	callees map[*ir.Func]bool // device functions called directly
}

// analyzeUsage computes the usage of every kernel and device function: the
// direct uses of each, then the closure over the call graph by fixpoint,
// which recursion needs.
func analyzeUsage(m *ir.Module) map[*ir.Func]*usage {
	use := map[*ir.Func]*usage{}
	for _, f := range m.Funcs {
		if f.Kind != ir.HostFunc {
			use[f] = directUsage(m, f)
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

func directUsage(m *ir.Module, f *ir.Func) *usage {
	u := &usage{bufs: map[*ir.Buffer]bool{}, written: map[*ir.Buffer]bool{},
		params: map[*ir.Param]bool{}, callees: map[*ir.Func]bool{}}
	touch := func(name string, write bool) {
		if b := m.Buffer(name); b != nil && b.Space != ir.Constant {
			u.bufs[b] = true
			if write {
				u.written[b] = true
			}
		}
	}
	ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Store:
			touch(s.Buf, true)
		case *ir.Atomic:
			touch(s.Buf, true)
		}
		return true
	})
	ir.WalkAllExprs(f.Body, func(e ir.Expr) bool {
		switch e := e.(type) {
		case *ir.Load:
			touch(e.Buf, false)
		case *ir.ParamRef:
			if p := m.Param(e.Name); p != nil {
				u.params[p] = true
			}
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

// deviceRaises numbers the distinct messages raised in kernels and device
// functions from 1, in module order; the device records the number of the
// first raise and the host prints its message.
func deviceRaises(m *ir.Module) (ids map[string]int, msgs []string) {
	ids = map[string]int{}
	for _, f := range m.Funcs {
		if f.Kind == ir.HostFunc {
			continue
		}
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if r, ok := s.(*ir.Raise); ok && ids[r.Msg] == 0 {
				msgs = append(msgs, r.Msg)
				ids[r.Msg] = len(msgs)
			}
			return true
		})
	}
	return ids, msgs
}

// effectful lists the functions whose calls have effects that evaluation
// order can show: they write memory, launch, copy, swap, print or raise,
// themselves or through the functions they call.
func effectful(m *ir.Module) map[string]bool {
	eff := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, f := range m.Funcs {
			if !eff[f.Name] && hasEffect(f.Body, eff) {
				eff[f.Name] = true
				changed = true
			}
		}
	}
	return eff
}

// hasEffect reports whether body has an effect, given the functions known
// to be effectful so far.
func hasEffect(body []ir.Stmt, eff map[string]bool) bool {
	found := false
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		switch s.(type) {
		case *ir.Store, *ir.Atomic, *ir.Launch, *ir.Copy, *ir.Swap, *ir.Printf, *ir.Raise:
			found = true
		}
		return !found
	})
	ir.WalkAllExprs(body, func(e ir.Expr) bool {
		if c, ok := e.(*ir.Call); ok && eff[c.Func] {
			found = true
		}
		return !found
	})
	return found
}
