// Package ir is gpuc's kernel IR: the one representation that every
// frontend lowers into, every pass transforms and every backend consumes.
//
// It is a structured, typed, statement-level IR, not SSA: programs keep
// their loops, ifs and names, so that the printed form (.kir) reads like the
// source and golden files stay stable. It is not meant for register
// allocation or instruction selection; backends hand that to nvcc or LLVM.
//
// A module, printed:
//
//	module scan;
//
//	param N: i32 = 4096;
//	param B: i32 = 256;
//
//	buffer data: i32[N] global output;
//	buffer tmp: i32[B] shared scratch;
//
//	kernel scan() {
//	  var t: i32 = tid();
//	  var i: i32 = gid();
//	  tmp[t] = i < N ? data[i] : 0;
//	  barrier;
//	  for var off: i32 = 1; off < bdim(); off = off * 2 {
//	    var x: i32 = 0;
//	    if t >= off {
//	      x = tmp[t - off];
//	    }
//	    barrier;
//	    tmp[t] = tmp[t] + x;
//	    barrier;
//	  }
//	  if i < N {
//	    data[i] = tmp[t];
//	  }
//	}
//
//	host main() {
//	  launch scan() grid (N + B - 1) / B block B;
//	}
//
// grammars/KIR.g4 is the grammar; Print writes it and frontends/kir parses
// it, and print(parse(print(m))) == print(m). Verify checks a module; the
// interpreter in ir/interp runs one and is the reference semantics.
//
// # Note [Levels]
//
// A module is at the launch level or at the SPMD level (Module.Level).
//
// The launch level is what backends consume. Kernels run one thread per
// (block, thread) pair of a launch; they may use block barriers and shared
// buffers, never grid barriers. A structured host program launches them,
// loops, branches, reads back device scalars, copies and swaps buffers and
// prints, or writes bytes from a host array or a device buffer (Write).
//
// The SPMD level adds Region, a host statement that runs its body on a group
// of P virtual processors, where P may be in the millions. Region bodies may
// hold grid barriers (Barrier.Grid), loops around them, the group constructs
// Split and Fork, priority stores and multiprefix atomics, and the builtins
// pid, group, groupsize and nprocs. Frontends produce this level; the passes
// in package passes lower it to the launch level. Kernels and device
// functions are launch-level code at both levels: SPMD constructs appear
// only lexically inside regions. Control never jumps out of a region, split
// or fork: break and continue stay inside them, and a region holds no
// return.
//
// # Note [Semantics]
//
// Values are scalars of the types in Type. Integer arithmetic wraps; signed
// division and remainder truncate toward zero (division by zero is a
// run-time error in the interpreter and undefined on the GPU). Shifts use
// the count modulo the operand's bit width. Comparisons and logical
// operators yield bool; && and || short-circuit. Convert follows C.
//
// Memories: a buffer lives on the device, an array on the host. Scratch and
// output buffers start zeroed, input buffers are read from files, static
// buffers hold Init. Shared buffers have one instance per block, zeroed
// before the block starts. Indexing out of range is an error in the
// interpreter and undefined on the GPU. A scratch buffer may state a
// range for its values, `buffer gcd1_top: i32[1] global scratch bound
// "CAP_gcd1";`: every write stays in [0, CAP_gcd1], which the interpreter
// checks and the termination analysis assumes (Note [Bounded buffers]).
// `below "CAPACITY"` is the half-open form, [0, CAPACITY): the values are
// indices into buffers of CAPACITY elements, which only stores write; the
// interpreter and generated code check each write, and backends index
// with the values loaded unchecked.
//
// Between two barriers, threads of a kernel run in an unspecified
// interleaving; conflicting non-atomic accesses to one address by two
// threads are a data race, which `gpuc run --race` reports. Atomics are
// linearizable. A block barrier must be reached by all threads of the block
// or by none (the verifier rejects barriers under thread-dependent control
// flow). Launches, copies and read-backs are ordered as the host program
// orders them.
//
// In a region, a grid barrier synchronises all processors of the current
// group. Split and Fork run their subgroups independently, as if
// concurrently, and rejoin at the end of the statement. Multiprefix atomics
// and priority stores are resolved in pid order within a group between two
// barriers; see AtomicOp and Store.
//
// Raise ends the program with exit status 1 and prints "error: MSG" on
// standard error; output already printed stays printed, and nothing the
// host program would print after the raise is printed.
//
// Printf and Write write to standard output, in program order with the
// output buffers; printf stderr writes to standard error (statistics and reports
// that must not mix with the output; gpuc run --stats=FILE sends them to
// a file).
//
// When the host program returns, each output buffer is printed, in
// declaration order, one element per line, as printf's %d, %u, %ld, %lu or
// %f would print it (bool and i8 as %d, u8 as %u, f32 and f64 as %f).
//
// # Note [Fitted parameters]
//
// Parameters are integers with defaults, which NAME=VALUE on the command
// line of `gpuc run` and of every generated program overrides. A
// parameter may also carry a fit fraction, which sizes memories to the
// device that the program runs on:
//
//	param CAPACITY: i32 = 1073741824 fit 0.8;
//	buffer hd: i32[CAPACITY] global scratch;
//
// If the command line sets CAPACITY, that is its value and the fraction
// plays no part. Otherwise its value is the largest v in [1, default] for
// which the device buffers fit: the bytes of every global and constant
// buffer, its length evaluated with the parameters' values times its
// element's size, add up to at most fit × the device's free memory as
// the program starts (FitBudget). Of a distributed buffer only the part
// one device holds counts, WorldPart(Len, k) elements (Note [World]); on
// several devices the value is the least that any of them allows. If even v = 1 does not fit, the value
// is 1, and allocation then fails as for any buffer too large. Shared
// buffers, which are per block, and host arrays do not count. The default
// is thus an upper bound, and the value depends on the machine: no pass
// may fold a fitted parameter, or read its default as its value.
//
// A program fits its parameters after reading the command line and
// before sizing any memory, in declaration order. One that is not fitted
// yet counts as 1, so each fraction bounds the total with the earlier
// ones at their values: with fractions 0.4 and 0.8, the first
// parameter's buffers take up to 40% of the free memory and the second's
// what is left up to 80%. Lengths must not shrink as a parameter grows;
// the search is binary (FitValue). A length that is negative counts as
// zero while fitting; sizing reports it after.
//
// The free memory is what cudaMemGetInfo or cuMemGetInfo reports on a
// GPU, the available physical memory for a program whose kernels run on
// the CPU, and interp.Config.DeviceMemory in the interpreter (a model of
// 256 MiB unless `gpuc run --device-memory` says otherwise). A generated
// program run with --time prints each fitted value on standard error.
//
// # Note [World]
//
// A module runs on a world of k devices, k the value of its parameter
// DEVICES (an ordinary parameter, default 1; DEVICES=k on the command
// line, `gpuc run --devices k`). A module without DEVICES runs on one
// device on the GPU; the interpreter may still run it on k (see below).
// device_id() (0..k-1) and num_devices() (k), both i32, may stand
// anywhere but in lengths.
//
// Control replication: every device runs a copy of the host program, so
// host branch and loop conditions must have the same value on every
// device (Note [World-uniform host code]). A launch or a region that is
// not world runs on every device, whole, on that device's instances.
// Only device 0 prints; output buffers are printed from device 0's
// instances, as the host reads them (a distributed buffer whole). A
// raise on any device ends the world with exit status 1.
//
// Memory spaces of a device buffer, besides global, constant and shared:
//   - global: one instance per device, private to it (as with k = 1);
//   - symmetric: one instance per device, on the symmetric heap, so that
//     allgather may fill it;
//   - distributed: one array of Len elements in the world, split in
//     parts of B = WorldPart(Len, k) elements, ceil(Len/k) rounded up to
//     a multiple of WorldGrain (256): element i lives on device i / B,
//     at local index i % B. Code indexes it globally; an access whose
//     owner is not the accessing device is remote (counted in `gpuc run
//     --json`'s statistics, costly on the GPU). A host store or copy
//     into it writes, on each device, only the elements that device
//     owns, so that the copies of the host program do not race;
//   - replicated: one copy per device, read-only in device code; a host
//     store or copy into it writes every copy.
//
// With k = 1 the three world spaces are global.
//
// A world region (`region P world { ... }`) splits its processors in the
// same parts: pid p runs on device p / WorldPart(P, k), and with P = Len
// a distributed buffer's element p is local to processor p. Its grid
// barrier is a world barrier, and its groups may span devices. A world
// launch (`launch f() grid G block B coop world`) splits its G blocks in
// contiguous ranges of ceil(G/k), bid() and gid() staying global (a
// cooperative one fits if one device holds ceil(G/k) blocks); the
// passes lower a world region to world launches of blocks of WorldGrain
// threads, which split its processors as the region does. Every device
// must reach a world region or launch, each with the same size.
//
// Host statements: `world_barrier;` waits for every device's host program
// and the work it launched; `allgather BUF;` fills every instance of the
// symmetric BUF with the part each device owns (the elements i with
// i / WorldPart(Len, k) = d come from device d); `V = allreduce(op, e);`
// combines e from every device with add, min, max, and, or or xor and
// gives every device the result. The two collectives hold a world
// barrier, and so does a swap of distributed or replicated buffers,
// whose one storage the devices share.
//
// On GPUs (one process per device, NVSHMEM; issue 19): device_id() is
// the PE, num_devices() the PE count; symmetric and distributed buffers
// are symmetric-heap allocations, a distributed one of WorldPart(Len, k)
// elements on each PE, element i at offset i % B of PE i / B (a peer
// pointer for loads, stores and atomics); global, constant and
// replicated buffers are each process's own (every host writes its copy
// of a replicated buffer, so no broadcast is needed). A world launch
// starts on device d the blocks from d*ceil(G/k), with bid() offset; its
// grid barrier is the device's grid sync around a barrier of all PEs.
// allgather is a collect of each PE's part; allreduce waits for the
// device and combines the hosts' values in shared memory, in device order
// (a reduction on the stream with its read-back costs more: Note [World on
// NVSHMEM] in backends/cuda); a host read of a distributed element is a
// get from its owner.
//
// Memory model: between two world barriers (world_barrier, a world
// region's or cooperative world launch's grid barrier, allgather,
// allreduce, and the start and end of a world region or launch),
// conflicting accesses to one address from two devices, one of them a
// write and not both atomic, are a data race, as between two blocks
// (`gpuc run --race` treats devices like blocks). Atomics on a remote
// element are atomic with respect to every device's atomics on it.
// Nothing orders a device's plain accesses to another device's elements
// except those barriers.
//
// # Helpers that frontends, passes and backends share
//
// Before writing a helper, look here; each has one definition:
//   - names (names.go): IsKeyword, IsReserved, FreshName, ModuleName,
//     DeclaredNames, MaxConstantMemory;
//   - queries (query.go, walk.go): AnyStmt, AnyStmtOutside, AnyExpr,
//     AnyExprIn, HasBarrier, IsGroupConstruct, WalkBufferUses, SubBodies,
//     StmtExprs;
//   - copies (clone.go): CloneModule, CloneStmts, CloneExpr;
//   - building (build.go): Builder, from NewFunc, BuildFunc or NewBuilder,
//     positioned statements and expressions (Note [IR builder]);
//   - constants (eval.go): Fold for one operation, EvalConst for a whole
//     integer expression, Switch.Taken for a switch on a constant.
package ir
