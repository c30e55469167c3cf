package trs

import (
	"fmt"

	"gpuc/ir"
)

// fn builds the body of one IR function: statements go to the current
// block, and every node gets the builder's current position, which the
// rule code sets to the rule it lowers.
type fn struct {
	l     *lowerer
	f     *ir.Func
	pos   ir.Pos
	types map[string]ir.Type // parameters and locals
	cur   *[]ir.Stmt
}

// param is a function parameter.
type param struct {
	name string
	t    ir.Type
}

// newFunc adds a function to the module and returns its builder.
func (l *lowerer) newFunc(kind ir.FuncKind, name string, result ir.Type, params ...param) *fn {
	f := &ir.Func{Pos: l.pos, Kind: kind, Name: name, Result: result, Body: []ir.Stmt{}}
	b := &fn{l: l, f: f, pos: l.pos, types: map[string]ir.Type{}, cur: &f.Body}
	for _, p := range params {
		f.Params = append(f.Params, &ir.Field{Pos: l.pos, Name: p.name, Type: p.t})
		b.types[p.name] = p.t
	}
	l.m.Funcs = append(l.m.Funcs, f)
	return b
}

func (b *fn) emit(ss ...ir.Stmt) { *b.cur = append(*b.cur, ss...) }

// nest runs body with statements going to a new block, and returns it.
func (b *fn) nest(body func()) []ir.Stmt {
	saved := b.cur
	out := []ir.Stmt{}
	b.cur = &out
	body()
	b.cur = saved
	return out
}

// ---- statements ----

// decl declares a local and returns a read of it.
func (b *fn) decl(name string, t ir.Type, init ir.Expr) ir.Expr {
	b.types[name] = t
	b.emit(&ir.Decl{Pos: b.pos, Name: name, T: t, Init: init})
	return b.v(name)
}

func (b *fn) set(name string, e ir.Expr) { b.emit(&ir.Assign{Pos: b.pos, Name: name, Value: e}) }

func (b *fn) store(buf string, i, v ir.Expr) {
	b.emit(&ir.Store{Pos: b.pos, Buf: buf, Index: i, Value: v})
}

// atomic applies op to buf[i]; dst, if not "", receives the old value.
func (b *fn) atomic(dst string, op ir.AtomicOp, buf string, i ir.Expr, args ...ir.Expr) {
	b.emit(&ir.Atomic{Pos: b.pos, Dst: dst, Op: op, Buf: buf, Index: i, Args: args})
}

func (b *fn) if_(c ir.Expr, then func()) { b.emit(&ir.If{Pos: b.pos, Cond: c, Then: b.nest(then)}) }

func (b *fn) ifElse(c ir.Expr, then, els func()) {
	b.emit(&ir.If{Pos: b.pos, Cond: c, Then: b.nest(then), Else: b.nest(els)})
}

func (b *fn) while(c ir.Expr, body func()) {
	b.emit(&ir.While{Pos: b.pos, Cond: c, Body: b.nest(body)})
}

// loop runs body for i = from, from+step, ... while i < to, with i a new
// i32 local.
func (b *fn) loop(i string, from, to, step ir.Expr, body func()) {
	b.types[i] = ir.I32
	f := &ir.For{Pos: b.pos, Init: &ir.Decl{Pos: b.pos, Name: i, T: ir.I32, Init: from},
		Cond: b.lt(b.v(i), to), Post: &ir.Assign{Pos: b.pos, Name: i, Value: b.add(b.v(i), step)}}
	f.Body = b.nest(body)
	b.emit(f)
}

func (b *fn) call(name string, args ...ir.Expr) {
	b.emit(&ir.CallStmt{Pos: b.pos, Call: b.callExpr(name, args...)})
}

func (b *fn) printf(format string, args ...ir.Expr) {
	b.emit(&ir.Printf{Pos: b.pos, Format: format, Args: args})
}

// eprintf prints to standard error.
func (b *fn) eprintf(format string, args ...ir.Expr) {
	b.emit(&ir.Printf{Pos: b.pos, Stderr: true, Format: format, Args: args})
}

func (b *fn) brk()              { b.emit(&ir.Break{Pos: b.pos}) }
func (b *fn) ret(e ir.Expr)     { b.emit(&ir.Return{Pos: b.pos, Value: e}) }
func (b *fn) raise(msg string)  { b.emit(&ir.Raise{Pos: b.pos, Msg: msg}) }
func (b *fn) barrier(grid bool) { b.emit(&ir.Barrier{Pos: b.pos, Grid: grid}) }
func (b *fn) copyIn(dst, src string, n ir.Expr) {
	b.emit(&ir.Copy{Pos: b.pos, Dst: dst, DstOff: b.i32(0), Src: src, SrcOff: b.i32(0), Count: n})
}

// ---- expressions ----

// v reads a local or parameter of the function.
func (b *fn) v(name string) ir.Expr {
	t, ok := b.types[name]
	if !ok {
		panic(fmt.Sprintf("trs: lowering reads undeclared local %s", name))
	}
	return &ir.Var{Pos: b.pos, Name: name, T: t}
}

// p reads a module parameter.
func (b *fn) p(name string) ir.Expr {
	return &ir.ParamRef{Pos: b.pos, Name: name, T: b.l.m.Param(name).Type}
}

// ld reads buf[i], a device buffer or a host array.
func (b *fn) ld(buf string, i ir.Expr) ir.Expr {
	var t ir.Type
	if d := b.l.m.Buffer(buf); d != nil {
		t = d.Elem
	} else {
		t = b.l.m.Array(buf).Elem
	}
	return &ir.Load{Pos: b.pos, Buf: buf, Index: i, T: t}
}

func (b *fn) i32(v int64) ir.Expr { c := ir.IntConst(ir.I32, v); c.Pos = b.pos; return c }
func (b *fn) i64(v int64) ir.Expr { c := ir.IntConst(ir.I64, v); c.Pos = b.pos; return c }
func (b *fn) u8(v int64) ir.Expr  { c := ir.IntConst(ir.U8, v); c.Pos = b.pos; return c }
func (b *fn) u64(v uint64) ir.Expr {
	return &ir.Const{Pos: b.pos, T: ir.U64, Bits: v}
}
func (b *fn) boolean(v bool) ir.Expr { c := ir.BoolConst(v); c.Pos = b.pos; return c }
func (b *fn) str(s string) ir.Expr   { return &ir.Str{Pos: b.pos, Value: s} }

func (b *fn) bin(op ir.BinOp, x, y ir.Expr) ir.Expr {
	return &ir.Binary{Pos: b.pos, Op: op, X: x, Y: y}
}
func (b *fn) add(x, y ir.Expr) ir.Expr { return b.bin(ir.Add, x, y) }
func (b *fn) sub(x, y ir.Expr) ir.Expr { return b.bin(ir.Sub, x, y) }
func (b *fn) mul(x, y ir.Expr) ir.Expr { return b.bin(ir.Mul, x, y) }
func (b *fn) rem(x, y ir.Expr) ir.Expr { return b.bin(ir.Rem, x, y) }
func (b *fn) eq(x, y ir.Expr) ir.Expr  { return b.bin(ir.Eq, x, y) }
func (b *fn) ne(x, y ir.Expr) ir.Expr  { return b.bin(ir.Ne, x, y) }
func (b *fn) lt(x, y ir.Expr) ir.Expr  { return b.bin(ir.Lt, x, y) }
func (b *fn) ge(x, y ir.Expr) ir.Expr  { return b.bin(ir.Ge, x, y) }
func (b *fn) and(x, y ir.Expr) ir.Expr { return b.bin(ir.LogAnd, x, y) }
func (b *fn) or(x, y ir.Expr) ir.Expr  { return b.bin(ir.LogOr, x, y) }
func (b *fn) not(x ir.Expr) ir.Expr    { return &ir.Unary{Pos: b.pos, Op: ir.Not, X: x} }

// conv converts x to t, folding a constant: i64(2) would print back as 2l.
func (b *fn) conv(t ir.Type, x ir.Expr) ir.Expr {
	if c, ok := x.(*ir.Const); ok {
		return &ir.Const{Pos: b.pos, T: t, Bits: ir.EvalConvert(t, c.T, c.Bits)}
	}
	return &ir.Convert{Pos: b.pos, T: t, X: x}
}
func (b *fn) sel(c, x, y ir.Expr) ir.Expr { return &ir.Select{Pos: b.pos, Cond: c, X: x, Y: y} }

func (b *fn) min(x, y ir.Expr) ir.Expr {
	return &ir.Builtin{Pos: b.pos, Op: ir.Min, Args: []ir.Expr{x, y}}
}

func (b *fn) max(x, y ir.Expr) ir.Expr {
	return &ir.Builtin{Pos: b.pos, Op: ir.Max, Args: []ir.Expr{x, y}}
}

func (b *fn) builtin(op ir.BuiltinOp) ir.Expr { return &ir.Builtin{Pos: b.pos, Op: op} }

func (b *fn) callExpr(name string, args ...ir.Expr) *ir.Call {
	return &ir.Call{Pos: b.pos, Func: name, Args: args, T: b.l.m.Func(name).Result}
}
