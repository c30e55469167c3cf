package trs

import "gpuc/ir"

// Note [One processor's walks]
//
// Where one processor runs a phase, as the one-block kernel does on a CPU
// (one thread: Note [Where iterations ran]), a walk's fuel is LOCAL1
// (65536) rewrite steps rather than LOCAL (256). LOCAL keeps a long walk
// from holding up the other walks of its iteration, and the lanes of a
// warp together (Note [Local normalisation]); with one processor there
// are none to hold up, and a walk that runs out of fuel deep in a
// sequential computation leaves a chain of waiting slots with rules
// above it, which then reach the worklist one level per iteration.
// permutations7 took 1,810,252 iterations of about two rewrites each, and
// half its time in the iterations' own work (derive, commit, the books,
// the one-block loop); with LOCAL1 it takes 1749. The walk is the same
// innermost walk with more fuel, so the rewrites and their count are
// those of any other fuel; only the iterations and the trace change. A
// walk still ends, so MAXITER still bounds a run, and a hybrid point
// (HYBRIDITER) comes after at most HYBRIDITER walks of LOCAL1 steps.
// Forks stay: where a rewrite leaves several pending subterms the walk
// stops and lists them, so the worklist still shows the parallelism
// that moves a hybrid program to the GPU.
//
// And a walk on one processor goes on upwards. Where its first slot s
// reaches normal form and is the last pending argument of the slot p
// that waits for it (Note [Forks]), p is listed for the next iteration
// unless it settles (Note [Settling]); on one processor the walk moves
// to p instead and rewrites it, as a sequential rewriter would. The walk
// clears pn of s at once, as commit would, so that p sees its arguments
// in normal form; with no other processor, no one reads the flag between
// the two writes. Only slots that no list may hold move the walk up: not
// an input slot that is pending before the phase, the same test as
// settling's. With 65536 steps and the walk upwards, permutations7 takes
// 931 iterations, revnat1000 9, factorial9 7 (docs/BENCHMARKS.md).

// pLocal1 is LOCAL where one processor runs the phase (Note [One
// processor's walks]).
const pLocal1 = "LOCAL1"

// oneParams declares LOCAL1. A world's phases always run on many
// processors, so its programs do without.
func (l *lowerer) oneParams() {
	if l.world {
		return
	}
	l.m.Params = append(l.m.Params, &ir.Param{Pos: l.pos, Name: pLocal1, Type: ir.I32, Default: 65536})
}

// fuel is the rewrite steps a walk of trs_step may take: LOCAL, or LOCAL1
// where its parameter one says that one processor runs the phase; at
// least one.
func (l *lowerer) fuel(b *fn) ir.Expr {
	if l.world {
		return b.Max(b.P(pLocal), b.I32(1))
	}
	return b.Max(b.Sel(b.V("one"), b.P(pLocal1), b.P(pLocal)), b.I32(1))
}
