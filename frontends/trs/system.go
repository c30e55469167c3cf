package trs

import (
	"strings"

	"gpuc/internal/diag"
)

// System is a checked term rewrite system with its input term: what the
// lowering, the CPU rewriter and the Maude translation all start from.
type System struct {
	// Name names the module: the file's base name, made an identifier.
	Name string
	// Syms are the function symbols, numbered by Index in order of arity,
	// then of first declaration or use, so that the symbols of one arity
	// form a contiguous range (Note [Symbol numbers]).
	Syms []*Sym
	// Sorts names the sorts of a system in the paper's notation; a WST
	// system is unsorted and has none.
	Sorts []string
	// Rules are all rules in file order, as written: conditional rules
	// keep their conditions. The symbols' Rules are what rewrites, where
	// conditional rules are unravelled (Note [Conditional rules]).
	Rules []*Rule
	// MaxArity is the largest arity of a symbol, at least 1.
	MaxArity int
	// Input is the ground term to normalise.
	Input *Term
	// WST says the system was written in the TPDB's WST notation, whose
	// constants print without parentheses.
	WST bool
	// REC says it was written in the REC format (Note [REC]), sorted but
	// with constants printed as in WST.
	REC bool
}

// Bare says whether constants print without parentheses: S(Zero()) in the
// paper's notation, s(0) in WST and REC.
func (sys *System) Bare() bool { return sys.WST || sys.REC }

// Sym is a function symbol.
type Sym struct {
	Name  string
	Index int
	Arity int
	// Sort is the result sort's index in System.Sorts, and ArgSorts those
	// of the arguments; -1 and nil in an unsorted system.
	Sort     int
	ArgSorts []int
	// Rules are the rules whose left-hand side has this head, in file
	// order: the first that matches applies. None is conditional.
	Rules []*Rule
	// Of is, for a copy of a symbol made by unravelling conditional rules,
	// the symbol it copies (Note [Conditional rules]): a copy prints as
	// Of, and where none of its rules applies it becomes Of, in normal
	// form. Nil for every other symbol.
	Of *Sym
	// Aux says the checker made the symbol: a copy, or one of Notes
	// [Conditional rules] and [Repeated subterms]. Input terms cannot
	// name it, and Maude, which takes the rules as written, has no use
	// for it.
	Aux bool
	Pos diag.Pos
}

// Defined reports whether a term headed by the symbol may be rewritten:
// the symbol has rules, or is a copy, which becomes the symbol it copies.
// A term headed by a symbol that is not defined is in normal form when
// its arguments are.
func (s *Sym) Defined() bool { return len(s.Rules) > 0 || s.Of != nil }

// Rule is a checked rewrite rule. Its left-hand side is headed by a
// symbol; every variable of the right-hand side occurs on the left, where
// a variable may occur more than once (the rule then applies only where
// those subterms are equal).
type Rule struct {
	Pos      diag.Pos
	Index    int // in file order
	LHS, RHS *Term
	// Vars are the rule's variables in order of first occurrence in LHS.
	Vars []*Var
	// Conds are the conditions of a conditional rule, all of which must
	// hold for it to apply. Only the rules of System.Rules have them.
	Conds []*Cond
}

// Cond is a condition of a rule: A and B have the same normal form (Join,
// written A -><- B) or different ones (A ->/<- B).
type Cond struct {
	Pos  diag.Pos
	A, B *Term
	Join bool
}

// Var is a variable of one rule.
type Var struct {
	Name  string
	Sort  int // -1 in an unsorted system
	Index int // in Rule.Vars
}

// Term is a symbol applied to arguments or, in rules, a variable.
type Term struct {
	Sym  *Sym // nil for a variable
	Var  *Var
	Args []*Term
	Pos  diag.Pos
}

// Sort is the sort of t, a checked term: its variable's or its head's;
// -1 in an unsorted system.
func (t *Term) Sort() int {
	if t.Var != nil {
		return t.Var.Sort
	}
	return t.Sym.Sort
}

// Format prints t as gpuc prints normal forms: f(a, b), with constants as
// C() in the paper's notation and as C in WST. Variables print by name.
func (sys *System) Format(t *Term) string {
	var b strings.Builder
	sys.format(&b, t)
	return b.String()
}

func (sys *System) format(b *strings.Builder, t *Term) {
	if t.Var != nil {
		b.WriteString(t.Var.Name)
		return
	}
	b.WriteString(t.Sym.Name)
	if len(t.Args) == 0 {
		if !sys.Bare() {
			b.WriteString("()")
		}
		return
	}
	b.WriteByte('(')
	for i, a := range t.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		sys.format(b, a)
	}
	b.WriteByte(')')
}

// Lookup returns the symbol called name, or nil.
func (sys *System) Lookup(name string) *Sym {
	for _, s := range sys.Syms {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// ArityStart returns the index of the first symbol of arity a or more;
// ArityStart(MaxArity+1) is len(Syms).
func (sys *System) ArityStart(a int) int {
	for i, s := range sys.Syms {
		if s.Arity >= a {
			return i
		}
	}
	return len(sys.Syms)
}

// SameTerm reports whether two terms of one rule are the same: the same
// variable, or the same symbol applied to the same terms.
func SameTerm(a, b *Term) bool {
	if a.Var != nil || b.Var != nil {
		return a.Var == b.Var
	}
	if a.Sym != b.Sym {
		return false
	}
	for i := range a.Args {
		if !SameTerm(a.Args[i], b.Args[i]) {
			return false
		}
	}
	return true
}
