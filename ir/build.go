package ir

import "fmt"

// Note [IR builder]
//
// Frontends and passes that write IR build it through one Builder: it
// appends statements to the current block, opens nested blocks with
// closures (If, While, Loop, Nest), and gives every node it makes the
// builder's Pos, which the caller moves to the source construct being
// lowered, so that the verifier and the race checker point into the
// source. It knows the types of the function's parameters and of the
// locals it declared, and reads module parameters, buffers, arrays and
// function results from the module, so that reads come out typed.
//
// A pass's own bookkeeping expressions (group-split's flags and counters,
// host-loops' read-backs) are built with At(Pos{}) and carry no position,
// as before the builder: positions reach the fault messages of generated
// programs, so giving them one is a change of output to make on purpose.

// Builder builds the body of one function (Note [IR builder]).
type Builder struct {
	M     *Module
	F     *Func
	Pos   Pos
	types map[string]Type // parameters and locals
	cur   *[]Stmt
}

// NewFunc adds a function to m and returns its builder, positioned at pos.
func NewFunc(m *Module, pos Pos, kind FuncKind, name string, result Type, params ...*Field) *Builder {
	b := BuildFunc(m, pos, kind, name, result, params...)
	m.Funcs = append(m.Funcs, b.F)
	return b
}

// BuildFunc returns the builder of a new function, positioned at pos, that
// the caller adds to the module where it wants it.
func BuildFunc(m *Module, pos Pos, kind FuncKind, name string, result Type, params ...*Field) *Builder {
	f := &Func{Pos: pos, Kind: kind, Name: name, Result: result, Params: params, Body: []Stmt{}}
	b := NewBuilder(m, pos, &f.Body)
	b.F = f
	for _, p := range params {
		b.types[p.Name] = p.Type
	}
	return b
}

// NewBuilder returns a builder whose statements go to *out, for code that
// makes its function afterwards; F is nil.
func NewBuilder(m *Module, pos Pos, out *[]Stmt) *Builder {
	return &Builder{M: m, Pos: pos, types: map[string]Type{}, cur: out}
}

// At returns a builder positioned at pos that knows b's locals, for the
// expressions of a construct that carry another position than its
// statements, or none; statements go through b.
func (b *Builder) At(pos Pos) *Builder {
	c := *b
	c.Pos = pos
	return &c
}

// Block is the block that statements go to now: callers compare it with
// one they saw before to know whether they are still at that level.
func (b *Builder) Block() *[]Stmt { return b.cur }

// Emit appends statements to the current block.
func (b *Builder) Emit(ss ...Stmt) { *b.cur = append(*b.cur, ss...) }

// Nest runs body with statements going to a new block, and returns it.
func (b *Builder) Nest(body func()) []Stmt {
	saved := b.cur
	out := []Stmt{}
	b.cur = &out
	body()
	b.cur = saved
	return out
}

// ---- statements ----

// Decl declares a local and returns a read of it.
func (b *Builder) Decl(name string, t Type, init Expr) Expr {
	b.types[name] = t
	b.Emit(&Decl{Pos: b.Pos, Name: name, T: t, Init: init})
	return b.V(name)
}

func (b *Builder) Set(name string, e Expr) { b.Emit(&Assign{Pos: b.Pos, Name: name, Value: e}) }

func (b *Builder) Store(buf string, i, v Expr) {
	b.Emit(&Store{Pos: b.Pos, Buf: buf, Index: i, Value: v})
}

// Atomic applies op to buf[i]; dst, if not "", receives the old value.
func (b *Builder) Atomic(dst string, op AtomicOp, buf string, i Expr, args ...Expr) {
	b.Emit(&Atomic{Pos: b.Pos, Dst: dst, Op: op, Buf: buf, Index: i, Args: args})
}

func (b *Builder) If(c Expr, then func()) { b.Emit(&If{Pos: b.Pos, Cond: c, Then: b.Nest(then)}) }

func (b *Builder) IfElse(c Expr, then, els func()) {
	b.Emit(&If{Pos: b.Pos, Cond: c, Then: b.Nest(then), Else: b.Nest(els)})
}

func (b *Builder) While(c Expr, body func()) {
	b.Emit(&While{Pos: b.Pos, Cond: c, Body: b.Nest(body)})
}

// Loop runs body for i = from, from+step, ... while i < to, with i a new
// i32 local.
func (b *Builder) Loop(i string, from, to, step Expr, body func()) {
	b.types[i] = I32
	f := &For{Pos: b.Pos, Init: &Decl{Pos: b.Pos, Name: i, T: I32, Init: from},
		Cond: b.Lt(b.V(i), to), Post: &Assign{Pos: b.Pos, Name: i, Value: b.Add(b.V(i), step)}}
	f.Body = b.Nest(body)
	b.Emit(f)
}

func (b *Builder) Call(name string, args ...Expr) {
	b.Emit(&CallStmt{Pos: b.Pos, Call: b.CallExpr(name, args...)})
}

func (b *Builder) Printf(format string, args ...Expr) {
	b.Emit(&Printf{Pos: b.Pos, Format: format, Args: args})
}

// Eprintf prints to the standard error stream.
func (b *Builder) Eprintf(format string, args ...Expr) {
	b.Emit(&Printf{Pos: b.Pos, Stderr: true, Format: format, Args: args})
}

func (b *Builder) Break()            { b.Emit(&Break{Pos: b.Pos}) }
func (b *Builder) Return(e Expr)     { b.Emit(&Return{Pos: b.Pos, Value: e}) }
func (b *Builder) Raise(msg string)  { b.Emit(&Raise{Pos: b.Pos, Msg: msg}) }
func (b *Builder) Barrier(grid bool) { b.Emit(&Barrier{Pos: b.Pos, Grid: grid}) }
func (b *Builder) CopyIn(dst, src string, n Expr) {
	b.Emit(&Copy{Pos: b.Pos, Dst: dst, DstOff: b.I32(0), Src: src, SrcOff: b.I32(0), Count: n})
}

// Scratch adds to the module a global scratch buffer of n elements.
func (b *Builder) Scratch(name string, elem Type, n Expr) *Buffer {
	buf := &Buffer{Pos: b.Pos, Name: name, Elem: elem, Len: n, Space: Global, Role: Scratch}
	b.M.Buffers = append(b.M.Buffers, buf)
	return buf
}

// ---- expressions ----

// V reads a local or parameter of the function.
func (b *Builder) V(name string) Expr {
	t, ok := b.types[name]
	if !ok {
		panic(fmt.Sprintf("ir: builder reads undeclared local %s", name))
	}
	return &Var{Pos: b.Pos, Name: name, T: t}
}

// Local reads a local that the builder did not declare (one of another
// builder, or of the code being rewritten) and records its type.
func (b *Builder) Local(name string, t Type) Expr {
	b.types[name] = t
	return b.V(name)
}

// P reads a module parameter.
func (b *Builder) P(name string) Expr {
	return &ParamRef{Pos: b.Pos, Name: name, T: b.M.Param(name).Type}
}

// Ld reads buf[i], a device buffer or a host array.
func (b *Builder) Ld(buf string, i Expr) Expr {
	var t Type
	if d := b.M.Buffer(buf); d != nil {
		t = d.Elem
	} else {
		t = b.M.Array(buf).Elem
	}
	return &Load{Pos: b.Pos, Buf: buf, Index: i, T: t}
}

// Int is the integer constant v of type t.
func (b *Builder) Int(t Type, v int64) Expr { c := IntConst(t, v); c.Pos = b.Pos; return c }

func (b *Builder) I32(v int64) Expr { return b.Int(I32, v) }
func (b *Builder) I64(v int64) Expr { return b.Int(I64, v) }
func (b *Builder) U8(v int64) Expr  { return b.Int(U8, v) }
func (b *Builder) F64(v float64) Expr {
	return &Const{Pos: b.Pos, T: F64, Bits: FloatBits(F64, v)}
}
func (b *Builder) U64(v uint64) Expr {
	return &Const{Pos: b.Pos, T: U64, Bits: v}
}
func (b *Builder) Bool(v bool) Expr  { c := BoolConst(v); c.Pos = b.Pos; return c }
func (b *Builder) Str(s string) Expr { return &Str{Pos: b.Pos, Value: s} }

func (b *Builder) Bin(op BinOp, x, y Expr) Expr {
	return &Binary{Pos: b.Pos, Op: op, X: x, Y: y}
}
func (b *Builder) Add(x, y Expr) Expr { return b.Bin(Add, x, y) }
func (b *Builder) Sub(x, y Expr) Expr { return b.Bin(Sub, x, y) }
func (b *Builder) Mul(x, y Expr) Expr { return b.Bin(Mul, x, y) }
func (b *Builder) Rem(x, y Expr) Expr { return b.Bin(Rem, x, y) }
func (b *Builder) Eq(x, y Expr) Expr  { return b.Bin(Eq, x, y) }
func (b *Builder) Ne(x, y Expr) Expr  { return b.Bin(Ne, x, y) }
func (b *Builder) Lt(x, y Expr) Expr  { return b.Bin(Lt, x, y) }
func (b *Builder) Gt(x, y Expr) Expr  { return b.Bin(Gt, x, y) }
func (b *Builder) Ge(x, y Expr) Expr  { return b.Bin(Ge, x, y) }

// And is x && y; a nil operand stands for true, so that a conjunction
// can be built up from nil, and And(nil, nil) is nil.
func (b *Builder) And(x, y Expr) Expr {
	switch {
	case x == nil:
		return y
	case y == nil:
		return x
	}
	return b.Bin(LogAnd, x, y)
}
func (b *Builder) Or(x, y Expr) Expr { return b.Bin(LogOr, x, y) }
func (b *Builder) Not(x Expr) Expr   { return &Unary{Pos: b.Pos, Op: Not, X: x} }
func (b *Builder) Neg(x Expr) Expr   { return &Unary{Pos: b.Pos, Op: Neg, X: x} }

// Conv converts x to t, folding a constant: i64(2) would print back as 2l.
func (b *Builder) Conv(t Type, x Expr) Expr {
	if c, ok := x.(*Const); ok {
		return &Const{Pos: b.Pos, T: t, Bits: EvalConvert(t, c.T, c.Bits)}
	}
	return &Convert{Pos: b.Pos, T: t, X: x}
}

// Cast converts x to t where it has another type, without folding a
// constant: the conversion stays visible in the generated code.
func (b *Builder) Cast(t Type, x Expr) Expr {
	if x.Type() == t {
		return x
	}
	return &Convert{Pos: b.Pos, T: t, X: x}
}

func (b *Builder) Sel(c, x, y Expr) Expr { return &Select{Pos: b.Pos, Cond: c, X: x, Y: y} }

func (b *Builder) Min(x, y Expr) Expr {
	return &Builtin{Pos: b.Pos, Op: Min, Args: []Expr{x, y}}
}

func (b *Builder) Max(x, y Expr) Expr {
	return &Builtin{Pos: b.Pos, Op: Max, Args: []Expr{x, y}}
}

func (b *Builder) Builtin(op BuiltinOp, args ...Expr) Expr {
	return &Builtin{Pos: b.Pos, Op: op, Args: args}
}

func (b *Builder) CallExpr(name string, args ...Expr) *Call {
	return &Call{Pos: b.Pos, Func: name, Args: args, T: b.M.Func(name).Result}
}
