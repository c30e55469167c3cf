package termination

// Note [Rankings of a stronger condition first]
// The condition search (Engine.conditional, Engine.conditionPieces) proves the same pieces
// again and again, each time under a weaker condition, and each try searched for rankings from
// scratch: the templates in their order, then Farkas' lemma. On CHR's cooperative kernels most
// of a try's solver time went to templates that fail (sat queries of 100 to 400 ms on the rule
// loops' 27 transitions: gcd's main_coop1) before the one that ranked the piece under the
// stronger condition, which usually ranks it under the weaker one too (a grid-stride loop's
// -i holds for every bound on the stride that keeps it from wrapping). So a try first tries the
// rankings of the last proof of its pieces (the joint try's, then each successful weaker
// try's): a ranking function is a candidate like any template, checked by decrease in
// bitvector semantics under the try's invariants, so the verdict stays sound. A hint is tried
// on a component only where it is defined at every location of the component and strictly
// decreased on one of its transitions before: a lexicographic level's function does not rank
// the components left below it, and asking it there costs two queries a transition.

// candidatesFor gives the ranking functions proveComponentIn tries on the component c, at the
// locations locs: the hints first (Note [Rankings of a stronger condition first]), then the
// templates, each function once.
func (a *analyzer) candidatesFor(c, locs []int) []map[int]*Linear {
	var out []map[int]*Linear
	seen := map[string]bool{}
	in := map[int]bool{}
	for _, ti := range c {
		in[ti] = true
	}
	for _, h := range a.rankHints {
		if !anyIn(h.Strict, in) {
			continue
		}
		fn := map[int]*Linear{}
		for _, l := range locs {
			f, ok := h.Fn[l]
			if !ok {
				fn = nil
				break
			}
			fn[l] = f
		}
		if fn == nil {
			continue
		}
		if k := describeFn(a.sys, fn); !seen[k] {
			seen[k] = true
			out = append(out, fn)
		}
	}
	if a.hintsOnly {
		return out
	}
	for _, f := range templates(a.sys, c) {
		if len(out) > 0 && seen[f.String()] {
			continue
		}
		out = append(out, uniform(f, locs))
	}
	return out
}

// flatRankings gives the rankings of every piece of a proof, in order.
func flatRankings(ranks [][]Ranking) []Ranking {
	var out []Ranking
	for _, r := range ranks {
		out = append(out, r...)
	}
	return out
}
