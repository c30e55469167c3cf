package ir

// The world of devices (Note [World]): its host statements, the DEVICES
// parameter, and the rule that host control flow is world-uniform.

func (v *verifier) worldBarrier(s *WorldBarrier) {
	v.only(s.Pos, "world_barrier", hostCode)
}

func (v *verifier) allGather(s *AllGather) {
	if !v.only(s.Pos, "allgather", hostCode) {
		return
	}
	b := v.buffers[s.Buf]
	switch {
	case b == nil && v.arrays[s.Buf] != nil:
		v.errorf(s.Pos, "allgather of host array %s; allgather takes a symmetric buffer", s.Buf)
	case b == nil:
		v.errorf(s.Pos, "allgather of undeclared buffer %s", s.Buf)
	case !validSpace(b.Space): // reported at the declaration
	case b.Space != Symmetric:
		v.errorf(s.Pos, "allgather of %s buffer %s; allgather takes a symmetric buffer", b.Space, s.Buf)
	case b.Role == Static:
		v.errorf(s.Pos, "allgather of static buffer %s, which is read-only", s.Buf)
	}
}

func (v *verifier) allReduce(s *AllReduce) {
	v.only(s.Pos, "allreduce", hostCode)
	t := v.expr(s.Value, "allreduce operand")
	switch {
	case !validAtomic(s.Op) || !s.Op.IsReduction():
		v.errorf(s.Pos, "allreduce takes add, min, max, and, or or xor, not %s", s.Op)
	case t == Invalid:
	case (s.Op == AtomicAnd || s.Op == AtomicOr || s.Op == AtomicXor) && !t.IsInt() && t != Bool:
		v.errorf(s.Pos, "allreduce(%s) of %s; it takes integers or bools", s.Op, t)
	case (s.Op == AtomicAdd || s.Op == AtomicMin || s.Op == AtomicMax) && !t.IsNumeric():
		v.errorf(s.Pos, "allreduce(%s) of %s; it takes numbers", s.Op, t)
	}
	if l := v.target(s.Dst, s.Pos, "allreduce result to"); l != nil {
		v.defs[s] = l
		if l.t != t && l.t != Invalid && t != Invalid {
			v.errorf(s.Pos, "allreduce yields %s, but %s has type %s", t, s.Dst, l.t)
		}
	}
}

// devicesParam checks the DEVICES parameter, if the module has one.
func (v *verifier) devicesParam() {
	p := v.params[DevicesParam]
	if p == nil || !p.Type.IsInt() {
		return
	}
	if p.Fit != 0 {
		v.errorf(p.Pos, "parameter %s is the number of devices; it cannot be fitted", p.Name)
	}
	if p.Default < 1 {
		v.errorf(p.Pos, "parameter %s is the number of devices; its default %d must be at least 1", p.Name, p.Default)
	}
}

// Note [World-uniform host code]
//
// Every device runs a copy of the host program (Note [World]), so a host
// branch or loop condition must have the same value on every device:
// otherwise the copies would launch different kernels, miss each other's
// collectives and deadlock. checkWorldUniform proves it with a
// flow-insensitive analysis of the whole module, to a fixed point:
//   - device_id() in host code varies from device to device;
//   - device code varies if it is world (a world region or launch, whose
//     processors are split across devices), calls device_id(), reads a
//     buffer that varies, or reads host values that vary; every global,
//     symmetric or constant buffer it writes then varies, since each
//     device keeps its own instance;
//   - a host store or copy of a varying value makes its target vary, and
//     a swap makes both buffers vary if one does;
//   - a host local varies if a value assigned to it varies, a host
//     function's result if a value it returns does, and a parameter if a
//     call passes a varying argument;
//   - distributed and replicated buffers never vary: each element has
//     one value in the world. allreduce's result never varies.
//
// allgather makes a buffer the same everywhere, but only until the next
// write; the analysis, flow-insensitive, does not use it. Reduce a value
// with allreduce before branching on it. The interpreter checks the same
// rule at run time, on the values (Note [Devices] in ir/interp).

// worldFlow is the state of checkWorldUniform.
type worldFlow struct {
	v       *verifier
	bufs    map[string]bool // buffers and host arrays whose contents vary
	locals  map[*local]bool // host locals and parameters that vary
	results map[string]bool // host functions whose result varies
	params  map[*Field]*local
	device  map[string]*deviceSummary
	changed bool
}

// deviceSummary is what a device function or kernel does, its calls
// included.
type deviceSummary struct {
	deviceID bool
	reads    map[string]bool
	writes   map[string]bool
	calls    map[string]bool
}

// checkWorldUniform reports host conditions that may differ between
// devices (Note [World-uniform host code]).
func (v *verifier) checkWorldUniform() {
	for _, f := range v.m.Funcs {
		if f == nil || v.broken[f] {
			return
		}
	}
	w := &worldFlow{v: v, bufs: map[string]bool{}, locals: map[*local]bool{},
		results: map[string]bool{}, params: v.fieldLocals, device: map[string]*deviceSummary{}}
	for _, f := range v.m.Funcs {
		if f.Kind != HostFunc {
			w.device[f.Name] = summarize(f.Body)
		}
	}
	w.closeCalls()
	for w.changed = true; w.changed; {
		w.changed = false
		for _, f := range v.m.Funcs {
			if f.Kind == HostFunc {
				w.hostBody(f, f.Body)
			}
		}
	}
	for _, f := range v.m.Funcs {
		if f.Kind == HostFunc {
			v.fn = f
			w.check(f.Body)
		}
	}
	v.fn = nil
}

// summarize gathers the buffers that body reads and writes, the functions
// it calls and whether it calls device_id().
func summarize(body []Stmt) *deviceSummary {
	d := &deviceSummary{reads: map[string]bool{}, writes: map[string]bool{}, calls: map[string]bool{}}
	WalkStmts(body, func(s Stmt) bool {
		switch s := s.(type) {
		case *Store:
			d.writes[s.Buf] = true
		case *Atomic:
			d.writes[s.Buf] = true
			d.reads[s.Buf] = true
		}
		return true
	})
	WalkAllExprs(body, func(e Expr) bool {
		switch e := e.(type) {
		case *Load:
			d.reads[e.Buf] = true
		case *Call:
			d.calls[e.Func] = true
		case *Builtin:
			d.deviceID = d.deviceID || e.Op == DeviceID
		}
		return true
	})
	return d
}

// closeCalls folds each device function's summary into its callers'.
func (w *worldFlow) closeCalls() {
	for changed := true; changed; {
		changed = false
		for _, d := range w.device {
			for c := range d.calls {
				if cd := w.device[c]; cd != nil && cd != d && merge(d, cd) {
					changed = true
				}
			}
		}
	}
}

func merge(d, from *deviceSummary) bool {
	changed := false
	add := func(dst, src map[string]bool) {
		for k := range src {
			if !dst[k] {
				dst[k], changed = true, true
			}
		}
	}
	add(d.reads, from.reads)
	add(d.writes, from.writes)
	add(d.calls, from.calls)
	if from.deviceID && !d.deviceID {
		d.deviceID, changed = true, true
	}
	return changed
}

// perDevice reports whether name is memory of which each device has an
// instance of its own that it may write: a global, symmetric or constant
// buffer, or a host array.
func (w *worldFlow) perDevice(name string) bool {
	if b := w.v.buffers[name]; b != nil {
		return b.Space == Global || b.Space == Symmetric || b.Space == Constant
	}
	return w.v.arrays[name] != nil
}

func (w *worldFlow) vary(name string) {
	if w.perDevice(name) && !w.bufs[name] {
		w.bufs[name], w.changed = true, true
	}
}

func (w *worldFlow) varyLocal(l *local) {
	if l != nil && !w.locals[l] {
		w.locals[l], w.changed = true, true
	}
}

// varies reports whether e, in host code or read by a region, may differ
// between devices.
func (w *worldFlow) varies(e Expr) bool {
	found := false
	WalkExpr(e, func(e Expr) bool {
		switch e := e.(type) {
		case *Builtin:
			found = found || e.Op == DeviceID
		case *Var:
			found = found || w.locals[w.v.uses[e]]
		case *Load:
			found = found || w.bufs[e.Buf]
		case *Call:
			if f := w.v.funcs[e.Func]; f != nil && f.Kind == HostFunc {
				found = found || w.results[e.Func]
				for i, a := range e.Args {
					if i < len(f.Params) && w.varies(a) {
						w.varyLocal(w.params[f.Params[i]])
					}
				}
			}
		}
		return !found
	})
	return found
}

// deviceCode applies the rule for device code d, run by a world
// launch or region or not, with host values that vary or not.
func (w *worldFlow) deviceCode(d *deviceSummary, world, hostVaries bool) {
	varies := world || hostVaries || d.deviceID
	for b := range d.reads {
		varies = varies || w.bufs[b]
	}
	if varies {
		for b := range d.writes {
			w.vary(b)
		}
	}
}

// hostBody runs one round of the analysis over a host body.
func (w *worldFlow) hostBody(f *Func, body []Stmt) {
	for _, s := range body {
		exprsVary := false
		for _, e := range StmtExprs(s) {
			if w.varies(e) {
				exprsVary = true
			}
		}
		switch s := s.(type) {
		case *Decl, *Assign:
			if exprsVary {
				w.varyLocal(w.v.defs[s])
			}
		case *For:
			for _, simple := range []Stmt{s.Init, s.Post} {
				if simple != nil && exprsVary {
					w.varyLocal(w.v.defs[simple])
				}
			}
		case *Store:
			if exprsVary {
				w.vary(s.Buf)
			}
		case *Copy:
			if exprsVary || w.bufs[s.Src] {
				w.vary(s.Dst)
			}
		case *Swap:
			if w.bufs[s.A] || w.bufs[s.B] {
				w.vary(s.A)
				w.vary(s.B)
			}
		case *Return:
			if exprsVary && !w.results[f.Name] {
				w.results[f.Name], w.changed = true, true
			}
		case *Launch:
			if d := w.device[s.Kernel]; d != nil {
				w.deviceCode(d, s.World, exprsVary)
			}
		case *Region:
			d := summarize(s.Body)
			for c := range d.calls {
				if cd := w.device[c]; cd != nil {
					merge(d, cd)
				}
			}
			hostVaries := false
			WalkAllExprs(s.Body, func(e Expr) bool {
				if v, ok := e.(*Var); ok && w.locals[w.v.uses[v]] {
					hostVaries = true
				}
				return true
			})
			w.deviceCode(d, s.World, hostVaries)
			continue // its body is device code
		}
		for _, sub := range SubBodies(s) {
			w.hostBody(f, sub)
		}
	}
}

// check reports the conditions and collective sizes of host code that may
// vary.
func (w *worldFlow) check(body []Stmt) {
	for _, s := range body {
		var e Expr
		what := ""
		switch s := s.(type) {
		case *If:
			e, what = s.Cond, "if condition"
		case *While:
			e, what = s.Cond, "while condition"
		case *For:
			e, what = s.Cond, "for condition"
		case *Switch:
			e, what = s.X, "switch operand"
		case *Region:
			if s.World {
				e, what = s.Procs, "size of a world region"
			}
		case *Launch:
			if s.World && w.varies(s.Grid) {
				e, what = s.Grid, "grid of a world launch"
			} else if s.World {
				e, what = s.Block, "block of a world launch"
			}
		}
		if e != nil && w.varies(e) {
			w.v.errorf(e.At(), "%s may differ between devices; each device runs a copy of the host program, so host control flow must be world-uniform (reduce the value with allreduce first)", what)
		}
		if _, ok := s.(*Region); ok {
			continue
		}
		for _, sub := range SubBodies(s) {
			w.check(sub)
		}
	}
}
