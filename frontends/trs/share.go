package trs

import "fmt"

// Note [Repeated subterms]
//
// A right-hand side may repeat a subterm that still has work in it, as
// the REC benchmarks' buildtree does:
//
//	buildtree(s(X), Y) -> node(..., getval(buildtree(X, Y)), ...,
//	                           buildtree(X, Y), ...)
//
// Built as written, each copy is a term of its own and is rewritten on
// its own, and since buildtree(X, Y) repeats it again, the work grows as
// 4^X where the term needs X. Maude builds a right-hand side's equal
// subterms once; gpuc does the same by letting them: the checker rewrites
// every rule l -> r whose r repeats a subterm t that is pending when made
// (it holds a symbol with rules) into
//
//	l                -> f.let.n(t, K1, ..., Km)
//	f.let.n(Z, K1, ..., Km) -> r with t replaced by Z
//
// where K1 ... Km stand for r's variables and the copies of the left-hand
// side's subterms that r shares (Note [Sharing]), which the new rule
// passes on so that they stay shared. Innermost rewriting brings t to
// normal form once, as an argument of f.let.n, and the rule then refers to
// that one slot wherever r has t. The repeated subterms lifted at once are
// the smallest ones, those without another repeated pending subterm
// inside; the new rule is let in turn, so that a repeat with a repeat
// inside takes a let for each. Each let also takes the largest pending
// subterms of r that hold no repeat, so that work which needs no repeat
// is rewritten beside the repeats, not after them: a let must not
// serialise independent work. What needs a repeat's normal form waits
// for it, as innermost rewriting wants. Innermost rewriting normalises every
// subterm of r in any case, before the term above it, so the normal form
// is the same and only the work changes: rewrites of the copies are saved
// and each let costs one. Systems whose right-hand sides repeat no pending
// subterm, as the paper's examples, are unchanged.

// shareRepeats lets the repeated pending subterms of every rule's
// right-hand side (Note [Repeated subterms]).
func (c *checker) shareRepeats() {
	done := map[*Term]*Term{} // right-hand sides let already: copies of a symbol share them
	for _, s := range c.sys.Syms[:len(c.sys.Syms):len(c.sys.Syms)] {
		for i, r := range s.Rules {
			rhs, ok := done[r.RHS]
			if !ok {
				var subs []*Term
				for _, a := range r.LHS.Args {
					subs = appendSubterms(subs, a)
				}
				rhs = c.let(r.RHS, subs, s)
				done[r.RHS] = rhs
			}
			if rhs != r.RHS {
				s.Rules[i] = &Rule{Pos: r.Pos, Index: r.Index, LHS: r.LHS, RHS: rhs, Vars: r.Vars}
			}
		}
	}
}

// appendSubterms appends t and its subterms that are not variables.
func appendSubterms(out []*Term, t *Term) []*Term {
	if t.Var != nil {
		return out
	}
	out = append(out, t)
	for _, a := range t.Args {
		out = appendSubterms(out, a)
	}
	return out
}

// let returns rhs, a right-hand side under a left-hand side whose
// non-variable subterms are subs, with its smallest repeated pending
// subterms let (Note [Repeated subterms]), or rhs itself if it has none.
func (c *checker) let(rhs *Term, subs []*Term, f *Sym) *Term {
	bound := func(t *Term) bool {
		if t.Var != nil {
			return true
		}
		for _, s := range subs {
			if SameTerm(s, t) {
				return true
			}
		}
		return false
	}
	// Count the pending subterms below the root.
	var seen []*Term         // the distinct pending subterms
	count := map[*Term]int{} // by the first of its equals in seen
	first := func(t *Term) *Term {
		if i := indexOf(seen, t); i >= 0 {
			return seen[i]
		}
		seen = append(seen, t)
		return t
	}
	repeated := func(t *Term) bool {
		i := indexOf(seen, t)
		return i >= 0 && count[seen[i]] > 1
	}
	pend := map[*Term]bool{} // by occurrence
	var walk func(t *Term, root bool) bool
	walk = func(t *Term, root bool) bool {
		if bound(t) {
			return false
		}
		pending := t.Sym.Defined()
		for _, a := range t.Args {
			pending = walk(a, false) || pending
		}
		pend[t] = pending
		if pending && !root {
			count[first(t)]++
		}
		return pending
	}
	if rhs.Var != nil || bound(rhs) || !walk(rhs, true) {
		return rhs
	}
	var inside func(t *Term) bool // t has a repeated pending subterm below it
	inside = func(t *Term) bool {
		for _, a := range t.Args {
			if !bound(a) && (repeated(a) || inside(a)) {
				return true
			}
		}
		return false
	}
	var reps []*Term
	for _, t := range seen {
		if count[t] > 1 && !inside(t) {
			reps = append(reps, t)
		}
	}
	if len(reps) == 0 {
		return rhs
	}
	// The pending subterms that hold no repeat go along with the repeats,
	// the largest such, so that they are rewritten beside them.
	var frees []*Term
	var free func(t *Term)
	free = func(t *Term) {
		for _, a := range t.Args {
			switch {
			case bound(a) || indexOf(reps, a) >= 0:
			case repeated(a) || inside(a):
				free(a)
			case pend[a]:
				if indexOf(frees, a) < 0 {
					frees = append(frees, a)
				}
			default:
				free(a)
			}
		}
	}
	free(rhs)
	lifted := append(append([]*Term{}, reps...), frees...)
	// The let's arguments: those, then the bound subterms outside them,
	// each once.
	var keeps []*Term
	var keep func(t *Term)
	keep = func(t *Term) {
		if indexOf(lifted, t) >= 0 {
			return
		}
		if bound(t) {
			if indexOf(keeps, t) < 0 {
				keeps = append(keeps, t)
			}
			return
		}
		for _, a := range t.Args {
			keep(a)
		}
	}
	keep(rhs)
	args := append(lifted, keeps...)
	s := &Sym{Name: fmt.Sprintf("%s.let.%d", f.Name, c.nextRule), Arity: len(args), Sort: rhs.Sort(), Pos: rhs.Pos, Aux: true}
	vars := make([]*Var, len(args))
	params := make([]*Term, len(args))
	for i, a := range args {
		vars[i] = &Var{Name: fmt.Sprintf("Z%d", i), Sort: a.Sort(), Index: i}
		params[i] = &Term{Var: vars[i], Pos: rhs.Pos}
		if c.sorted() {
			s.ArgSorts = append(s.ArgSorts, a.Sort())
		}
	}
	var body func(t *Term) *Term
	body = func(t *Term) *Term {
		if i := indexOf(args, t); i >= 0 {
			return params[i]
		}
		out := &Term{Sym: t.Sym, Pos: t.Pos}
		for _, a := range t.Args {
			out.Args = append(out.Args, body(a))
		}
		return out
	}
	r := &Rule{Pos: rhs.Pos, Index: c.nextRule, LHS: &Term{Sym: s, Args: params, Pos: rhs.Pos}, Vars: vars}
	c.nextRule++
	c.sys.Syms = append(c.sys.Syms, s)
	r.RHS = c.let(body(rhs), nil, f)
	s.Rules = []*Rule{r}
	return &Term{Sym: s, Args: args, Pos: rhs.Pos}
}

// indexOf is the index of the first term of ts equal to t, or -1.
func indexOf(ts []*Term, t *Term) int {
	for i, s := range ts {
		if SameTerm(s, t) {
			return i
		}
	}
	return -1
}
