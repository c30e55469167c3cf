// Package maude translates a term rewrite system into a Maude functional
// module, runs Maude's reduce on its input term, and reads the normal
// form back: the third oracle, beside the CPU rewriter and `gpuc run`,
// that every TRS example is checked against (the Debian package maude).
//
// Maude evaluates equations eagerly, innermost, as gpuc does, but does
// not try a symbol's equations in file order. The translation keeps the
// order with a matcher per rule, m-f-j(args), which is tt where rule j
// applies (its left-hand side matches and its conditions hold) and ff
// otherwise, and makes every later rule of f that overlaps rule j
// conditional on its matcher being ff:
//
//	eq s3(P1) = R1 .
//	ceq s3(P2) = R2 if m3-1(P2's arguments) = ff .
//	eq m3-1(P1's arguments) = tt .
//	eq m3-1(W1, ..., Wn) = ff [owise] .
//
// A symbol whose conditional rules overlap later ones is evaluated in
// sequence instead, so that each condition is reduced once (Note
// [Conditions evaluated once]).
//
// Symbols, sorts and variables get names of their own (s3, S0, R2V1), so
// that no symbol of the system clashes with Maude's syntax.
//
// It is not a general Maude interface: modules have no imports, and BOOL
// is left out.
package maude

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gpuc/frontends/trs"
)

// Module is the Maude text of sys: the module and a reduce of its input.
// Only a rule that overlaps an earlier one of its symbol, one whose
// left-hand side unifies with its own, gets that rule's matcher as a
// condition: a term that the earlier one does not match cannot need it.
// It translates the rules as written (System.Rules), conditional ones as
// conditional equations, not their unravelling (Note [Conditional rules]
// in package trs): a -><- b becomes the condition a = b, which Maude
// decides by reducing both sides, and a ->/<- b the condition
// eqS(a, b) = ff, with an equality test eqS per sort.
func Module(sys *trs.System) string {
	var b strings.Builder
	b.WriteString("set include BOOL off .\nset show timing off .\n\nfmod GPUC-TRS is\n")
	sorts := sortNames(sys)
	written := map[*trs.Sym][]*trs.Rule{}
	unjoinable := false // some condition is a ->/<- b
	for _, r := range sys.Rules {
		written[r.LHS.Sym] = append(written[r.LHS.Sym], r)
		for _, c := range r.Conds {
			unjoinable = unjoinable || !c.Join
		}
	}
	optional := map[int]bool{} // the result sorts of symbols evaluated in sequence
	for _, s := range sys.Syms {
		if !s.Aux && sequential(written[s]) {
			optional[sortOf(s.Sort)] = true
		}
	}
	fmt.Fprintf(&b, "  sorts %s B", strings.Join(sorts, " "))
	for i := range sorts {
		if optional[i] {
			fmt.Fprintf(&b, " O%d", i)
		}
	}
	b.WriteString(" .\n  ops tt ff : -> B .\n")
	for i, name := range sorts {
		if optional[i] {
			fmt.Fprintf(&b, "  op some%d : %s -> O%d .\n  op none%d : -> O%d .\n  var N%d : %s .\n", i, name, i, i, i, i, name)
		}
	}
	for i, name := range sorts {
		if conditionSorts(sys, written)[i] {
			fmt.Fprintf(&b, "  vars X%d Y%d : %s .\n", i, i, name)
		}
	}
	for _, s := range sys.Syms {
		if s.Aux {
			continue
		}
		fmt.Fprintf(&b, "  op %s : %s -> %s .\n", opName(s), argSorts(sys, s), sorts[sortOf(s.Sort)])
		if sequential(written[s]) {
			declareSequence(&b, sys, s, written[s])
			continue
		}
		for j, r := range written[s] {
			if shadows(r, written[s][j+1:]) {
				fmt.Fprintf(&b, "  op %s : %s -> B .\n", matcher(s, j), argSorts(sys, s))
			}
		}
	}
	for i, name := range sorts {
		if !unjoinable {
			break
		}
		fmt.Fprintf(&b, "  op eq%s : %s %s -> B .\n  vars E%d-0 E%d-1 : %s .\n", name, name, name, i, i, name)
		fmt.Fprintf(&b, "  eq eq%s(E%d-0, E%d-0) = tt .\n  eq eq%s(E%d-0, E%d-1) = ff [owise] .\n", name, i, i, name, i, i)
	}
	for _, r := range sys.Rules {
		for _, v := range r.Vars {
			fmt.Fprintf(&b, "  var %s : %s .\n", varName(r, v), sorts[sortOf(v.Sort)])
		}
	}
	for k := 0; k < sys.MaxArity; k++ {
		for i, name := range sorts {
			fmt.Fprintf(&b, "  var W%d-%d : %s .\n", i, k, name)
		}
	}
	for _, s := range sys.Syms {
		rules := written[s]
		if sequential(rules) {
			sequence(&b, sys, s, rules)
			continue
		}
		for i, r := range rules {
			var conds []string
			for j, earlier := range rules[:i] {
				if overlap(earlier, r) {
					conds = append(conds, matchOf(r, s, j)+" = ff")
				}
			}
			own := conditions(sys, r)
			equation(&b, term(r, r.LHS), term(r, r.RHS), append(conds, own...), "")
			if shadows(r, rules[i+1:]) {
				ws := make([]string, s.Arity)
				for k := range ws {
					ws[k] = fmt.Sprintf("W%d-%d", sortOf(argSort(s, k)), k)
				}
				equation(&b, matchOf(r, s, i), "tt", own, "")
				equation(&b, apply(matcher(s, i), ws), "ff", nil, " [owise]")
			}
		}
	}
	fmt.Fprintf(&b, "endfm\n\nred %s .\nquit\n", term(nil, sys.Input))
	return b.String()
}

// shadows reports whether r overlaps a rule of later.
func shadows(r *trs.Rule, later []*trs.Rule) bool {
	for _, l := range later {
		if overlap(r, l) {
			return true
		}
	}
	return false
}

// overlap reports whether the left-hand sides of two rules unify: whether
// some term matches both. Each rule has variables of its own.
func overlap(a, b *trs.Rule) bool {
	return unifier{}.unify(a.LHS, b.LHS)
}

// unifier is a substitution of two rules' variables.
type unifier map[*trs.Var]*trs.Term

// resolve follows the bindings of a variable.
func (u unifier) resolve(t *trs.Term) *trs.Term {
	for t.Var != nil && u[t.Var] != nil {
		t = u[t.Var]
	}
	return t
}

// unify extends u to a unifier of x and y (Robinson's, with the occurs
// check), or reports that there is none.
func (u unifier) unify(x, y *trs.Term) bool {
	x, y = u.resolve(x), u.resolve(y)
	switch {
	case x.Var != nil && x.Var == y.Var:
		return true
	case x.Var != nil:
		return u.bind(x.Var, y)
	case y.Var != nil:
		return u.bind(y.Var, x)
	case x.Sym != y.Sym:
		return false
	}
	for i := range x.Args {
		if !u.unify(x.Args[i], y.Args[i]) {
			return false
		}
	}
	return true
}

func (u unifier) bind(v *trs.Var, t *trs.Term) bool {
	if u.occurs(v, t) {
		return false
	}
	u[v] = t
	return true
}

func (u unifier) occurs(v *trs.Var, t *trs.Term) bool {
	t = u.resolve(t)
	if t.Var != nil {
		return t.Var == v
	}
	for _, a := range t.Args {
		if u.occurs(v, a) {
			return true
		}
	}
	return false
}

// WithTiming turns Maude's report of the reduce's time on in a module
// that Module made.
func WithTiming(module string) string {
	return strings.Replace(module, "set show timing off .", "set show timing on .", 1)
}

// equation writes lhs = rhs, conditional if conds are not empty.
func equation(b *strings.Builder, lhs, rhs string, conds []string, attrs string) {
	if len(conds) == 0 {
		fmt.Fprintf(b, "  eq %s = %s%s .\n", lhs, rhs, attrs)
		return
	}
	fmt.Fprintf(b, "  ceq %s = %s if %s%s .\n", lhs, rhs, strings.Join(conds, " /\\ "), attrs)
}

// conditions are the Maude conditions of r's own conditions.
func conditions(sys *trs.System, r *trs.Rule) []string {
	var out []string
	for _, c := range r.Conds {
		a, b := term(r, c.A), term(r, c.B)
		if c.Join {
			out = append(out, a+" = "+b)
		} else {
			out = append(out, fmt.Sprintf("eq%s(%s, %s) = ff", sortNames(sys)[sortOf(c.A.Sort())], a, b))
		}
	}
	return out
}

// matcher names the matcher of rule j of s.
func matcher(s *trs.Sym, j int) string { return fmt.Sprintf("m%d-%d", s.Index, j) }

// matchOf applies rule j's matcher of s to the arguments of rule r's
// left-hand side.
func matchOf(r *trs.Rule, s *trs.Sym, j int) string {
	args := make([]string, len(r.LHS.Args))
	for k, a := range r.LHS.Args {
		args[k] = term(r, a)
	}
	return apply(matcher(s, j), args)
}

func sortNames(sys *trs.System) []string {
	if len(sys.Sorts) == 0 {
		return []string{"S0"}
	}
	out := make([]string, len(sys.Sorts))
	for i := range out {
		out[i] = fmt.Sprintf("S%d", i)
	}
	return out
}

// sortOf maps an unsorted system's -1 to its one sort.
func sortOf(s int) int { return max(s, 0) }

func argSort(s *trs.Sym, k int) int {
	if s.ArgSorts == nil {
		return 0
	}
	return s.ArgSorts[k]
}

func argSorts(sys *trs.System, s *trs.Sym) string {
	names := sortNames(sys)
	out := make([]string, s.Arity)
	for k := range out {
		out[k] = names[sortOf(argSort(s, k))]
	}
	return strings.Join(out, " ")
}

// opName names symbol s.
func opName(s *trs.Sym) string { return fmt.Sprintf("s%d", s.Index) }

func varName(r *trs.Rule, v *trs.Var) string { return fmt.Sprintf("R%dV%d", r.Index, v.Index) }

func apply(op string, args []string) string {
	if len(args) == 0 {
		return op
	}
	return op + "(" + strings.Join(args, ", ") + ")"
}

// term writes t, a term of rule r (nil for the input).
func term(r *trs.Rule, t *trs.Term) string {
	if t.Var != nil {
		return varName(r, t.Var)
	}
	args := make([]string, len(t.Args))
	for i, a := range t.Args {
		args[i] = term(r, a)
	}
	return apply(opName(t.Sym), args)
}

// Run reduces the input term of sys with the maude command, and returns
// its normal form.
func Run(sys *trs.System, timeout time.Duration) (*trs.Term, error) {
	dir, err := os.MkdirTemp("", "gpuc-maude")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "trs.maude")
	if err := os.WriteFile(file, []byte(Module(sys)), 0o644); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "maude", "-no-banner", "-batch", file)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("maude: %v\n%s%s", err, stderr.String(), out.String())
	}
	t, err := Result(sys, out.String())
	if err != nil {
		return nil, fmt.Errorf("%v\nmaude printed:\n%s%s", err, out.String(), stderr.String())
	}
	return t, nil
}

// Result reads the normal form from Maude's output of a reduce.
func Result(sys *trs.System, out string) (*trs.Term, error) {
	i := strings.Index(out, "result ")
	if i < 0 {
		return nil, fmt.Errorf("maude printed no result")
	}
	rest := out[i:]
	colon := strings.Index(rest, ": ")
	if colon < 0 {
		return nil, fmt.Errorf("maude's result has no sort")
	}
	rest = rest[colon+2:]
	if end := strings.Index(rest, "\nBye"); end >= 0 {
		rest = rest[:end]
	}
	text := strings.Join(strings.Fields(rest), "")
	p := &reader{sys: sys, text: text}
	t, err := p.term()
	if err == nil && p.at < len(text) {
		err = fmt.Errorf("maude's result continues after the term: %q", text[p.at:])
	}
	return t, err
}

// reader parses Maude's prefix notation with the names Module gave.
type reader struct {
	sys  *trs.System
	text string
	at   int
}

func (p *reader) term() (*trs.Term, error) {
	start := p.at
	for p.at < len(p.text) && !strings.ContainsRune("(),", rune(p.text[p.at])) {
		p.at++
	}
	name := p.text[start:p.at]
	sym, err := p.symbol(name)
	if err != nil {
		return nil, err
	}
	t := &trs.Term{Sym: sym}
	if p.at < len(p.text) && p.text[p.at] == '(' {
		for {
			p.at++
			a, err := p.term()
			if err != nil {
				return nil, err
			}
			t.Args = append(t.Args, a)
			if p.at >= len(p.text) {
				return nil, fmt.Errorf("maude's result ends inside %s(...)", name)
			}
			if p.text[p.at] == ')' {
				p.at++
				break
			}
			if p.text[p.at] != ',' {
				return nil, fmt.Errorf("unexpected %q in maude's result", p.text[p.at])
			}
		}
	}
	if len(t.Args) != sym.Arity {
		return nil, fmt.Errorf("maude's result applies %s to %d arguments", sym.Name, len(t.Args))
	}
	return t, nil
}

// symbol maps a Maude operator name, s<i>, to its symbol.
func (p *reader) symbol(name string) (*trs.Sym, error) {
	i, err := strconv.Atoi(strings.TrimPrefix(name, "s"))
	if !strings.HasPrefix(name, "s") || err != nil || i < 0 || i >= len(p.sys.Syms) {
		return nil, fmt.Errorf("unknown operator %q in maude's result", name)
	}
	return p.sys.Syms[i], nil
}
