package trs

import (
	"strconv"
	"strings"

	"gpuc/internal/diag"
)

// Note [REC discipline]
// ~~~~~~~~~~~~~~~~~~~~~
// REC-2017 (corpus doc/rec-2017-language.txt) asks more of a specification
// than gpuc needs to rewrite it, so that it translates to every target
// language; REC-BAD holds the specifications that break these rules. gpuc
// refuses them for the rule they break, not for whatever its own
// rewriting would make of them:
//   - a sort and a constructor may not have names that differ only in
//     case (soundness-1: sort S, constructor s), which OCaml and Scala
//     cannot tell apart. The language document asks this of every pair
//     of names, but REC's own binarysearch (F, f) and sieve (Digit,
//     digit) break it for other pairs, so gpuc checks this one;
//   - a left-hand side applies an operation (OPNS) to constructor
//     patterns: no operation below its head (soundness-2: f(g(X)) with g
//     an operation), and no constructor at its head;
//   - REC-2008's OPS section does not say which symbols are constructors
//     (bubblesort1, fibfree, tricky-1): gpuc names it, reads it as CONS
//     and takes the symbols that head rules for operations, so that the
//     checks here name what the specification then breaks (fibfree-1's
//     n0, which has a rule and is matched as a constructor);
//   - every application has parentheses: `g d0` is not REC-2017 (the
//     order benchmarks). recJuxtaposed names it and parenthesises it in
//     place, so that the checks below still run;
//   - the rules of an operation stand together (order-1: g, f, g, f);
//   - left-hand sides are linear (idset: inside(G, unaryset(G))): OCaml,
//     Haskell and OPAL have no repeated pattern variables;
//   - the rules are deterministic: no two rules without conditions have
//     the same left-hand side (marchiori: a -> c and a -> d). REC's own
//     specifications keep overlaps that first-match resolves (merge's
//     gte, hanoi's conc), so gpuc refuses only rules that no order of
//     matching could tell apart;
//   - a condition does not evaluate its own rule's left-hand side
//     (terminationreachability: a -> c if a -><- b), which recurses
//     forever under call-by-value;
//   - the terms evaluated reduce to constructor terms: an operation that
//     EVAL applies to constructor terms has a rule whose left-hand side
//     matches them (tautologyhard-1, whose propositions a1 ... a18 are
//     constructors that and/2 and xor/2 have no rules for). Partial
//     operations are allowed; applying one outside its domain is not.
//     Evaluating the EVAL terms, within a budget, finds the applications
//     that only rewriting reaches (Note [REC evaluation check]).

// recDiscipline reports the REC-2017 rules that f breaks (Note [REC
// discipline]).
func recDiscipline(f *file, errs *diag.List) {
	before := len(*errs)
	sorts := map[string]ident{}
	for _, s := range f.sorts {
		sorts[strings.ToLower(s.name)] = s.ident
	}
	cons, heads := map[string]bool{}, map[string]bool{}
	for _, r := range f.rules {
		heads[r.lhs.name] = true
	}
	for _, op := range f.ops {
		cons[op.sym.name] = op.cons && !(f.ops2008 && heads[op.sym.name])
		if s, ok := sorts[strings.ToLower(op.sym.name)]; ok && op.cons && s.name != op.sym.name {
			errs.Add(op.sym.pos, "constructor %s and sort %s (declared at %s) differ only in case, which REC-2017 forbids: OCaml and Scala cannot tell them apart", op.sym.name, s.name, s.pos)
		}
	}
	var pattern func(head string, t *term)
	pattern = func(head string, t *term) {
		if isCons, declared := cons[t.name]; declared && !isCons {
			errs.Add(t.pos, "the left-hand side of a rule of %s applies operation %s below its head; REC-2017's patterns are constructor terms", head, t.name)
			return
		}
		for _, a := range t.args {
			pattern(head, a)
		}
	}
	vars := map[string]bool{}
	for _, d := range f.vars {
		for _, n := range d.names {
			vars[n.name] = true
		}
	}
	recRuleOrder(f.rules, errs)
	if !f.ops2008 { // which symbols are constructors is a guess there
		recStuckEval(f, cons, vars, errs)
	}
	unconditional := map[string]*ruleDecl{} // by the left-hand side's shape
	for _, r := range f.rules {
		recLinear(r, vars, errs)
		if len(r.conds) == 0 {
			k := shape(r.lhs, vars, map[string]int{})
			if q, ok := unconditional[k]; ok {
				errs.Add(r.pos, "this rule and the one at %s rewrite %s without conditions: REC-2017's rules are deterministic", q.pos, showTerm(r.lhs))
			} else {
				unconditional[k] = r
			}
		}
		for _, c := range r.conds {
			if containsTerm(c.a, r.lhs) || containsTerm(c.b, r.lhs) {
				errs.Add(c.pos, "the condition of this rule of %s evaluates its own left-hand side %s, which recurses forever under call-by-value", r.lhs.name, showTerm(r.lhs))
			}
		}
		if cons[r.lhs.name] {
			errs.Add(r.lhs.pos, "the left-hand side of a rule is headed by constructor %s; REC-2017's rules define operations (OPNS)", r.lhs.name)
			continue
		}
		for _, a := range r.lhs.args {
			pattern(r.lhs.name, a)
		}
	}
	if len(*errs) == before { // the rules are REC-2017's: evaluate
		recEvalCheck(f, cons, vars, errs)
	}
}

// recRuleOrder reports the rules of an operation that do not follow the
// operation's other rules (Note [REC discipline]).
func recRuleOrder(rules []*ruleDecl, errs *diag.List) {
	first := map[string]*ruleDecl{}
	for i, r := range rules {
		f, seen := first[r.lhs.name]
		if !seen {
			first[r.lhs.name] = r
			continue
		}
		if prev := rules[i-1]; prev.lhs.name != r.lhs.name {
			errs.Add(r.pos, "this rule of %s follows a rule of %s, apart from the first rule of %s at %s: REC-2017 keeps the rules of an operation together", r.lhs.name, prev.lhs.name, r.lhs.name, f.pos)
		}
	}
}

// recLinear reports a variable repeated in a left-hand side.
func recLinear(r *ruleDecl, vars map[string]bool, errs *diag.List) {
	seen := map[string]bool{}
	var walk func(t *term) bool
	walk = func(t *term) bool {
		if vars[t.name] && len(t.args) == 0 && !t.parens {
			if seen[t.name] {
				errs.Add(t.pos, "variable %s occurs twice in the left-hand side of this rule of %s: REC-2017's rules are left-linear (use another variable and the condition %s -><- it)", t.name, r.lhs.name, t.name)
				return false
			}
			seen[t.name] = true
		}
		for _, a := range t.args {
			if !walk(a) {
				return false
			}
		}
		return true
	}
	walk(r.lhs)
}

// shape writes a left-hand side with its variables numbered in order of
// appearance, so that two left-hand sides that differ only in the names
// of their variables have the same shape.
func shape(t *term, vars map[string]bool, num map[string]int) string {
	if vars[t.name] && len(t.args) == 0 {
		n, ok := num[t.name]
		if !ok {
			n = len(num)
			num[t.name] = n
		}
		return "?" + strconv.Itoa(n)
	}
	var b strings.Builder
	b.WriteString(t.name)
	b.WriteByte('(')
	for i, a := range t.args {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(shape(a, vars, num))
	}
	b.WriteByte(')')
	return b.String()
}

// containsTerm reports whether t has a subterm written as u is.
func containsTerm(t, u *term) bool {
	if sameTerm(t, u) {
		return true
	}
	for _, a := range t.args {
		if containsTerm(a, u) {
			return true
		}
	}
	return false
}

func sameTerm(a, b *term) bool {
	if a.name != b.name || len(a.args) != len(b.args) {
		return false
	}
	for i := range a.args {
		if !sameTerm(a.args[i], b.args[i]) {
			return false
		}
	}
	return true
}

// showTerm writes a term as REC does.
func showTerm(t *term) string {
	if len(t.args) == 0 {
		return t.name
	}
	s := t.name + "("
	for i, a := range t.args {
		if i > 0 {
			s += ", "
		}
		s += showTerm(a)
	}
	return s + ")"
}

// recStuckEval reports the first application in each EVAL term of an
// operation to constructor terms that no rule's left-hand side matches
// (Note [REC discipline]).
func recStuckEval(f *file, cons, vars map[string]bool, errs *diag.List) {
	var ground func(t *term) bool // a constructor term
	ground = func(t *term) bool {
		if !cons[t.name] {
			return false
		}
		for _, a := range t.args {
			if !ground(a) {
				return false
			}
		}
		return true
	}
	var match func(p, t *term) bool
	match = func(p, t *term) bool {
		if vars[p.name] && len(p.args) == 0 {
			return true
		}
		if p.name != t.name || len(p.args) != len(t.args) {
			return false
		}
		for i := range p.args {
			if !match(p.args[i], t.args[i]) {
				return false
			}
		}
		return true
	}
	byHead := map[string][]*ruleDecl{}
	for _, r := range f.rules {
		byHead[r.lhs.name] = append(byHead[r.lhs.name], r)
	}
	var stuck func(t *term) *term
	stuck = func(t *term) *term {
		all := true
		for _, a := range t.args {
			if s := stuck(a); s != nil {
				return s
			}
			all = all && ground(a)
		}
		if isCons, declared := cons[t.name]; !declared || isCons || !all {
			return nil
		}
		for _, r := range byHead[t.name] {
			if match(r.lhs, t) {
				return nil
			}
		}
		return t
	}
	for _, in := range f.inputs {
		if s := stuck(in); s != nil {
			errs.Add(s.pos, "no rule of %s matches %s: its normal form keeps the operation, and REC-2017 evaluates terms to constructor terms", s.name, showTerm(s))
		}
	}
}

// Note [REC evaluation check]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// An incorrect rule may apply a partial operation outside its domain only
// once rewriting has begun: REC-BAD's fibfree-2 and fibfree-3 compute a
// predecessor whose rule for n0(X) is wrong (fib(16) reaches prec(d), for
// which prec has no rule, and then recurses forever). recEvalCheck
// evaluates each EVAL term as REC-2017's call-by-value targets do
// (innermost, the first rule whose pattern matches and whose conditions
// hold), for at most recEvalWork units of work in all, and reports the first
// application of an operation to constructor terms that no rule matches,
// at the rule that made it: the last rewrite that built the application
// or the root of one of its arguments. A term that needs more work is not judged.
// Where the symbols were declared in OPS, the operations are the symbols
// that head rules (Note [REC discipline]), so a symbol without rules is
// never reported.

// recEvalWork bounds recEvalCheck over all the EVAL terms of a
// specification: nodes built, matched or compared, tens of milliseconds.
// fibfree-2 and fibfree-3 need about 5,000.
const recEvalWork = 1 << 16

// recEvalDepth bounds the nesting of the evaluation, which recurses.
const recEvalDepth = 5000

// recValue is a term during recEvalCheck. by and at are the rewrite that
// made its root (at counts instantiations; by is nil for the EVAL term).
type recValue struct {
	name string
	pos  diag.Pos
	args []*recValue
	nf   bool
	by   *ruleDecl
	at   int
}

type recEvaluator struct {
	cons, vars  map[string]bool
	rules       map[string][]*ruleDecl
	clock, work int
	depth       int
	stuck       *recValue
	stopped     bool
}

// recBinding binds a variable of a rule.
type recBinding struct {
	name string
	v    *recValue
}

func lookup(b []recBinding, name string) (*recValue, bool) {
	for _, x := range b {
		if x.name == name {
			return x.v, true
		}
	}
	return nil, false
}

// recEvalCheck reports the first stuck application that evaluating each
// EVAL term reaches (Note [REC evaluation check]).
func recEvalCheck(f *file, cons, vars map[string]bool, errs *diag.List) {
	e := &recEvaluator{cons: cons, vars: vars, rules: map[string][]*ruleDecl{}}
	for _, r := range f.rules {
		e.rules[r.lhs.name] = append(e.rules[r.lhs.name], r)
	}
	for _, in := range f.inputs {
		e.stuck, e.depth = nil, 0
		e.norm(e.inst(in, nil, nil))
		s := e.stuck
		if s == nil {
			continue
		}
		by, at := s.by, s.at // the last rewrite that made s or an argument
		for _, a := range s.args {
			if a.at > at {
				by, at = a.by, a.at
			}
		}
		if by == nil { // in the EVAL term itself (recStuckEval)
			continue
		}
		errs.Add(by.pos, "evaluating %s (EVAL at %s) reaches %s, which no rule of %s matches; this rule made it (%s -> %s): REC-2017 evaluates terms to constructor terms",
			clip(showTerm(in)), in.pos, clip(showValue(s)), s.name, showTerm(by.lhs), showTerm(by.rhs))
	}
}

func (e *recEvaluator) stop() bool {
	if e.work > recEvalWork || e.depth > recEvalDepth {
		e.stopped = true
	}
	return e.stopped || e.stuck != nil
}

// inst builds t with the variables of b replaced, made by rule r at a
// new tick of the clock.
func (e *recEvaluator) inst(t *term, b []recBinding, r *ruleDecl) *recValue {
	e.clock++
	at := e.clock
	if r == nil {
		at = 0
	}
	var walk func(t *term) *recValue
	walk = func(t *term) *recValue {
		e.work++
		if len(t.args) == 0 {
			if v, ok := lookup(b, t.name); ok {
				return v
			}
		}
		v := &recValue{name: t.name, pos: t.pos, by: r, at: at}
		for _, a := range t.args {
			v.args = append(v.args, walk(a))
		}
		return v
	}
	if v, ok := lookup(b, t.name); ok && len(t.args) == 0 {
		c := *v // a rule that returns a variable makes that value anew
		c.by, c.at = r, at
		return &c
	}
	return walk(t)
}

// norm evaluates v innermost and returns its normal form; it stops early
// at the budget or at a stuck application.
func (e *recEvaluator) norm(v *recValue) *recValue {
	if v.nf || e.stop() {
		return v
	}
	e.depth++
	defer func() { e.depth-- }()
	for i, a := range v.args {
		v.args[i] = e.norm(a)
		if e.stop() {
			return v
		}
	}
	if isCons, declared := e.cons[v.name]; !declared || isCons {
		v.nf = true
		return v
	}
	for _, r := range e.rules[v.name] {
		var b []recBinding
		matched := e.match(r.lhs, v, &b)
		if e.stop() {
			return v
		}
		if !matched {
			continue
		}
		holds := true
		for _, c := range r.conds {
			x := e.norm(e.inst(c.a, b, r))
			y := e.norm(e.inst(c.b, b, r))
			if e.stop() {
				return v
			}
			if e.equal(x, y) != c.join {
				holds = false
				break
			}
		}
		if holds {
			return e.norm(e.inst(r.rhs, b, r))
		}
	}
	if !e.stop() {
		e.stuck = v
	}
	return v
}

// match matches pattern p against the normal form v, binding b.
func (e *recEvaluator) match(p *term, v *recValue, b *[]recBinding) bool {
	e.work++
	if len(p.args) == 0 && e.vars[p.name] {
		if w, ok := lookup(*b, p.name); ok {
			return e.equal(w, v)
		}
		*b = append(*b, recBinding{p.name, v})
		return true
	}
	if p.name != v.name || len(p.args) != len(v.args) {
		return false
	}
	for i := range p.args {
		if !e.match(p.args[i], v.args[i], b) {
			return false
		}
	}
	return true
}

func (e *recEvaluator) equal(a, b *recValue) bool {
	e.work++
	if a == b {
		return true
	}
	if a.name != b.name || len(a.args) != len(b.args) || e.stop() {
		return false // the caller checks stop before it believes this
	}
	for i := range a.args {
		if !e.equal(a.args[i], b.args[i]) {
			return false
		}
	}
	return true
}

// showValue writes a value as REC does, at most a few hundred characters.
func showValue(v *recValue) string {
	var sb strings.Builder
	var walk func(v *recValue)
	walk = func(v *recValue) {
		if sb.Len() > 200 {
			return
		}
		sb.WriteString(v.name)
		if len(v.args) == 0 {
			return
		}
		sb.WriteByte('(')
		for i, a := range v.args {
			if i > 0 {
				sb.WriteString(", ")
			}
			walk(a)
		}
		sb.WriteByte(')')
	}
	walk(v)
	return sb.String()
}

// clip shortens s to about 80 characters.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
