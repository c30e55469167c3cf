package trs

import "fmt"

// Note [Conditional rules]
//
// A REC rule may have conditions, `f(P) -> R if A -><- B and-if C ->/<-
// D`: it applies where f(P) matches and A and B have the same normal
// form, and C and D different ones. For the terminating, confluent
// systems that REC asks for, joinability is exactly that. gpuc rewrites
// with unconditional rules only, so the checker unravels every
// conditional rule of f, its i-th, into rules that evaluate the
// conditions as arguments of auxiliary symbols, which innermost rewriting
// normalises before it looks at them:
//
//	f(P)                       -> f.if.i.1(A, B, V1, ..., Vm)
//	f.if.i.1(X, X, V1, ..., Vm) -> f.if.i.2(C, D, V1, ..., Vm)
//	f.if.i.1(X, Y, V1, ..., Vm) -> f'(P)
//	f.if.i.2(X, X, V1, ..., Vm) -> f'(P)
//	f.if.i.2(X, Y, V1, ..., Vm) -> R
//
// where V1 ... Vm are the variables of P, the auxiliary rules' copies of
// them stand in for them in C, D, R and P, and X X is matched by term
// equality (the rule is not left-linear). A condition is evaluated only
// once those before it hold, as in Maude, so a condition that guards
// recursion still stops it.
//
// Where a condition fails, f's later rules must still be tried, in order,
// on the same arguments: f' is a copy of f whose rules are f's rules
// after the i-th (unravelled in turn), a symbol of its own. Since the
// rules before the i-th did not apply either, a term f'(P) that none of
// f''s rules rewrites is in normal form as f(P), and the rewriters turn
// it into that (Sym.Of): copies never reach a normal form, a printed
// term or an equality test.
//
// The auxiliary steps are rewrites like any other, and the rewrite counts
// of the CPU rewriter, `gpuc run` and the GPU include them; Maude, which
// takes the conditional rules as conditional equations (package maude),
// is the oracle that does not go through this translation.

// unravel replaces the conditional rules of every symbol by unconditional
// ones (Note [Conditional rules]). System.Rules keeps them as written.
func (c *checker) unravel() {
	syms := c.sys.Syms // not the symbols made here, which have no conditional rules
	for _, f := range syms {
		if !anyConditional(f.Rules) {
			continue
		}
		written := f.Rules
		// heads[i] tries the rules of f from the i-th on: f itself, or
		// a copy where the rule before it is conditional.
		heads := make([]*Sym, len(written))
		heads[0] = f
		for i, r := range written[:len(written)-1] {
			if len(r.Conds) > 0 {
				heads[i+1] = c.copyOf(f)
			}
		}
		rules := make([]*Rule, len(written))
		for i, r := range written {
			var fallback *Sym // where the conditions fail
			switch {
			case len(r.Conds) == 0:
			case i+1 < len(written):
				fallback = heads[i+1]
			default: // no rule follows: a copy without rules, which becomes f
				fallback = c.copyOf(f)
			}
			rules[i] = c.unravelRule(r, fallback)
		}
		for i, h := range heads {
			if h == nil {
				continue
			}
			h.Rules = nil
			for _, r := range rules[i:] {
				if h != f {
					r = &Rule{Pos: r.Pos, Index: c.nextRule, LHS: &Term{Sym: h, Args: r.LHS.Args, Pos: r.LHS.Pos}, RHS: r.RHS, Vars: r.Vars}
					c.nextRule++
				}
				h.Rules = append(h.Rules, r)
			}
		}
	}
}

func anyConditional(rules []*Rule) bool {
	for _, r := range rules {
		if len(r.Conds) > 0 {
			return true
		}
	}
	return false
}

// copyOf makes a copy of f (Sym.Of).
func (c *checker) copyOf(f *Sym) *Sym {
	s := &Sym{Name: f.Name, Arity: f.Arity, Sort: f.Sort, ArgSorts: f.ArgSorts, Of: f, Pos: f.Pos, Aux: true}
	c.sys.Syms = append(c.sys.Syms, s)
	return s
}

// unravelRule returns r if it has no conditions, and else the rule that
// starts evaluating them, having added the auxiliary symbols and their
// rules; fallback tries the rules after r.
func (c *checker) unravelRule(r *Rule, fallback *Sym) *Rule {
	if len(r.Conds) == 0 {
		return r
	}
	f := r.LHS.Sym
	aux := make([]*Sym, len(r.Conds))
	for j, cd := range r.Conds {
		s := &Sym{Name: fmt.Sprintf("%s.if.%d.%d", f.Name, r.Index+1, j+1), Arity: 2 + len(r.Vars), Sort: f.Sort, Pos: cd.Pos, Aux: true}
		if c.sorted() {
			s.ArgSorts = []int{cd.A.Sort(), cd.A.Sort()}
			for _, v := range r.Vars {
				s.ArgSorts = append(s.ArgSorts, v.Sort)
			}
		}
		aux[j] = s
		c.sys.Syms = append(c.sys.Syms, s)
	}
	// test applies aux[j] to the j-th condition's sides, with the
	// variables that vars maps, and to those variables.
	test := func(j int, vars map[*Var]*Term) *Term {
		cd := r.Conds[j]
		t := &Term{Sym: aux[j], Args: []*Term{substitute(cd.A, vars), substitute(cd.B, vars)}, Pos: cd.Pos}
		for _, v := range r.Vars {
			t.Args = append(t.Args, substitute(&Term{Var: v, Pos: cd.Pos}, vars))
		}
		return t
	}
	for j, cd := range r.Conds {
		// aux[j](X, X, ...) and aux[j](X, Y, ...): X X where the
		// condition's sides are equal. Each rule has variables of its own,
		// X, Y and a copy of each of r's, numbered in order on the left.
		for _, equal := range []bool{true, false} {
			x := &Var{Name: "X", Sort: cd.A.Sort()}
			vars := []*Var{x}
			args := []*Term{{Var: x, Pos: cd.Pos}, {Var: x, Pos: cd.Pos}}
			if !equal {
				y := &Var{Name: "Y", Sort: x.Sort, Index: 1}
				vars = append(vars, y)
				args[1] = &Term{Var: y, Pos: cd.Pos}
			}
			copies := map[*Var]*Term{}
			for _, v := range r.Vars {
				cv := &Var{Name: v.Name, Sort: v.Sort, Index: len(vars)}
				vars = append(vars, cv)
				copies[v] = &Term{Var: cv, Pos: cd.Pos}
				args = append(args, copies[v])
			}
			rhs := substitute(r.RHS, copies) // the conditions hold
			if j+1 < len(r.Conds) {
				rhs = test(j+1, copies)
			}
			if equal != cd.Join { // this one fails
				rhs = &Term{Sym: fallback, Pos: cd.Pos}
				for _, a := range r.LHS.Args {
					rhs.Args = append(rhs.Args, substitute(a, copies))
				}
			}
			aux[j].Rules = append(aux[j].Rules, &Rule{Pos: cd.Pos, Index: c.nextRule, LHS: &Term{Sym: aux[j], Args: args, Pos: cd.Pos}, RHS: rhs, Vars: vars})
			c.nextRule++
		}
	}
	return &Rule{Pos: r.Pos, Index: r.Index, LHS: r.LHS, RHS: test(0, nil), Vars: r.Vars}
}

// substitute replaces the variables of t that vars maps.
func substitute(t *Term, vars map[*Var]*Term) *Term {
	if t.Var != nil {
		if u, ok := vars[t.Var]; ok {
			return u
		}
		return t
	}
	out := &Term{Sym: t.Sym, Pos: t.Pos}
	for _, a := range t.Args {
		out.Args = append(out.Args, substitute(a, vars))
	}
	return out
}
