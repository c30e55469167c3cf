package termination

import "gpuc/analysis/its"

// Note [Widening what a loop changes]
//
// The interval analysis widens a location's bounds after its third change (intervals). A
// variable that no transition of the location's own loop changes, set once before the loop from
// a value that another loop is still growing (CHR's hash size `hs = min(hsg, 2^30)` after the
// doubling loop on hsg), was widened too, to the next threshold 2^31 - 1, and the descending
// rounds could not narrow it back: the loop's back edge carries the widened value to the head
// unchanged. Such a variable is left out of the widening: its bounds change only when the
// values it is computed from do, and those are widened where they loop, so the ascending rounds
// still end. The interval bounds are candidates that Houdini checks, so this changes what is
// proposed, never what is accepted.

// cycleUpdated gives, per location, the variables that a transition of the location's strongly
// connected component sets (by update or havoc).
func cycleUpdated(sys *its.System) []map[string]bool {
	out := make([]map[string]bool, len(sys.Locs))
	for i := range out {
		out[i] = map[string]bool{}
	}
	for _, c := range sccs(sys, allTrans(sys)) {
		set := changedVars(transOf(sys, c)...)
		for _, l := range locsOf(sys, c) {
			for v := range set {
				out[l][v] = true
			}
		}
	}
	return out
}

// transOf gives the transitions of sys with indices ts.
func transOf(sys *its.System, ts []int) []its.Transition {
	out := make([]its.Transition, len(ts))
	for i, ti := range ts {
		out[i] = sys.Trans[ti]
	}
	return out
}
