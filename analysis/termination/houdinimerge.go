package termination

import (
	"sort"
	"strconv"
	"strings"

	"gpuc/analysis/its"
)

// Note [Houdini per update]
// Houdini asks the solver once per transition whose target's candidates a transition may break.
// The translators leave many transitions between the same two locations with the same updates
// and different guards (paths through min/max selects: most of polybench cholesky's 52
// transitions share their updates with others), and each cost a query of its own, though they
// differ only in when they fire. The interval-bound stage therefore runs Houdini on a view that
// merges each group into one transition whose guard is the disjunction of the members' guards:
// a candidate is inductive over the merged transition
// exactly when it is over every member, so the invariants are the same; the frame rule sees the
// same updates; and a query's cone (Note [Query cone]) keeps the whole disjunction where it
// keeps any of it, so no query is weaker than before. The proofs and the certificate's
// obligations still read the system itself. Only that stage: interval bounds mostly hold, and
// one unsat query per group replaces several (cholesky's whole proof: 80 queries down to 38),
// while the template stages' candidates mostly fail, and a counterexample over a disjunction
// costs the solver more (shoc reduce: 0.5 to 1 s per query instead of 0.1).

// mergedByUpdate gives sys with the transitions that share source, target, updates and havocs
// merged into one, their guards joined by a disjunction (sys itself where none share).
func mergedByUpdate(sys *its.System) *its.System {
	index := map[string]int{}
	var trans []its.Transition
	merged := false
	for _, t := range sys.Trans {
		key := updateKey(t)
		g := conjunction(t.Guard)
		i, ok := index[key]
		if !ok {
			index[key] = len(trans)
			nt := t
			nt.Guard = nil
			if g != nil {
				nt.Guard = []its.Expr{g}
			}
			trans = append(trans, nt)
			continue
		}
		merged = true
		switch {
		case len(trans[i].Guard) == 0:
			// Already unguarded: the disjunction is true.
		case g == nil:
			trans[i].Guard = nil
		default:
			trans[i].Guard = []its.Expr{its.B(its.LOr, trans[i].Guard[0], g)}
		}
	}
	if !merged {
		return sys
	}
	c := *sys
	c.Trans = trans
	return &c
}

// updateKey names a transition's source, target, updates and havocs.
func updateKey(t its.Transition) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(t.From) + ">" + strconv.Itoa(t.To))
	for _, k := range its.SortedUpdates(t) {
		b.WriteString("|" + k + ":=" + t.Update[k].String())
	}
	h := append([]string(nil), t.Havoc...)
	sort.Strings(h)
	b.WriteString("|havoc " + strings.Join(h, ","))
	return b.String()
}

// conjunction joins guards with &&; nil for none.
func conjunction(gs []its.Expr) its.Expr {
	var out its.Expr
	for _, g := range gs {
		if out == nil {
			out = g
		} else {
			out = its.B(its.LAnd, out, g)
		}
	}
	return out
}
