package cuda

import (
	"fmt"
	"strings"

	"gpuc/ir"
)

// block emits a statement list. Statements after one that never falls
// through (return, break, continue, raise, or an if whose branches all
// jump) are dropped: they cannot run, and nvcc would warn about them.
func (f *fn) block(body []ir.Stmt) {
	synced := f.syncedEntry
	f.syncedEntry = false
	defer func() { f.syncedExit = synced }()
	for i, s := range body {
		f.worldSynced = synced
		f.collectiveNext = false
		if i+1 < len(body) {
			switch body[i+1].(type) {
			case *ir.AllReduce, *ir.AllGather:
				f.collectiveNext = true
			}
		}
		f.stmt(s)
		loop, _ := s.(*ir.For)
		synced = worldSyncs(s) || synced && (keepsWorldSync(s) || f.host && loop != nil && forKeepsWorldSync(loop))
		if jumps(s) {
			return
		}
	}
}

// jumps reports whether control never continues after s.
func jumps(s ir.Stmt) bool {
	switch s := s.(type) {
	case *ir.Return, *ir.Break, *ir.Continue, *ir.Raise:
		return true
	case *ir.If:
		return s.Else != nil && endsInJump(s.Then) && endsInJump(s.Else)
	}
	return false
}

func endsInJump(body []ir.Stmt) bool {
	for _, s := range body {
		if jumps(s) {
			return true
		}
	}
	return false
}

// nested emits body one level deeper, with lead (if any) as its first line.
func (f *fn) nested(body []ir.Stmt, lead ...string) {
	f.indent++
	for _, l := range lead {
		f.line("%s", l)
	}
	f.block(body)
	f.indent--
}

func (f *fn) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.Decl:
		f.line("%s;", f.simple(s))
		f.unread(s.Name)
	case *ir.Assign:
		f.line("%s;", f.simple(s))
		f.unread(s.Name)
	case *ir.Store:
		f.store(s)
	case *ir.Atomic:
		f.atomic(s)
	case *ir.CallStmt:
		f.line("%s;", f.expr(s.Call).s)
	case *ir.If:
		f.ifStmt(s, "if")
		f.line("}")
	case *ir.While, *ir.For:
		f.loop(s)
	case *ir.Break:
		f.line("break;")
	case *ir.Continue:
		f.line("continue;")
	case *ir.Return:
		if f.halts {
			f.line("gpuc_fault_halt();")
		}
		if s.Value == nil {
			f.line("return;")
		} else {
			f.line("return %s;", f.expr(s.Value).s)
		}
	case *ir.Switch:
		f.switchStmt(s)
	case *ir.Barrier:
		switch {
		case f.host || f.f.Kind != ir.KernelFunc:
			f.errorf(s.Pos, "barrier in %s", f.where())
		case s.Grid && f.e.worldKernels[f.f.Name]:
			f.line("gpuc_world_sync();")
		case s.Grid:
			f.line("gpuc_grid_sync();")
		default:
			f.line("__syncthreads();")
		}
		if f.halts {
			f.line("gpuc_fault_halt();")
		}
	case *ir.Raise:
		f.raise(s)
	case *ir.Launch, *ir.Copy, *ir.Swap, *ir.Printf, *ir.Write:
		f.hostStmt(s)
	case *ir.WorldBarrier, *ir.AllGather, *ir.AllReduce:
		f.worldStmt(s)
	case nil:
		f.errorf(f.f.Pos, "missing statement")
	default:
		f.errorf(s.At(), "%s is not supported by the CUDA backend", strings.ToLower(strings.TrimPrefix(fmt.Sprintf("%T", s), "*ir.")))
	}
}

// unread reads a local that nothing else reads after each time it is
// set, which keeps nvcc from warning that it is set but never used.
func (f *fn) unread(name string) {
	if !f.reads[name] {
		f.line("gpuc_use(%s);", f.e.n.c(name))
	}
}

// simple spells a declaration or assignment without the semicolon, as it
// stands in a for header too. A declaration without initializer starts at
// zero, so that nvcc sees no use before a set.
func (f *fn) simple(s ir.Stmt) string {
	switch s := s.(type) {
	case *ir.Decl:
		init := constant(s.T, 0)
		if s.Init != nil {
			init = f.expr(s.Init)
		}
		return ctype(s.T) + " " + f.e.n.c(s.Name) + " = " + init.s
	case *ir.Assign:
		return f.e.n.c(s.Name) + " = " + f.expr(s.Value).s
	case nil:
		return ""
	}
	f.errorf(s.At(), "for loops take a declaration or an assignment here")
	return ""
}

// ifStmt emits an if and its else-if chain, leaving the closing brace to
// the caller.
func (f *fn) ifStmt(s *ir.If, lead string) {
	f.line("%s (%s) {", lead, f.expr(s.Cond).s)
	f.nested(s.Then)
	switch {
	case len(s.Else) == 1 && isIf(s.Else[0]):
		f.ifStmt(s.Else[0].(*ir.If), "} else if")
	case s.Else != nil:
		f.line("} else {")
		f.nested(s.Else)
	}
}

func isIf(s ir.Stmt) bool { _, ok := s.(*ir.If); return ok }

// loop emits a loop; one whose checks a test can settle before it runs
// (Note [Check placement] in package abi) twice: without those checks
// where the test holds, with them where it fails.
func (f *fn) loop(s ir.Stmt) {
	h := f.plan.Hoist(s)
	if h == nil || f.host {
		f.plainLoop(s)
		return
	}
	// Pre's divisions are by constants or in buffers' lengths, which
	// start-up checked.
	f.length = true
	f.line("if (%s) {", f.expr(h.Pre).s)
	f.length = false
	f.indent++
	f.active = append(f.active, h)
	f.plainLoop(s)
	f.active = f.active[:len(f.active)-1]
	f.indent--
	f.line("} else {")
	f.indent++
	f.line("GPUC_CHECKED_COPY")
	f.plainLoop(s)
	f.indent--
	f.line("}")
}

func (f *fn) plainLoop(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.While:
		f.line("while (%s) {", f.expr(s.Cond).s)
		f.nested(s.Body)
		f.line("}")
	case *ir.For:
		f.forStmt(s)
	}
}

func (f *fn) forStmt(s *ir.For) {
	var lead []string
	if d, ok := s.Init.(*ir.Decl); ok && !f.reads[d.Name] {
		lead = append(lead, "gpuc_use("+f.e.n.c(d.Name)+");")
	}
	post := f.simple(s.Post)
	if a, ok := s.Post.(*ir.Assign); ok && !f.reads[a.Name] {
		post += ", gpuc_use(" + f.e.n.c(a.Name) + ")"
	}
	f.line("for (%s; %s; %s) {", f.simple(s.Init), f.expr(s.Cond).s, post)
	f.syncedEntry = f.host && f.e.world && f.worldSynced && forKeepsWorldSync(s)
	f.nested(s.Body, lead...)
	f.line("}")
}

// switchStmt emits a switch as a C switch, which NVCC compiles to a
// jump table or a search, unless a case breaks out of the enclosing loop:
// C's break would leave the switch instead, so then it is an if-else
// chain over the value.
func (f *fn) switchStmt(s *ir.Switch) {
	x := f.expr(s.X)
	switch s.X.(type) {
	case *ir.Var, *ir.ParamRef, *ir.Const:
	default:
		t := f.temp(s.X.Type())
		f.line("%s = %s;", t, x.s)
		x = primary(t)
	}
	if !switchBreaks(s) {
		f.line("switch (%s) {", x.s)
		for _, c := range s.Cases {
			if len(c.Values) == 0 {
				continue
			}
			var labels []string
			for _, v := range c.Values {
				labels = append(labels, "case "+constant(s.X.Type(), ir.IntBits(s.X.Type(), v)).s+":")
			}
			f.caseBody(strings.Join(labels, " "), c.Body)
		}
		if s.Default != nil {
			f.caseBody("default:", s.Default)
		}
		f.line("}")
		return
	}
	lead := "if"
	for _, c := range s.Cases {
		var conds []string
		for _, v := range c.Values {
			conds = append(conds, infix("==", precEq, x, constant(s.X.Type(), ir.IntBits(s.X.Type(), v))).s)
		}
		if len(conds) == 0 {
			continue
		}
		f.line("%s (%s) {", lead, strings.Join(conds, " || "))
		f.nested(c.Body)
		lead = "} else if"
	}
	switch {
	case lead == "if" && s.Default != nil:
		f.line("{")
		f.nested(s.Default)
		f.line("}")
	case lead == "if":
	case s.Default != nil:
		f.line("} else {")
		f.nested(s.Default)
		f.line("}")
	default:
		f.line("}")
	}
}

// caseBody emits an arm of a C switch, its labels and then its body in a
// block of its own, for its declarations, which leaves the switch after
// it.
func (f *fn) caseBody(labels string, body []ir.Stmt) {
	f.line("%s {", labels)
	f.nested(body)
	if !endsInJump(body) {
		f.nested(nil, "break;")
	}
	f.line("}")
}

// switchBreaks reports whether a break in one of s's arms leaves the loop
// around s.
func switchBreaks(s *ir.Switch) bool {
	for _, arm := range ir.SubBodies(s) {
		if ir.JumpsOut(arm, true) {
			return true
		}
	}
	return false
}

func (f *fn) store(s *ir.Store) {
	pre, v := f.operands(s.Index, s.Value)
	f.pre(pre)
	if s.Priority {
		f.errorf(s.Pos, "priority store in %s", f.where())
	}
	pos := cstring(s.Pos.String())
	if a := f.e.m.Array(s.Buf); a != nil && f.host {
		f.line("%s.at(%s, %s) = %s;", f.e.n.c(a.Name), v[0].s, pos, v[1].s)
		return
	}
	b := f.e.m.Buffer(s.Buf)
	checked := v[1]
	if b != nil {
		checked = f.checkedValue(s, b, v[1])
	}
	if checked != v[1] && !f.host {
		// The index first, then the value, each with its check, in the
		// interpreter's order (C++17 evaluates an assignment's right
		// side first).
		lhs := f.e.n.c(b.Name) + "[" + f.checkedIndex(s, s.Pos, b, s.Index, v[0]).s + "]"
		if f.e.distributed(b) {
			lhs = f.distElem(s, s.Pos, b, s.Index, v[0]).s
		}
		f.line("{ auto &gpuc_w = %s; gpuc_w = %s; }", lhs, checked.s)
		return
	}
	if checked != v[1] && !f.e.distributed(b) && b.Space != ir.Shared {
		// Host code: the index's check before the value's, as above.
		f.line("{ const long long gpuc_i = %s; %s.check(gpuc_i, %s); %s.set(gpuc_i, %s, %s); }", v[0].s, f.e.hostBuf(b), pos, f.e.hostBuf(b), checked.s, pos)
		return
	}
	v[1] = checked
	switch {
	case b == nil || f.host && b.Space == ir.Shared:
		f.errorf(s.Pos, "store to %s in %s", s.Buf, f.where())
	case f.host && f.e.distributed(b):
		h, _ := blockVar(f.e, b)
		f.line("gpuc_dist_set(%s, %s, %s, (%s)%s, %s);", f.e.hostBuf(b), h, v[0].s, ctype(b.Elem), operand(v[1]), pos)
	case f.host:
		f.line("%s.set(%s, %s, %s);", f.e.hostBuf(b), v[0].s, v[1].s, pos)
	case f.e.distributed(b):
		f.line("%s = %s;", f.distElem(s, s.Pos, b, s.Index, v[0]).s, v[1].s)
	default:
		f.line("%s[%s] = %s;", f.e.n.c(b.Name), f.checkedIndex(s, s.Pos, b, s.Index, v[0]).s, v[1].s)
	}
}

// pre emits assignments to temporaries as statements.
func (f *fn) pre(assigns []string) {
	for _, a := range assigns {
		f.line("%s;", a)
	}
}

func (f *fn) raise(s *ir.Raise) {
	if f.host {
		f.line("gpuc_raise(%s);", cstring(s.Msg))
		return
	}
	f.line("gpuc_device_raise(%d); // %s", f.e.raiseIDs[s.Msg], strings.ReplaceAll(cstring(s.Msg), "*/", "* /"))
}

// atomic maps an atomic statement to CUDA's atomic functions. CUDA lacks
// some signed 64-bit and float overloads; those go through the unsigned
// 64-bit versions, and subtraction through adding the negation.
func (f *fn) atomic(s *ir.Atomic) {
	b := f.e.m.Buffer(s.Buf)
	if f.host || b == nil || b.Space == ir.Constant || len(s.Args) != s.Op.Operands() {
		f.errorf(s.Pos, "atomic %s on %s in %s", s.Op, s.Buf, f.where())
		return
	}
	pre, v := f.operands(append([]ir.Expr{s.Index}, s.Args...)...)
	f.pre(pre)
	addr := "&" + f.e.n.c(b.Name) + "[" + f.checkedIndex(s, s.Pos, b, s.Index, v[0]).s + "]"
	if f.e.distributed(b) {
		addr = "&" + f.distElem(s, s.Pos, b, s.Index, v[0]).s
	}
	if s.Dst == "" && (s.Op == ir.AtomicMin || s.Op == ir.AtomicMax) && b.Space.IsDevice() && nativeAtomic(s.Op, b.Elem) {
		// An extremum that the threads of a warp update together: they
		// combine their values first (gpuc_atomic_extremum_agg).
		f.line("gpuc_atomic_extremum_agg<%s, %t>(%s, %s);", ctype(b.Elem), s.Op == ir.AtomicMax, addr, v[1].s)
		return
	}
	if r, ok := aggregatedAdd(s, b, addr, v[1]); ok {
		if s.Dst != "" {
			f.line("%s = %s;", f.e.n.c(s.Dst), r)
			f.unread(s.Dst)
		} else {
			f.line("%s;", r)
		}
		return
	}
	r, result, ok := atomicCall(s.Op, b.Elem, addr, v[1:])
	switch {
	case !ok:
		f.errorf(s.Pos, "atomic %s on %s is not supported on the GPU", s.Op, b.Elem)
	case s.Dst != "":
		f.line("%s = %s;", f.e.n.c(s.Dst), result(r))
		f.unread(s.Dst)
	default:
		f.line("%s;", r)
	}
}

// aggregatedAdd spells an integer atomic add or subtract on global memory
// through gpuc_atomic_add_agg (prelude.cuh), which makes one update for a
// warp whose threads all hit one address, and reports whether it
// applies. Counters, list heads and shared reference counts are such
// addresses, and one atomic per thread on them serialises at the L2
// cache: the transformation tree of the TRS paper at depth 26 took 281 ms
// of kernels with plain atomics and 107 ms with these (docs/BENCHMARKS.md,
// fourth session).
func aggregatedAdd(s *ir.Atomic, b *ir.Buffer, addr string, x cx) (string, bool) {
	if (s.Op != ir.AtomicAdd && s.Op != ir.AtomicSub) || !b.Space.IsDevice() {
		return "", false
	}
	var ut string
	switch b.Elem {
	case ir.I32, ir.U32:
		ut = "unsigned"
	case ir.I64, ir.U64:
		ut = "unsigned long long"
	default:
		return "", false
	}
	val := "(" + ut + ")" + operand(x)
	if s.Op == ir.AtomicSub {
		val = "(" + ut + ")0 - " + val
	}
	_, same := s.Args[0].(*ir.Const)
	call := fmt.Sprintf("gpuc_atomic_add_agg<%s, %t>((%s *)%s, %s)", ut, same, ut, addr, val)
	if s.Dst == "" || b.Elem == ir.U32 || b.Elem == ir.U64 {
		return call, true
	}
	return "(" + ctype(b.Elem) + ")" + call, true
}

// atomicCall spells the atomic update of addr, an element of type t, and
// how to turn its result into the old value; it reports whether CUDA can
// do the update.
func atomicCall(op ir.AtomicOp, t ir.Type, addr string, args []cx) (call string, result func(string) string, ok bool) {
	name, known := atomicFuncs[op]
	same := func(r string) string { return r }
	ull := func(x cx) string { return "(unsigned long long)" + operand(x) }
	viaULL := func(name string, vals ...string) string {
		return name + "((unsigned long long *)" + addr + ", " + strings.Join(vals, ", ") + ")"
	}
	switch {
	case !known:
		return "", nil, false
	case nativeAtomic(op, t):
		parts := []string{addr}
		for _, a := range args {
			parts = append(parts, a.s)
		}
		return name + "(" + strings.Join(parts, ", ") + ")", same, true
	case op == ir.AtomicSub && t.IsFloat():
		return "atomicAdd(" + addr + ", -" + operand(args[0]) + ")", same, true
	case op == ir.AtomicSub && (t == ir.U64 || t == ir.I64):
		return viaULL("atomicAdd", "0ULL - "+ull(args[0])), signedResult(t), true
	case t == ir.I64 && op != ir.AtomicInc:
		var vals []string
		for _, a := range args {
			vals = append(vals, ull(a))
		}
		return viaULL(name, vals...), signedResult(t), true
	case t == ir.F64 && op == ir.AtomicExch:
		r := viaULL("atomicExch", "(unsigned long long)__double_as_longlong("+args[0].s+")")
		return r, func(r string) string { return "__longlong_as_double((long long)" + r + ")" }, true
	}
	return "", nil, false
}

// signedResult converts the unsigned 64-bit result of an atomic back to
// long long where t is i64.
func signedResult(t ir.Type) func(string) string {
	return func(r string) string {
		if t == ir.I64 {
			return "(long long)" + r
		}
		return r
	}
}

// atomicFuncs names CUDA's atomic function for each operation.
var atomicFuncs = map[ir.AtomicOp]string{
	ir.AtomicAdd: "atomicAdd", ir.AtomicSub: "atomicSub", ir.AtomicMin: "atomicMin",
	ir.AtomicMax: "atomicMax", ir.AtomicAnd: "atomicAnd", ir.AtomicOr: "atomicOr",
	ir.AtomicXor: "atomicXor", ir.AtomicExch: "atomicExch", ir.AtomicCAS: "atomicCAS",
	ir.AtomicInc: "atomicInc",
}

// nativeAtomic reports whether CUDA has an overload of op for t.
func nativeAtomic(op ir.AtomicOp, t ir.Type) bool {
	switch op {
	case ir.AtomicAdd:
		return t == ir.I32 || t == ir.U32 || t == ir.U64 || t.IsFloat()
	case ir.AtomicSub:
		return t == ir.I32 || t == ir.U32
	case ir.AtomicMin, ir.AtomicMax:
		return t == ir.I32 || t == ir.U32 || t == ir.I64 || t == ir.U64
	case ir.AtomicAnd, ir.AtomicOr, ir.AtomicXor, ir.AtomicCAS:
		return t == ir.I32 || t == ir.U32 || t == ir.U64
	case ir.AtomicExch:
		return t == ir.I32 || t == ir.U32 || t == ir.U64 || t == ir.F32
	case ir.AtomicInc:
		return t == ir.U32
	}
	return false
}
