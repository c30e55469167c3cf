package termination

import (
	"fmt"
	"math/big"
	"sort"

	"gpuc/analysis/its"
	"gpuc/analysis/smt"
)

// Note [Robust non-termination witnesses]
// FALSE needs a witness that holds whatever loads return, so that no other thread can end the
// loop. The search, for a loop that could not be ranked:
//  1. Take the shortest path from the entry to the loop head and ask the solver for a launch
//     (parameters, thread ids, launch sizes) under which the path can be taken and the loop
//     entered, trying a few hints (parameters 1, 3, past half the range, the maximum), each first
//     with launch sizes and ids below 1024 so that the witness is a launch one can run.
//  2. Evaluate the template candidates (the invariant ones, plus v == 0, v a power of two or 0,
//     v past half its range, and each launch value) at the state reached; keep those that hold.
//  3. Shrink them, Houdini style, to a set R closed under every transition of the loop for all
//     values of Nondet and Load: from R each enabled transition stays in the loop and lands in R.
//  4. Check that from R no transition leaves the loop and some transition is always enabled,
//     and that with the launch fixed the path reaches R for all values of the loads on the way,
//     with no other transition enabled on the way.
// Each check is an unsat query, kept as the witness's obligations. A loop whose staying depends
// on a load (a spin on a flag) fails step 3 or 4 and stays UNKNOWN, with that reason.

// shortestPath gives the transitions of a shortest path from the entry to l.
func shortestPath(sys *its.System, to int) ([]int, bool) {
	if to == sys.Entry {
		return nil, true
	}
	prev := make([]int, len(sys.Locs))
	for i := range prev {
		prev[i] = -1
	}
	seen := map[int]bool{sys.Entry: true}
	queue := []int{sys.Entry}
	for len(queue) > 0 {
		l := queue[0]
		queue = queue[1:]
		for ti, t := range sys.Trans {
			if t.From != l || seen[t.To] {
				continue
			}
			seen[t.To] = true
			prev[t.To] = ti
			if t.To == to {
				var path []int
				for x := to; x != sys.Entry; x = sys.Trans[prev[x]].From {
					path = append([]int{prev[x]}, path...)
				}
				return path, true
			}
			queue = append(queue, t.To)
		}
	}
	return nil, false
}

// launchVars are the variables a witness fixes: parameters, thread ids, and what facts mention.
func launchVars(sys *its.System) []string {
	m := map[string]bool{}
	for _, p := range sys.Params {
		m[p] = true
	}
	for _, p := range sys.ThreadVars {
		m[p] = true
	}
	for _, f := range sys.Facts {
		for v := range its.FreeVars(f.Expr) {
			m[v] = true
		}
	}
	var out []string
	for _, v := range sys.Vars {
		if m[v.Name] {
			out = append(out, v.Name)
		}
	}
	return out
}

func (a *analyzer) hints() []map[string]*big.Int {
	out := []map[string]*big.Int{nil}
	for _, kind := range []string{"1", "3", "half", "max"} {
		h := map[string]*big.Int{}
		for _, p := range a.sys.Params {
			if _, fixed := a.eng.cfg.Fixed[p]; fixed {
				continue
			}
			v, ok := a.sys.Var(p)
			if !ok || v.Sort.IsBool() {
				continue
			}
			switch kind {
			case "1":
				h[p] = big.NewInt(1)
			case "3":
				h[p] = big.NewInt(3)
			case "half":
				w := v.Sort.Width - 1
				if v.Sort.Signed {
					w--
				}
				h[p] = new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), uint(w)), big.NewInt(1))
			case "max":
				h[p] = v.Sort.Max()
			}
		}
		if len(h) > 0 {
			out = append(out, h)
		}
	}
	return out
}

// recurrentCandidates adds to the invariant templates the shapes a recurrent set needs: v == 0,
// v != 0, v a power of two or 0, v past half its range, and a step of zero (v := v + e, e == 0).
func recurrentCandidates(sys *its.System) []its.Expr {
	out := candidates(sys)
	for _, t := range sys.Trans {
		for _, k := range its.SortedUpdates(t) {
			if y := varStep(t, k); y != nil {
				out = append(out, its.B(its.Eq, y, &its.Const{Val: new(big.Int), Sort: its.SortOf(y)}))
			}
		}
	}
	for _, v := range sys.Vars {
		if v.Sort.IsBool() {
			continue
		}
		x := its.R(v)
		out = append(out,
			its.B(its.Eq, x, its.C(0, v.Sort)),
			its.B(its.Ne, x, its.C(0, v.Sort)),
			its.B(its.Eq, its.B(its.And, x, its.B(its.Sub, x, its.C(1, v.Sort))), its.C(0, v.Sort)))
		half := new(big.Int).Lsh(big.NewInt(1), uint(v.Sort.Width-1))
		if v.Sort.Signed {
			half.Rsh(half, 1)
			out = append(out, its.B(its.Sgt, x, &its.Const{Val: half, Sort: v.Sort}))
		} else {
			out = append(out, its.B(its.Uge, x, &its.Const{Val: half, Sort: v.Sort}))
		}
	}
	return out
}

func (a *analyzer) witness(inv Invariants, stuck []int) *Witness {
	sys := a.sys
	locs := locsOf(sys, stuck)
	in := map[int]bool{}
	for _, l := range locs {
		in[l] = true
	}
	// Every transition between the loop's locations stays in the loop, including those a ranking
	// component removed from the stuck part: the recurrent set must be closed under all of them.
	var comp []int
	for ti, t := range sys.Trans {
		if in[t.From] && in[t.To] {
			comp = append(comp, ti)
		}
	}
	h := headOf(sys, comp)
	prefix, ok := shortestPath(sys, h)
	if !ok {
		return nil
	}
	lv := launchVars(sys)
	isParam := map[string]bool{}
	for _, p := range sys.Params {
		isParam[p] = true
	}
	type attempt struct {
		hint  map[string]*big.Int
		small bool
		zero  its.Expr // a step asked to be 0 at the loop head, or nil
	}
	var tries []attempt
	// A step that may be 0 (a stride that wraps to 0) is worth asking for, and first: it is the
	// likeliest witness, and the search may run close to the budget.
	for _, z := range zeroSteps(sys, stuck) {
		tries = append(tries, attempt{nil, true, z}, attempt{nil, false, z})
	}
	for _, h := range a.hints() {
		tries = append(tries, attempt{h, true, nil}, attempt{h, false, nil})
	}
	for _, try := range tries {
		hint, small := try.hint, try.small
		// 1. A launch under which the path reaches the loop and a loop transition is enabled.
		q := newQuery(sys)
		x0 := q.state("0")
		q.assert(entryFacts(q, sys, x0))
		for _, name := range sortedNames(hint) {
			v, _ := sys.Var(name)
			q.assert("(= " + x0[name] + " " + bvConst(hint[name], v.Sort.Width) + ")")
		}
		// Prefer a small launch: ids and sizes below 1024 where the facts allow it.
		if small {
			for _, name := range lv {
				if isParam[name] {
					continue
				}
				v, _ := sys.Var(name)
				if v.Sort.IsBool() || v.Sort.Width < 12 {
					continue
				}
				q.assert("(bvule " + x0[name] + " " + bvConst(big.NewInt(1024), v.Sort.Width) + ")")
			}
		}
		cur := x0
		for i, ti := range prefix {
			g, post := q.step(sys.Trans[ti], cur, fmt.Sprint("p", i+1))
			q.assert(g)
			cur = post
		}
		var enabled []string
		for _, ti := range comp {
			if t := sys.Trans[ti]; t.From == h {
				sc := q.newScope(cur)
				var gs []string
				for _, g := range t.Guard {
					gs = append(gs, q.term(g, sc))
				}
				enabled = append(enabled, and(gs))
			}
		}
		q.assert(or(enabled))
		if try.zero != nil {
			q.assert("(not " + q.term(its.B(its.Ne, try.zero, &its.Const{Val: new(big.Int), Sort: its.SortOf(try.zero)}), q.newScope(cur)) + ")")
		}
		var ask []string
		askSeen := map[string]bool{}
		for _, name := range lv {
			if !askSeen[x0[name]] {
				askSeen[x0[name]] = true
				ask = append(ask, x0[name])
			}
		}
		for _, v := range sys.Vars {
			if !askSeen[cur[v.Name]] {
				askSeen[cur[v.Name]] = true
				ask = append(ask, cur[v.Name])
			}
		}
		res, model, err := a.check(q.script(), ask...)
		if err != nil || res != smt.Sat || (model == nil && len(ask) > 0) {
			continue
		}
		launch := map[string]*big.Int{}
		for _, name := range lv {
			v, _ := sys.Var(name)
			if val, ok := smt.Value(model[x0[name]]); ok {
				launch[name] = v.Sort.Norm(val)
			}
		}
		state := map[string]*big.Int{}
		for _, v := range sys.Vars {
			if val, ok := smt.Value(model[cur[v.Name]]); ok {
				state[v.Name] = v.Sort.Norm(val)
			}
		}
		if w := a.recurrent(inv, comp, in, h, prefix, launch, state); w != nil {
			return w
		}
	}
	return nil
}

func sortedNames(m map[string]*big.Int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func (a *analyzer) recurrent(inv Invariants, comp []int, in map[int]bool, h int, prefix []int, launch, state map[string]*big.Int) *Witness {
	// The loop's locations in order: the checks below end at the first that fails, so their
	// order decides which queries are asked (a map's order made the same kernel ask 384 to
	// 389 queries from run to run).
	var locs []int
	for l := range in {
		locs = append(locs, l)
	}
	sort.Ints(locs)
	sys := a.sys
	cands := recurrentCandidates(sys)
	for _, name := range sortedNames(launch) {
		v, _ := sys.Var(name)
		cands = append(cands, its.B(its.Eq, its.R(v), &its.Const{Val: launch[name], Sort: v.Sort}))
	}
	// 2. Keep what holds at the reached state, over variables the launch or the path sets: a
	// variable the path leaves undefined (a later loop's counter) may hold anything there, so
	// step 5 could not show a candidate over it.
	defined := map[string]bool{}
	for name := range launch {
		defined[name] = true
	}
	for _, p := range sys.Params {
		defined[p] = true
	}
	for _, ti := range prefix {
		for k := range sys.Trans[ti].Update {
			defined[k] = true
		}
	}
	env := &its.Env{Vars: state}
	R := map[int][]its.Expr{}
	for _, l := range locs {
		for _, c := range cands {
			undefined := false
			for v := range its.FreeVars(c) {
				if !defined[v] {
					undefined = true
				}
			}
			if undefined {
				continue
			}
			if l != h || its.Eval(c, env).Sign() != 0 {
				R[l] = append(R[l], c)
			}
		}
	}
	pre := func(q *query, l int, x map[string]string) {
		q.assert(inv.term(q, l, x))
		sc := q.newScope(x)
		for _, c := range R[l] {
			q.assert(q.term(c, sc))
		}
	}
	// 3. Houdini: closed under the loop's transitions for all loads.
	for changed := true; changed; {
		changed = false
		for _, ti := range comp {
			t := sys.Trans[ti]
			if len(R[t.To]) == 0 {
				continue
			}
			q := newQuery(sys)
			x := q.state("0")
			pre(q, t.From, x)
			g, post := q.step(t, x, "1")
			q.assert(g)
			names := q.someFails("r", R[t.To], q.newScope(post))
			res, model, err := a.check(q.script(), names...)
			if res == smt.Unsat {
				continue
			}
			if err != nil || res == smt.Unknown || model == nil {
				return nil
			}
			keep := holding(R[t.To], names, model)
			if len(keep) == len(R[t.To]) {
				return nil
			}
			R[t.To] = keep
			changed = true
		}
	}
	var proof []Obligation
	// The closure, as obligations.
	for _, ti := range comp {
		t := sys.Trans[ti]
		q := newQuery(sys)
		x := q.state("0")
		pre(q, t.From, x)
		g, post := q.step(t, x, "1")
		q.assert(g)
		sc := q.newScope(post)
		var ts []string
		for _, c := range R[t.To] {
			ts = append(ts, q.term(c, sc))
		}
		q.assert("(not " + and(append(ts, inv.term(q, t.To, post))) + ")")
		if res, _, _ := a.check(q.script()); res != smt.Unsat {
			return nil
		}
		proof = append(proof, Obligation{What: "the recurrent set is closed under " + sys.TransString(t), Script: q.script()})
	}
	// 4. No exit is enabled in R, and some transition always is.
	for _, l := range locs {
		var outs []string
		q := newQuery(sys)
		x := q.state("0")
		pre(q, l, x)
		for ti, t := range sys.Trans {
			if t.From != l {
				continue
			}
			sc := q.newScope(x)
			var gs []string
			for _, g := range t.Guard {
				gs = append(gs, q.term(g, sc))
			}
			if !in[t.To] {
				e := newQuery(sys)
				ex := e.state("0")
				pre(e, l, ex)
				esc := e.newScope(ex)
				for _, g := range t.Guard {
					e.assert(e.term(g, esc))
				}
				if res, _, _ := a.check(e.script()); res != smt.Unsat {
					return nil
				}
				proof = append(proof, Obligation{What: fmt.Sprintf("transition %d leaves the loop only outside the recurrent set", ti), Script: e.script()})
				continue
			}
			outs = append(outs, and(gs))
		}
		q.assert("(not " + or(outs) + ")")
		if res, _, _ := a.check(q.script()); res != smt.Unsat {
			return nil
		}
		proof = append(proof, Obligation{What: "some loop transition is enabled at " + sys.Locs[l].Name, Script: q.script()})
	}
	// 5. With the launch fixed, the path reaches R whatever the loads return.
	q := newQuery(sys)
	x0 := q.entryWith(sys, launch)
	var bad []string
	cur := x0
	for i, ti := range prefix {
		t := sys.Trans[ti]
		for oi, o := range sys.Trans {
			if oi == ti || o.From != t.From {
				continue
			}
			sc := q.newScope(cur)
			var gs []string
			for _, g := range o.Guard {
				gs = append(gs, q.term(g, sc))
			}
			bad = append(bad, and(gs))
		}
		g, post := q.step(t, cur, fmt.Sprint("p", i+1))
		bad = append(bad, "(not "+g+")")
		cur = post
	}
	sc := q.newScope(cur)
	var rs []string
	for _, c := range R[h] {
		rs = append(rs, q.term(c, sc))
	}
	bad = append(bad, "(not "+and(rs)+")")
	q.assert(or(bad))
	if res, _, _ := a.check(q.script()); res != smt.Unsat {
		return nil
	}
	proof = append(proof, Obligation{What: "the launch reaches the recurrent set whatever loads return", Script: q.script()})
	w := &Witness{Loop: sys.Locs[h].Name, Pos: sys.Locs[h].Pos, Launch: map[string]string{}, Proof: proof}
	for name, v := range launch {
		w.Launch[name] = v.String()
	}
	for _, ti := range prefix {
		w.Prefix = append(w.Prefix, sys.TransString(sys.Trans[ti]))
	}
	for _, l := range locs {
		var parts []string
		for _, c := range R[l] {
			parts = append(parts, c.String())
		}
		if len(parts) > 0 {
			w.Recurrent = append(w.Recurrent, sys.Locs[l].Name+": "+joinAnd(parts))
		}
	}
	return w
}

func joinAnd(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += " && "
		}
		out += s
	}
	return out
}

// varStep is the step e of t's update k := k + e or k - e, where e is
// neither a constant nor nondeterministic; nil for any other update.
func varStep(t its.Transition, k string) its.Expr {
	b, ok := t.Update[k].(*its.Binary)
	if !ok || (b.Op != its.Add && b.Op != its.Sub) || its.HasNondet(b.Y) {
		return nil
	}
	if r, ok := b.X.(*its.Ref); !ok || r.Var.Name != k {
		return nil
	}
	if _, c := b.Y.(*its.Const); c {
		return nil
	}
	return b.Y
}

// zeroSteps lists the non-constant steps e of updates v := v + e or v - e in the loop.
func zeroSteps(sys *its.System, comp []int) []its.Expr {
	var out []its.Expr
	seen := map[string]bool{}
	for _, ti := range comp {
		t := sys.Trans[ti]
		for _, k := range its.SortedUpdates(t) {
			y := varStep(t, k)
			if y == nil || seen[y.String()] {
				continue
			}
			seen[y.String()] = true
			out = append(out, y)
		}
	}
	return out
}

// Note [Witnesses outside the condition]
// Where the condition search proves every loop under a condition, the witness search that may
// add "otherwise FALSE" (Note [Conditions before witnesses]) looks only among the launches
// that the condition leaves out: under the condition every run ends, so no witness lies there.
// The search runs on a copy of the system whose facts also say that the condition fails. Its
// queries are then small where the condition bounds what they were large in: AMD
// SimpleConvolution's loops divide the global id by the width, and the search asked 62 queries
// of that division (2 s of the kernel's 6) over every width; outside `inputDimensions_x >= 1`
// the width is 0. A witness found so is one of the whole system's: the copy's facts imply the
// system's, and a witness fixes every value its facts mention (launchVars), so each of its
// obligations, with the launch fixed, holds whatever the loads return, as before. That is why
// the copy is made only where every variable of the condition is one the witness fixes in the
// system itself (a parameter, a thread id, a launch size); a condition on a value read from
// memory would otherwise become a value the witness fixes, which a load does not keep. Nor is
// it made where the condition bounds a launch size: there the search looks for the witness
// that the rule of Note [Conditions through products] asks about, and the launches outside the
// condition pull the parameters out of its range too (grid_stride.kir's zero stride came
// with N = 2^30 + 1, a buffer past the interpreter's, where the whole system's search gives
// N = 1). Where the condition is empty (every bound weakened away), the proof needs none and no
// search runs.

// outsideCondition gives a copy of sys whose facts also say that the condition of facts does
// not hold, or nil where a witness of that copy might not be one of sys (Note [Witnesses
// outside the condition]).
func outsideCondition(sys *its.System, facts []its.Fact) *its.System {
	var es []its.Expr
	for _, f := range facts {
		es = append(es, f.Expr)
	}
	cond := conjunction(es)
	if cond == nil {
		return nil
	}
	return withWitnessFact(sys, &its.Unary{Op: its.Not, X: cond}, "outside the condition")
}

// conditionLaunchSizes gives the launch sizes that the condition of facts bounds: its variables
// that are neither parameters nor thread ids (Note [Conditions through products]).
func conditionLaunchSizes(sys *its.System, facts []its.Fact) []string {
	skip := map[string]bool{}
	for _, v := range append(append([]string(nil), sys.Params...), sys.ThreadVars...) {
		skip[v] = true
	}
	var out []string
	for _, f := range facts {
		for v := range its.FreeVars(f.Expr) {
			if !skip[v] {
				skip[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// aboveLaunchBound says whether the witness w runs with a launch size above 2^10 that the
// condition of facts bounds: no condition may then bound it (Note [Conditions through
// products]).
func aboveLaunchBound(sys *its.System, facts []its.Fact, w *Witness) bool {
	limit := big.NewInt(1 << 10)
	for _, v := range conditionLaunchSizes(sys, facts) {
		if x, ok := new(big.Int).SetString(w.Launch[v], 10); ok && x.Cmp(limit) > 0 {
			return true
		}
	}
	return false
}

// withWitnessFact gives a copy of sys with the fact e, or nil where e reads a variable that a
// witness of sys does not fix (Note [Witnesses outside the condition]).
func withWitnessFact(sys *its.System, e its.Expr, why string) *its.System {
	fixed := map[string]bool{}
	for _, v := range launchVars(sys) {
		fixed[v] = true
	}
	for v := range its.FreeVars(e) {
		if !fixed[v] {
			return nil
		}
	}
	c := *sys
	c.Facts = append(append([]its.Fact(nil), sys.Facts...), its.Fact{Expr: e, Why: why})
	return &c
}
