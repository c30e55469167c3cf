package chr

import (
	"gpuc/ir"
)

// Note [Indices]
//
// A thread owns one candidate for a rule's first head to match (the first
// removed head, or for propagation each head in turn, Note [Parallel
// firing]) and searches partners for the other heads, one head at a time
// in a join order that a greedy planner picks: next comes the head with
// the most arguments already known, and each guard conjunct is tested as
// soon as its variables are bound, before anything is claimed.
//
// A head with known arguments (constants, variables bound by earlier
// heads, or variables that a guard equates to a known integer expression,
// as N2 =:= N1+1) is found through a hash index on those positions: a
// chained hash table rebuilt every step from the live constraints, head
// and next arrays with one atomic exchange per insertion, as many buckets
// as the least power of two not below the store's live range, so that a
// step costs time in proportion to the store and a bucket is a mask, not
// a 64-bit division. A probe that stops at its first firing rarely walks
// far; one that walks the whole chain (a chained owner's search, or
// propagation's) meets every colliding constraint, so a store with such
// an index gets twice the buckets (half a colliding constraint a probe on
// average, not one; heads are 4 CAP long), and after the build a pass
// turns the heads of that index's chains of two or more into -2 - slot,
// so that a walk over a chain of one, the common case, reads no next
// pointer. The hash is linear in the last key, so threads that own
// neighbouring constraints (edge(I,J) for consecutive J) probe
// neighbouring buckets. The paper's Floyd–Warshall rule
// edge(I,K,D1), edge(K,J,D2) \ edge(I,J,D3) thus walks the N edges leaving
// I and probes one bucket for each: O(N) partners per removed head, not
// O(N^2) or the paper's O(N^3).
//
// A head with no known argument but a guard conjunct X op E, where X is
// one of its integer arguments and E is known (min(A) \ min(B) <=> A =< B),
// is found through an extremum: per step, the least (or greatest) value
// of that argument over the store, the least and greatest slots holding
// it, and the next value. The best candidate that is not already matched
// is tried first; if even it fails X op E, nothing can match and the
// search stops, so min and gcd take O(1) per owner instead of O(N).
// Otherwise the head is found by scanning the store.
//
// When a firing would replace the owner by a constraint of its own type
// with the same join arguments (D3 becomes D4 in Floyd–Warshall) that a
// guard reads, the thread goes on searching with the replacement as
// owner, as the sequential rule would be re-tried on it, and proposes the
// last firing found if its guard still holds for the original owner (the
// first one otherwise). For Floyd–Warshall that is the shortest path through any K
// in one step, the min-plus product.

// maxRules is the number of rules a program may have.
const maxRules = 127

// rulePlan is one way of matching a rule: the owner head and the join
// order of the others.
type rulePlan struct {
	r     *rule
	owner *head
	// delta is the index of the head that must be new in a propagation
	// plan (semi-naive: heads before it old, heads after it old or new);
	// -1 for removal rules.
	delta int
	early []*comparison // guard conjuncts known from the owner alone
	steps []*joinStep
	// chain is the body constraint that replaces the owner, when the
	// search may go on with it (Note [Indices]); nil otherwise.
	chain *post
	// paired: the removed heads are interchangeable and partners come
	// from the step's ranking of the owner's store (Note [Pairing]).
	paired bool
	// Buffers of a removal rule's proposals, indexed by owner slot.
	on, claim string
	slots     map[*head]string    // partner slots
	inputs    map[*ruleVar]string // values of the variables the body reads
}

// joinStep finds one partner head.
type joinStep struct {
	h      *head
	keyPos []int   // positions with known values, for ix
	keys   []arith // their values
	ix     *index
	ext    *extremum
	extCmp *comparison // X op E, with X the head's argument at ext.pos
	guards []*comparison
	// bounds: guard conjuncts of guards tested before the search
	// (Note [Guard bounds]).
	bounds []*guardBound
}

// planRule makes the plans of a rule: one for a removal rule, one per
// head for a propagation rule.
func (l *lowerer) planRule(r *rule) []*rulePlan {
	if r.index >= maxRules {
		l.errs.Add(r.pos, "more than %d rules; claim words hold a rule's index in 7 bits", maxRules)
	}
	if r.kind != propagation {
		return []*rulePlan{l.plan(r, r.removed[0], -1)}
	}
	var out []*rulePlan
	for i, h := range r.kept {
		out = append(out, l.plan(r, h, i))
	}
	return out
}

func (l *lowerer) plan(r *rule, owner *head, delta int) *rulePlan {
	p := &rulePlan{r: r, owner: owner, delta: delta}
	bound := map[*ruleVar]bool{}
	l.bindHead(r, owner, bound)
	done := map[*comparison]bool{}
	p.early = readyGuards(r, bound, done)
	rest := []*head{}
	for _, h := range r.heads() {
		if h != owner {
			rest = append(rest, h)
		}
	}
	for len(rest) > 0 {
		best, bestKeys := 0, -1
		for i, h := range rest {
			if k := len(knownPositions(r, h, bound)); k > bestKeys {
				best, bestKeys = i, k
			}
		}
		h := rest[best]
		rest = append(rest[:best], rest[best+1:]...)
		st := l.joinStep(r, h, bound, delta >= 0)
		before := copyKnown(bound)
		l.bindHead(r, h, bound)
		st.guards = readyGuards(r, bound, done)
		if st.ext == nil {
			st.bounds = l.guardBounds(r, h, before, st.guards)
		}
		p.steps = append(p.steps, st)
	}
	if delta < 0 {
		p.paired = interchangeable(r)
		if p.paired {
			l.stores[owner.ct].ranked = true
		} else {
			p.chain = chainTarget(p)
		}
	}
	if p.chain != nil || p.delta >= 0 {
		for _, st := range p.steps {
			if st.ix != nil {
				st.ix.whole = true
				st.ix.s.wide = true
			}
		}
	}
	return p
}

// Note [Pairing]
//
// A rule whose heads are all removed, of one constraint type, with
// distinct variables for arguments and no guard (sum(X), sum(Y) <=>
// ...) fires on any k distinct live constraints of that type: its heads
// are interchangeable. Searching partners by scanning makes every owner
// want the same few constraints; instead, phase B ranks the live
// constraints of the type (an atomic counter hands out ranks 0..c-1, in
// any order) and lists them by rank, and in phase C the owner of rank
// r = 0 mod k proposes the firing on ranks r..r+k-1 when r+k-1 < c.
// The groups are disjoint, so every proposal holds its claims unless
// another rule removes the type too, and a step fires floor(c/k)
// firings: sum over n constraints ends in ceil(log2 n)+1 steps, each
// step O(n/p) per processor. Any grouping of live constraints is a set
// of valid firings, so Note [Parallel firing]'s argument stands; a
// later claim round re-proposes only groups whose members are all still
// alive. The ranks follow the order of the atomic additions, so a
// program that is not confluent may end in different stores from run to
// run on the GPU, each one that the semantics allows.

// interchangeable tells whether a rule's heads are interchangeable (Note
// [Pairing]).
func interchangeable(r *rule) bool {
	if r.kind == propagation || len(r.kept) > 0 || len(r.removed) < 2 || len(r.guard) > 0 || len(r.guards) > 0 {
		return false
	}
	seen := map[string]bool{}
	for _, h := range r.removed {
		if h.ct != r.removed[0].ct {
			return false
		}
		for _, a := range h.args {
			v, ok := a.(*variable)
			if !ok {
				return false
			}
			if v.name != "_" && seen[v.name] {
				return false
			}
			seen[v.name] = true
		}
	}
	return true
}

// bindHead marks the variables of a head bound.
func (l *lowerer) bindHead(r *rule, h *head, bound map[*ruleVar]bool) {
	for _, a := range h.args {
		if v, ok := a.(*variable); ok && v.name != "_" {
			bound[r.vars[v.name]] = true
		}
	}
}

// readyGuards returns the guard conjuncts whose variables are all bound
// and that are not yet placed, marking them placed.
func readyGuards(r *rule, bound map[*ruleVar]bool, done map[*comparison]bool) []*comparison {
	var out []*comparison
	for _, g := range r.guards {
		if !done[g] && allBound(g.x, bound) && allBound(g.y, bound) {
			done[g] = true
			out = append(out, g)
		}
	}
	return out
}

func allBound(a arith, bound map[*ruleVar]bool) bool {
	switch a := a.(type) {
	case *aVar:
		return bound[a.v]
	case *aOp:
		for _, x := range a.args {
			if !allBound(x, bound) {
				return false
			}
		}
	}
	return true
}

// knownPositions returns the argument positions of h whose values are
// known from bound variables, constants or guard equalities, with the
// values.
func knownPositions(r *rule, h *head, bound map[*ruleVar]bool) map[int]arith {
	out := map[int]arith{}
	for i, a := range h.args {
		switch a := a.(type) {
		case *integer:
			out[i] = &aNum{pos: a.pos, t: ir.I64, i: a.val}
		case *float:
			out[i] = &aNum{pos: a.pos, t: ir.F64, f: a.val}
		case *variable:
			if a.name == "_" {
				continue
			}
			v := r.vars[a.name]
			if bound[v] {
				out[i] = &aVar{pos: a.pos, v: v}
			} else if e := guardEquality(r, v, bound); e != nil && h.ct.args[i] == ir.I64 {
				out[i] = e
			}
		}
	}
	return out
}

// guardEquality finds a guard conjunct V =:= E or V == E (either way
// round) with E an integer expression over bound variables.
func guardEquality(r *rule, v *ruleVar, bound map[*ruleVar]bool) arith {
	for _, g := range r.guards {
		if g.op != "=:=" && g.op != "==" {
			continue
		}
		for _, pair := range [][2]arith{{g.x, g.y}, {g.y, g.x}} {
			if x, ok := pair[0].(*aVar); ok && x.v == v && allBound(pair[1], bound) && typeOf(pair[1]) == ir.I64 {
				return pair[1]
			}
		}
	}
	return nil
}

// joinStep decides how to find head h given the bound variables.
func (l *lowerer) joinStep(r *rule, h *head, bound map[*ruleVar]bool, prop bool) *joinStep {
	st := &joinStep{h: h}
	known := knownPositions(r, h, bound)
	s := l.stores[h.ct]
	if len(known) > 0 {
		for i := range h.args {
			if e, ok := known[i]; ok {
				st.keyPos = append(st.keyPos, i)
				st.keys = append(st.keys, e)
			}
		}
		st.ix = l.indexOn(s, st.keyPos)
		return st
	}
	if prop {
		return st // a propagation rule needs every partner: scan
	}
	for _, g := range r.guards {
		if pos, isMax, ok := rangeConjunct(r, h, g, bound); ok {
			st.ext, st.extCmp = l.extremumOn(s, pos, isMax), g
			return st
		}
	}
	return st
}

// rangeConjunct recognises X op E with X a fresh integer argument of h
// that occurs once in it, E over bound variables, op an order
// comparison; isMax tells whether large values of X satisfy it.
func rangeConjunct(r *rule, h *head, g *comparison, bound map[*ruleVar]bool) (pos int, isMax, ok bool) {
	flip := map[string]string{"<": ">", ">": "<", "=<": ">=", ">=": "=<"}
	for _, side := range []struct {
		x, e arith
		op   string
	}{{g.x, g.y, g.op}, {g.y, g.x, flip[g.op]}} {
		x, isVar := side.x.(*aVar)
		if !isVar || side.op == "" || bound[x.v] || !allBound(side.e, bound) || typeOf(side.e) != ir.I64 {
			continue
		}
		at, count := -1, 0
		for i, a := range h.args {
			if v, ok := a.(*variable); ok && v.name == x.v.name {
				at, count = i, count+1
			}
		}
		if count == 1 && h.ct.args[at] == ir.I64 {
			return at, side.op == ">" || side.op == ">=", true
		}
	}
	return 0, false, false
}

// chainTarget returns the body constraint that may replace the owner
// while the search goes on: of the owner's type, equal to the owner on
// every argument that a partner lookup uses, with the owner's arguments
// distinct variables. Extremum lookups rule it out, since their answer
// depends on the owner as a whole.
func chainTarget(p *rulePlan) *post {
	r := p.r
	seen := map[string]bool{}
	for _, a := range p.owner.args {
		v, ok := a.(*variable)
		if !ok || v.name == "_" || seen[v.name] {
			return nil
		}
		seen[v.name] = true
	}
	for _, st := range p.steps {
		if st.ext != nil {
			return nil
		}
	}
	for _, g := range r.goals {
		pg, ok := g.(*post)
		if !ok || pg.ct != p.owner.ct {
			continue
		}
		if chainable(p, pg) {
			return pg
		}
		return nil
	}
	return nil
}

// chainable checks that every owner argument that pg changes is used
// by no other head, and that a guard reads one of them: with no such
// guard every firing the search goes on to is as good as the first
// (sum(X), sum(Y) <=> ...), and chaining would only walk the store.
func chainable(p *rulePlan, pg *post) bool {
	guarded := false
	for i, a := range p.owner.args {
		v := p.r.vars[a.(*variable).name]
		if x, ok := pg.args[i].(*aVar); ok && x.v == v {
			continue
		}
		for _, g := range p.r.guards {
			guarded = guarded || usesVar(g.x, v) || usesVar(g.y, v)
		}
		for _, h := range p.r.heads() {
			if h == p.owner {
				continue
			}
			for _, ha := range h.args {
				if hv, ok := ha.(*variable); ok && hv.name == v.name {
					return false
				}
			}
		}
		for _, g := range p.r.guards {
			if g.op == "=:=" || g.op == "==" {
				if usesVar(g.x, v) || usesVar(g.y, v) {
					return false // it may be a key through a guard equality
				}
			}
		}
	}
	return guarded
}

func usesVar(a arith, v *ruleVar) bool {
	switch a := a.(type) {
	case *aVar:
		return a.v == v
	case *aOp:
		for _, x := range a.args {
			if usesVar(x, v) {
				return true
			}
		}
	}
	return false
}
