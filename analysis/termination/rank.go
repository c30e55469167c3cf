package termination

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"gpuc/analysis/its"
	"gpuc/analysis/smt"
	"gpuc/internal/graph"
)

// Note [Lexicographic ranking, checked bit-precisely]
// A cycle of the transition graph is proved finite KITTeL's way: find a ranking function (one
// linear function of the variables per location) that no transition of the strongly connected
// component increases and that some transitions strictly decrease; drop those transitions, split what is left into components again, repeat until no
// cycle is left. The functions found in the rounds form a lexicographic ranking.
//
// Candidates come first from templates (the difference of the two sides of each comparison in
// a guard, each variable and its negation), then from Farkas' lemma by exact linear programming
// over the rationals (farkas.go), where the integers are a relaxation: wraps are ignored there.
// No candidate counts until the solver has checked, in bitvector semantics, under the invariants,
// that each transition decreases it (strictly, with the function >= 0, or weakly). The function is
// evaluated in a bitvector wide enough that its own arithmetic cannot wrap, with each variable
// read as its sort says, so a wrap of the program's arithmetic shows up as a failed check and not
// as a silent integer assumption. Only the obligations the solver answered unsat go into the
// certificate. Since the variables are bitvectors, such a function takes finitely many values and
// needs no bound below: a run that took strict transitions infinitely often would decrease it
// forever.

// Ranking is one lexicographic component: a linear function per location of the component.
type Ranking struct {
	Fn     map[int]*Linear
	Strict []int // transitions it removes
}

// sccs splits the graph of the given transitions into strongly connected components with at
// least one transition inside; each is returned as its transitions' indices.
func sccs(sys *its.System, trans []int) [][]int {
	n := len(sys.Locs)
	adj := make([][]int, n)
	for _, ti := range trans {
		t := sys.Trans[ti]
		adj[t.From] = append(adj[t.From], t.To)
	}
	comp := make([]int, n)
	for i, c := range graph.SCCs(n, adj) {
		for _, v := range c {
			comp[v] = i
		}
	}
	groups := map[int][]int{}
	for _, ti := range trans {
		t := sys.Trans[ti]
		if comp[t.From] == comp[t.To] {
			groups[comp[t.From]] = append(groups[comp[t.From]], ti)
		}
	}
	var keys []int
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var out [][]int
	for _, k := range keys {
		out = append(out, groups[k])
	}
	// Outer components first in a stable order: by their smallest transition.
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// locsOf lists the locations the transitions touch.
func locsOf(sys *its.System, trans []int) []int {
	m := map[int]bool{}
	for _, ti := range trans {
		m[sys.Trans[ti].From] = true
		m[sys.Trans[ti].To] = true
	}
	var out []int
	for l := range m {
		out = append(out, l)
	}
	sort.Ints(out)
	return out
}

// lin reads e as an integer linear function of the variables, ignoring wraps; nil where e is not
// linear.
func lin(e its.Expr) *Linear {
	switch e := e.(type) {
	case *its.Const:
		if e.Sort.IsBool() {
			return nil
		}
		return &Linear{Coef: map[string]*big.Int{}, Const: new(big.Int).Set(e.Val)}
	case *its.Ref:
		if e.Var.Sort.IsBool() {
			return nil
		}
		return &Linear{Coef: map[string]*big.Int{e.Var.Name: big.NewInt(1)}, Const: new(big.Int)}
	case *its.Cast:
		return lin(e.X)
	case *its.Unary:
		if e.Op == its.Neg {
			if x := lin(e.X); x != nil {
				return x.scale(big.NewInt(-1))
			}
		}
	case *its.Binary:
		x, y := lin(e.X), lin(e.Y)
		switch e.Op {
		case its.Add:
			if x != nil && y != nil {
				return x.add(y, big.NewInt(1))
			}
		case its.Sub:
			if x != nil && y != nil {
				return x.add(y, big.NewInt(-1))
			}
		case its.Mul:
			if x != nil && y != nil && len(y.sortedVars()) == 0 {
				return x.scale(y.Const)
			}
			if x != nil && y != nil && len(x.sortedVars()) == 0 {
				return y.scale(x.Const)
			}
		case its.Shl:
			if c, ok := e.Y.(*its.Const); ok && x != nil && c.Val.Sign() >= 0 && c.Val.Cmp(big.NewInt(64)) < 0 {
				return x.scale(new(big.Int).Lsh(big.NewInt(1), uint(c.Val.Int64())))
			}
		}
	}
	return nil
}

func (f *Linear) scale(k *big.Int) *Linear {
	g := &Linear{Coef: map[string]*big.Int{}, Const: new(big.Int).Mul(f.Const, k)}
	for v, c := range f.Coef {
		g.Coef[v] = new(big.Int).Mul(c, k)
	}
	return g
}

func (f *Linear) add(g *Linear, k *big.Int) *Linear {
	h := f.scale(big.NewInt(1))
	h.Const.Add(h.Const, new(big.Int).Mul(g.Const, k))
	for v, c := range g.Coef {
		if h.Coef[v] == nil {
			h.Coef[v] = new(big.Int)
		}
		h.Coef[v].Add(h.Coef[v], new(big.Int).Mul(c, k))
	}
	return h
}

// templates proposes uniform ranking functions for the component: the differences of the sides
// of comparisons in the guards of its transitions and of the transitions leaving it, and each
// variable its transitions update.
func templates(sys *its.System, comp []int) []*Linear {
	in := map[int]bool{}
	for _, l := range locsOf(sys, comp) {
		in[l] = true
	}
	var out []*Linear
	seen := map[string]bool{}
	add := func(f *Linear) {
		if f == nil || len(f.sortedVars()) == 0 {
			return
		}
		f.Const = new(big.Int) // the constant does not matter for decrease; bound checks add it back
		k := f.String()
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	var atomsOf []its.Expr
	for ti, t := range sys.Trans {
		if !in[t.From] {
			continue
		}
		_ = ti
		atomsOf = append(atomsOf, t.Guard...)
	}
	for _, g := range atomsOf {
		its.Walk(g, func(e its.Expr) {
			b, ok := e.(*its.Binary)
			if !ok || !b.Op.IsCompare() || its.HasNondet(b) {
				return
			}
			x, y := lin(b.X), lin(b.Y)
			if x != nil && y != nil {
				add(y.add(x, big.NewInt(-1)))
				add(x.add(y, big.NewInt(-1)))
			}
		})
	}
	for _, ti := range comp {
		for _, k := range its.SortedUpdates(sys.Trans[ti]) {
			one := &Linear{Coef: map[string]*big.Int{k: big.NewInt(1)}, Const: new(big.Int)}
			add(one)
			add(one.scale(big.NewInt(-1)))
		}
	}
	return out
}

// rankFn makes a per-location function from a uniform one.
func uniform(f *Linear, locs []int) map[int]*Linear {
	m := map[int]*Linear{}
	for _, l := range locs {
		m[l] = f
	}
	return m
}

// decrease checks fn on every transition of comp in bitvector semantics: it returns the strict
// transitions, or ok=false where some transition may increase it, with the obligations answered.
// No bound below is needed: a function of bitvectors takes finitely many values (Note
// [Lexicographic ranking, checked bit-precisely]).
func (a *analyzer) decrease(inv Invariants, comp []int, fn map[int]*Linear) (strict []int, obl []Obligation, ok bool) {
	// The text of fn, once: it is the same on every transition.
	text := ""
	desc := func() string {
		if text == "" {
			text = describeFn(a.sys, fn)
		}
		return text
	}
	sys := a.sys
	// A quick look over the integers first: a transition that raises fn by a constant rejects it
	// with no solver query (rejecting is always safe).
	known := map[int]*big.Int{}
	for _, ti := range comp {
		t := sys.Trans[ti]
		if d := constDiff(fn[t.From], fn[t.To], t); d != nil {
			if d.Sign() < 0 {
				return nil, nil, false
			}
			known[ti] = d
		}
	}
	for _, ti := range comp {
		t := sys.Trans[ti]
		f, g := fn[t.From], fn[t.To]
		trivial := false
		if d, ok := known[ti]; ok && d.Sign() == 0 && sameVars(f, g, t) {
			// Nothing fn reads changes and fn is the same function: the difference is exactly 0,
			// weak with no query (the obligation still goes into the certificate).
			trivial = true
		}
		seed := map[string]bool{}
		for _, h := range []*Linear{f, g} {
			for v, c := range h.Coef {
				if c.Sign() != 0 {
					seed[v] = true
				}
			}
		}
		ct, cinv := cone(sys, a.constantsOf(sys), t, inv[t.From], seed)
		narrowed := len(ct.Guard) < len(t.Guard) || len(cinv) < len(inv[t.From])
		build := func(strict bool) *query {
			q := newQuery(sys)
			pre := q.state("0")
			q.assert(conjTerm(q, cinv, pre))
			gd, post := q.step(ct, pre, "1")
			q.assert(gd)
			w := diffWidth(sys, f, pre, g, post)
			d, zero := q.diffTerm(f, pre, g, post, w+1), bvConst(new(big.Int), w+1)
			if strict {
				q.assert(fmt.Sprintf("(not (bvsgt %s %s))", d, zero))
			} else {
				q.assert(fmt.Sprintf("(not (bvsge %s %s))", d, zero))
			}
			return q
		}
		if trivial {
			q := build(false)
			obl = append(obl, Obligation{What: fmt.Sprintf("%s does not change on %s", desc(), sys.TransString(t)), Script: q.script()})
			continue
		}
		if d, ok := known[ti]; ok && d.Sign() > 0 && stepsCannotWrap(t, f, g) {
			// Strict with no query (Note [Steps that cannot wrap]).
			q := build(true)
			strict = append(strict, ti)
			obl = append(obl, Obligation{What: fmt.Sprintf("%s strictly decreases on %s", desc(), sys.TransString(t)), Script: q.script()})
			continue
		}
		q := build(true)
		res, _, _ := a.check(q.script())
		if res != smt.Unsat && narrowed {
			// The whole context may show the transition dead, hence strict (Note [Query cone]);
			// the weak check below keeps the cone.
			keep, keepInv := ct, cinv
			ct, cinv = widenCone(t, inv[t.From], ct, cinv)
			q = build(true)
			res, _, _ = a.check(q.script())
			ct, cinv = keep, keepInv
		}
		if res == smt.Unsat {
			strict = append(strict, ti)
			obl = append(obl, Obligation{What: fmt.Sprintf("%s strictly decreases on %s", desc(), sys.TransString(t)), Script: q.script()})
			continue
		}
		q = build(false)
		if res, _, _ := a.check(q.script()); res != smt.Unsat {
			return nil, nil, false
		}
		obl = append(obl, Obligation{What: fmt.Sprintf("%s does not increase on %s", desc(), sys.TransString(t)), Script: q.script()})
	}
	return strict, obl, len(strict) > 0
}

func describeFn(sys *its.System, fn map[int]*Linear) string {
	var ls []int
	for k := range fn {
		ls = append(ls, k)
	}
	sort.Ints(ls)
	texts := map[int]string{}
	same := true
	for _, k := range ls {
		texts[k] = fn[k].String()
		if texts[k] != texts[ls[0]] {
			same = false
		}
	}
	if same && len(ls) > 0 {
		return texts[ls[0]]
	}
	var parts []string
	for _, k := range ls {
		parts = append(parts, sys.Locs[k].Name+": "+texts[k])
	}
	return "{" + strings.Join(parts, "; ") + "}"
}

// proveComponentIn proves that comp has no infinite run by a lexicographic ranking, where a
// cycle inside one of done is left to another piece (Note [Loop nests proved piece by piece]);
// it returns the components in order, or the sub-component it could not rank.
func (a *analyzer) proveComponentIn(inv Invariants, comp []int, done [][]int) ([]Ranking, []Obligation, []int) {
	var ranks []Ranking
	var obl []Obligation
	// comp may be a union of components (a part left by an earlier stage: Note [Ranked outer
	// levels carry over]); each is ranked on its own.
	work := sccs(a.sys, comp)
	for len(work) > 0 {
		c := work[0]
		work = work[1:]
		if within(c, done) {
			continue
		}
		locs := locsOf(a.sys, c)
		a.phase(fmt.Sprintf("component of %d transitions", len(c)))
		var found *Ranking
		for _, fn := range a.candidatesFor(c, locs) {
			if a.rankFailed && a.raisedBySample(c, fn) {
				continue
			}
			if strict, o, ok := a.decrease(inv, c, fn); ok {
				found = &Ranking{Fn: fn, Strict: strict}
				obl = append(obl, o...)
				break
			}
			a.rankFailed = true
		}
		if found == nil && !a.hintsOnly {
			if fn := a.farkas(inv, c); fn != nil {
				if strict, o, ok := a.decrease(inv, c, fn); ok {
					found = &Ranking{Fn: fn, Strict: strict}
					obl = append(obl, o...)
				} else {
					a.zOnly = true
				}
			}
		}
		if found == nil {
			if a.eng.cfg.Trace != nil {
				var names []string
				for _, l := range locs {
					names = append(names, a.sys.Locs[l].Name)
				}
				a.phase("not ranked: " + strings.Join(names, " "))
			}
			// The part left is c and every component not ranked yet: a later stage that proves
			// only c would leave the others unproved.
			for _, w := range work {
				c = append(append([]int(nil), c...), w...)
			}
			return ranks, obl, c
		}
		if a.eng.cfg.Trace != nil {
			a.phase("ranked by " + describeFn(a.sys, found.Fn))
		}
		ranks = append(ranks, *found)
		gone := map[int]bool{}
		for _, ti := range found.Strict {
			gone[ti] = true
		}
		var rest []int
		for _, ti := range c {
			if !gone[ti] {
				rest = append(rest, ti)
			}
		}
		work = append(work, sccs(a.sys, rest)...)
	}
	return ranks, obl, nil
}

// constDiff gives f(x) - g(x') over the integers when it is a constant: every variable f or g
// reads keeps its value or moves by a constant; nil otherwise.
func constDiff(f, g *Linear, t its.Transition) *big.Int {
	d := new(big.Int).Sub(f.Const, g.Const)
	vars := map[string]bool{}
	for v := range f.Coef {
		vars[v] = true
	}
	for v := range g.Coef {
		vars[v] = true
	}
	for _, h := range t.Havoc {
		if vars[h] {
			return nil
		}
	}
	for v := range vars {
		cf, cg := coef(f, v), coef(g, v)
		step := big.NewInt(0)
		if e, ok := t.Update[v]; ok {
			l := lin(e)
			if l == nil || len(l.sortedVars()) != 1 || coef(l, v).Cmp(big.NewInt(1)) != 0 {
				return nil
			}
			step = l.Const
		}
		// cf*x - cg*(x + step)
		if cf.Cmp(cg) != 0 {
			return nil
		}
		d.Sub(d, new(big.Int).Mul(cg, step))
	}
	return d
}

func coef(f *Linear, v string) *big.Int {
	if c, ok := f.Coef[v]; ok {
		return c
	}
	return new(big.Int)
}

// sameVars reports whether f and g are one function and t changes none of its variables.
func sameVars(f, g *Linear, t its.Transition) bool {
	if f.String() != g.String() {
		return false
	}
	for v := range f.Coef {
		if _, ok := t.Update[v]; ok {
			return false
		}
		for _, h := range t.Havoc {
			if h == v {
				return false
			}
		}
	}
	return true
}
