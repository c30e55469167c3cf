package termination

import (
	"fmt"
	"math/big"
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

// candidates proposes invariant candidates over the state (no Nondet in them).
func candidates(sys *its.System) []its.Expr {
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
		lt, le := its.Ult, its.Ule
		if a.signed {
			lt, le = its.Slt, its.Sle
		}
		add(its.B(le, a.x, a.y))
		add(its.B(lt, a.x, a.y))
		add(its.B(le, a.y, a.x))
		add(its.B(lt, a.y, a.x))
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
	sc := q.newScope(vars)
	var ts []string
	for _, e := range inv[l] {
		ts = append(ts, q.term(e, sc))
	}
	return and(ts)
}

// Strings prints the invariant of l.
func (inv Invariants) Strings(l int) []string {
	var out []string
	for _, e := range inv[l] {
		out = append(out, e.String())
	}
	return out
}

// entryFacts encodes the facts over the state vars.
func entryFacts(q *query, sys *its.System, vars map[string]string) string {
	sc := q.newScope(vars)
	var ts []string
	for _, f := range sys.Facts {
		ts = append(ts, q.term(f.Expr, sc))
	}
	return and(ts)
}

// houdini finds the largest jointly inductive subset of cands at every location other than the
// entry, whose invariant is the facts.
func (a *analyzer) houdini(cands []its.Expr) Invariants {
	sys := a.sys
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
		inv[l] = append([]its.Expr(nil), cands...)
	}
	a.sampleFilter(inv)
	if entryTargeted {
		// The entry is also reached by transitions: its candidates must hold under the facts.
		inv[sys.Entry] = a.filterInitial(inv[sys.Entry])
	}
	for changed := true; changed; {
		changed = false
		for _, t := range sys.Trans {
			if len(inv[t.To]) == 0 {
				continue
			}
			q := newQuery(sys)
			pre := q.state("0")
			q.assert(inv.term(q, t.From, pre))
			g, post := q.step(t, pre, "1")
			q.assert(g)
			sc := q.newScope(post)
			var names, negs []string
			for i, c := range inv[t.To] {
				n := q.declare(fmt.Sprintf("c!%d", i), its.Bool)
				q.assert("(= " + n + " " + q.term(c, sc) + ")")
				names = append(names, n)
				negs = append(negs, "(not "+n+")")
			}
			q.assert(or(negs))
			res, model, err := a.check(q.script(), names...)
			if res == smt.Unsat {
				continue
			}
			changed = true
			if err != nil || res == smt.Unknown || model == nil {
				inv[t.To] = nil
				continue
			}
			var keep []its.Expr
			for i, c := range inv[t.To] {
				if v, ok := smt.Value(model[names[i]]); ok && v.Sign() != 0 {
					keep = append(keep, c)
				}
			}
			if len(keep) == len(inv[t.To]) {
				// The model names none: keep nothing rather than loop.
				keep = nil
			}
			inv[t.To] = keep
		}
	}
	return inv
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
		q := newQuery(sys)
		pre := q.state("0")
		q.assert(inv.term(q, t.From, pre))
		g, post := q.step(t, pre, "1")
		q.assert(g)
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
	changed := map[string]bool{}
	for _, t := range sys.Trans {
		for k := range t.Update {
			changed[k] = true
		}
		for _, h := range t.Havoc {
			changed[h] = true
		}
	}
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
