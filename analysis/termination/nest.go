package termination

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"gpuc/analysis/its"
)

// Note [Loop nests proved piece by piece]
// A loop nest is proved by a lexicographic ranking (Note [Lexicographic ranking, checked
// bit-precisely]): outer levels first, each removing the transitions it strictly decreases,
// until no cycle is left. Where no function ranks a part (CHR's cooperative fixpoint: the step
// loop's `step + 1 <= MAXSTEPS` wraps unless MAXSTEPS is bounded, and each rule's owner loop
// inside it strides by PROCS), the whole part used to go to the condition search as one, and
// every try of that search proved the step loop and all the owner loops together again, with
// one condition for all of them: CHR's main_coop1 ran out of work in every file.
//
// Termination is compositional over a nest. A loop terminates if every run of its body does
// (the inner loops, proved on their own) and a ranking function of the loop does not increase
// on any transition of the body, inner loops included, and strictly decreases on enough
// transitions that every cycle left lies inside an inner loop. So a part that no function
// ranks is split at its head: the inner pieces (the cycles that avoid the head) are proved on
// their own, each with its own staged invariants, and the outer piece is proved with the
// inner pieces as done (proveComponentIn: a cycle left inside a done piece needs no more
// ranking). The outer piece's functions are still checked on every transition of the inner
// loops, which is the inner loops' summary: a body that undoes the outer loop's progress
// raises the function on some transition and is rejected, and an inner loop that does not
// terminate is a piece of its own that is never proved (testdata/its/nest-*.its).
//
// Each piece that stays stuck gets its own condition search (Engine.conditionPieces), in turn,
// each under the conditions kept for the pieces before it, which it first tries alone with the
// joint try's rankings only (the owner loops of one kernel stride alike, so most need no search
// of their own; Note [Rankings of a stronger condition first]); a try proves only its piece. The conjunction of the pieces' conditions proves every piece: more facts keep
// every proof valid (Note [Proved nests stay proved]). A try finds the interval bounds again
// under its condition (a bound on CAP bounds the snapshot n = min(top, CAP)) and reuses the
// Houdini invariants of the proof without it, each with the condition's facts; where that
// fails in the strongest try, Houdini runs again under the condition, and then in every try of
// that piece. The bounded parameters are those the piece reads; where no condition on them
// proves it, those every stuck piece reads (CHR's sort size is bounded through the store's
// capacity, which another piece reads). Each split adds a nest's share of queries to the proof
// per inner piece, and each piece's search gets the queries of a nest's search (Note [Work per
// loop nest]); the processor-time budget stays the system's. A try that
// weakens a condition under which the piece was proved without fresh Houdini invariants does
// not look for them (they cost more than the rest of the try, and a failed try is the common
// case).

// Note [Solver effort per piece]
// The query budget of the condition search is per stuck piece (the joint try's is the
// pieces' sum, each piece's search has its own: Note [Loop nests proved piece by piece]), but
// the solver's effort was the system's alone: fib's main_coop1 has fifteen stuck pieces, and
// the joint try and the pieces' searches, about 12 million resource units (the proof before
// them 3.7 million), shared what the proof had left of one system's 9 to 10.5 million (Note [Solver
// work in resource units]); the joint try ran out, and the kernel was UNKNOWN. So the
// condition search gets, beside what is left, a nest's share of the system's effort for each
// stuck piece past the first (Config.CPU / nestsPerWork, as Note [Work per loop nest] gives a
// nest's queries): a kernel with one stuck piece, most of the corpus's, gets what it got
// before. The effort stays one pool that the joint try and the pieces share in order, so a
// piece that needs little leaves more to the next, and the bound on a kernel's effort grows
// with what it has to prove, the same on every machine.

// maxNestDepth bounds how deep a nest is split into pieces (Note [Loop nests proved piece by
// piece]).
const maxNestDepth = 3

// piece is a part of a loop nest proved on its own: the transitions comp, where a cycle that
// lies inside one of done is another piece's to prove.
type piece struct {
	comp    []int
	done    [][]int
	loop    int      // the index of its top-level nest in prove's loops
	ranking []string // set once a condition search proved it
}

// within says whether every transition of c is in one of pieces.
func within(c []int, pieces [][]int) bool {
	for _, p := range pieces {
		in := map[int]bool{}
		for _, ti := range p {
			in[ti] = true
		}
		all := true
		for _, ti := range c {
			if !in[ti] {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// innerPieces gives the cycles of comp that avoid its head, outside done.
func innerPieces(sys *its.System, comp []int, done [][]int) [][]int {
	h := headOf(sys, comp)
	var rest []int
	for _, ti := range comp {
		if t := sys.Trans[ti]; t.From != h && t.To != h {
			rest = append(rest, ti)
		}
	}
	var out [][]int
	for _, c := range sccs(sys, rest) {
		if !within(c, done) {
			out = append(out, c)
		}
	}
	return out
}

// stages holds the invariant sets of prove's stages, each found at most once per system (Note
// [Staged Houdini]), and which of them are in the certificate.
type stages struct {
	inv0, bounds, simple, full Invariants
	certified                  map[*Invariants]bool
	// noHoudini skips the Houdini stages not found yet (a try of the condition search that
	// weakens a condition proved without them: Note [Loop nests proved piece by piece]).
	noHoudini bool
}

// strongest gives the strongest invariant set found.
func (g *stages) strongest() Invariants {
	for _, inv := range []Invariants{g.full, g.simple, g.bounds} {
		if inv != nil {
			return inv
		}
	}
	return g.inv0
}

// runStages tries st with ever stronger invariants until it is proved or no stage is left
// (Note [Staged Houdini], Note [A quick first stage]).
func (a *analyzer) runStages(g *stages, st *stagedProof) {
	sys := a.sys
	// The first stage gets a short per-query limit and a few queries (Note [A quick first
	// stage]).
	all, out := a.work.left, a.work.out
	a.work.left = min(all, quickQueries)
	a.quick, a.quickLeft = quickLimit, -1
	st.try(&g.inv0)
	if a.quickLeft >= 0 {
		a.work.left = a.quickLeft // the stage ended at a query cut short
	}
	a.quick = 0
	a.work.left, a.work.out = all-(min(all, quickQueries)-a.work.left), out
	if st.bad != nil {
		a.phase("inv0 done")
		if g.bounds == nil {
			// Interval bounds with the free invariants: one Houdini round, usually
			// (Note [Interval candidates]).
			cands := intervalCandidates(sys)
			g.bounds = g.inv0
			if len(cands) > 0 {
				// One query per group of transitions with the same updates (Note
				// [Houdini per update]).
				g.bounds = a.houdiniOn(mergedByUpdate(sys), func(l int) []its.Expr {
					return append(append([]its.Expr(nil), g.inv0[l]...), cands[l]...)
				})
			}
		}
		a.phase("bounds done")
		st.try(&g.bounds)
	}
	if st.bad != nil && !a.leaveToConditions(st.bad) && (g.simple != nil || !g.noHoudini) { // Note [Strides by a parameter go to the condition search]
		if g.simple == nil {
			// The first stage gets a third of the queries left, so that a loop it cannot
			// help still has the full set's (Note [Staged Houdini]).
			all, out := a.work.left, a.work.out
			a.work.left = all / 3
			g.simple = a.houdiniAt(stageOne(sys))
			a.work.left, a.work.out = all-(all/3-a.work.left), out
		}
		a.phase("simple done")
		st.try(&g.simple)
	}
	if st.bad != nil && !a.leaveToConditions(st.bad) && (g.full != nil || !g.noHoudini) {
		if g.full == nil {
			g.full = a.houdini(candidates(sys))
		}
		a.phase("full done")
		st.try(&g.full)
	}
}

// pieceProof is what provePiece found: the rankings and obligations of the parts it proved
// (with the obligations of the invariants they use), and the pieces left stuck.
type pieceProof struct {
	ranks []Ranking
	obl   []Obligation
	used  *Invariants // the last invariant set the nest's own levels used
	stuck []piece
}

// provePiece proves p, splitting a part that no function ranks into an outer piece and its
// inner pieces (Note [Loop nests proved piece by piece]); depth counts the splits above.
func (a *analyzer) provePiece(g *stages, p piece, depth int) pieceProof {
	st := &stagedProof{a: a, comp: p.comp, done: p.done}
	a.runStages(g, st)
	res := pieceProof{ranks: st.ranks, obl: st.obl, used: st.used[len(st.used)-1]}
	// The levels ranked so far are valid whatever happens to the rest: their invariants go
	// into the certificate.
	if len(st.ranks) > 0 || st.bad == nil {
		for _, u := range st.used {
			if !g.certified[u] {
				g.certified[u] = true
				res.obl = append(a.invariantObligations(*u), res.obl...)
			}
		}
	}
	if st.bad == nil {
		return res
	}
	bad := st.bad
	inner := innerPieces(a.sys, bad, p.done)
	if depth >= maxNestDepth || len(inner) == 0 {
		res.stuck = []piece{{comp: bad, done: p.done, loop: p.loop}}
		return res
	}
	a.phase(fmt.Sprintf("split into %d inner pieces", len(inner)))
	// Each piece gets a nest's share of the work (Note [Work per loop nest]); the processor
	// time stays the system's.
	more := len(inner) * a.eng.cfg.Work / nestsPerWork
	a.work.left += more
	a.extra += more
	for _, c := range inner {
		sub := a.provePiece(g, piece{comp: c, done: p.done, loop: p.loop}, depth+1)
		res.ranks = append(res.ranks, sub.ranks...)
		res.obl = append(res.obl, sub.obl...)
		res.stuck = append(res.stuck, sub.stuck...)
	}
	// The outer piece: no function ranked bad itself, with any invariants, and the inner pieces
	// change nothing of that first level's search; so it is stuck as it is, now with its inner
	// cycles left to their own pieces.
	done := append(append([][]int(nil), p.done...), inner...)
	res.stuck = append(res.stuck, piece{comp: bad, done: done, loop: p.loop})
	return res
}

// conditionPieces finds a condition under which every stuck piece is proved, and gives it, its
// facts and the pieces' obligations; it records each piece's rankings in stuck (Note [Loop
// nests proved piece by piece]). First the strongest condition on what every piece reads, all pieces in one
// try: where it does not prove them, no condition is found. Then each piece in turn weakens
// its own condition, from the widest bounds (Note [The widest bounds first]), under the
// conditions kept for the pieces before it (first trying those alone), each try with the
// rankings of the joint try first (Note [Rankings of a stronger condition first]); where one of
// these searches fails (the processor time runs out), the strongest condition stands. Each search gets the queries of a nest's (Note [Work per loop nest]),
// within the processor time left (w).
func (e *Engine) conditionPieces(sys *its.System, g *stages, stuck []piece, w *work, keep bool) (string, []its.Fact, []Obligation, bool) {
	budget := func() *work {
		return w.with(2 * e.cfg.Work)
	}
	var reads [][]int
	for _, p := range stuck {
		reads = append(reads, p.comp)
	}
	// The joint try proves every piece: each piece's queries (Note [Work per loop nest]).
	joint := budget()
	joint.left *= len(stuck)
	if e.cfg.Trace != nil {
		fmt.Fprintf(e.cfg.Trace, ";;CONDITIONS %d stuck pieces cpu=%v units=%d\n", len(stuck), e.solver.CPU().Round(time.Millisecond), e.solver.Units())
	}
	joint0 := &priorProof{}
	cond0, facts0, ranks0, cert0, ok := e.conditional(sys, g, stuck, reads, joint, true, keep, joint0)
	if !ok {
		return "", nil, nil, false
	}
	record := func(ranks [][]Ranking) {
		for i := range stuck {
			stuck[i].ranking = nil
			for _, r := range ranks[i] {
				stuck[i].ranking = append(stuck[i].ranking, describeFn(sys, r.Fn))
			}
		}
	}
	cur := sys
	var conds []string
	var cert []Obligation
	ranks := make([][]Ranking, len(stuck))
	for i, p := range stuck {
		share := budget()
		if e.cfg.Trace != nil {
			fmt.Fprintf(e.cfg.Trace, ";;PIECE %d of %d (%d transitions) cpu=%v units=%d\n", i+1, len(stuck), len(p.comp), e.solver.CPU().Round(time.Millisecond), e.solver.Units())
		}
		var rs [][]Ranking
		var obl []Obligation
		var facts []its.Fact
		cond, ok := "", false
		if cur != sys {
			// The conditions kept so far first, without Houdini's stages: the owner loops of
			// one kernel stride alike.
			only := map[int]bool{}
			for _, ti := range p.comp {
				only[ti] = true
			}
			a := &analyzer{eng: e, sys: cur, work: share.share(1, 2), only: only, rankHints: ranks0[i], weakening: true, condTry: true}
			rs, obl, _, _, ok = a.provePiecesAlone(g, []piece{p}, false)
		}
		// A piece the joint try proved with Houdini's stages found under its condition looks
		// for them in its own tries too, and keeps the widest bounds (Note [Houdini under the
		// condition, piece by piece]).
		needs := !joint0.houdini && i < len(joint0.needs) && joint0.needs[i]
		if !ok {
			cond, facts, rs, obl, ok = e.conditional(cur, g, []piece{p}, [][]int{p.comp}, share, false, keep, &priorProof{ranks: ranks0[i], houdini: joint0.houdini || needs, widest: needs})
		}
		if !ok && len(stuck) > 1 {
			// A value the piece reads may be bounded only through a bound on what another
			// piece reads (CHR's sort size, through the store's capacity).
			cond, facts, rs, obl, ok = e.conditional(cur, g, []piece{p}, reads, share, false, keep, &priorProof{ranks: ranks0[i], houdini: joint0.houdini || needs, widest: needs})
		}
		if !ok {
			record(ranks0)
			return cond0, facts0, cert0, true
		}
		if cond != "" {
			conds = append(conds, cond)
		}
		cert = append(cert, obl...)
		ranks[i] = rs[0]
		if len(facts) > 0 {
			c := *cur
			c.Facts = append(append([]its.Fact(nil), cur.Facts...), facts...)
			cur = &c
		}
	}
	record(ranks)
	return joinConditions(conds), cur.Facts[len(sys.Facts):], cert, true
}

// joinConditions gives the conjunction of conditions of the condition search's form (each a
// conjunction of "1 <= X <= N", "X <= N" and "X >= 1"), one bound of each kind per variable,
// the strongest, in the order the variables first appear.
func joinConditions(conds []string) string {
	type bound struct {
		lower bool
		upper *big.Int
	}
	var order []string
	bs := map[string]*bound{}
	get := func(v string) *bound {
		if bs[v] == nil {
			bs[v] = &bound{}
			order = append(order, v)
		}
		return bs[v]
	}
	var other []string
	for _, c := range conds {
		for _, part := range strings.Split(c, " && ") {
			f := strings.Fields(part)
			n := new(big.Int)
			switch {
			case len(f) == 5 && f[0] == "1" && f[1] == "<=" && f[3] == "<=":
				if _, ok := n.SetString(f[4], 10); ok {
					b := get(f[2])
					b.lower = true
					if b.upper == nil || n.Cmp(b.upper) < 0 {
						b.upper = n
					}
					continue
				}
			case len(f) == 3 && f[1] == "<=":
				if _, ok := n.SetString(f[2], 10); ok {
					b := get(f[0])
					if b.upper == nil || n.Cmp(b.upper) < 0 {
						b.upper = n
					}
					continue
				}
			case len(f) == 3 && f[1] == ">=" && f[2] == "1":
				get(f[0]).lower = true
				continue
			}
			other = append(other, part)
		}
	}
	var out []string
	for _, v := range order {
		b := bs[v]
		switch {
		case b.lower && b.upper != nil:
			out = append(out, fmt.Sprintf("1 <= %s <= %s", v, b.upper))
		case b.upper != nil:
			out = append(out, fmt.Sprintf("%s <= %s", v, b.upper))
		default:
			out = append(out, v+" >= 1")
		}
	}
	return strings.Join(append(out, other...), " && ")
}
