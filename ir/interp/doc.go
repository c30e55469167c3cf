// Package interp is gpuc's reference interpreter. It runs a whole
// ir.Module on the CPU with the GPU semantics of Note [Semantics] in
// package ir, at either level (Note [Levels]), and it is the oracle that
// every test compares against, since CI has no GPU.
//
// It is not a GPU simulator: it models no timing, warps or memory
// hierarchy, and it picks one valid schedule (threads one after another,
// blocks in parallel) rather than exploring schedules. Data races, which
// make a program's output depend on the schedule, are found by the race
// checker instead (Config.Race).
//
// Run compiles every function once into Go closures over a register file
// (Note [Closures]) and then runs the host program. Scalar operators use
// ir.EvalUnary, ir.EvalBinary, ir.EvalConvert and ir.EvalBuiltin, so the
// interpreter and the constant folder agree by construction; in particular
// float-to-integer conversions saturate, NaN giving 0, as CUDA's do.
//
// Where the GPU leaves behaviour undefined, the interpreter stops with a
// positioned error: an index out of range, integer division by zero, bad
// launch geometry, a copy or swap out of bounds, a barrier divergence, a
// fork group out of range. Both sides of a select are evaluated (Note
// [Semantics] in package ir), so c ? a[i] : 0 checks i even where c is
// false.
//
// With Config.Devices (gpuc run --devices k) it runs the module on k
// simulated devices, each with its copy of the host program (Note
// [Devices] in world.go).
//
// # Note [Closures]
//
// Each expression compiles to a func(*frame) ir.Bits and each statement to a
// func(*frame) ctl, where a frame is one activation's register file (a
// []ir.Bits indexed by a slot fixed per local name at compile time) plus a
// pointer to the running thread's geometry. Locals of one function never
// shadow each other (the verifier checks it), so one slot per name is
// enough; sibling scopes that reuse a name share its slot. Each active
// call has a frame of its own, kept per thread and call depth for reuse,
// so device and host functions may recurse, up to maxCallDepth.
//
// # Note [Segments]
//
// Threads are not goroutines. A statement list that holds no barrier runs
// thread by thread to completion: a kernel without barriers runs each
// thread of a block in turn in one reused frame, which is what makes a
// million-thread launch take milliseconds.
//
// A statement that holds a barrier (a barrier itself, or an if, loop or
// switch around one) runs "team-wide" instead: its condition is evaluated
// for every running thread of the block, all must agree, and the chosen
// body runs team-wide in turn; the barrier-free runs in between are
// segments, run thread by thread. This is MCUDA's thread-loop fission,
// done at run time. A thread that returns, or breaks or continues out of a
// team-wide loop, stops running until the construct it left ends; a
// barrier that some threads of the team reach while others have left is a
// barrier divergence.
//
// SPMD regions use the same machinery with the processor group as the team
// and grid barriers as its barriers; split and fork are team-wide too.
// A split runs its then-subgroup to completion, then its else-subgroup; a
// fork runs its subgroups in group order, each in increasing order of the
// new pid(). Processors run in increasing pid() order within each segment,
// which resolves multiprefix operations in pid order (within a segment: a
// barrier interval that spans segments, as one that enters a team-wide if,
// serves each segment in turn). Priority stores remember,
// per address, the pid and barrier interval of the store that won, so the
// lowest pid wins within an interval whichever segment it ran in. Regions
// run on one goroutine.
//
// # Note [Races]
//
// In race-check mode blocks run one after another on one goroutine, and
// every non-atomic access to a buffer element is checked against shadow
// memory holding the element's last write and up to two reads that may
// still conflict with a later write. Two accesses conflict when at least
// one writes, they come from different threads of one launch, and either
// the threads are in different blocks or no barrier separates them (they
// share a barrier interval). Each block start and each barrier opens a new
// interval; intervals are numbered from one counter, so accesses of
// earlier launches are recognised by their smaller numbers.
//
// In a region every processor is a thread of one team; grid barriers, the
// synchronisation before a split's condition and the start and end of each
// split or fork subgroup open new intervals. Sibling subgroups run one
// after another here but concurrently on a device, so every subgroup is a
// scope inside the scope of the group that split or forked, and two
// accesses in scopes neither of which holds the other (one in each of two
// siblings, or inside them) conflict whatever their intervals; the
// iterations of a split while share one scope, as its synchronisation
// before each test orders them. Atomic operations and multiprefix
// operations are synchronised by definition and never race. Priority
// stores resolve the concurrent writes of one group, so they race only
// with accesses of sibling subgroups, where priority decides nothing and
// the device's order would (`if ($ < 4) s = 1; else s = 2;`). Host
// accesses are ordered with everything.
package interp
