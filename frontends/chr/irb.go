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

// Note [Positions of generated code]
//
// Generated statements carry the position of the source construct they
// come from, so that what reports a position about them (the termination
// analysis's loops, gpuc run's faults) points into the program: a rule's
// matching, search and commit code is at the rule, a store's snapshot,
// index, compaction, output sort and printing at the constraint's
// chr_constraint declaration, and the fixpoint loop with its claim rounds
// at the query. What has no source of its own (the module, its buffers
// and parameters) stays at the file's first line. Before, only the
// commit and the head arguments' tests had the rule's position, and 43 of
// gcd.chr's 47 loops in the termination analysis said gcd.chr:1:1.

// at is b with its statements and expressions at pos, the position of
// the rule or constraint that the code comes from (Note [Positions of
// generated code]); statements still go to b's block. A zero pos (a
// constraint used but never declared) keeps b's.
func (b *block) at(pos diag.Pos) *block {
	if pos.Line == 0 {
		return b
	}
	return &block{b.Builder.At(pos)}
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
