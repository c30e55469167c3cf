package trs

import (
	"fmt"
	"sort"

	"gpuc/internal/diag"
)

// checker checks a parsed file and builds its System. It collects every
// error it finds, each positioned; a file with errors has no System.
type checker struct {
	errs      *diag.List
	sys       *System
	syms      map[string]*Sym
	sorts     map[string]int
	vars      map[string]*varInfo // declared variables (paper) or VAR names (WST)
	arityAt   map[*Sym]diag.Pos   // WST: where a symbol's arity was fixed
	order     int                 // declaration order of symbols
	declOrder map[*Sym]int
	nextRule  int  // Rule.Index of the next rule that the checker makes
	rec       bool // a REC specification (Note [REC discipline])
}

// varInfo is a declared variable.
type varInfo struct {
	pos  diag.Pos
	sort int
}

func newChecker(errs *diag.List, name string, wst bool) *checker {
	return &checker{
		errs:      errs,
		sys:       &System{Name: name, WST: wst},
		syms:      map[string]*Sym{},
		sorts:     map[string]int{},
		vars:      map[string]*varInfo{},
		arityAt:   map[*Sym]diag.Pos{},
		declOrder: map[*Sym]int{},
	}
}

func (c *checker) errorf(pos diag.Pos, format string, args ...any) {
	c.errs.Add(pos, format, args...)
}

// check builds the System of f; input, if not nil, overrides f's input
// section (and is required for WST files).
func (c *checker) check(f *file, input *term) *System {
	c.rec = f.notation == recNotation
	if f.notation != wstNotation {
		c.declareSorts(f.sorts)
	}
	for _, op := range f.ops {
		if s := c.sortIndex(op.result); s >= 0 {
			c.declareSym(op.sym, s)
		}
	}
	c.declareVars(f.vars)
	for i, r := range f.rules {
		c.rule(i, r)
	}
	if f.notation == recNotation {
		recDiscipline(f, c.errs)
	}
	c.input(f, input)
	c.nextRule = len(c.sys.Rules)
	c.unravel()
	c.shareRepeats()
	c.number()
	return c.sys
}

// declareSorts declares the sorts first, then their symbols, so that a
// symbol may take arguments of a sort declared after it.
func (c *checker) declareSorts(decls []*sortDecl) {
	for _, d := range decls {
		if _, dup := c.sorts[d.name]; dup {
			c.errorf(d.pos, "sort %s is declared twice", d.name)
			continue
		}
		c.sorts[d.name] = len(c.sys.Sorts)
		c.sys.Sorts = append(c.sys.Sorts, d.name)
	}
	for _, d := range decls {
		for _, s := range d.syms {
			c.declareSym(s, c.sorts[d.name])
		}
	}
}

func (c *checker) declareSym(d *symDecl, sort int) {
	if old := c.syms[d.name]; old != nil {
		if c.rec {
			c.errorf(d.pos, "symbol %s is declared twice (first at %s): REC-2017 has no overloading", d.name, old.Pos)
			return
		}
		c.errorf(d.pos, "symbol %s is declared twice (first at %s)", d.name, old.Pos)
		return
	}
	s := &Sym{Name: d.name, Arity: len(d.args), Sort: sort, Pos: d.pos}
	for _, a := range d.args {
		s.ArgSorts = append(s.ArgSorts, c.sortIndex(a))
	}
	c.addSym(s)
}

func (c *checker) addSym(s *Sym) {
	c.syms[s.Name] = s
	c.declOrder[s] = c.order
	c.order++
	c.sys.Syms = append(c.sys.Syms, s)
}

func (c *checker) sortIndex(id ident) int {
	i, ok := c.sorts[id.name]
	if !ok {
		c.errorf(id.pos, "unknown sort %s", id.name)
		return -1
	}
	return i
}

func (c *checker) declareVars(decls []*varDecl) {
	for _, d := range decls {
		sort := -1
		if d.sort.name != "" {
			sort = c.sortIndex(d.sort)
		}
		for _, n := range d.names {
			switch old := c.vars[n.name]; {
			case old != nil && !c.sys.WST:
				c.errorf(n.pos, "variable %s is declared twice (first at %s)", n.name, old.pos)
			case c.syms[n.name] != nil:
				c.errorf(n.pos, "%s is declared both as a variable and as a function symbol (at %s)", n.name, c.syms[n.name].Pos)
			case old == nil:
				c.vars[n.name] = &varInfo{pos: n.pos, sort: sort}
			}
		}
	}
}

// scope holds the variables of one rule.
type scope struct {
	rule *Rule
	vars map[string]*Var
	lhs  bool   // resolving the left-hand side, where variables are bound
	side string // else the part resolved, for messages
}

func (c *checker) rule(index int, d *ruleDecl) {
	r := &Rule{Pos: d.pos, Index: index}
	sc := &scope{rule: r, vars: map[string]*Var{}, lhs: true}
	if v := c.vars[d.lhs.name]; v != nil && len(d.lhs.args) == 0 && !d.lhs.parens {
		c.errorf(d.lhs.pos, "the left-hand side of a rule must not be a variable (%s)", d.lhs.name)
		return
	}
	r.LHS = c.term(d.lhs, sc, -1, "")
	if r.LHS == nil {
		return // its variables are unknown: the right-hand side would only add noise
	}
	sc.lhs, sc.side = false, "the right-hand side"
	r.RHS = c.term(d.rhs, sc, r.LHS.Sym.Sort, "the right-hand side")
	sc.side = "a condition"
	ok := r.RHS != nil
	for _, cd := range d.conds {
		a := c.term(cd.a, sc, -1, "")
		if a == nil {
			ok = false
			continue
		}
		b := c.term(cd.b, sc, a.Sort(), "the right side of the condition")
		ok = ok && b != nil
		r.Conds = append(r.Conds, &Cond{Pos: cd.pos, A: a, B: b, Join: cd.join})
	}
	if !ok {
		return
	}
	r.Vars = make([]*Var, len(sc.vars))
	for _, v := range sc.vars {
		r.Vars[v.Index] = v
	}
	r.LHS.Sym.Rules = append(r.LHS.Sym.Rules, r)
	c.sys.Rules = append(c.sys.Rules, r)
}

// term resolves a term. want is the sort the context needs (-1: any) and
// what names the context in messages. It returns nil after an error.
func (c *checker) term(t *term, sc *scope, want int, what string) *Term {
	if v := c.vars[t.name]; v != nil {
		return c.variable(t, sc, v, want, what)
	}
	s := c.symbol(t, sc)
	if s == nil {
		return nil
	}
	out := &Term{Sym: s, Pos: t.pos}
	ok := true
	for i, a := range t.args {
		argWant := -1
		if s.ArgSorts != nil {
			argWant = s.ArgSorts[i]
		}
		at := c.term(a, sc, argWant, fmt.Sprintf("argument %d of %s", i+1, s.Name))
		ok = ok && at != nil
		out.Args = append(out.Args, at)
	}
	if !ok {
		return nil
	}
	if want >= 0 && s.Sort >= 0 && s.Sort != want {
		c.sortError(t.pos, what, t.name, s.Sort, want)
		return nil
	}
	return out
}

func (c *checker) variable(t *term, sc *scope, v *varInfo, want int, what string) *Term {
	switch {
	case sc == nil:
		c.errorf(t.pos, "the input term contains variable %s; it must be ground", t.name)
		return nil
	case t.parens || len(t.args) > 0:
		c.errorf(t.pos, "variable %s takes no arguments", t.name)
		return nil
	case want >= 0 && v.sort >= 0 && v.sort != want:
		c.sortError(t.pos, what, t.name, v.sort, want)
		return nil
	}
	rv := sc.vars[t.name]
	if rv == nil {
		if !sc.lhs {
			c.errorf(t.pos, "variable %s of %s does not occur on the left", t.name, sc.side)
			return nil
		}
		rv = &Var{Name: t.name, Sort: v.sort, Index: len(sc.vars)}
		sc.vars[t.name] = rv
	}
	return &Term{Var: rv, Pos: t.pos}
}

// sorted reports whether the system has sorts (the paper's notation and
// REC; not WST).
func (c *checker) sorted() bool { return len(c.sys.Sorts) > 0 }

func (c *checker) sortError(pos diag.Pos, what, name string, got, want int) {
	if what == "" {
		what = name
	} else {
		what = fmt.Sprintf("%s (%s)", what, name)
	}
	c.errorf(pos, "%s has sort %s, want %s", what, c.sys.Sorts[got], c.sys.Sorts[want])
}

// symbol finds the symbol a term applies and checks its arity. In WST the
// first use of a name declares it.
func (c *checker) symbol(t *term, sc *scope) *Sym {
	s := c.syms[t.name]
	if s == nil && c.sys.WST {
		s = &Sym{Name: t.name, Arity: len(t.args), Sort: -1, Pos: t.pos}
		c.addSym(s)
		c.arityAt[s] = t.pos
		return s
	}
	if s == nil && c.rec && len(c.vars) == 0 && len(t.args) == 0 {
		c.errorf(t.pos, "unknown symbol %s: the specification declares no variables (REC-2017 declares them in a VARS section)", t.name)
		return nil
	}
	if s == nil {
		c.errorf(t.pos, "unknown symbol %s", t.name)
		return nil
	}
	if len(t.args) != s.Arity {
		if at, ok := c.arityAt[s]; ok {
			c.errorf(t.pos, "%s is applied to %s here but to %s at %s", s.Name, plural(len(t.args), "argument"), plural(s.Arity, "argument"), at)
		} else {
			c.errorf(t.pos, "%s takes %s, not %d", s.Name, plural(s.Arity, "argument"), len(t.args))
		}
		return nil
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// input checks the input term: the one given on the command line, else
// the file's one input section.
func (c *checker) input(f *file, override *term) {
	t := override
	if t == nil {
		switch {
		case len(f.inputs) == 0 && c.sys.WST:
			c.errorf(f.end, "no input term: a WST file takes its input term from --input")
			return
		case len(f.inputs) == 0 && f.notation == recNotation:
			c.errorf(f.end, "no input term: add one after EVAL, or pass --input")
			return
		case len(f.inputs) > 1 && f.notation == recNotation:
			c.errorf(f.inputs[1].pos, "EVAL has %d terms; gpuc evaluates one: pass the one to evaluate with --input", len(f.inputs))
			return
		case len(f.inputs) == 0:
			c.errorf(f.end, "no input term: add an input section (input TERM;) or pass --input")
			return
		case len(f.inputs) > 1:
			c.errorf(f.inputs[1].pos, "a second input section (the first is at %s)", f.inputs[0].pos)
			return
		}
		t = f.inputs[0]
	}
	c.sys.Input = c.term(t, nil, -1, "")
}

// number orders the symbols by arity, then by declaration, and numbers
// them (Note [Symbol numbers]).
func (c *checker) number() {
	syms := c.sys.Syms
	sort.SliceStable(syms, func(i, j int) bool { return syms[i].Arity < syms[j].Arity })
	c.sys.MaxArity = 1
	for i, s := range syms {
		s.Index = i
		c.sys.MaxArity = max(c.sys.MaxArity, s.Arity)
	}
}
