package trs

import (
	"fmt"

	"gpuc/ir"
)

// Note [One processor's walks]
//
// Where the one-block kernel is one thread, as on a CPU (Note [Where
// iterations ran]), its phases run on one processor, and trs_derive's
// one is set; a walk's fuel is then LOCAL1 (65536) rewrite steps rather
// than LOCAL (256). The region never sets it, even with one processor:
// its iterations must be the one-block loop's with SMALLB threads (Note
// [Low parallelism]), which the tests compare. LOCAL keeps a long walk
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

// Note [One processor's garbage]
//
// A slot whose last reference goes is listed as garbage of its
// iteration (trs_release), and the commit phase frees it: its arguments
// lose a reference and it goes to the free ring, behind every slot freed
// before it, while new terms take fresh slots first (Note [Fresh slots
// first]). On one processor a new term takes the garbage listed last
// instead, as long as there is some: trs_reuse takes it off the list and
// drops its references to its arguments then, as commit would have, so
// that those that become garbage come next. The slot was written a
// moment ago and is in the cache, the store stays as large as the live
// terms and a little garbage, and no fresh page is touched: revnat10000
// took 425,000 page faults, about a third of its process in the kernel,
// and the commit phase's frees a quarter. Nothing reads a garbage slot
// after its release in the phase but the walk that released it, before
// its next allocation (trs_collapse reads the slot it releases first),
// and no other processor runs, so taking it at once is what commit's
// free then the next iteration's allocation would do, earlier. The
// garbage of the phase is the rest of the list, which commit frees as
// before, counting what is left (Note [Free ring positions]). A cell
// that a rule drops and the root held alone skips the list: the rule
// builds in it at once (Note [Reuse in place]).

// The locals of the slots taken from the garbage are declared once, at
// trs_step's start, not at each turn: a local that each turn sets to zero
// and that a switch's cases merge is a constant that the CPU stores to
// the stack at each turn, some twenty of them for sieve1000's rule with 19
// new subterms. Only the first gn of them are read, after the take sets
// them (Note [One processor's garbage]).

// garbageLocal names the local that holds the j-th slot that an
// allocation tagged tag takes from the garbage.
func garbageLocal(tag string, j int) string { return fmt.Sprintf("gs%s_%d", tag, j) }

// takeGarbage emits, for an allocation of need (at most m) slots tagged tag in
// trs_step, the take of up to m slots from the garbage of the phase where
// one processor runs it, into the locals of garbageLocal, and returns a
// local with their number (Note [One processor's garbage]).
func (l *lowerer) takeGarbage(b *fn, tag string, m int64, need ir.Expr) ir.Expr {
	n := "gn" + tag
	b.Decl(n, ir.I32, b.I32(0))
	for j := 0; j < int(m); j++ {
		l.stepDecls = append(l.stepDecls, &ir.Decl{Pos: b.Pos, Name: garbageLocal(tag, j), T: l.id, Init: b.S(0)})
		b.Local(garbageLocal(tag, j), l.id)
		// Once the list is empty it stays so: only a take adds to it.
		// The site takes at most need (the rule's) of the m (the most
		// of any rule) (Note [One allocation site]).
		want := b.And(b.V("one"), b.Lt(b.I32(int64(j)), ir.CloneExpr(need)))
		b.If(b.And(want, b.Lt(b.I32(0), b.Ld("glen", b.Rem(b.V("k"), b.I32(3))))), func() {
			b.Set(garbageLocal(tag, j), b.CallExpr("trs_reuse", b.V("k")))
			b.Set(n, b.Add(b.V(n), b.I32(1)))
		})
	}
	return b.V(n)
}

// reuseFunc: trs_reuse(k) takes the slot listed last off the garbage
// list of iteration k, drops its references to its arguments and returns
// it, for a phase on one processor (Note [One processor's garbage]).
func (l *lowerer) reuseFunc() {
	if l.world {
		return
	}
	b := l.newFunc(ir.DeviceFunc, "trs_reuse", l.id, param{"k", ir.I32})
	c := b.Decl("c", ir.I32, b.Rem(b.V("k"), b.I32(3)))
	j := b.Decl("j", ir.I32, b.Sub(b.Ld("glen", c), b.I32(1)))
	b.Store("glen", b.V("c"), j)
	g := b.Decl("g", l.id, b.listed("gl0", "gl1", b.V("k"), b.V("j")))
	h := b.Decl("h", ir.I32, b.Ld("hd", g))
	l.forArgs(b, h, func(_ int, arr string) {
		b.Call("trs_release", b.Ld(arr, b.V("g")), b.V("k"))
	})
	b.Return(b.V("g"))
}
