// Package fromir translates gpuc's launch-level IR into integer transition systems for
// termination analysis: one per kernel and device function, seen by one arbitrary thread
// (Note [Thread-modular ITS] in analysis/its). It reads the module and never changes it; it is
// not a pass.
package fromir

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"gpuc/analysis/its"
	"gpuc/ir"
)

// Note [Structured symbolic execution]
// Kernels are structured (no goto), so the translation walks the statements with a set of
// path states, each a location it started from, the guards taken and the values assigned since
// (expressions over the variables at that location). Loop heads are locations: entering a loop
// or finishing an iteration emits a transition to its head; leaving it (the condition false, a
// break) continues as states that start at the head. States with equal values merge at joins,
// keeping the guards they share; past maxStates a join becomes a location of its own.
// Thread-modular abstraction: a load from a buffer the function (or a device function it calls)
// writes is a fresh value, a load from any other buffer reads it as an uninterpreted function of
// the index (its.Load; a variable where the index depends only on parameters and thread ids);
// stores, barriers and printf do nothing; a call to a device function gives a fresh value (the
// callee gets its own system); raise and return end the thread.

const (
	maxStates   = 16
	maxExprSize = 400
)

// Systems translates every kernel and device function of a launch-level module.
func Systems(m *ir.Module, file string) ([]*its.System, error) {
	var out []*its.System
	for _, f := range m.Funcs {
		if f == nil || (f.Kind != ir.KernelFunc && f.Kind != ir.DeviceFunc) {
			continue
		}
		s, err := translate(m, f, file)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

type state struct {
	from   int
	guards []its.Expr
	env    map[string]its.Expr
}

type loop struct {
	head   int
	breaks []*state
	conts  []*state
}

type fx struct {
	m       *ir.Module
	f       *ir.Func
	file    string
	sys     *its.System
	vars    map[string]its.Var // by source name (scopes may reuse a name with another type)
	types   map[string]ir.Type
	written map[string]bool
	loads   map[string]its.Var
	launch  map[ir.BuiltinOp]its.Var
	loops   []*loop
	exit    int
	fault   int // the location where raises end the thread, or -1
	// hostDefs are the host locals that launch facts see through (Note [Host locals in
	// launches]).
	hostDefs map[string]ir.Expr
	err      error
}

func translate(m *ir.Module, f *ir.Func, file string) (*its.System, error) {
	x := &fx{m: m, f: f, file: file, sys: &its.System{Name: f.Name, File: file},
		vars: map[string]its.Var{}, types: map[string]ir.Type{}, loads: map[string]its.Var{},
		launch: map[ir.BuiltinOp]its.Var{}, exit: -1, fault: -1}
	x.written = writtenBuffers(m, f)
	for _, p := range f.Params {
		if v, ok := x.declare(p.Name, p.Type); ok {
			x.sys.Params = append(x.sys.Params, v.Name)
		}
	}
	x.sys.Locs = append(x.sys.Locs, its.Loc{Name: "entry", Pos: posString(f.Pos)})
	x.sys.Entry = 0
	if f.Kind == ir.KernelFunc {
		x.launchFacts()
	}
	out := x.block(f.Body, []*state{{from: 0, env: map[string]its.Expr{}}})
	for _, s := range out {
		x.emit(s, x.exitLoc(), f.Pos)
	}
	if x.err != nil {
		return nil, x.err
	}
	sort.Strings(x.sys.Params)
	return x.sys, nil
}

func posString(p ir.Pos) string {
	if p.Line == 0 {
		return ""
	}
	return p.String()
}

func (x *fx) exitLoc() int {
	if x.exit < 0 {
		x.exit = x.sys.AddExit()
	}
	return x.exit
}

// faultLoc is the exit of the thread's raises (its.System.AddFault).
func (x *fx) faultLoc() int {
	if x.fault < 0 {
		x.fault = x.sys.AddFault()
	}
	return x.fault
}

// sortOf maps integer and bool types; floats are not tracked.
func sortOf(t ir.Type) (its.Sort, bool) {
	switch t {
	case ir.Bool:
		return its.Bool, true
	case ir.I8:
		return its.Sort{Width: 8, Signed: true}, true
	case ir.U8:
		return its.Sort{Width: 8}, true
	case ir.I32:
		return its.I32, true
	case ir.U32:
		return its.U32, true
	case ir.I64:
		return its.I64, true
	case ir.U64:
		return its.U64, true
	}
	return its.Sort{}, false
}

var bit = its.Sort{Width: 1}

// declare makes the variable of a local or parameter; booleans live in 1-bit variables.
func (x *fx) declare(name string, t ir.Type) (its.Var, bool) {
	s, ok := sortOf(t)
	x.types[name] = t
	if !ok {
		delete(x.vars, name)
		return its.Var{}, false
	}
	if s.IsBool() {
		s = bit
	}
	if v, ok := x.vars[name]; ok && v.Sort == s {
		return v, true
	}
	n := name
	for i := 2; x.taken(n); i++ {
		n = fmt.Sprintf("%s_%d", name, i)
	}
	v := its.Var{Name: n, Sort: s}
	x.vars[name] = v
	x.sys.Vars = append(x.sys.Vars, v)
	return v, true
}

func (x *fx) taken(n string) bool {
	_, ok := x.sys.Var(n)
	return ok
}

// launchVar gives the variable of a geometry builtin (i32 in gpuc's IR), with the launch facts.
func (x *fx) launchVar(op ir.BuiltinOp) its.Expr {
	if v, ok := x.launch[op]; ok {
		return its.R(v)
	}
	name := map[ir.BuiltinOp]string{ir.ThreadID: "tid", ir.BlockID: "bid", ir.BlockDim: "bdim", ir.GridDim: "gdim",
		ir.DeviceID: "dev", ir.NumDevices: "ndev"}[op]
	n := name
	for i := 2; x.taken(n); i++ {
		n = fmt.Sprintf("%s_%d", name, i)
	}
	v := its.Var{Name: n, Sort: its.I32}
	x.launch[op] = v
	x.sys.Vars = append(x.sys.Vars, v)
	x.worldFact(op)
	return its.R(v)
}

// Note [World facts]
// device_id() and num_devices() (Note [World] in package ir) are the same on every read of a
// thread, in kernels and device functions alike, so each is a variable of the thread, as the
// launch geometry is, not a fresh value per read: a loop over the devices,
// `for e = 0; e < num_devices(); e++`, then ends. A world has at least one device, and the
// device's id lies below their number: 1 <= ndev and 0 <= dev < ndev.

// worldFact states the facts of Note [World facts] once both variables a fact reads exist.
func (x *fx) worldFact(op ir.BuiltinOp) {
	c := func(v int64) its.Expr { return its.C(v, its.I32) }
	fact := func(e its.Expr, why string) { x.sys.Facts = append(x.sys.Facts, its.Fact{Expr: e, Why: why}) }
	switch op {
	case ir.NumDevices:
		fact(its.B(its.Sle, c(1), its.R(x.launch[op])), "1 <= num_devices")
	case ir.DeviceID:
		dev := its.R(x.launch[op])
		fact(its.B(its.Sle, c(0), dev), "0 <= device id")
		fact(its.B(its.Slt, dev, x.launchVar(ir.NumDevices)), "device id < num_devices")
	}
}

// launchFacts states the launch facts of Note [Launch facts] in analysis/fromllvm, and the block
// size of the host's launches where every launch of the kernel gives the same one.
func (x *fx) launchFacts() {
	tid, bid, bdim, gdim := x.launchVar(ir.ThreadID), x.launchVar(ir.BlockID), x.launchVar(ir.BlockDim), x.launchVar(ir.GridDim)
	x.sys.ThreadVars = []string{tid.(*its.Ref).Var.Name, bid.(*its.Ref).Var.Name}
	c := func(v int64) its.Expr { return its.C(v, its.I32) }
	fact := func(e its.Expr, why string) { x.sys.Facts = append(x.sys.Facts, its.Fact{Expr: e, Why: why}) }
	fact(its.B(its.LAnd, its.B(its.Sle, c(0), tid), its.B(its.Slt, tid, bdim)), "thread id < block size")
	fact(its.B(its.LAnd, its.B(its.Sle, c(1), bdim), its.B(its.Sle, bdim, c(1024))), "1 <= block size <= 1024")
	fact(its.B(its.LAnd, its.B(its.Sle, c(0), bid), its.B(its.Slt, bid, gdim)), "block id < grid size")
	fact(its.B(its.LAnd, its.B(its.Sle, c(1), gdim), its.B(its.Sle, gdim, c(1<<31-1))), "1 <= grid size <= 2^31-1")
	if b := x.launchBlock(); b != nil {
		fact(its.B(its.Eq, launchSized(bdim, b), b), "launch block "+b.String())
	}
	if g := x.launchSame(func(l *ir.Launch) ir.Expr { return l.Grid }); g != nil && (its.SortOf(g) == its.I32 || its.SortOf(g) == its.I64) {
		fact(its.B(its.Eq, launchSized(gdim, g), g), "launch grid "+g.String())
	}
	for i, p := range x.f.Params {
		v, ok := x.vars[p.Name]
		if !ok {
			continue
		}
		a := x.launchSame(func(l *ir.Launch) ir.Expr {
			if i < len(l.Args) {
				return l.Args[i]
			}
			return nil
		})
		if a != nil && its.SortOf(a) == x.exprSort(v) && !its.SortOf(a).IsBool() {
			fact(its.B(its.Eq, its.R(v), a), "launch argument "+p.Name+" = "+a.String())
		}
	}
}

// launchSame is the expression (over constants and module parameters) that every launch of the
// kernel gives for the part pick selects, or nil where launches differ or it reads host values.
func (x *fx) launchSame(pick func(*ir.Launch) ir.Expr) its.Expr {
	var found its.Expr
	n, ok := 0, true
	for _, h := range x.m.Funcs {
		if h == nil || h.Kind != ir.HostFunc {
			continue
		}
		ir.WalkStmts(h.Body, func(s ir.Stmt) bool {
			l, isLaunch := s.(*ir.Launch)
			if !isLaunch || l.Kernel != x.f.Name {
				return true
			}
			n++
			e := pick(l)
			if e == nil {
				ok = false
				return true
			}
			t := x.hostExpr(e)
			if t == nil || (found != nil && found.String() != t.String()) {
				ok = false
			}
			if found == nil {
				found = t
			}
			return true
		})
	}
	if !ok || n == 0 {
		return nil
	}
	return found
}

// launchBlock is the block size every launch of the kernel gives, over module parameters.
func (x *fx) launchBlock() its.Expr {
	var found its.Expr
	same := true
	for _, h := range x.m.Funcs {
		if h == nil || h.Kind != ir.HostFunc {
			continue
		}
		ir.WalkStmts(h.Body, func(s ir.Stmt) bool {
			l, ok := s.(*ir.Launch)
			if !ok || l.Kernel != x.f.Name || l.Block == nil {
				return true
			}
			e := x.hostExpr(l.Block)
			if e == nil || (found != nil && found.String() != e.String()) {
				same = false
			}
			if found == nil {
				found = e
			}
			return true
		})
	}
	if !same || found == nil || its.SortOf(found) != its.I32 && its.SortOf(found) != its.I64 {
		return nil
	}
	return found
}

// Note [Launch sizes over 64 bits]
// Hosts compute grid and block sizes in i64 ((i64(PROCS) + 255) / 256). A launch whose sizes lie
// outside 1..2^31-1 (grid) or 1..1024 (block) runs no thread: the interpreter and CUDA refuse
// it, and a grid of 0 launches nothing. So in every thread that runs, the i64 size equals the
// sign extension of the i32 launch value, and that is the fact; without it a kernel launched
// with a grid of (PROCS + 255) / 256 had a witness with PROCS = 0 (CHR's output kernels).

// launchSized gives the launch value v (i32) in the sort of the host's size e.
func launchSized(v, e its.Expr) its.Expr {
	if its.SortOf(e) == its.I64 {
		return &its.Cast{Op: its.SExt, X: v, To: its.I64}
	}
	return v
}

// hostExpr translates a host expression over constants and module parameters, or nil.
func (x *fx) hostExpr(e ir.Expr) (r its.Expr) {
	if x.hostDefs == nil {
		x.hostDefs = hostDefs(x.m)
	}
	e = inlineHostDefs(e, x.hostDefs)
	if !overParams(e) {
		return nil
	}
	return x.expr(e, nil)
}

// writtenBuffers lists the buffers f and the device functions it calls store to or update
// atomically.
func writtenBuffers(m *ir.Module, f *ir.Func) map[string]bool {
	w := map[string]bool{}
	seen := map[string]bool{}
	var visit func(f *ir.Func)
	visit = func(f *ir.Func) {
		if f == nil || seen[f.Name] {
			return
		}
		seen[f.Name] = true
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			switch s := s.(type) {
			case *ir.Store:
				w[s.Buf] = true
			case *ir.Atomic:
				w[s.Buf] = true
			case *ir.Copy:
				w[s.Dst] = true
			case *ir.Swap:
				w["*"] = true
			}
			return true
		})
		ir.WalkAllExprs(f.Body, func(e ir.Expr) bool {
			if c, ok := e.(*ir.Call); ok {
				visit(m.Func(c.Func))
			}
			return true
		})
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if c, ok := s.(*ir.CallStmt); ok && c.Call != nil {
				visit(m.Func(c.Call.Func))
			}
			return true
		})
	}
	visit(f)
	return w
}

func (x *fx) fail(p ir.Pos, format string, args ...any) {
	if x.err == nil {
		x.err = fmt.Errorf("%s: error: %s", p, fmt.Sprintf(format, args...))
	}
}

// emit ends a path state with a transition to location to.
func (x *fx) emit(s *state, to int, p ir.Pos) {
	upd := map[string]its.Expr{}
	for n, e := range s.env {
		if v, ok := x.vars[n]; ok {
			upd[v.Name] = toBit(e, v.Sort)
		}
	}
	x.sys.Trans = append(x.sys.Trans, its.Transition{From: s.from, To: to, Guard: s.guards, Update: upd, Pos: posString(p)})
}

func toBit(e its.Expr, s its.Sort) its.Expr {
	if its.SortOf(e).IsBool() && s == bit {
		return &its.Ite{C: e, T: its.C(1, bit), E: its.C(0, bit)}
	}
	return e
}

func (x *fx) newLoc(name string, p ir.Pos, head bool) int {
	x.sys.Locs = append(x.sys.Locs, its.Loc{Name: uniqLoc(x.sys, name), Pos: posString(p), LoopHead: head})
	return len(x.sys.Locs) - 1
}

func uniqLoc(s *its.System, name string) string {
	n := name
	for i := 2; ; i++ {
		dup := false
		for _, l := range s.Locs {
			if l.Name == n {
				dup = true
			}
		}
		if !dup {
			return n
		}
		n = fmt.Sprintf("%s%d", name, i)
	}
}

// join merges states with equal values, and cuts at a new location past maxStates.
func (x *fx) join(sts []*state, p ir.Pos) []*state {
	var out []*state
	keys := map[string]int{}
	for _, s := range sts {
		k := fmt.Sprintf("%d|%s", s.from, envKey(s.env))
		if i, ok := keys[k]; ok {
			out[i].guards = its.Intersect(out[i].guards, s.guards)
			continue
		}
		keys[k] = len(out)
		out = append(out, s)
	}
	if len(out) <= maxStates {
		return out
	}
	j := x.newLoc("join", p, false)
	for _, s := range out {
		x.emit(s, j, p)
	}
	return []*state{{from: j, env: map[string]its.Expr{}}}
}

func envKey(env map[string]its.Expr) string {
	ks := make([]string, 0, len(env))
	for n, e := range env {
		ks = append(ks, n+"="+e.String())
	}
	sort.Strings(ks)
	return strings.Join(ks, ";")
}

func (s *state) clone() *state {
	env := make(map[string]its.Expr, len(s.env))
	for k, v := range s.env {
		env[k] = v
	}
	return &state{from: s.from, guards: append([]its.Expr(nil), s.guards...), env: env}
}

// guard adds g to a copy of s; nil when g is false.
func guard(s *state, g its.Expr) *state {
	if c, ok := g.(*its.Const); ok {
		if c.Val.Sign() == 0 {
			return nil
		}
		return s.clone()
	}
	n := s.clone()
	n.guards = addGuard(n.guards, g)
	return n
}

// addGuard appends g split at &&, dropping true and repeated nodes.
func addGuard(gs []its.Expr, g its.Expr) []its.Expr { return its.AddGuard(gs, g, nil) }

func bigOf(t ir.Type, b ir.Bits) *big.Int {
	if t.IsSigned() {
		return big.NewInt(int64(b))
	}
	return new(big.Int).SetUint64(b)
}
