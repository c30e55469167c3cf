package chr

import (
	"fmt"
	"strings"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// Note [CHR on several devices]
//
// Design, not yet built (issue 19, part 5); today `gpuc run --devices k`
// runs k replicas (Note [Devices] in ir/interp), and `gpuc run --passes
// distribute-world --devices k` a correct world program whose stores are
// distributed by slot and probed remotely (CI checks every example so;
// gcd.chr makes three remote accesses in four at k = 4). With
// DEVICES = k > 1 the design is:
//   - Each store's slots are distributed buffers, split in WorldPart
//     parts (Note [World] in package ir); the region of Note [Parallel
//     firing] is a world region whose processor p owns slot p, so an
//     owner's thread runs on the device that holds its constraint, and
//     a body's new constraints go to the firing owner's device (its own
//     top counter, a symmetric buffer per store).
//   - The stores that rules probe for partners are all-gathered at
//     phase A of each step: each store gets a symmetric mirror (alive
//     flags and the ground values that guards and indices read) that
//     allgather makes whole, so matching (phase C) and the index build
//     (B) read locally. Constraints made in a step are not partners
//     until the next step anyway.
//   - Claims stay on the claimed slot: an owner that claims a removed
//     head on another device does a remote atomic max on the distributed
//     claim word, and the commit test (D) reads it back remotely; both
//     are a few words per firing, against a store scan that is local.
//   - Propagation (E) reads the mirrors; its history is per owner.
//   - The loop's end (a step that fires nothing) is an allreduce(or) of
//     each device's fired flag, so the host loop stays world-uniform.
// Firings and their order do not depend on k (the priorities are the
// same), so the final store, its printed form and the step count are
// the same for every k, which CI checks at --devices 1..4.

// Note [Parallel firing]
//
// The program runs as one SPMD region whose processors loop over the
// slots of the stores (grid-stride), in steps of a fixpoint loop:
//
//	A  snapshot each store's top; clear claim words and index heads
//	B  build the indices of the step (Note [Indices])
//	C  match: for every simplification and simpagation rule, the thread
//	   of each live candidate for its first removed head (the owner)
//	   searches partners, guards first, and proposes one firing; it
//	   claims every removed head by an atomic max of its claim word
//	D  commit: a proposal commits if it holds the claim of each of its
//	   removed heads and no kept head is claimed by a firing of higher
//	   priority; committed firings remove their heads and add their
//	   bodies' constraints
//	   C and D repeat as claim rounds while a proposal lost a removed
//	   head's claim (at most maxRounds): the losers search again among
//	   the constraints still alive and not made in this step; programs
//	   whose proposals cannot contend get one round and no loop
//	   (contended in region.go)
//	E  propagate: each propagation rule fires on every combination of
//	   live constraints that is new in this step (semi-naive
//	   evaluation), which is its propagation history
//
// with a grid barrier after each phase, until a step fires nothing. The
// host-loops, grid-sync and split-barriers passes turn the loop into a
// cooperative kernel or host-driven launches.
//
// Why each step is a sequential execution. A claim word per slot holds
// the best claim of the step; priorities order firings by rule (textual
// order), then by demotion (an owner that is the extremum its rule's
// other owners keep yields to them, Note [Indices]), then newer owners
// first, then a per-step scrambled order of slots. The proposals that
// commit
// remove disjoint sets of constraints (each removed head has one
// winner), and a committed firing F keeps no constraint that a committed
// firing of higher priority removes. So running the committed firings one
// after another, highest priority first, is a sequential execution:
// whenever F keeps what G removes, F has the higher priority and runs
// first, and every firing finds its heads alive and its guard, evaluated
// on immutable ground values, true. Propagation firings follow in phase E,
// on the constraints still alive, which is again a valid order. The
// proposal of the highest priority always commits, so every step with a
// proposal fires, and the loop ends exactly when no rule applies: the
// final store is one that the theoretical operational semantics reaches.
//
// Claim rounds make the set of firings of a step maximal among firings
// that contend for removed heads. Round r's
// firings run after round r-1's in the sequential order. A firing of
// round r finds every head alive at its turn: it matched only
// constraints that no earlier round removed (alive, born before the next
// step), and no firing of its round with higher priority removes its
// kept heads (the same claim test); what it keeps, a later round may
// remove, which is a later firing. Claim words carry the round in their
// top bits, so an earlier round's stale claims lose to every claim of
// the current round and need no clearing. A step's live constraints only
// shrink over its rounds, so an owner that found nothing finds nothing
// later, and a round in which no proposal lost a removed head's claim
// ends the step's rounds: a proposal blocked only because a firing of
// higher priority removes a head it keeps would, retried in the same
// step, only find a worse partner than the new constraint that the next
// step shows it (Floyd-Warshall's shorter edge).
// Two more choices make rounds and steps few: a scan for a partner
// starts just after the owner's slot, so owners contending for
// interchangeable partners (sum(X), sum(Y) <=> ...) propose different
// ones, and the scrambled slot order resolves the conflicts of such
// chained proposals as Luby's matching does, a constant fraction per
// round. sum over n constraints then ends in about log2(n) steps.
//
// Slots are never reused within a step: a removal marks the slot dead in
// phase D and only a body of the same firing may refill it there (in
// place, as the paper does), with the next step as its birth, which the
// later rounds' matching treats as not alive. New constraints get slots from an atomic bump of the store's top;
// a top past the capacity raises an error instead of losing constraints.
// Constraints made in a step become visible in the next one, with their
// birth step recorded for semi-naive propagation.

// lowerer builds the module.
type lowerer struct {
	errs   *diag.List
	prog   *program
	facts  []fact
	opts   Options
	m      *ir.Module
	stores map[*ctype]*store
	plans  []*rulePlan
	taken  map[string]bool // module-level names
	locals names           // region locals
	pos    diag.Pos
	// Module-level names of the statistics buffers and parameters.
	fired, steps, procs, lost, maxSteps, rounds string
	textLines                                   string // the TEXT_LINES parameter (Note [Output])
	// Region locals of the claim rounds: the round within the step, and
	// a stamp that grows with every round of the run (Note [Parallel
	// firing]).
	round, stamp *ir.Var
	// retry: the program has claim rounds after the first (contended).
	retry bool
}

// lower builds the SPMD-level module of a checked program.
func lower(file string, prog *program, facts []fact, opts Options, errs *diag.List) *ir.Module {
	l := &lowerer{errs: errs, prog: prog, facts: facts, opts: opts, stores: map[*ctype]*store{}, taken: map[string]bool{}}
	l.pos = diag.Pos{File: file, Line: 1, Col: 1}
	l.m = &ir.Module{Pos: l.pos, Name: ir.ModuleName(file)}
	b := l.builder()
	l.declareStores()
	for _, r := range prog.rules {
		l.plans = append(l.plans, l.planRule(r)...)
	}
	for _, p := range l.plans {
		l.stores[p.owner.ct].listed = true
	}
	l.declareRuleBuffers()
	l.fired = l.name("chr_fired")
	l.steps = l.name("chr_steps")
	l.buffer(l.fired, ir.I64, b.I64(int64(len(prog.rules)+1)), ir.Scratch)
	l.buffer(l.steps, ir.I64, b.I64(2), ir.Scratch) // steps, claim rounds
	l.lost = l.name("chr_lost")
	l.buffer(l.lost, ir.I64, b.I64(1), ir.Scratch)
	main := &ir.Func{Pos: l.pos, Kind: ir.HostFunc, Name: "main", Result: ir.Void}
	l.m.Funcs = append(l.m.Funcs, main)
	main.Body = append(main.Body, l.hostInit()...)
	main.Body = append(main.Body, &ir.Region{Pos: l.pos, Procs: b.P(l.procs), Body: l.regionBody()})
	main.Body = append(main.Body, l.outputRegion())
	main.Body = append(main.Body, l.printStores()...)
	return l.m
}

// builder builds the module-level expressions (buffer lengths, the
// region's processors), at the program's position; it holds no
// statements.
func (l *lowerer) builder() *ir.Builder { return ir.NewBuilder(l.m, l.pos, nil) }

// name reserves a module-level name, made unique.
func (l *lowerer) name(base string) string {
	n := ir.FreshName(base, 1, func(n string) bool { return l.taken[n] })
	l.taken[n] = true
	return n
}

func (l *lowerer) buffer(name string, t ir.Type, n ir.Expr, role ir.Role) *ir.Buffer {
	b := &ir.Buffer{Pos: l.pos, Name: name, Elem: t, Len: n, Space: ir.Global, Role: role}
	l.m.Buffers = append(l.m.Buffers, b)
	return b
}

func (l *lowerer) param(name string, def int64) string {
	n := l.name(name)
	l.m.Params = append(l.m.Params, &ir.Param{Pos: l.pos, Name: n, Type: ir.I32, Default: def})
	return n
}

// identifier turns text into an IR identifier, or fallback if nothing is
// left of it.
func identifier(text, fallback string) string {
	var b strings.Builder
	for _, c := range text {
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			b.WriteRune(c)
		case c >= '0' && c <= '9':
			if b.Len() == 0 {
				b.WriteString("c")
			}
			b.WriteRune(c)
		}
	}
	if b.Len() == 0 {
		return fallback
	}
	return b.String()
}

// hostInit sets the tops of the stores that the query fills.
func (l *lowerer) hostInit() []ir.Stmt {
	b := newBlock(l.m, l.pos)
	for _, ct := range l.prog.types {
		s := l.stores[ct]
		if s.query == 0 {
			continue
		}
		b.ifThen(b.Bin(ir.Gt, b.I32(int64(s.query)), s.capRef(b.Builder)), []ir.Stmt{&ir.Raise{Pos: l.pos,
			Msg: fmt.Sprintf("the query posts %d %s constraints, more than %s", s.query, ct, s.cap)}})
		b.Store(s.top, b.I32(0), b.I32(int64(s.query)))
	}
	return b.stmts()
}
