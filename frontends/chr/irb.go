package chr

import (
	"gpuc/internal/diag"
	"gpuc/ir"
)

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

// decl declares a local and returns a read of it, whose Name later
// statements assign.
func (b *block) decl(name string, t ir.Type, init ir.Expr) *ir.Var {
	return b.Decl(name, t, init).(*ir.Var)
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
