package termination

import "time"

// Note [Ranked outer levels carry over]
// prove tries each loop nest with ever stronger invariants (free invariants, interval bounds,
// the two Houdini stages). A stage that ranks the outer levels of a nest and is stuck on an
// inner part leaves that part (proveComponentIn's third result): the next stage first tries
// only that part, keeping the outer rankings and their obligations, rather than proving the
// outer levels again (polybench nussinov spent half its time so). The part left is every
// component not ranked yet, not only the one the stage was stuck on: a later stage that proved
// only that one answered TRUE with the others unproved (testdata/its/carry-over-pending.its).
// Every stage's invariants are proved inductive, so the outer rankings stay valid, and the
// certificate holds the invariant obligations of every stage used. Where the part fails, the
// stage tries the whole nest as before: stronger invariants may pick another outer ranking
// that leaves an easier part.

// stagedProof is one loop nest's proof across invariant stages.
type stagedProof struct {
	a     *analyzer
	comp  []int
	ranks []Ranking
	obl   []Obligation
	bad   []int         // the part not ranked yet; nil once proved
	done  [][]int       // cycles inside these are other pieces' (Note [Loop nests proved piece by piece])
	used  []*Invariants // the invariant sets that ranks and obl rely on
	tried bool
}

// try attempts the proof with the invariants at inv (Note [Ranked outer levels carry over]).
func (p *stagedProof) try(inv *Invariants) {
	if !p.tried {
		p.tried = true
		p.ranks, p.obl, p.bad = p.a.proveComponentIn(*inv, p.comp, p.done)
		p.used = []*Invariants{inv}
		return
	}
	if len(p.bad) < len(p.comp) {
		r, o, b := p.a.proveComponentIn(*inv, p.bad, p.done)
		if b == nil {
			p.ranks = append(p.ranks, r...)
			p.obl = append(p.obl, o...)
			p.bad = nil
			p.used = append(p.used, inv)
			return
		}
	}
	p.ranks, p.obl, p.bad = p.a.proveComponentIn(*inv, p.comp, p.done)
	p.used = []*Invariants{inv}
}

// Note [Sharing the budget after a failed proof]
// Where the proof of some loop nest fails, Analyze looks for a condition on the parameters and
// for a witness (in that order: Note [Conditions before witnesses]); both share what is left of
// the system's budget. The witness search used to spend all of it on kernels that have none
// (shoc reduce: 3.7 s), leaving the condition search nothing. So where the witness search runs
// first it gets half of what is left; the condition search then gets the rest, and where it
// finds no condition the witness search goes on with what remains (the solver's cache answers
// the queries it already asked). Each try of the condition search
// proves only the stuck nests (the nests proved without a condition keep their rankings and
// obligations, valid under any condition) and gets half of what is left, so that a try that
// cannot prove leaves room for the next. A try cut short counts as failed: the condition
// printed is then stronger than needed, never wrong.

// Note [Conditions before witnesses]
// The witness search ran before the condition search, and in CHR's strided kernels it found
// nothing in 0.7 s of the 3 s budget (300 queries: every stuck loop there is bounded by a
// clamped load, which may be 0, so no recurrent set holds for all loads), which the condition
// search then lacked. So the condition search runs first. Where it proves, the witness search
// runs after it, for the "otherwise FALSE" beside the condition, with a budget of its own, a
// quarter of the kernel's (the condition search spends what is left on weakening: carve's
// main_r2_k1 lost its "otherwise FALSE" with none), so such a kernel may take 1.25 times the
// solver-effort budget; where it fails, the witness search gets all that is left, as a witness
// search cut short did before. The verdicts' meaning is unchanged: TRUE under a condition needs
// the proof, FALSE the witness, whatever the order.
//
// The condition search once asked for the witness itself, with half of what was left, for one
// rule: no launch size is bounded where a witness runs forever with it above 2^10 (Note
// [Conditions through products]). A search that finds none spends all it is given, and in a
// kernel that terminates there is none to find: in shoc scan/reduce that search took 5.2 of
// the kernel's 8.85 million resource units. The rule is now applied to the one witness search
// after the proof: a witness that runs with a launch size above 2^10 which the condition bounds
// makes the kernel FALSE, the condition set aside (aboveLaunchBound). That search has a
// quarter of the kernel's budget where the earlier one had half of what was left, so a witness
// that needs more is missed, and the kernel is then TRUE under the condition without
// "otherwise FALSE"; no verdict of the corpus, the constructed cases or gpuc's examples
// changed (grid_stride.kir is FALSE with the same witness). shoc scan/reduce now takes 3.8
// million units for the same condition.

// anyIn says whether a transition of comp is in set.
func anyIn(comp []int, set map[int]bool) bool {
	for _, ti := range comp {
		if set[ti] {
			return true
		}
	}
	return false
}

// Note [A quick first stage]
// The first stage of prove, with the free invariants only, is a cheap attempt: every loop nest
// it fails on is tried again under interval bounds and Houdini's invariants. A query it cannot
// answer quickly is one those make easy (polybench nussinov: that c2 += 32 does not wrap, cut at
// the 1 s limit under the free invariants, answered at once under the interval bounds), and a
// nest that needs many template queries there usually needs the bounds anyway (polybench
// cholesky's c2 level: 29 failing queries, 1.1 s). So the stage gets quickLimit per query and
// quickQueries per nest; running out of either only moves the nest to the next stage, and a
// query cut short costs no fifth of the work budget (Note [Work budget]). With both, cholesky
// and nussinov are TRUE within the 3 s processor-time budget.

// Note [A quick first stage in the condition search]
// Every try of the condition search runs the stages again, the quick first stage too. In
// sieve's farm loop (`i = i + (long)p * groupsize()`) the stage's queries under the free
// invariants need about 1.4 million resource units each, past the stage's 600000 (quickLimit):
// the joint try asked six of them, each cut at its limit, 3.6 of its 5.7 million units, and the
// weakening that followed had under 3 million of the kernel's 10.5 million left. Its first try
// ran out, and the strongest condition stood, N <= 1024 below the program's N = 100000 (main
// before resource units printed `PROCS <= 1024 && p[0] >= 1`: the time budget held more of
// those queries). In the main proof a cut query is one candidate among several (seidel-2d's
// outer loop is ranked after one), but a try of the condition search looks first at the
// rankings the stronger condition proved (Note [Rankings of a stronger condition first]), and a
// query that the free invariants cannot answer quickly is one the next stage's bounds make
// easy, as in the main proof. So in the condition search's tries (analyzer.condTry) the first
// query cut short ends the quick stage, and the next stage starts. sieve's `main_r2_k2` is then
// TRUE if `N <= 2^30 && 1 <= p_count <= 2^30 && 1 <= PROCS <= 2^30`; the corpus keeps every
// verdict (TestFarmLoopAtDefaults, long mode).

// quickLimit is the per-query limit of the first stage, and quickQueries its queries per loop
// nest (Note [A quick first stage]).
const (
	quickLimit   = 200 * time.Millisecond
	quickQueries = 16
)
