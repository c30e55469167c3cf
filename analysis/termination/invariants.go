package termination

import (
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"

	"gpuc/analysis/its"
	"gpuc/analysis/smt"
)

// Note [Invariants by Houdini]
// Invariants are found with no annotation: templates propose candidates at every location, and
// Houdini keeps the largest subset that is jointly inductive in bitvector semantics: it holds at
// the entry under the facts, and every transition from a location where the subset holds leads
// to a location where it holds. One solver query per transition asks for a counterexample to any
// candidate at once and drops those the model falsifies, until no query finds one. Templates
// cover Fig. 7 of the seed paper and more:
//   - every fact (launch facts, fixed parameters, frontends' checked facts);
//   - v > 0 and v >= 0 for every variable (a multiplicative counter stays > 0, a step is > 0);
//   - both orders (< and <=, in the compare's signedness) between the two sides of every
//     comparison in a guard (i <= n under an i != n guard; constant bounds, the interval part);
//   - congruences (v & m) == r and ((w - v) & m) == r where v steps by a multiple of m+1;
//   - interval bounds v <= c and v >= c where some transition sets v to the constant c.
// Since the check is bit-precise, a candidate that only holds over the integers is dropped.
//
// Note [Houdini frame rule]
// In a loop nest most transitions change one counter, and most candidates do not mention it. A
// candidate that holds at a transition's source and whose variables the transition does not
// change holds at its target with no query; only the rest go to the solver. The rule is sound
// at the fixpoint because a transition is examined again, in the next round, after any set
// shrinks, and the fixpoint is a round in which no query found a counterexample.

// candidates proposes invariant candidates over the state (no Nondet in them).
func candidates(sys *its.System) []its.Expr { return candidatesOf(sys, true, true) }

// Note [Step counters under their own guard]
// CHR's cooperative fixpoint counts its steps as `if (step + 1 > MAXSTEPS) exit; step += 1`.
// The ranking MAXSTEPS - step decreases only if step + 1 does not wrap, which needs step <=
// MAXSTEPS at the loop head: inductive once MAXSTEPS >= 0 (step starts at 0, and each step is
// guarded), so it holds under the condition search's bounds. The guard's own orders (step + 1
// <= MAXSTEPS) are not invariant at the head (the last step reaches MAXSTEPS), so a guard
// atom `v + c <= y` also proposes `v <= y`. Houdini keeps it only where it is inductive.

// candidatesOf proposes the candidates, with or without the orders between the sides of guard
// compares and the congruences.
func candidatesOf(sys *its.System, compares, congruences bool) []its.Expr {
	var out []its.Expr
	seen := map[string]bool{}
	add := func(e its.Expr) {
		if e == nil || its.HasNondet(e) {
			return
		}
		k := e.String()
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	for _, f := range sys.Facts {
		add(f.Expr)
	}
	for _, v := range sys.Vars {
		if v.Sort.IsBool() {
			continue
		}
		zero := its.C(0, v.Sort)
		if v.Sort.Signed {
			add(its.B(its.Sgt, its.R(v), zero))
			add(its.B(its.Sge, its.R(v), zero))
		} else {
			add(its.B(its.Ugt, its.R(v), zero))
		}
	}
	for _, a := range guardAtoms(sys) {
		if !compares {
			break
		}
		lt, le := its.Ult, its.Ule
		if a.signed {
			lt, le = its.Slt, its.Sle
		}
		add(its.B(le, a.x, a.y))
		add(its.B(lt, a.x, a.y))
		add(its.B(le, a.y, a.x))
		add(its.B(lt, a.y, a.x))
		// A counter stepped under its own guard `v + c <= y` stays <= y (Note [Step counters
		// under their own guard]).
		if b, ok := a.x.(*its.Binary); ok && b.Op == its.Add {
			if r, ok := b.X.(*its.Ref); ok {
				if _, ok := b.Y.(*its.Const); ok {
					add(its.B(le, r, a.y))
				}
			}
		}
	}
	for _, c := range flagCandidates(sys) { // Note [Flag candidates]
		add(c)
	}
	for _, c := range squareCandidates(sys) { // Note [Squares that do not wrap]
		add(c)
	}
	for _, c := range squareVarCandidates(sys) { // Note [Squares as counters]
		add(c)
	}
	// Interval bounds: a variable set to a constant anywhere may stay on one side of it (a
	// counter that starts at 1024 and counts down stays <= 1024).
	for _, t := range sys.Trans {
		for _, k := range its.SortedUpdates(t) {
			c, ok := t.Update[k].(*its.Const)
			if !ok || c.Sort.IsBool() {
				continue
			}
			v, _ := sys.Var(k)
			le, ge := its.Ule, its.Uge
			if v.Sort.Signed {
				le, ge = its.Sle, its.Sge
			}
			add(its.B(le, its.R(v), c))
			add(its.B(ge, its.R(v), c))
		}
	}
	if !congruences {
		return out
	}
	for _, st := range steps(sys) {
		m := st.mod
		for r := int64(0); r < m; r++ {
			add(its.B(its.Eq, its.B(its.And, its.R(st.v), its.C(m-1, st.v.Sort)), its.C(r, st.v.Sort)))
		}
		for _, a := range guardAtoms(sys) {
			if its.SortOf(a.x) != st.v.Sort {
				continue
			}
			var other its.Expr
			if r, ok := a.x.(*its.Ref); ok && r.Var == st.v {
				other = a.y
			} else if r, ok := a.y.(*its.Ref); ok && r.Var == st.v {
				other = a.x
			} else {
				continue
			}
			for r := int64(0); r < m; r++ {
				d := its.B(its.And, its.B(its.Sub, other, its.R(st.v)), its.C(m-1, st.v.Sort))
				add(its.B(its.Eq, d, its.C(r, st.v.Sort)))
			}
		}
	}
	return out
}

type atom struct {
	x, y   its.Expr
	signed bool
}

// guardAtoms lists the comparisons between bitvectors in guards (without Nondet), both sides.
func guardAtoms(sys *its.System) []atom {
	var out []atom
	seen := map[string]bool{}
	for _, t := range sys.Trans {
		for _, g := range t.Guard {
			its.Walk(g, func(e its.Expr) {
				b, ok := e.(*its.Binary)
				if !ok || !b.Op.IsCompare() || its.HasNondet(b) {
					return
				}
				signed := b.Op >= its.Slt && b.Op <= its.Sge
				if b.Op == its.Eq || b.Op == its.Ne {
					signed = its.SortOf(b.X).Signed
				}
				k := fmt.Sprintf("%s|%s|%v", b.X, b.Y, signed)
				if !seen[k] {
					seen[k] = true
					out = append(out, atom{b.X, b.Y, signed})
				}
			})
		}
	}
	return out
}

type step struct {
	v   its.Var
	mod int64
}

// steps finds variables updated as v + c or v - c with c a constant multiple of 2, 4 or 8.
func steps(sys *its.System) []step {
	best := map[string]int64{}
	order := []its.Var{}
	for _, t := range sys.Trans {
		for _, k := range its.SortedUpdates(t) {
			b, ok := t.Update[k].(*its.Binary)
			if !ok || (b.Op != its.Add && b.Op != its.Sub) {
				continue
			}
			r, ok := b.X.(*its.Ref)
			c, ok2 := b.Y.(*its.Const)
			if !ok || !ok2 || r.Var.Name != k || c.Val.Sign() == 0 {
				continue
			}
			tz := int64(1)
			for tz < 8 && new(big.Int).Rem(c.Val, big.NewInt(tz*2)).Sign() == 0 {
				tz *= 2
			}
			if tz < 2 {
				continue
			}
			if _, ok := best[k]; !ok {
				order = append(order, r.Var)
				best[k] = tz
			} else if tz < best[k] {
				best[k] = tz
			}
		}
	}
	var out []step
	for _, v := range order {
		out = append(out, step{v, best[v.Name]})
	}
	return out
}

// Invariants maps each location to its invariant, a conjunction.
type Invariants map[int][]its.Expr

// term encodes the invariant at l over the given state.
func (inv Invariants) term(q *query, l int, vars map[string]string) string {
	return conjTerm(q, inv[l], vars)
}

// Strings prints the invariant of l.
func (inv Invariants) Strings(l int) []string {
	var out []string
	for _, e := range inv[l] {
		out = append(out, e.String())
	}
	return out
}

// firing starts a query with one firing of t from a state where inv
// holds, and returns it and the state after the firing.
func (inv Invariants) firing(sys *its.System, t its.Transition) (*query, map[string]string) {
	q := newQuery(sys)
	pre := q.state("0")
	q.assert(inv.term(q, t.From, pre))
	g, post := q.step(t, pre, "1")
	q.assert(g)
	return q, post
}

// changedVars is the set of variables that the transitions update or
// havoc.
func changedVars(ts ...its.Transition) map[string]bool {
	changes := map[string]bool{}
	for _, t := range ts {
		for k := range t.Update {
			changes[k] = true
		}
		for _, h := range t.Havoc {
			changes[h] = true
		}
	}
	return changes
}

// readVars adds to read the variables that t's guards and updates read.
func readVars(t its.Transition, read map[string]bool) {
	guardVars(t, read)
	for _, u := range t.Update {
		for v := range its.FreeVars(u) {
			read[v] = true
		}
	}
}

// entryFacts encodes the facts over the state vars.
func entryFacts(q *query, sys *its.System, vars map[string]string) string {
	var es []its.Expr
	for _, f := range sys.Facts {
		es = append(es, f.Expr)
	}
	return conjTerm(q, es, vars)
}

// houdini finds the largest jointly inductive subset of cands at every location other than the
// entry, whose invariant is the facts.
func (a *analyzer) houdini(cands []its.Expr) Invariants {
	return a.houdiniAt(func(int) []its.Expr { return cands })
}

// houdiniAt is houdini with candidates chosen per location.
func (a *analyzer) houdiniAt(cands func(l int) []its.Expr) Invariants {
	return a.houdiniOn(a.sys, cands)
}

// houdiniOn is houdiniAt over the transitions of sys, a view of a.sys with its locations.
func (a *analyzer) houdiniOn(sys *its.System, cands func(l int) []its.Expr) Invariants {
	inv := Invariants{}
	entryTargeted := false
	for _, t := range sys.Trans {
		if t.To == sys.Entry {
			entryTargeted = true
		}
	}
	for l := range sys.Locs {
		if l == sys.Entry && !entryTargeted {
			for _, f := range sys.Facts {
				inv[l] = append(inv[l], f.Expr)
			}
			continue
		}
		inv[l] = append([]its.Expr(nil), cands(l)...)
	}
	a.sampleFilter(inv)
	if entryTargeted {
		// The entry is also reached by transitions: its candidates must hold under the facts.
		inv[sys.Entry] = a.filterInitial(inv[sys.Entry])
	}
	// A worklist of transitions: t needs a (new) query only when the set at its source shrank
	// since its last unsat answer; a shrinking target set only makes t's query weaker.
	out := map[int][]int{}
	for ti, t := range sys.Trans {
		out[t.From] = append(out[t.From], ti)
	}
	// Transitions go in breadth-first order of their source from the entry, so that sources
	// settle before their targets are asked about.
	order := bfsOrder(sys)
	rank := make([]int, len(sys.Trans))
	for ti, t := range sys.Trans {
		rank[ti] = order[t.From]*len(sys.Trans) + ti
	}
	queued := make([]bool, len(sys.Trans))
	pending := 0
	push := func(ti int) {
		if !queued[ti] {
			queued[ti] = true
			pending++
		}
	}
	for ti := range sys.Trans {
		push(ti)
	}
	for pending > 0 {
		ti := -1
		for tj, q := range queued {
			if q && (ti < 0 || rank[tj] < rank[ti]) {
				ti = tj
			}
		}
		queued[ti] = false
		pending--
		t := sys.Trans[ti]
		if len(inv[t.To]) == 0 {
			continue
		}
		framed, open := frame(t, inv[t.From], inv[t.To])
		if len(open) == 0 {
			continue
		}
		seed := map[string]bool{}
		for _, c := range open {
			for v := range its.FreeVars(c) {
				seed[v] = true
			}
		}
		ct, cinv := cone(sys, a.constantsOf(sys), t, inv[t.From], seed)
		q := newQuery(sys)
		pre := q.state("0")
		q.assert(conjTerm(q, cinv, pre))
		g, post := q.step(ct, pre, "1")
		q.assert(g)
		names := q.someFails("c", open, q.newScope(post))
		res, model, err := a.check(q.script(), names...)
		if res == smt.Unsat {
			continue
		}
		for _, tj := range out[t.To] {
			push(tj)
		}
		push(ti)
		if err != nil || res == smt.Unknown || model == nil {
			inv[t.To] = framed
			continue
		}
		keep := holding(open, names, model)
		if len(keep) == len(open) {
			// The model names none: keep nothing rather than loop.
			keep = nil
		}
		inv[t.To] = append(framed, keep...)
	}
	return inv
}

// bfsOrder numbers the locations in breadth-first order from the entry (unreached ones last).
func bfsOrder(sys *its.System) []int {
	order := make([]int, len(sys.Locs))
	for i := range order {
		order[i] = len(sys.Locs)
	}
	order[sys.Entry] = 0
	queue := []int{sys.Entry}
	n := 1
	for len(queue) > 0 {
		l := queue[0]
		queue = queue[1:]
		for _, t := range sys.Trans {
			if t.From == l && order[t.To] == len(sys.Locs) && t.To != sys.Entry {
				order[t.To] = n
				n++
				queue = append(queue, t.To)
			}
		}
	}
	return order
}

// frame splits the candidates at t's target into those t keeps by the frame rule (the same
// candidate holds at t's source and t changes none of its variables, so it holds after t) and
// the open ones, which need a query. Houdini re-examines t whenever the source's set shrinks,
// so the rule is applied to the final sets too (Note [Houdini frame rule]).
func frame(t its.Transition, from, to []its.Expr) (framed, open []its.Expr) {
	at := map[string]bool{}
	for _, c := range from {
		at[c.String()] = true
	}
	changes := changedVars(t)
	for _, c := range to {
		kept := at[c.String()]
		for v := range its.FreeVars(c) {
			if changes[v] {
				kept = false
				break
			}
		}
		if kept {
			framed = append(framed, c)
		} else {
			open = append(open, c)
		}
	}
	return framed, open
}

// Note [Staged Houdini]
// Houdini's cost grows with the number of candidates times the rounds it takes to drop the false
// ones, and a deep loop nest has hundreds. Most loops need only bounds on one counter against
// constants (c < n at every location of the nest that c's loop encloses, c >= 0, congruences), so
// Houdini runs first over the candidates that mention at most one variable some transition
// changes, without the congruences (a counter stepping by 32 alone brings 32 of them per
// compare it appears in). With the frame rule (Note [Houdini frame rule]) a transition that changes one counter
// opens only that counter's candidates, so the queries are small. The full set runs only for a
// loop that the first stage leaves unranked. The first stage gets a third of the time left;
// cut short, it keeps only what it has shown (an unknown answer drops the open candidates).

// stageOne gives the first stage's candidates at each location: the facts, signs and interval
// bounds of single counters, and the compares that hold there on every path (available).
func stageOne(sys *its.System) func(l int) []its.Expr {
	// The flag candidates mention two counters (the flag and the compare's), and are few: they
	// join the first stage (Note [Flag candidates]), and so do the square variables' (Note
	// [Squares as counters]).
	base := oneCounter(sys, candidatesOf(sys, true, false))
	for _, c := range append(flagCandidates(sys), squareVarCandidates(sys)...) {
		if !slices.ContainsFunc(base, func(b its.Expr) bool { return b.String() == c.String() }) {
			base = append(base, c)
		}
	}
	avail := available(sys)
	return func(l int) []its.Expr {
		out := append([]its.Expr(nil), base...)
		seen := map[string]bool{}
		for _, c := range out {
			seen[c.String()] = true
		}
		for _, c := range avail[l] {
			if !seen[c.String()] {
				seen[c.String()] = true
				out = append(out, c)
			}
		}
		return out
	}
}

// available gives, at each location, the guard compares that hold there on every path: a
// compare holds after a transition that has it as a guard conjunct, and keeps holding along
// transitions that change none of its variables (a forward must-analysis; no solver). In a
// loop nest this is the outer loops' conditions at the inner locations (c < n inside the loop
// on c), which is what an outer counter's ranking needs to rule out wrap-around. Houdini
// checks them like any other candidate.
func available(sys *its.System) map[int][]its.Expr {
	atoms := map[string]its.Expr{}
	var keys []string
	gen := make([]map[string]bool, len(sys.Trans))
	kill := make([]map[string]bool, len(sys.Trans))
	for ti, t := range sys.Trans {
		gen[ti] = map[string]bool{}
		// The guards and what follows from two of them (Note [Chained compares]).
		for _, g := range append(append([]its.Expr(nil), t.Guard...), chained(t.Guard)...) {
			b, ok := g.(*its.Binary)
			if !ok || !b.Op.IsCompare() || its.HasNondet(g) {
				continue
			}
			k := g.String()
			if _, ok := atoms[k]; !ok {
				atoms[k] = g
				keys = append(keys, k)
			}
			gen[ti][k] = true
		}
	}
	// Definitions v == e that hold after a transition sets v (Note [Available definitions]).
	defs := make([]map[string]bool, len(sys.Trans))
	for ti, t := range sys.Trans {
		defs[ti] = map[string]bool{}
		// And compares on what t sets (Note [Guards on what a transition sets]).
		for _, d := range append(definitions(sys, t), setGuards(sys, t)...) {
			k := d.String()
			if _, ok := atoms[k]; !ok {
				atoms[k] = d
				keys = append(keys, k)
			}
			defs[ti][k] = true
		}
	}
	for ti, t := range sys.Trans {
		kill[ti] = map[string]bool{}
		changes := changedVars(t)
		for _, k := range keys {
			for v := range its.FreeVars(atoms[k]) {
				if changes[v] {
					kill[ti][k] = true
				}
			}
		}
	}
	// nil is "every atom" (not reached yet); the entry has none.
	in := make([]map[string]bool, len(sys.Locs))
	in[sys.Entry] = map[string]bool{}
	for changed := true; changed; {
		changed = false
		for ti, t := range sys.Trans {
			if in[t.From] == nil || t.To == sys.Entry {
				continue
			}
			after := map[string]bool{}
			for k := range in[t.From] {
				if !kill[ti][k] {
					after[k] = true
				}
			}
			for k := range gen[ti] {
				if !kill[ti][k] {
					after[k] = true
				}
			}
			for k := range defs[ti] {
				after[k] = true
			}
			if in[t.To] == nil {
				in[t.To] = after
				changed = true
				continue
			}
			for k := range in[t.To] {
				if !after[k] {
					delete(in[t.To], k)
					changed = true
				}
			}
		}
	}
	out := map[int][]its.Expr{}
	for l := range sys.Locs {
		for _, k := range keys {
			if in[l][k] {
				out[l] = append(out[l], atoms[k])
			}
		}
	}
	return out
}

// oneCounter keeps the candidates that read at most one variable that some transition changes.
func oneCounter(sys *its.System, cands []its.Expr) []its.Expr {
	changed := changedVars(sys.Trans...)
	var out []its.Expr
	for _, c := range cands {
		n := 0
		for v := range its.FreeVars(c) {
			if changed[v] {
				n++
			}
		}
		if n <= 1 {
			out = append(out, c)
		}
	}
	return out
}

// filterInitial keeps the candidates that the facts imply.
func (a *analyzer) filterInitial(cs []its.Expr) []its.Expr {
	var keep []its.Expr
	for _, c := range cs {
		q := newQuery(a.sys)
		pre := q.state("0")
		q.assert(entryFacts(q, a.sys, pre))
		q.assert("(not " + q.term(c, q.newScope(pre)) + ")")
		if res, _, _ := a.check(q.script()); res == smt.Unsat {
			keep = append(keep, c)
		}
	}
	return keep
}

// invariantObligations gives the scripts (each must be unsat) that show inv is inductive.
func (a *analyzer) invariantObligations(inv Invariants) []Obligation {
	var out []Obligation
	sys := a.sys
	if len(inv[sys.Entry]) > len(sys.Facts) {
		q := newQuery(sys)
		pre := q.state("0")
		q.assert(entryFacts(q, sys, pre))
		q.assert("(not " + inv.term(q, sys.Entry, pre) + ")")
		out = append(out, Obligation{What: "invariant holds at entry " + sys.Locs[sys.Entry].Name, Script: q.script()})
	}
	for i, t := range sys.Trans {
		if len(inv[t.To]) == 0 {
			continue
		}
		q, post := inv.firing(sys, t)
		q.assert("(not " + inv.term(q, t.To, post) + ")")
		out = append(out, Obligation{What: fmt.Sprintf("transition %d (%s) keeps the invariant", i, sys.TransString(t)), Script: q.script()})
	}
	return out
}

// describeInvariant gives a short text of inv at the loop heads.
func describeInvariant(sys *its.System, inv Invariants, locs []int) []string {
	var out []string
	sort.Ints(locs)
	for _, l := range locs {
		ss := inv.Strings(l)
		if len(ss) > 0 {
			out = append(out, sys.Locs[l].Name+": "+strings.Join(ss, " && "))
		}
	}
	return out
}

// constantFacts holds every fact at the entry, and at every other location the facts whose
// variables no transition updates or havocs: those stay true, so they are inductive.
func constantFacts(sys *its.System) Invariants {
	changed := changedVars(sys.Trans...)
	inv := Invariants{}
	for l := range sys.Locs {
		for _, f := range sys.Facts {
			keep := l == sys.Entry
			if !keep {
				keep = true
				for v := range its.FreeVars(f.Expr) {
					keep = keep && !changed[v]
				}
			}
			if keep {
				inv[l] = append(inv[l], f.Expr)
			}
		}
	}
	return inv
}

// Note [Invariants for free]
// Two kinds of invariants need no solver, since they hold by construction: facts over variables
// that nothing changes (constantFacts), and the guard compares available at a location
// (available: a compare that a transition's guard tests, over variables that neither that
// transition nor any later one on the way changes, still holds). The second is a sound forward
// must-analysis over the transitions as they are, so it holds in bitvector semantics with no
// check; the certificate still lists the obligations that show the whole invariant inductive.
// In a loop nest it gives, at every inner location, the outer loops' conditions (c0 < n inside
// the loop on c0), which is what the outer counters' rankings need to rule out wrap-around, so
// most nests are ranked with no Houdini query (Note [Staged Houdini]).

// freeInvariants gives constantFacts and the available compares at each location.
func freeInvariants(sys *its.System) Invariants {
	inv := constantFacts(sys)
	for l, as := range available(sys) {
		if l == sys.Entry {
			continue
		}
		seen := map[string]bool{}
		for _, e := range inv[l] {
			seen[e.String()] = true
		}
		for _, e := range as {
			if !seen[e.String()] {
				seen[e.String()] = true
				inv[l] = append(inv[l], e)
			}
		}
	}
	return inv
}

// Note [Query cone]
// A query about a few variables (a ranking function's, or the open Houdini candidates') needs
// only the assumptions connected to them: the guard conjuncts, updates and invariant conjuncts
// that share a variable with them, transitively. The others are over disjoint variables, so
// dropping them keeps the answer (or, where they could not hold together, turns unsat into sat,
// which only loses a proof or a candidate). Constants (variables no transition changes) connect
// only the conjuncts over constants alone: every loop bound reads the parameter n, and joining
// through it would bring back every guard of the nest. A definition v == e (a hoisted
// invariant's fact, inv.div = (c0 + 1) / 2) joins only once v is in: whatever e reads, some v
// satisfies it. Dropping more assumptions is sound too:
// an unsat answer without them holds with them; a lost one only costs a proof. One loss is
// common: a transition that the whole invariant shows dead (a min/max case that cannot happen)
// is strictly decreasing for any function, but not within the cone; so a failed strict check is
// asked again with the whole context, less the conjuncts that divide or multiply variables (64-bit
// divisions by constants take the solver seconds, and min/max cases do not need them). It matters for speed: a loop nest's facts hold 64-bit
// divisions and products (inv.div = (c0 + 1) / 2) that the solver bit-blasts for every query
// that carries them, although no counter's ranking reads them.

// cone keeps the guard conjuncts, updates and invariant conjuncts of t (from a state where inv
// holds) that can matter to the variables of seed.
func cone(sys *its.System, consts map[string]bool, t its.Transition, inv []its.Expr, seed map[string]bool) (its.Transition, []its.Expr) {
	in := map[string]bool{}
	for v := range seed {
		in[v] = true
	}
	type conj struct {
		vars map[string]bool
		def  string // v where the conjunct is v == e and e does not read v
		kept bool
	}
	mk := func(e its.Expr) conj {
		c := conj{vars: its.FreeVars(e)}
		if b, ok := e.(*its.Binary); ok && b.Op == its.Eq {
			for _, side := range [][2]its.Expr{{b.X, b.Y}, {b.Y, b.X}} {
				if r, ok := side[0].(*its.Ref); ok && !its.FreeVars(side[1])[r.Var.Name] {
					c.def = r.Var.Name
					break
				}
			}
		}
		return c
	}
	var gs, is []conj
	for _, g := range t.Guard {
		gs = append(gs, mk(g))
	}
	for _, e := range inv {
		is = append(is, mk(e))
	}
	pull := func(cs []conj) bool {
		changed := false
		for i := range cs {
			if cs[i].kept {
				continue
			}
			// A conjunct joins through a shared variable that changes, or, if it reads only
			// constants, through a shared constant (Note [Query cone]).
			touch, onlyConsts := len(cs[i].vars) == 0, true
			for v := range cs[i].vars {
				onlyConsts = onlyConsts && consts[v]
			}
			if d := cs[i].def; d != "" {
				// A definition v == e holds for some v whatever e reads: it matters only
				// once v does.
				touch = in[d]
			} else {
				for v := range cs[i].vars {
					if in[v] && (!consts[v] || onlyConsts) {
						touch = true
						break
					}
				}
			}
			if touch {
				cs[i].kept = true
				changed = true
				for v := range cs[i].vars {
					in[v] = true
				}
			}
		}
		return changed
	}
	for changed := true; changed; {
		changed = false
		for k, e := range t.Update {
			if !in[k] {
				continue
			}
			for v := range its.FreeVars(e) {
				if !in[v] {
					in[v] = true
					changed = true
				}
			}
		}
		if pull(gs) {
			changed = true
		}
		if pull(is) {
			changed = true
		}
	}
	c := t
	c.Guard = nil
	for i, g := range t.Guard {
		if gs[i].kept {
			c.Guard = append(c.Guard, g)
		}
	}
	c.Update = map[string]its.Expr{}
	for k, e := range t.Update {
		if in[k] {
			c.Update[k] = e
		}
	}
	c.Havoc = nil
	for _, h := range t.Havoc {
		if in[h] {
			c.Havoc = append(c.Havoc, h)
		}
	}
	var out []its.Expr
	for i, e := range inv {
		if is[i].kept {
			out = append(out, e)
		}
	}
	return c, out
}

// conjTerm encodes a conjunction over the given state, its products narrowed by its own
// compares' bounds (Note [Products bounded by the facts]).
func conjTerm(q *query, es []its.Expr, vars map[string]string) string {
	sc := q.newScope(vars)
	sc.bounds = conjunctBounds(es)
	var ts []string
	for _, e := range es {
		ts = append(ts, q.term(e, sc))
	}
	return and(ts)
}

// constants gives the variables that no transition updates or havocs.
// constantsOf gives constants(sys), computed once per system: cone asks for it on every query
// (a tenth of a TRS step function's analysis time went to recomputing it).
func (a *analyzer) constantsOf(sys *its.System) map[string]bool {
	if a.consts == nil {
		a.consts = map[*its.System]map[string]bool{}
	}
	c, ok := a.consts[sys]
	if !ok {
		c = constants(sys)
		a.consts[sys] = c
	}
	return c
}

func constants(sys *its.System) map[string]bool {
	out := map[string]bool{}
	for _, v := range sys.Vars {
		out[v.Name] = true
	}
	for _, t := range sys.Trans {
		for k := range t.Update {
			delete(out, k)
		}
		for _, h := range t.Havoc {
			delete(out, h)
		}
	}
	return out
}

// widenCone adds to the cone (ct, cinv) of t the guard and invariant conjuncts that neither
// divide nor multiply variables (Note [Query cone]).
func widenCone(t its.Transition, inv []its.Expr, ct its.Transition, cinv []its.Expr) (its.Transition, []its.Expr) {
	has := map[string]bool{}
	for _, g := range ct.Guard {
		has[g.String()] = true
	}
	for _, e := range cinv {
		has[e.String()] = true
	}
	w := ct
	w.Guard = append([]its.Expr(nil), ct.Guard...)
	for _, g := range t.Guard {
		if !has[g.String()] && !nonlinear(g) && !divides(g) {
			w.Guard = append(w.Guard, g)
		}
	}
	winv := append([]its.Expr(nil), cinv...)
	for _, e := range inv {
		if !has[e.String()] && !nonlinear(e) && !divides(e) {
			winv = append(winv, e)
		}
	}
	return w, winv
}

// divides reports whether e divides or takes a remainder.
func divides(e its.Expr) bool {
	found := false
	its.Walk(e, func(x its.Expr) {
		if b, ok := x.(*its.Binary); ok {
			switch b.Op {
			case its.UDiv, its.SDiv, its.URem, its.SRem:
				found = true
			}
		}
	})
	return found
}
