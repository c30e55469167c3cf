package chr

import (
	"gpuc/internal/diag"
	"gpuc/ir"
)

// Small constructors for the IR the lowering builds. Every node carries
// the position of the CHR construct it implements, so that the race
// checker and the verifier point into the .chr file.

func i32c(v int64) *ir.Const { return ir.IntConst(ir.I32, v) }
func i64c(v int64) *ir.Const { return ir.IntConst(ir.I64, v) }
func u64c(v uint64) *ir.Const {
	return &ir.Const{T: ir.U64, Bits: v}
}
func f64c(v float64) *ir.Const { return &ir.Const{T: ir.F64, Bits: ir.FloatBits(ir.F64, v)} }
func boolc(v bool) *ir.Const   { return ir.BoolConst(v) }

func local(name string, t ir.Type) *ir.Var { return &ir.Var{Name: name, T: t} }

func load(buf string, idx ir.Expr, t ir.Type) *ir.Load {
	return &ir.Load{Buf: buf, Index: idx, T: t}
}

func binop(op ir.BinOp, x, y ir.Expr) *ir.Binary { return &ir.Binary{Op: op, X: x, Y: y} }
func and(x, y ir.Expr) ir.Expr {
	switch {
	case x == nil:
		return y
	case y == nil:
		return x
	}
	return binop(ir.LogAnd, x, y)
}
func not(x ir.Expr) *ir.Unary { return &ir.Unary{Op: ir.Not, X: x} }
func conv(t ir.Type, x ir.Expr) ir.Expr {
	if x.Type() == t {
		return x
	}
	return &ir.Convert{T: t, X: x}
}
func builtin(op ir.BuiltinOp, args ...ir.Expr) *ir.Builtin { return &ir.Builtin{Op: op, Args: args} }

// block collects statements at one source position through ir.Builder
// (Note [IR builder]); CHR builds nested bodies as blocks of their own
// and passes them to ifThen and while.
type block struct{ *ir.Builder }

// newBlock starts an empty block of m at pos.
func newBlock(m *ir.Module, pos diag.Pos) *block {
	return &block{ir.NewBuilder(m, pos, new([]ir.Stmt))}
}

// stmts is what the block holds.
func (b *block) stmts() []ir.Stmt { return *b.Block() }

func (b *block) decl(name string, t ir.Type, init ir.Expr) *ir.Var {
	b.Emit(&ir.Decl{Pos: b.Pos, Name: name, T: t, Init: init})
	return local(name, t)
}

func (b *block) ifThen(cond ir.Expr, then []ir.Stmt) {
	b.Emit(&ir.If{Pos: b.Pos, Cond: cond, Then: then})
}

func (b *block) while(cond ir.Expr, body []ir.Stmt) {
	b.Emit(&ir.While{Pos: b.Pos, Cond: cond, Body: body})
}

// sub starts a nested block at the same position.
func (b *block) sub() *block { return newBlock(b.M, b.Pos) }

// names hands out fresh local names in a region, where no local may
// shadow another.
type names struct {
	used map[string]bool
	next map[string]int // the suffix to try next for a base, which keeps fresh linear
}

func (n *names) fresh(base string) string {
	if n.used == nil {
		n.used, n.next = map[string]bool{}, map[string]int{}
	}
	name := ir.FreshName(base, 1, func(s string) bool { return n.used[s] })
	n.used[name] = true
	return name
}
