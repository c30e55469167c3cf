package chr

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"gpuc/frontends/chr/parser"
	"gpuc/frontends/syntax"
	"gpuc/internal/diag"
)

// term is a Prolog term as read: the parse tree with operators turned
// into compound terms, before it means anything.
type term interface{ at() diag.Pos }

// variable is a named or anonymous (_) variable.
type variable struct {
	pos  diag.Pos
	name string
}

// integer is an integer literal; big holds values beyond 64 bits, which the
// frontend refuses where it meets them.
type integer struct {
	pos diag.Pos
	val int64
	big bool
}

// float is a floating-point literal.
type float struct {
	pos diag.Pos
	val float64
}

// compound is f(a, b, ...) or an operator application; an atom is a
// compound with no arguments.
type compound struct {
	pos  diag.Pos
	name string
	args []term
	// paren marks a term written in parentheses, which arguments and
	// conjunctions do not split.
	paren bool
}

// foreign is a construct that parses but that gpuc does not read: a
// list, a string, a cut or a curly term. what names it in diagnostics.
type foreign struct {
	pos  diag.Pos
	what string
}

func (t *variable) at() diag.Pos { return t.pos }
func (t *integer) at() diag.Pos  { return t.pos }
func (t *float) at() diag.Pos    { return t.pos }
func (t *compound) at() diag.Pos { return t.pos }
func (t *foreign) at() diag.Pos  { return t.pos }

// is reports whether t is the compound name/arity.
func is(t term, name string, arity int) bool {
	c, ok := t.(*compound)
	return ok && c.name == name && len(c.args) == arity
}

// conjuncts splits a conjunction (A, B, C) into its goals. Parentheses
// around a conjunction do not protect it here, as in Prolog.
func conjuncts(t term) []term {
	var out []term
	stack := []term{t} // what is left to split, the next last
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c, ok := t.(*compound); ok && c.name == "," && len(c.args) == 2 {
			stack = append(stack, c.args[1], c.args[0])
			continue
		}
		out = append(out, t)
	}
	return out
}

// termBuilder turns parse trees into terms.
type termBuilder struct {
	file string
	errs *diag.List
	ops  opTable // the operators declared with op/3 (Note [User operators])
}

// samePriority reports whether t is an operator term of u's priority
// written without parentheses.
func (b *termBuilder) samePriority(t term, u userOp) bool {
	c, ok := t.(*compound)
	if !ok || c.paren || len(c.args) != 2 {
		return false
	}
	v, user := b.ops[c.name]
	return user && v.level == u.level
}

var ctxPos, tokPos = syntax.CtxPos, syntax.Pos

// clause builds the term of one clause.
func (b *termBuilder) clause(ctx parser.IClauseContext) term { return b.term(ctx.Term()) }

func (b *termBuilder) term(ctx parser.ITermContext) term {
	switch c := ctx.(type) {
	case *parser.PrimaryTermContext:
		return b.primary(c.Primary())
	case *parser.PrefixTermContext:
		return b.prefix(c)
	case *parser.DirectiveTermContext:
		return b.op(c.GetOp().GetText(), tokPos(b.file, c.GetOp()), c.Term())
	case *parser.DeclTermContext:
		return b.op(c.GetOp().GetText(), tokPos(b.file, c.GetOp()), c.Term())
	case *parser.NotTermContext:
		return b.op(c.GetOp().GetText(), tokPos(b.file, c.GetOp()), c.Term())
	}
	if op, pos, l, r, ok := binary(b.file, ctx); ok {
		x, y := b.term(l), b.term(r)
		if u, user := b.ops[op]; user && u.xfx && (b.samePriority(x, u) || b.samePriority(y, u)) {
			b.errs.Add(pos, "operator %s is xfx, so it does not associate: write (A %s B) %s C or A %s (B %s C)", op, op, op, op, op)
		}
		if m, ok := x.(*compound); ok && op == ":" && len(m.args) == 0 {
			if _, ok := y.(*compound); ok {
				return y // a module-qualified goal, primes:prime(N), is the goal
			}
		}
		return &compound{pos: pos, name: op, args: []term{x, y}}
	}
	pos := ctxPos(b.file, ctx)
	b.errs.Add(pos, "unsupported term")
	return &foreign{pos: pos, what: "term"}
}

func (b *termBuilder) op(name string, pos diag.Pos, arg parser.ITermContext) term {
	return &compound{pos: pos, name: name, args: []term{b.term(arg)}}
}

// prefix builds a prefix operator term; a minus sign before a number
// literal makes a negative number, as in Prolog.
func (b *termBuilder) prefix(c *parser.PrefixTermContext) term {
	pos := tokPos(b.file, c.GetOp())
	x := b.term(c.Term())
	if c.GetOp().GetText() == "-" {
		switch n := x.(type) {
		case *integer:
			if !n.big || n.val == math.MinInt64 {
				return &integer{pos: pos, val: -n.val, big: n.big && n.val != math.MinInt64}
			}
		case *float:
			return &float{pos: pos, val: -n.val}
		}
	}
	return &compound{pos: pos, name: c.GetOp().GetText(), args: []term{x}}
}

// binary takes apart an infix operator term.
func binary(file string, ctx parser.ITermContext) (op string, pos diag.Pos, l, r parser.ITermContext, ok bool) {
	type infix interface {
		Term(int) parser.ITermContext
	}
	var text string
	switch c := ctx.(type) {
	case *parser.PowTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.MulTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.AddTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.CmpTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.UserTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.ColonTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.HashTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.CommaTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.IfTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.OrTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.BackslashTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.RuleTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.PragmaTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.NamedTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	case *parser.ClauseTermContext:
		text, pos = c.GetOp().GetText(), tokPos(file, c.GetOp())
	default:
		return "", pos, nil, nil, false
	}
	in := ctx.(infix)
	return atomName(text), pos, in.Term(0), in.Term(1), true
}

func (b *termBuilder) primary(ctx parser.IPrimaryContext) term {
	pos := ctxPos(b.file, ctx)
	switch c := ctx.(type) {
	case *parser.CompoundContext:
		t := &compound{pos: pos, name: atomName(c.Atom().GetText())}
		for _, a := range splitArgs(c.Term()) {
			t.args = append(t.args, b.term(a))
		}
		return t
	case *parser.IntContext:
		return b.integer(pos, c.GetText())
	case *parser.FloatContext:
		v, err := strconv.ParseFloat(c.GetText(), 64)
		if err != nil {
			b.errs.Add(pos, "float %s is out of range", c.GetText())
		}
		return &float{pos: pos, val: v}
	case *parser.VarContext:
		return &variable{pos: pos, name: c.GetText()}
	case *parser.AtomTermContext:
		return &compound{pos: pos, name: atomName(c.GetText())}
	case *parser.ParenContext:
		t := b.term(c.Term())
		if cp, ok := t.(*compound); ok {
			cp.paren = true
		}
		return t
	case *parser.ListContext:
		return &foreign{pos: pos, what: "a list"}
	case *parser.CurlyContext:
		return &foreign{pos: pos, what: "a curly-brace term"}
	case *parser.StringContext:
		return &foreign{pos: pos, what: "a string"}
	case *parser.CutContext:
		return &foreign{pos: pos, what: "the cut (!)"}
	}
	b.errs.Add(pos, "unsupported term")
	return &foreign{pos: pos, what: "term"}
}

func (b *termBuilder) integer(pos diag.Pos, text string) term {
	v, err := strconv.ParseInt(text, 10, 64)
	if err == nil {
		return &integer{pos: pos, val: v}
	}
	// 2^63 is allowed only as the operand of a minus sign.
	if n, ok := new(big.Int).SetString(text, 10); ok && n.Cmp(new(big.Int).Lsh(big.NewInt(1), 63)) == 0 {
		return &integer{pos: pos, val: math.MinInt64, big: true}
	}
	return &integer{pos: pos, big: true}
}

// splitArgs splits the argument term of f(...) at its top-level commas.
func splitArgs(ctx parser.ITermContext) []parser.ITermContext {
	if c, ok := ctx.(*parser.CommaTermContext); ok {
		return append([]parser.ITermContext{c.Term(0)}, splitArgs(c.Term(1))...)
	}
	return []parser.ITermContext{ctx}
}

// atomName reads an atom's spelling, unquoting 'quoted atoms'.
func atomName(text string) string {
	if len(text) < 2 || text[0] != '\'' {
		return text
	}
	body := text[1 : len(text)-1]
	var s strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\'' && i+1 < len(body) && body[i+1] == '\'':
			s.WriteByte('\'')
			i++
		case c == '\\' && i+1 < len(body):
			i++
			s.WriteByte(unescape(body[i]))
		default:
			s.WriteByte(c)
		}
	}
	return s.String()
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	}
	return c
}
