package fork

import (
	"slices"

	"gpuc/ir"
)

// callExpr lowers a call. A sync function is inlined into synchronous
// code; any other function is called as a host function from sequential
// code and as a device function from parallel code. The result is nil for
// void calls and for a multiprefix result that is not needed.
func (b *body) callExpr(e *call, needValue bool) ir.Expr {
	switch e.builtin {
	case printfBuiltin:
		b.printf(e)
		return nil
	case errorBuiltin:
		// The IR's raise may stand anywhere: on the host, in regions and
		// in device functions.
		b.Emit(&ir.Raise{Pos: e.pos, Msg: e.args[0].(*strLit).value})
		return nil
	case groupsizeBuiltin:
		return b.groupValue(e.pos, "groupsize()", 2)
	case mpBuiltin, syncBuiltin:
		return b.multiprefix(e, needValue)
	case ilog2Builtin:
		x := b.expr(e.args[0])
		if _, ok := x.(*ir.Const); !ok {
			x = b.temp(x)
		}
		return ilog2(e.pos, x)
	}
	f := e.fn
	if f.mode == syncFunc {
		switch {
		case b.mode == syncMode && b.l.tails[f] != nil:
			b.groupCall(e)
			return nil
		case b.mode == syncMode:
			return b.inlineCall(e)
		}
		if b.mode == hostMode {
			b.errorf(e.pos, "sync function %s called outside start; it runs on a group of processors", f.name)
		} else {
			b.errorf(e.pos, "sync function %s called in asynchronous code", f.name)
		}
		return b.zeroOf(e)
	}
	var args []ir.Expr
	var arrays []*binding
	for i, p := range f.params {
		if p.isArray() {
			arrays = append(arrays, b.binding(arrayOf(e.args[i])))
			continue
		}
		args = append(args, convert(b.expr(e.args[i]), p.t))
	}
	for i, a := range arrays {
		switch {
		case a == nil:
			return b.zeroOf(e) // an error was reported at the array's declaration
		case a.start != "":
			b.errorf(e.pos, "array %s, which each group of recursive sync function %s has its own instance of, cannot be passed to function %s", a.v.name, b.rec.fn.name, f.name)
			arrays[i] = nil
		}
	}
	if slices.Contains(arrays, nil) {
		return b.zeroOf(e)
	}
	kind := ir.DeviceFunc
	if b.mode == hostMode {
		kind = ir.HostFunc
	}
	inst := b.l.instance(f, kind, arrays)
	if inst.group {
		for i, what := range [3]string{"$", "@", "groupsize()"} {
			args = append(args, b.groupValue(e.pos, what, i))
		}
	}
	if b.step != nil {
		b.step.reads = true // conservatively: the function may read shared memory
	}
	return &ir.Call{Pos: e.pos, Func: inst.f.Name, Args: args, T: f.result}
}

// drop lowers a value whose result is not used, keeping its calls.
func (b *body) drop(v ir.Expr) {
	switch {
	case v == nil:
	case isCall(v):
		b.Emit(&ir.CallStmt{Pos: v.At(), Call: v.(*ir.Call)})
	case hasCall(v):
		b.temp(v)
	}
}

func isCall(v ir.Expr) bool {
	_, ok := v.(*ir.Call)
	return ok
}

// printf lowers printf, which only sequential code and seq bodies may
// run: every processor that runs it prints.
func (b *body) printf(e *call) {
	switch {
	case b.mode != hostMode && !b.inSeq:
		b.errorf(e.pos, "printf in parallel code; wrap it in seq")
		return
	case b.rec != nil:
		b.errorf(e.pos, "printf in recursive sync function %s is not supported: the groups of a level run together on the device, which does not print; record the values in arrays and print them after start", b.rec.fn.name)
		return
	}
	format := e.args[0].(*strLit)
	pieces, _ := ir.ParseFormat(format.value)
	out := &ir.Printf{Pos: e.pos, Format: format.value}
	args := e.args[1:]
	for _, p := range pieces {
		if p.Verb == 0 || len(out.Args) == len(args) {
			continue
		}
		a := args[len(out.Args)]
		if s, ok := a.(*strLit); ok {
			out.Args = append(out.Args, &ir.Str{Pos: s.pos, Value: s.value})
			continue
		}
		t, _ := printfType(p, a.typ())
		out.Args = append(out.Args, convert(b.expr(a), t))
	}
	b.Emit(out)
}

// Note [Asynchronous multiprefix]
//
// The SB-PRAM serves the processors that apply mpadd to one cell in one
// step in the order of $. Asynchronous code (farm and seq bodies) has no
// steps: its processors run at their own pace, so Fork's mpadd there is an
// atomic fetch-and-add that serves them in some order, each getting the
// value before its own contribution and the cell ending with the total.
// So in asynchronous code the multiprefix operations lower to the IR's
// plain atomics (add, max, min, and, or), which need no scan and work at
// any address, such as the per-group cells of a recursive sync function
// (Note [Group recursion]). Programs that need the order of $ use them in
// synchronous code.

// plainAtomics maps the multiprefix operations to the atomics that
// asynchronous code runs.
var plainAtomics = map[ir.AtomicOp]ir.AtomicOp{
	ir.MultiAdd: ir.AtomicAdd, ir.MultiMax: ir.AtomicMax, ir.MultiMin: ir.AtomicMin,
	ir.MultiAnd: ir.AtomicAnd, ir.MultiOr: ir.AtomicOr,
}

// multiprefix lowers mpadd(&x, v) and friends: in synchronous code to a
// multiprefix atomic, a step of its own (Note [Steps]); in asynchronous
// code to a plain atomic (Note [Asynchronous multiprefix]).
func (b *body) multiprefix(e *call, needValue bool) ir.Expr {
	switch b.mode {
	case hostMode:
		b.errorf(e.pos, "%s used outside start%s", e.name, b.sequentialCaller())
		return b.zeroOf(e)
	case deviceMode:
		b.errorf(e.pos, "%s in a function called from parallel code is not supported; use it in start, in a sync function or in farm", e.name)
		return b.zeroOf(e)
	}
	addr := e.args[0].(*addrOf)
	p := b.place(addr.x)
	if p == nil {
		return b.zeroOf(e)
	}
	if p.local != "" {
		b.errorf(addr.pos, "%s needs a shared variable, but %s is private", e.name, p.bd.v.name)
		return b.zeroOf(e)
	}
	v := convert(b.expr(e.args[1]), p.t)
	sync := b.step != nil
	op := builtinOps[e.name]
	switch {
	case !sync:
		op = plainAtomics[op] // Note [Asynchronous multiprefix]
	case b.rec != nil && e.builtin == mpBuiltin && needValue:
		b.errorf(e.pos, "%s with a result in the synchronous code of recursive sync function %s is not supported: the groups would need one multiprefix scan each; use it in farm, where it is an atomic fetch-and-add", e.name, b.rec.fn.name)
		return b.zeroOf(e)
	}
	if sync {
		v = b.hold(v)
		if b.step.reads {
			b.barrier(e.pos)
		}
	}
	at := &ir.Atomic{Pos: e.pos, Op: op, Buf: p.buf, Index: p.index, Args: []ir.Expr{v}}
	var result ir.Expr
	if e.builtin == mpBuiltin && needValue {
		at.Dst = b.stepLocal(e.pos, "prefix", p.t)
		result = &ir.Var{Pos: e.pos, Name: at.Dst, T: p.t}
	}
	b.Emit(at)
	if sync {
		b.barrier(e.pos)
	}
	return result
}
