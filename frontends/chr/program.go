package chr

import (
	"fmt"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// program is a CHR program as the frontend understands it: constraint
// types, rules and the query.
type program struct {
	// aliases maps chr_type aliases to the types they name.
	aliases map[string]ir.Type
	types   []*ctype
	byKey   map[string]*ctype
	rules   []*rule
	query   []term   // the goals of `?- ...` or of main/0
	qpos    diag.Pos // where the query is
	inited  bool     // `:- initialization(main)` was seen
	mainAt  diag.Pos // where main/0 is defined, if it is
	// drivers holds the clauses of the Prolog predicates other than
	// main/0, by name/arity, which queries may call to post constraints.
	drivers map[string]*compound
}

// ctype is a constraint type name/arity.
type ctype struct {
	pos   diag.Pos
	name  string
	arity int
	// decl holds the declared argument types (ir.I64, ir.F64, or
	// ir.Invalid for none); args the types after checking.
	decl []ir.Type
	args []ir.Type
}

func (c *ctype) String() string { return fmt.Sprintf("%s/%d", c.name, c.arity) }

func key(name string, arity int) string { return fmt.Sprintf("%s/%d", name, arity) }

// ruleKind tells the three forms of CHR rules apart.
type ruleKind int

const (
	simplification ruleKind = iota // H <=> G | B
	simpagation                    // K \ H <=> G | B
	propagation                    // K ==> G | B
)

// rule is one CHR rule.
type rule struct {
	pos     diag.Pos
	name    string // the source name, or "" for an unnamed rule
	index   int    // position in the program, from 0
	kind    ruleKind
	kept    []*head
	removed []*head
	guard   []term
	body    []term
	// Filled in by the checker.
	vars   map[string]*ruleVar
	guards []*comparison
	goals  []bodyGoal
}

// label names the rule in statistics and diagnostics.
func (r *rule) label() string {
	if r.name != "" {
		return r.name
	}
	return fmt.Sprintf("rule %d", r.index+1)
}

// heads returns the kept heads followed by the removed ones.
func (r *rule) heads() []*head { return append(append([]*head(nil), r.kept...), r.removed...) }

// head is one head constraint of a rule. Arguments are variables or
// number literals.
type head struct {
	pos     diag.Pos
	ct      *ctype
	args    []term
	removed bool
	index   int // position among the rule's heads (kept first)
}

// reader turns the clause terms of a file into a program, reporting what
// lies outside the subset.
type reader struct {
	errs *diag.List
	prog *program
}

func (r *reader) errorf(pos diag.Pos, format string, args ...any) { r.errs.Add(pos, format, args...) }

func newProgram() *program {
	return &program{byKey: map[string]*ctype{}, aliases: map[string]ir.Type{}}
}

// clause reads one top-level clause.
func (r *reader) clause(t term) {
	switch {
	case is(t, ":-", 1):
		r.directive(t.(*compound).args[0])
	case is(t, "?-", 1) && is(t.(*compound).args[0], "op", 3):
		r.directive(t.(*compound).args[0]) // read before parsing, as :- op(...)
	case is(t, "?-", 1):
		r.setQuery(t.at(), t.(*compound).args[0])
	case isRule(t):
		r.rule(t)
	case is(t, ":-", 2):
		r.prologClause(t.(*compound))
	case is(t, "-->", 2):
		r.errorf(t.at(), "DCG rules (-->) are outside the CHR subset")
	default:
		r.fact(t)
	}
}

func (r *reader) setQuery(pos diag.Pos, goals term) {
	if r.prog.query != nil {
		r.errorf(pos, "a second query; the program may have one (first at %s)", r.prog.qpos)
		return
	}
	r.prog.query, r.prog.qpos = conjuncts(goals), pos
}

// directive reads `:- D`.
func (r *reader) directive(d term) {
	c, ok := d.(*compound)
	if !ok {
		r.errorf(d.at(), "unsupported directive")
		return
	}
	switch {
	case c.name == "use_module" || c.name == "module" || c.name == "chr_option" || c.name == "set_prolog_flag" ||
		c.name == "ensure_loaded" || c.name == "style_check":
		// Module system, CHR compiler options and flags: nothing to do.
	case (c.name == "chr_constraint" || c.name == "constraints") && len(c.args) == 1:
		for _, spec := range conjuncts(c.args[0]) {
			r.declare(spec)
		}
	case c.name == "chr_type" && len(c.args) == 1:
		r.chrType(c.args[0])
	case c.name == "initialization" && (len(c.args) == 1 || len(c.args) == 2):
		if !is(c.args[0], "main", 0) {
			r.errorf(c.args[0].at(), "initialization goals other than main are outside the subset")
		}
		r.prog.inited = true
	case c.name == "op" && len(c.args) == 3:
		// Read before parsing (Note [User operators]) when its arguments
		// are a priority, a type and one name.
		if _, ok := c.args[0].(*integer); !ok || !isAtom(c.args[1]) || !isAtom(c.args[2]) {
			r.errorf(c.pos, "op/3 is read with a priority, a type and one operator name: op(700, xfx, ~>)")
		}
	default:
		r.errorf(c.pos, "directive %s/%d is outside the CHR subset", c.name, len(c.args))
	}
}

// chrType accepts `:- chr_type Alias == int.` style aliases of numeric
// types, and refuses other type definitions.
func (r *reader) chrType(t term) {
	c, ok := t.(*compound)
	if ok && c.name == "==" && len(c.args) == 2 {
		if a, ok := c.args[0].(*compound); ok && len(a.args) == 0 {
			if bt, ok := c.args[1].(*compound); ok && len(bt.args) == 0 {
				if ty, ok := r.numericType(bt.name); ok {
					r.prog.aliases[a.name] = ty
					return
				}
			}
		}
	}
	r.errorf(t.at(), "chr_type definitions other than aliases of int, natural, dense_int, float or number are outside the subset")
}

// numericType maps a CHR type name to an IR type: ir.Invalid for a type
// that leaves the choice to inference.
func (r *reader) numericType(name string) (ir.Type, bool) {
	if t, ok := r.prog.aliases[name]; ok {
		return t, true
	}
	switch name {
	case "int", "integer", "natural", "dense_int":
		return ir.I64, true
	case "float":
		return ir.F64, true
	case "number", "any":
		return ir.Invalid, true
	}
	return ir.Invalid, false
}

// declare reads one constraint specifier: name/arity or name(Mode Type, ...).
func (r *reader) declare(spec term) {
	switch {
	case is(spec, "/", 2):
		c := spec.(*compound)
		name, okN := c.args[0].(*compound)
		n, okA := c.args[1].(*integer)
		if !okN || len(name.args) != 0 || !okA || n.big || n.val < 0 || n.val > 64 {
			r.errorf(spec.at(), "a constraint specifier is name/arity or name(types)")
			return
		}
		r.addType(spec.at(), name.name, make([]ir.Type, n.val))
	default:
		c, ok := spec.(*compound)
		if !ok {
			r.errorf(spec.at(), "a constraint specifier is name/arity or name(types)")
			return
		}
		types := make([]ir.Type, len(c.args))
		for i, a := range c.args {
			types[i] = r.argType(a)
		}
		r.addType(spec.at(), c.name, types)
	}
}

// argType reads a mode and type such as +int, ?natural or float.
func (r *reader) argType(a term) ir.Type {
	c, ok := a.(*compound)
	if ok && len(c.args) == 1 && (c.name == "+" || c.name == "-" || c.name == "?") {
		a = c.args[0]
		c, ok = a.(*compound)
	}
	if ok && len(c.args) == 0 {
		if t, known := r.numericType(c.name); known {
			return t
		}
	}
	if ok && len(c.args) == 0 && (c.name == "+" || c.name == "-" || c.name == "?") {
		return ir.Invalid
	}
	r.errorf(a.at(), "argument type %s is outside the subset (int, natural, dense_int, float, number or any)", show(a))
	return ir.Invalid
}

func (r *reader) addType(pos diag.Pos, name string, decl []ir.Type) {
	k := key(name, len(decl))
	if old, ok := r.prog.byKey[k]; ok {
		r.errorf(pos, "constraint %s declared twice (first at %s)", k, old.pos)
		return
	}
	ct := &ctype{pos: pos, name: name, arity: len(decl), decl: decl}
	r.prog.byKey[k] = ct
	r.prog.types = append(r.prog.types, ct)
}

// isRule reports whether t is a CHR rule, possibly named or with a pragma.
func isRule(t term) bool {
	switch {
	case is(t, "@", 2):
		return isRule(t.(*compound).args[1])
	case is(t, "pragma", 2):
		return isRule(t.(*compound).args[0])
	}
	return is(t, "<=>", 2) || is(t, "==>", 2)
}

// rule reads `[Name @] Heads <=>|==> [Guard |] Body [pragma P]`.
func (r *reader) rule(t term) {
	ru := &rule{pos: t.at(), index: len(r.prog.rules)}
	if is(t, "@", 2) {
		c := t.(*compound)
		n, ok := c.args[0].(*compound)
		if !ok || len(n.args) != 0 {
			r.errorf(c.args[0].at(), "a rule name is an atom")
		} else {
			ru.name = n.name
		}
		t = c.args[1]
		ru.pos = t.at()
	}
	if is(t, "pragma", 2) {
		r.errorf(t.at(), "pragmas are outside the CHR subset")
		t = t.(*compound).args[0]
	}
	c := t.(*compound)
	heads, rest := c.args[0], c.args[1]
	switch {
	case c.name == "==>":
		ru.kind = propagation
		ru.kept = r.heads(heads, false)
	case is(heads, "\\", 2):
		ru.kind = simpagation
		hc := heads.(*compound)
		ru.kept = r.heads(hc.args[0], false)
		ru.removed = r.heads(hc.args[1], true)
	default:
		ru.kind = simplification
		ru.removed = r.heads(heads, true)
	}
	for i, h := range ru.heads() {
		h.index = i
	}
	if is(rest, "|", 2) {
		g := rest.(*compound)
		ru.guard, ru.body = conjuncts(g.args[0]), conjuncts(g.args[1])
	} else {
		ru.body = conjuncts(rest)
	}
	r.prog.rules = append(r.prog.rules, ru)
}

// heads reads a conjunction of head constraints; their types are looked
// up by the checker, once all declarations are in.
func (r *reader) heads(t term, removed bool) []*head {
	var out []*head
	for _, h := range conjuncts(t) {
		if is(h, "#", 2) {
			r.errorf(h.at(), "pragmas and head identifiers (#) are outside the CHR subset")
			h = h.(*compound).args[0]
		}
		c, ok := h.(*compound)
		if !ok {
			r.errorf(h.at(), "a rule head is a constraint, not %s", show(h))
			continue
		}
		out = append(out, &head{pos: c.pos, ct: &ctype{name: c.name, arity: len(c.args)}, args: c.args, removed: removed})
	}
	return out
}

// prologClause reads `Head :- Body`: main/0 holds the query; any other
// predicate is a driver that queries may call, as the SWI-Prolog
// examples' tests and benchmarks are, with variables as its arguments,
// and whose goals the query reader checks when a query calls it.
func (r *reader) prologClause(c *compound) {
	h, ok := c.args[0].(*compound)
	if ok && h.name == "main" && len(h.args) == 0 {
		if r.prog.mainAt.IsValid() {
			r.errorf(c.pos, "main/0 is defined twice; it may have one clause that posts constraints")
			return
		}
		r.prog.mainAt = h.pos
		r.setQuery(h.pos, c.args[1])
		return
	}
	if !ok {
		r.errorf(c.args[0].at(), "Prolog predicate %s is outside the CHR subset: a driver predicate's head is a name with variables as arguments", predName(c.args[0]))
		return
	}
	seen := map[string]bool{}
	for _, a := range h.args {
		v, isVar := a.(*variable)
		if !isVar || v.name != "_" && seen[v.name] {
			r.errorf(a.at(), "argument %s of driver %s is outside the subset: a driver predicate's arguments are distinct variables", show(a), key(h.name, len(h.args)))
			return
		}
		seen[v.name] = true
	}
	if r.prog.drivers == nil {
		r.prog.drivers = map[string]*compound{}
	}
	k := key(h.name, len(h.args))
	if old := r.prog.drivers[k]; old != nil {
		r.errorf(c.pos, "%s is defined twice (first at %s); a driver may have one clause that posts constraints", k, old.pos)
		return
	}
	r.prog.drivers[k] = c
}

// fact reads a clause without a body: `main.` posts nothing; anything else
// is a Prolog fact, which the subset does not have.
func (r *reader) fact(t term) {
	if is(t, "main", 0) {
		r.prog.mainAt = t.at()
		r.setQuery(t.at(), &compound{pos: t.at(), name: "true"})
		return
	}
	r.errorf(t.at(), "Prolog fact %s is outside the CHR subset (post constraints from a query)", predName(t))
}

func isAtom(t term) bool {
	c, ok := t.(*compound)
	return ok && len(c.args) == 0
}

func predName(t term) string {
	if c, ok := t.(*compound); ok {
		return key(c.name, len(c.args))
	}
	return show(t)
}

// show prints a term for diagnostics.
func show(t term) string {
	switch t := t.(type) {
	case *variable:
		return t.name
	case *integer:
		if t.big {
			return "a big integer"
		}
		return fmt.Sprint(t.val)
	case *float:
		return fmt.Sprint(t.val)
	case *foreign:
		return t.what
	case *compound:
		if len(t.args) == 0 {
			return t.name
		}
		if len(t.args) == 2 && isOperator(t.name) {
			return show(t.args[0]) + t.name + show(t.args[1])
		}
		s := t.name + "("
		for i, a := range t.args {
			if i > 0 {
				s += ","
			}
			s += show(a)
		}
		return s + ")"
	}
	return "?"
}

func isOperator(name string) bool {
	switch name {
	case "+", "-", "*", "/", "//", "mod", "rem", "div", "<", ">", "=<", ">=", "=:=", "=\\=", "==", "\\==", "=", "is", ",", ";", "|", "->":
		return true
	}
	return false
}
