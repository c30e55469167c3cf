package termination

// Note [The widest bounds first]
// The condition search started from the strongest condition (every bounded value in [1, 2^10])
// and weakened one value at a time, up to five tries a value (no lower bound; no upper bound;
// 2^(w-2), 2^(w/2), 2^20). On CHR's cooperative kernels it ran out of the 3 s before it had
// weakened much, and printed `<= 1024` bounds below the programs' own defaults. Most loops are
// proved under the widest bound that keeps a counter from wrapping, 2^(w-2) for a w-bit
// parameter (a stride by PROCS, a scan up to CAP, a step loop up to MAXSTEPS), in one try. So
// the search of each stuck piece (Engine.conditional, not the joint strongest try of
// Engine.conditionPieces, which stays the fallback) first tries every parameter in
// [1, 2^(w-2)]; where that proves, the weakening goes on from there (no lower bound, then no
// upper bound); where not, from [1, 2^10] as before (no upper bound, 2^(w-2), 2^(w/2), 2^20;
// trying 2^20 before 2^(w/2) gave weaker bounds where the budget allowed and the old ones where
// it ran out, so the constructed cases' verdicts moved with the load). Values read once
// from memory start wide too, and still lose their bounds first (Note [Conditions on
// parameters first]); launch sizes (Note [Conditions through products]) start at 2^10, and
// only where the parameters' bounds alone do not prove.

// Note [Rankings of a stronger condition first]
// The condition search (Engine.conditional, Engine.conditionPieces) proves the same pieces
// again and again, each time under a weaker condition, and each try searched for rankings from
// scratch: the templates in their order, then Farkas' lemma. On CHR's cooperative kernels most
// of a try's solver time went to templates that fail (sat queries of 100 to 400 ms on a rule
// loop of 27 transitions in gcd's main_coop1) before the one that ranked the piece under the
// stronger condition, which usually ranks it under the weaker one too: a bound that keeps a
// counter from wrapping or a stride from being 0 changes which values occur, not which
// function decreases. With nine stuck pieces, gcd's search ran out of its 3 s in the third
// piece and printed the strongest condition, every parameter at most 2^10, below the program's
// own defaults (MAXSTEPS = 2^30).
//
// So a try is given the rankings of the last proof of its pieces (priorProof: the joint
// strongest try's, then each successful try's) and proves in two rounds over the same invariant
// stages: first with the hints as the only candidates (no template, no Farkas), then, for the
// pieces still stuck, with every candidate, the hints first. A try that only widens a finite
// bound (analyzer.weakening), and the try of a piece under the conditions kept for the pieces
// before it, have the first round only: where the stronger proof's rankings do not carry over,
// the try fails in a few queries rather than in a full search, and the condition stays the
// stronger one proved. A try that drops a bound, and the first tries of a piece's own search,
// have both rounds. Whether a try looks for Houdini's invariants again under its condition
// follows the proof it starts from (priorProof.houdini, Note [Loop nests proved piece by
// piece]): claim_rounds.kir's flag invariant and square.kir's squares hold only under the
// condition, and without them the hints fail.
//
// A hint is a candidate like any template, checked by decrease in bitvector semantics under
// the try's invariants, so every verdict stays sound; only how weak the printed condition is
// can change. A hint is tried on a component only where it is defined at every location of the
// component and strictly decreased on one of its transitions before: a lexicographic level's
// function does not rank the components left below it, and asking it there costs two queries
// a transition.

// Note [Houdini under the condition, piece by piece]
// A piece that no invariant of the proof without a condition ranks may need Houdini's
// invariants found under the condition: the proof without it left the Houdini stages out
// (Note [Strides by a parameter go to the condition search]), and the joint strongest try finds
// them, under its condition, for the pieces that need them. exchange_sort's rule loop (37
// transitions in main_coop1) is ranked by -round only with the first stage's invariants. The
// pieces' own searches were told whether to look for them again by priorProof.houdini, which
// was set only where the joint try had found every stage again after a failed round, not where
// its first round found the stages that the proof without the condition lacked; so every try of
// that piece's search, under its kept conditions and under [1, 2^30] alike, had only the
// interval bounds, and failed: exchange_sort's cooperative kernels printed the joint try's
// condition, every parameter at most 1024, below MAXSTEPS = 2^30.
//
// provePiecesAlone now says which pieces were proved with such stages (needs), and the search
// of such a piece looks for them under its own condition. That costs 60 to 250 queries and 1
// to 8 million resource units a try on exchange_sort's rule loop (the weakening of its
// condition took 28 million units, more than the kernel's whole budget), so such a piece's
// search gives its first try, the widest bounds [1, 2^(w-2)], all of the piece's budget
// rather than half, and where that proves, keeps it (Note [The widest bounds first]): no
// weakening. The condition is then stronger than needed, never wrong, and holds at the
// programs' defaults. Where the widest try fails, the search goes on as before, with Houdini
// in every try.

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

// priorProof is what a proof under a stronger condition leaves to the tries under weaker ones
// (Note [Rankings of a stronger condition first]): its rankings, and whether the tries look for
// Houdini's invariants again under their condition (Note [Loop nests proved piece by piece]).
type priorProof struct {
	ranks   []Ranking
	houdini bool
	// needs says which pieces were proved with Houdini's stages found under the condition;
	// widest, that the search of a piece that did stops at the widest bounds (Note [Houdini
	// under the condition, piece by piece]).
	needs  []bool
	widest bool
}
