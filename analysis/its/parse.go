package its

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Parse reads the text form that System.String prints, so that tests can state systems as text:
//
//	system NAME
//	var NAME SORT               (SORT: bool, iW, uW)
//	params NAME, ...
//	thread NAME, ...
//	fact EXPR -- WHY
//	loc NAME [entry exit loop barrier] POS
//	trans FROM -> TO [GUARD, ...] {VAR := EXPR; VAR := *}
//	semantics TEXT
//	assumed TEXT
//
// Lines starting with # are comments. Errors read file:line:col: message.
func Parse(src, file string) (*System, error) {
	s := &System{File: file}
	locs := map[string]int{}
	type pending struct {
		line int
		text string
	}
	var trans []pending
	errf := func(line, col int, format string, args ...any) error {
		return fmt.Errorf("%s:%d:%d: %s", file, line, col, fmt.Sprintf(format, args...))
	}
	for i, raw := range strings.Split(src, "\n") {
		ln := i + 1
		line := strings.TrimSpace(raw)
		col := len(raw) - len(strings.TrimLeft(raw, " \t")) + 1
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kw, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch kw {
		case "system":
			s.Name = rest
		case "var":
			f := strings.Fields(rest)
			if len(f) != 2 {
				return nil, errf(ln, col, "want: var NAME SORT")
			}
			so, err := parseSort(f[1])
			if err != nil {
				return nil, errf(ln, col, "%v", err)
			}
			s.Vars = append(s.Vars, Var{f[0], so})
		case "params", "thread":
			for _, p := range strings.Split(rest, ",") {
				if p = strings.TrimSpace(p); p != "" {
					if kw == "params" {
						s.Params = append(s.Params, p)
					} else {
						s.ThreadVars = append(s.ThreadVars, p)
					}
				}
			}
		case "fact":
			e, why, _ := strings.Cut(rest, " -- ")
			p := &parser{src: e, sys: s}
			x, err := p.whole()
			if err != nil {
				return nil, errf(ln, col+5+p.pos, "%v", err)
			}
			s.Facts = append(s.Facts, Fact{Expr: x, Why: strings.TrimSpace(why)})
		case "loc":
			name, after, _ := strings.Cut(rest, " ")
			after = strings.TrimSpace(after)
			var tags, pos string
			if strings.HasPrefix(after, "[") {
				end := strings.Index(after, "]")
				if end < 0 {
					return nil, errf(ln, col, "unclosed [")
				}
				tags, pos = after[1:end], strings.TrimSpace(after[end+1:])
			} else {
				pos = after
			}
			l := Loc{Name: name, Pos: pos}
			if _, dup := locs[name]; dup {
				return nil, errf(ln, col, "location %s declared twice", name)
			}
			locs[name] = len(s.Locs)
			for _, t := range strings.Fields(tags) {
				switch t {
				case "entry":
					s.Entry = len(s.Locs)
				case "exit":
					s.Exit = append(s.Exit, len(s.Locs))
				case "loop":
					l.LoopHead = true
				case "barrier":
					l.Barrier = true
				default:
					return nil, errf(ln, col, "unknown location tag %q", t)
				}
			}
			s.Locs = append(s.Locs, l)
		case "trans":
			trans = append(trans, pending{ln, rest})
		case "semantics":
			s.Semantics = rest
		case "assumed":
			s.Assumed = append(s.Assumed, rest)
		default:
			return nil, errf(ln, col, "unknown line %q", kw)
		}
	}
	for _, pt := range trans {
		p := &parser{src: pt.text, sys: s}
		t, err := p.transition(locs)
		if err != nil {
			return nil, errf(pt.line, p.pos+7, "%v", err)
		}
		s.Trans = append(s.Trans, t)
	}
	if errs := s.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("%s: %v", file, errs[0])
	}
	return s, nil
}

func parseSort(t string) (Sort, error) {
	if t == "bool" {
		return Bool, nil
	}
	if len(t) >= 2 && (t[0] == 'i' || t[0] == 'u') {
		w, err := strconv.Atoi(t[1:])
		if err == nil && w >= 1 && w <= 64 {
			return Sort{w, t[0] == 'i'}, nil
		}
	}
	return Bool, fmt.Errorf("bad sort %q", t)
}

type parser struct {
	src string
	pos int
	sys *System
}

func (p *parser) skip() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

func (p *parser) eat(tok string) bool {
	p.skip()
	if strings.HasPrefix(p.src[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *parser) ident() string {
	p.skip()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '_' || c == '.' || c == '$' || c == '@' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

func (p *parser) whole() (Expr, error) {
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.pos != len(p.src) {
		return nil, fmt.Errorf("unexpected %q", p.src[p.pos:])
	}
	return e, nil
}

func (p *parser) transition(locs map[string]int) (Transition, error) {
	var t Transition
	from := p.ident()
	if !p.eat("->") {
		return t, fmt.Errorf("want ->")
	}
	to := p.ident()
	var ok bool
	if t.From, ok = locs[from]; !ok {
		return t, fmt.Errorf("unknown location %q", from)
	}
	if t.To, ok = locs[to]; !ok {
		return t, fmt.Errorf("unknown location %q", to)
	}
	if !p.eat("[") {
		return t, fmt.Errorf("want [")
	}
	for !p.eat("]") {
		g, err := p.expr()
		if err != nil {
			return t, err
		}
		t.Guard = append(t.Guard, g)
		if !p.eat(",") && !strings.HasPrefix(strings.TrimSpace(p.src[p.pos:]), "]") {
			return t, fmt.Errorf("want , or ]")
		}
	}
	if !p.eat("{") {
		return t, fmt.Errorf("want {")
	}
	t.Update = map[string]Expr{}
	for !p.eat("}") {
		name := p.ident()
		if name == "" || !p.eat(":=") {
			return t, fmt.Errorf("want NAME :=")
		}
		if p.eat("*") {
			t.Havoc = append(t.Havoc, name)
		} else {
			e, err := p.expr()
			if err != nil {
				return t, err
			}
			t.Update[name] = e
		}
		if !p.eat(";") && !strings.HasPrefix(strings.TrimSpace(p.src[p.pos:]), "}") {
			return t, fmt.Errorf("want ; or }")
		}
	}
	return t, nil
}

var binTokens = []struct {
	tok string
	op  Op
}{
	// Longest first.
	{">>u", LShr}, {">>s", AShr}, {"<=u", Ule}, {">=u", Uge}, {"<=s", Sle}, {">=s", Sge},
	{"<<", Shl}, {"/u", UDiv}, {"/s", SDiv}, {"%u", URem}, {"%s", SRem}, {"==", Eq}, {"!=", Ne},
	{"<u", Ult}, {">u", Ugt}, {"<s", Slt}, {">s", Sgt}, {"&&", LAnd}, {"||", LOr},
	{"+", Add}, {"-", Sub}, {"*", Mul}, {"&", And}, {"|", Or}, {"^", Xor},
}

func (p *parser) expr() (Expr, error) {
	p.skip()
	if p.pos >= len(p.src) {
		return nil, fmt.Errorf("unexpected end")
	}
	if p.eat("(") {
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.eat("?") {
			t, err := p.expr()
			if err != nil {
				return nil, err
			}
			if !p.eat(":") {
				return nil, fmt.Errorf("want :")
			}
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			if !p.eat(")") {
				return nil, fmt.Errorf("want )")
			}
			return &Ite{x, t, e}, nil
		}
		p.skip()
		var op Op = -1
		for _, bt := range binTokens {
			if strings.HasPrefix(p.src[p.pos:], bt.tok+" ") {
				op = bt.op
				p.pos += len(bt.tok)
				break
			}
		}
		if op < 0 {
			return nil, fmt.Errorf("want a binary operator")
		}
		y, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !p.eat(")") {
			return nil, fmt.Errorf("want )")
		}
		return &Binary{op, x, y}, nil
	}
	for _, u := range []struct {
		tok string
		op  Op
	}{{"!(", Not}, {"~(", BNot}, {"neg(", Neg}} {
		if p.eat(u.tok) {
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			if !p.eat(")") {
				return nil, fmt.Errorf("want )")
			}
			return &Unary{u.op, x}, nil
		}
	}
	for _, c := range []struct {
		tok string
		op  Op
	}{{"zext:", ZExt}, {"sext:", SExt}, {"trunc:", Trunc}} {
		if p.eat(c.tok) {
			so, err := parseSort(p.ident())
			if err != nil {
				return nil, err
			}
			if !p.eat("(") {
				return nil, fmt.Errorf("want (")
			}
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			if !p.eat(")") {
				return nil, fmt.Errorf("want )")
			}
			return &Cast{c.op, x, so}, nil
		}
	}
	if p.eat("nondet:") {
		so, err := parseSort(p.ident())
		if err != nil {
			return nil, err
		}
		if !p.eat("(") {
			return nil, fmt.Errorf("want (")
		}
		depth, start := 1, p.pos
		for p.pos < len(p.src) && depth > 0 {
			switch p.src[p.pos] {
			case '(':
				depth++
			case ')':
				depth--
			}
			p.pos++
		}
		if depth != 0 {
			return nil, fmt.Errorf("unclosed nondet")
		}
		return &Nondet{Sort: so, Why: p.src[start : p.pos-1]}, nil
	}
	c := p.src[p.pos]
	if c == '-' || c >= '0' && c <= '9' {
		start := p.pos
		p.pos++
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
		v, ok := new(big.Int).SetString(p.src[start:p.pos], 10)
		if !ok {
			return nil, fmt.Errorf("bad number %q", p.src[start:p.pos])
		}
		so := I32
		if p.pos < len(p.src) && p.src[p.pos] == ':' {
			p.pos++
			var err error
			if so, err = parseSort(p.ident()); err != nil {
				return nil, err
			}
		}
		if v.Cmp(so.Min()) < 0 || v.Cmp(so.Max()) > 0 {
			return nil, fmt.Errorf("%s out of range of %s", v, so)
		}
		return &Const{Val: v, Sort: so}, nil
	}
	name := p.ident()
	switch name {
	case "":
		return nil, fmt.Errorf("unexpected %q", p.src[p.pos:])
	case "true":
		return True(), nil
	case "false":
		return False(), nil
	}
	if p.pos < len(p.src) && p.src[p.pos] == '[' {
		p.pos++
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !p.eat("]:") {
			return nil, fmt.Errorf("want ]:SORT")
		}
		so, err := parseSort(p.ident())
		if err != nil {
			return nil, err
		}
		return &Load{Buffer: name, Addr: a, Sort: so}, nil
	}
	v, ok := p.sys.Var(name)
	if !ok {
		return nil, fmt.Errorf("unknown variable %q", name)
	}
	return &Ref{v}, nil
}
