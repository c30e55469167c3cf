package maude

import (
	"fmt"
	"strings"

	"gpuc/frontends/trs"
)

// Note [Conditions evaluated once]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A matcher m-f-j that checks rule j's conditions evaluates them once for
// itself and once more for rule j's own equation; where rule j fails and
// a later rule k has conditions of its own over the same subterms (REC's
// oddeven: odd(s(N)) -> true if even(N) -><- true, then the same
// left-hand side with false), each level of recursion evaluates its
// subterm three times, 3^n in all. So a symbol whose conditional rules
// overlap later ones is evaluated in sequence instead, by try functions
// that return an optional result:
//
//	ceq f(W) = N if some(N) := t-f-0(W) .
//	eq t-f-k(P) = c-f-k-0(V, a0, b0) .       rule k: f(P) -> R if a0 -><- b0 ...
//	eq t-f-k(W) = t-f-k+1(W) [owise] .       P does not match
//	eq c-f-k-i(V, X, X) = c-f-k-i+1(V, a, b)  or some(R) after the last
//	eq c-f-k-i(V, X, Y) = t-f-k+1(P) [owise] . the condition fails
//	eq t-f-n(W) = none .                      no rule applies: f(W) is normal
//
// Maude reduces the arguments of c-f-k-i before its equations, so each
// condition's sides are reduced once, and a rule is tried only after the
// earlier ones failed, which keeps gpuc's order. A ->/<- b swaps the two
// outcomes of its c equation. V are rule k's variables, so the failing
// case can rebuild P for the next rule.

// sequential reports whether the rules of a symbol (in order) are
// evaluated in sequence: some conditional rule overlaps a later one.
func sequential(rules []*trs.Rule) bool {
	for j, r := range rules {
		if len(r.Conds) > 0 && shadows(r, rules[j+1:]) {
			return true
		}
	}
	return false
}

// conditionSorts are the sorts of the conditions of the symbols evaluated
// in sequence, which need the variables X and Y.
func conditionSorts(sys *trs.System, written map[*trs.Sym][]*trs.Rule) map[int]bool {
	out := map[int]bool{}
	for s, rules := range written {
		if s.Aux || !sequential(rules) {
			continue
		}
		for _, r := range rules {
			for _, c := range r.Conds {
				out[sortOf(c.A.Sort())] = true
			}
		}
	}
	return out
}

func tryName(s *trs.Sym, k int) string     { return fmt.Sprintf("t%d-%d", s.Index, k) }
func condName(s *trs.Sym, k, i int) string { return fmt.Sprintf("c%d-%d-%d", s.Index, k, i) }

// declareSequence declares the try and condition functions of s.
func declareSequence(b *strings.Builder, sys *trs.System, s *trs.Sym, rules []*trs.Rule) {
	names := sortNames(sys)
	result := fmt.Sprintf("O%d", sortOf(s.Sort))
	for k := 0; k <= len(rules); k++ {
		fmt.Fprintf(b, "  op %s : %s -> %s .\n", tryName(s, k), argSorts(sys, s), result)
	}
	for k, r := range rules {
		var vs []string
		for _, v := range r.Vars {
			vs = append(vs, names[sortOf(v.Sort)])
		}
		for i, c := range r.Conds {
			cs := names[sortOf(c.A.Sort())]
			fmt.Fprintf(b, "  op %s : %s -> %s .\n", condName(s, k, i), strings.Join(append(vs, cs, cs), " "), result)
		}
	}
}

// sequence writes the equations of s, evaluated in sequence (Note
// [Conditions evaluated once]).
func sequence(b *strings.Builder, sys *trs.System, s *trs.Sym, rules []*trs.Rule) {
	sort := sortOf(s.Sort)
	ws := make([]string, s.Arity)
	for k := range ws {
		ws[k] = fmt.Sprintf("W%d-%d", sortOf(argSort(s, k)), k)
	}
	fmt.Fprintf(b, "  ceq %s = N%d if some%d(N%d) := %s .\n", apply(opName(s), ws), sort, sort, sort, apply(tryName(s, 0), ws))
	for k, r := range rules {
		args := make([]string, len(r.LHS.Args))
		for i, a := range r.LHS.Args {
			args[i] = term(r, a)
		}
		vars := make([]string, len(r.Vars))
		for i, v := range r.Vars {
			vars[i] = varName(r, v)
		}
		next := apply(tryName(s, k+1), args)
		check := func(i int) string {
			c := r.Conds[i]
			return apply(condName(s, k, i), append(vars[:len(vars):len(vars)], term(r, c.A), term(r, c.B)))
		}
		done := fmt.Sprintf("some%d(%s)", sort, term(r, r.RHS))
		if len(r.Conds) == 0 {
			equation(b, apply(tryName(s, k), args), done, nil, "")
		} else {
			equation(b, apply(tryName(s, k), args), check(0), nil, "")
		}
		equation(b, apply(tryName(s, k), ws), apply(tryName(s, k+1), ws), nil, " [owise]")
		for i, c := range r.Conds {
			holds := done
			if i+1 < len(r.Conds) {
				holds = check(i + 1)
			}
			equal, differ := holds, next
			if !c.Join {
				equal, differ = next, holds
			}
			cs := sortOf(c.A.Sort())
			x, y := fmt.Sprintf("X%d", cs), fmt.Sprintf("Y%d", cs)
			equation(b, apply(condName(s, k, i), append(vars[:len(vars):len(vars)], x, x)), equal, nil, "")
			equation(b, apply(condName(s, k, i), append(vars[:len(vars):len(vars)], x, y)), differ, nil, " [owise]")
		}
	}
	equation(b, apply(tryName(s, len(rules)), ws), fmt.Sprintf("none%d", sort), nil, "")
}
