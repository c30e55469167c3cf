package trs

import "gpuc/ir"

// Note [Checked walk bounds]
//
// Issue 16 asks that every loop the frontend generates be proved to end
// by `gpuc check --termination`, which sees one thread and reads every
// store value as any value. The loops of the lowering end for reasons
// that the analysis cannot see; each now carries a bound that it can,
// chosen so that a correct run never meets it, and where that rests on
// an invariant of the store, meeting it is a checked error, not a cut:
//
//   - Walks along the store's links (trs_eq's descent, trs_leave's and
//     the settling walk's climb along up, trs_step's walk) end because
//     the terms are acyclic: a path visits at most the store's slots. Each
//     keeps a counter of fuel, one register and one compare a step, that
//     starts at the store's slots (trs_step's at 2*slots + LOCAL + 2: a
//     turn descends into a slot whose pnw is 1, which it sets to 0 before
//     it climbs back, or climbs, or rewrites in place, which LOCAL bounds,
//     so a walk makes at most slots descents, as many climbs, and LOCAL
//     stays; a climb or descent visits at most slots - 1 slots besides
//     its start, so a walk that breaks off never finds its fuel spent).
//     A walk that runs out sets bit ovWalk of the overflow word and
//     stops; the loop stops at the end of the iteration, as for a full
//     store, and the host raises msgWalk. Nothing in device code raises
//     (Note [Rewriting on the device]).
//   - Grid-stride loops over a list stride by their processors' count
//     np, a parameter of a device function that no launch fact reaches,
//     up to a count read from memory. They stride by max(np, 1) (np >= 1
//     at every call), in an i64 counter: i < n <= 2^31-1 before a step of
//     at most 2^31-1, so the counter cannot wrap. In i32 it could, where a
//     list nears 2^31 entries (CAPACITY may be set up to 2^31-1), and the
//     proof then needed CAPACITY <= 2^30 and, with four loops a function,
//     most of the solver's work budget.
//   - The rewrites of one slot in registers (rewriteSlot's loop) stop
//     at LOCAL steps a walk; the loop counts the steps left down at the
//     top of each turn (quota), a guard and a decrement in one
//     transition, ahead of the joins of the rule code, which the check
//     ranks with no invariant.
//   - The fixpoint loop of the region and the summary's rounds test
//     counters in memory (status[stIter] against MAXITER, sum[sumRounds]
//     against SUMROUNDS), which a thread reads as any value. Each also
//     counts its turns in a local (a host variable where the passes make
//     host loops, Note [Host loops] in package passes) and tests it
//     against the same bound: the region starts at iteration it0 >= 0 and
//     the memory counter grows by one a turn, so the local test never
//     fails first. The program's fixpoint is TRUE if MAXITER >= 1, which
//     is all one can say of a rewrite system that may not terminate; the
//     summary is TRUE.
//
// Chosen over two alternatives: facts carried from call sites into the
// device functions (np is a launch's thread count at every call) would
// still leave i32 strides that wrap near 2^31 and the walks unbounded;
// and bounded retries for spins on other threads had nothing to bound:
// the lowering has no such spin, its waits are jc counts that the last
// argument's walk settles (Note [Forks]). The run-time costs: a register
// and a compare a walk step, an i64 add a grid-stride step, and a local
// a fixpoint turn; TestWalkOutOfFuel checks the error's way to the host.

// Bits of the overflow word, status[stOverflow] (stWOverflow in a world).
const (
	ovFull = 1 // a step found the store full
	ovWalk = 2 // a walk ran out of fuel (Note [Checked walk bounds])
)

const msgWalk = "internal error: a walk along the term store's links passed the store's size; the terms are not acyclic"

// storeSlots is the number of slots of the store, a slot id: on one
// device CAPACITY, in a world DEVICES*per.
func (l *lowerer) storeSlots(b *fn) ir.Expr {
	if !l.world {
		return b.Conv(l.id, b.P(pCapacity))
	}
	return b.Mul(b.Conv(l.id, b.P(ir.DevicesParam)), b.per())
}

// fueled runs body while cond holds and the walk's fuel, a new local of
// type t that starts at n, lasts; one turn takes one unit. It returns
// the condition that the walk ran out, for the code after the loop.
func (l *lowerer) fueled(b *fn, fuel string, t ir.Type, n ir.Expr, cond func() ir.Expr, body func()) ir.Expr {
	b.Decl(fuel, t, n)
	zero := b.Int(t, 0)
	b.While(b.And(cond(), b.Lt(zero, b.V(fuel))), func() {
		b.Set(fuel, b.Sub(b.V(fuel), b.Int(t, 1)))
		body()
	})
	return b.And(cond(), b.Bin(ir.Le, b.V(fuel), b.Int(t, 0)))
}

// walkSpent flags a walk that ran out of fuel.
func (l *lowerer) walkSpent(b *fn) {
	b.Atomic("", ir.AtomicOr, "status", b.ctr(b.I32(stOverflow)), b.I32(ovWalk))
}

// stepFuel is the fuel of trs_step's walk: 2*slots + LOCAL + 2, in i64
// (LOCAL1 for LOCAL on one processor: Note [One processor's walks]).
func (l *lowerer) stepFuel(b *fn) ir.Expr {
	slots := b.Conv(ir.I64, l.storeSlots(b))
	return b.Add(b.Add(b.Mul(b.I64(2), slots), b.Conv(ir.I64, l.fuel(b))), b.I64(2))
}

// strided runs body for i = from, from+st, ... while i < to, where st
// is max(np, 1) and i a new i64 local (Note [Checked walk bounds]).
func (l *lowerer) strided(b *fn, i string, from, to, np ir.Expr, body func()) {
	init := b.Nest(func() { b.Decl(i, ir.I64, b.Cast(ir.I64, from)) })[0]
	f := &ir.For{Pos: b.Pos, Init: init, Cond: b.Lt(b.V(i), b.Cast(ir.I64, to)),
		Post: &ir.Assign{Pos: b.Pos, Name: i, Value: b.Add(b.V(i), b.Cast(ir.I64, b.Max(np, b.I32(1))))}}
	f.Body = b.Nest(body)
	b.Emit(f)
}
