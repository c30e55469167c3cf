package fork

import (
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
	case groupsizeBuiltin:
		return b.groupValue(e.pos, "groupsize()", 2)
	case mpBuiltin, syncBuiltin:
		return b.multiprefix(e, needValue)
	}
	f := e.fn
	if f.mode == syncFunc {
		if b.mode == syncMode {
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
	for _, a := range arrays {
		if a == nil {
			return b.zeroOf(e) // an error was reported at the array's declaration
		}
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
		b.emit(&ir.CallStmt{Pos: v.At(), Call: v.(*ir.Call)})
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
	if b.mode != hostMode && !b.inSeq {
		b.errorf(e.pos, "printf in parallel code; wrap it in seq")
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
	b.emit(out)
}

// multiprefix lowers mpadd(&x, v) and friends to a multiprefix atomic:
// in synchronous code a step of its own (Note [Steps]).
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
	if sync {
		v = b.hold(v)
		if b.step.reads {
			b.barrier(e.pos)
		}
	}
	at := &ir.Atomic{Pos: e.pos, Op: builtinOps[e.name], Buf: p.buf, Index: p.index, Args: []ir.Expr{v}}
	var result ir.Expr
	if e.builtin == mpBuiltin && needValue {
		at.Dst = b.stepLocal(e.pos, "prefix", p.t)
		result = &ir.Var{Pos: e.pos, Name: at.Dst, T: p.t}
	}
	b.emit(at)
	if sync {
		b.barrier(e.pos)
	}
	return result
}
