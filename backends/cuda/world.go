package cuda

import (
	_ "embed"
	"fmt"
	"strings"

	"gpuc/backends/abi"
	"gpuc/ir"
)

// Note [World on NVSHMEM]
//
// A module with the parameter DEVICES runs on a world of devices (Note
// [World] in package ir); the CUDA backend lowers it to one process per
// GPU joined by NVSHMEM (world.h). Modules without DEVICES get today's
// program, byte for byte, with no NVSHMEM in it; their world constructs,
// if any, take their one-device meaning (world spaces are global,
// device_id() is 0, the collectives are no-ops or the value itself).
//
//   - Start: `./prog DEVICES=k` forks k processes after reading the
//     command line and before any CUDA call; the parent only waits and
//     exits with the world's status. Process d uses GPU d, the only one
//     it sees where CUDA_VISIBLE_DEVICES is unset. Each sets NVSHMEM's
//     environment itself (NVLink multicast off, the unique-id bootstrap
//     over loopback, no remote transport, no NCCL), whatever the user's
//     (Note [A world's start and exit]).
//   - Memory: one nvshmem_malloc pool holds every global buffer, in the
//     same layout on every device, so that a buffer's address on device e
//     is its local address moved by e's pool base (gpuc_peer_base, in
//     constant memory, from nvshmem_ptr). A distributed buffer holds its
//     block of B = ceil(Len/k) elements on each device; device code
//     indexes it globally through gpuc_dist, which goes to the owner's
//     pool over NVLink when the owner is another device. Its B is a
//     __constant__ for kernels and a static for the host; B = WorldPart
//     (Len, k), which world.h computes as package ir does.
//   - Launches: a world launch of G blocks launches on device d the
//     blocks [d*C, min((d+1)*C, G)), C = ceil(G/k), with the first block's
//     number and G as two more arguments, so that bid(), gdim() and gid()
//     stay global. It starts and ends with a world barrier on the stream,
//     as the IR's memory model says (the start is left out right after a
//     statement that ends with one). A cooperative world launch is CUDA's
//     cooperative launch on each device: each device's grid is
//     co-resident by itself, and the devices meet only in the world
//     barrier; a device whose range is empty runs one idle block,
//     numbered G, since the world barriers wait for every device (the
//     kernels that the passes make guard their work by gid()). Its grid
//     barrier is gpuc_world_sync: a grid sync, gpuc's own barrier of the
//     devices by one thread, a grid sync (Note [The world barrier in a
//     kernel]).
//   - Host collectives: world_barrier is nvshmemx_barrier_all_on_stream
//     (the host does not wait; the device work and copies after it do:
//     the host's reads go through the same stream), or nothing right
//     before a collective, which holds a world barrier. allreduce
//     waits for the device, then meets the other processes in shared
//     memory and combines the values in device order: a reduction on the
//     stream plus its read-back cost 46 us a step in the probe of
//     ../shared/MULTIGPU.md, more than the 30 us that a host iteration may
//     take. allgather copies every
//     other device's block with nvshmemx_getmem_on_stream between two
//     world barriers.
//   - Fitted parameters fit the least free memory of any device, less a
//     reserve for NVSHMEM, so that every device sizes alike.
//   - Host reads of a distributed buffer's elements go to the owner's
//     memory through the peer table (cudaMemcpy on mapped peer memory);
//     host stores and copies into one write on each device only the
//     elements it owns, as Note [World] says. Copies that involve one go
//     through host memory. A swap of distributed or replicated buffers
//     holds a world barrier.
//     Device 0 fetches a distributed output buffer block by block, after
//     a world barrier.
//   - A world of one, DEVICES=1, runs without NVSHMEM: its pool from
//     cudaMalloc, no world barriers but the grid's (Note [A world of one]
//     in world.h).
//   - Build: one whole-program nvcc run (no -rdc) that links NVSHMEM's
//     host and device libraries (Note [A world built whole]).
//   - Output: only device 0 writes standard output and --stats; the
//     others write to /dev/null, and their standard error to a file that
//     the parent shows only if that device's error ends the world. Device
//     0's error decides the exit status; else the first device that
//     failed does. The others are stopped after a grace period (they
//     usually meet the same error at the same point of the host program).
//     A device's end is its exit status, which its process reports as
//     its exit starts; the parent does not wait for the driver's
//     teardown after it.

// Note [DEVICES after the command line]
//
// main reads DEVICES for gpuc_world_start only after gpuc_parse_args has
// run, in a statement of its own. Until 2026-11-26 both were arguments
// of one call, gpuc_world_start(gpuc_parse_args(...), DEVICES), and C++
// leaves the order of a call's arguments open: g++, nvcc's host
// compiler, reads DEVICES first (its default, 1), clang the other way.
// So every `./prog DEVICES=k` built by nvcc ran as a world of one on
// GPU 0 whose kernels still took DEVICES=k: one process, the pool from
// cudaMalloc holding all k devices' blocks (twice the bytes of a
// device at k = 2, so cudaMalloc ran out at 8e8 slots a device), and
// device 0 allocating only in its own range (so "term store full" at
// half the slots), no second GPU at work. docs/BENCHMARKS.md's world
// figures for k > 1 before then are of that program. main now also
// checks that the world has DEVICES processes, an internal error if not.

// Note [World accesses]
//
// Every access to a distributed buffer goes through gpuc_dist, so its
// cost is paid by every load, store and atomic of a world program. It
// first tests whether the element is in this device's block, off = i -
// dev*block in [0, block) as one unsigned compare, and only then divides
// to find the owner: placement by owner (Note [TRS on several devices]
// in frontends/trs) makes more than 99% of a TRS world's accesses local,
// and a 64-bit division by a block length that is known only at run time
// (a __constant__) is a subroutine of several dozen instructions, which the
// first version paid on every access: the world program of tree merge
// sort at depth 23 took 722 ms on one device where today's program took
// 346 (docs/BENCHMARKS.md, "Several GPUs"). Kept on the remote path only,
// the division was still inlined at each of the ~600 access sites of that
// program (clang's PTX: 596 div/rem.s64 against 21 in today's program),
// and the step kernels took 255 registers (today's 209). The remote path
// now steps block by block to the owner (at most DEVICES-1 subtractions,
// taken by well under 1% of accesses): no division at any access site.

// Note [World barriers that repeat]
//
// A world launch starts and ends with a world barrier on the stream
// (nvshmemx_barrier_all_on_stream): the first orders the devices' earlier
// work and host reads before the kernel's writes, the second the kernel's
// writes before what follows. A second barrier with nothing between it
// and the first that touches a device orders nothing more, so the host
// code leaves it out: block tracks whether the devices are still as the
// last barrier left them (worldSynced), through world launches, the
// collectives, and declarations and assignments of locals that read no
// memory and call nothing (keepsWorldSync). The fallback of a
// cooperative world launch starts so, and the launch's closing barrier
// goes into its cooperative branch, and into the fallback only where the
// fallback's last statement does not end in one. A TRS world iteration
// that falls back to three launches (tree merge sort at depth 23 on 2
// devices, ~70 of its iterations) had 6 barriers and has 4; the barrier
// after the host's reads of status, wpc and wmax at the loop's head stays,
// since another device's kernel may write what they read. A host loop
// entered so, whose bounds read no memory and whose body ends in a world
// launch and never jumps out, starts each iteration and ends so too
// (forKeepsWorldSync): the fallback of a TRS world's WORLDSTEPS
// iterations has 3 barriers an iteration.

// Note [Where a world's gaps go]
//
// On 2 devices a world program's device 0 counted ~150 us between
// kernels where a one-device program counts ~10 (the 19:49 bench,
// /work/mg-1949.txt). Each host iteration of a TRS world made 4
// read-backs (gpuc_dist_get, synchronous copies, of device 0's status,
// wpc and wmax; one a decision since Note [A world's host decides once]
// in frontends/trs), world barriers on the stream (each ~2.5 us in
// MULTIGPU.md's probe) and 3 launches. But a device that finishes its
// kernel first also waits at the next barrier for the slowest one: that
// wait is counted as the time between its kernels. With --time, every
// device keeps a profile and device 0 prints each device's kernel time
// and its host's barrier and read-back counts (gpuc_world_profile): the
// slowest device's kernel time less device 0's is imbalance, and what is
// left of device 0's gaps over barriers and read-backs is their cost.

// Note [Which device waits]
//
// On 2x H200 (23:30) device 1's kernels took 268 ms of tree merge sort 23
// and device 0's 244, whichever GPU was device 1, with equal rewrites. A
// kernel's time is its work plus its waits at the world barriers inside
// a cooperative kernel (gpuc_world_sync): device 1 either works slower or
// waits for device 0. -DGPUC_WORLD_WAITS tells them apart: the first
// thread of each device sums the time it spends meeting the other
// devices (gpuc_world_meet_devices), and --time prints it by device
// (gpuc_world_profile). A build without
// it has no such code. What the code shows by device: every device's
// host reads device 0's word stWNext (frontends/trs), over NVLink from
// device 1, and that read is why the start barrier of each world launch
// stays (Note [World barriers that repeat]); and device 1's kernels reach
// device 0 almost only in the summary of the normal form, on the input's
// shared slots (Note [Shared slots in the summary's marking] in
// frontends/trs), whose launches, too large to be cooperative, time each
// device's own work.

//go:embed world.h
var worldRuntime string

// UsesWorld reports whether m runs on a world of devices: whether it has
// the parameter DEVICES (Note [World] in package ir). Its CUDA program
// then links NVSHMEM's libraries (WorldFlags).
func UsesWorld(m *ir.Module) bool { return m.Param(ir.DevicesParam) != nil }

// WorldBuild is the build line of a world program, for NAME.cu: $NV is
// the NVSHMEM wheel's directory (NVSHMEMDir).
func WorldBuild(name, arch string) string {
	return strings.Join(append([]string{"nvcc", "-O3", "-arch=" + arch, "-o", name, name + ".cu"}, WorldFlags("$NV")...), " ")
}

// WorldFlags are the nvcc flags, after the source, that build a world
// program against NVSHMEM in dir, the wheel's directory, which holds
// include/ and lib/ (Note [A world built whole]). They are the one
// recipe: `gpuc build` passes them with the directory it finds, and the
// generated program names them with dir $NV on a line of its own
// (WorldFlagsLine), which the scripts read.
func WorldFlags(dir string) []string {
	return []string{"-I" + dir + "/include", "-L" + dir + "/lib", "-l:libnvshmem_host.so.3", "-lnvshmem_device", "-Xlinker", "-rpath," + dir + "/lib"}
}

// Note [A world built whole]
//
// A world program is built as today's program is, whole (no -rdc), in
// one nvcc run that links NVSHMEM's host library and its device library
// (WorldFlags); no device code calls NVSHMEM. Until 2026-11-27 the world
// barrier inside a cooperative kernel was nvshmem_barrier_all, a call
// into NVSHMEM's device library, which is relocatable code, so world
// programs were built -rdc=true. Under -rdc ptxas compiles a device
// function apart from its callers, so large functions had to stay
// inline (a trs_step out of line took 254 registers where its callers'
// __launch_bounds__ allowed 128, and the link failed); inline, and with
// -maxrregcount and nvlink's stack-size warning to quiet, today's tree
// merge sort 23 ran at 0.84 of its whole-program speed (an H200,
// 2026-11-27 04:25: 355.5 ms against 305.1, trs_step 128 registers and
// 496 B of stack against 128 and 48), and so did the one-device program
// inside a world file (Note [A world of one runs the one-device
// program]). Link-time optimization (-dlto) did not link against
// NVSHMEM's device library, which is not built for it; building the
// one-device program apart, a whole-program object beside the -rdc
// world, ran at today's speed but took two nvcc runs and an objcopy
// (docs/BENCHMARKS.md, branch world12).
// Now the world barrier is gpuc's own (Note [The world barrier in a
// kernel]) and cooperative world launches are CUDA's own. What the host
// calls (nvshmem_malloc, nvshmem_ptr, nvshmem_barrier_all, the on-stream
// barrier and get) is the host library's; nvshmemx_init_attr, inline in
// NVSHMEM's headers, calls nvshmemi_init_thread, which is host code of
// the device library, hence -lnvshmem_device, whose device code nothing
// calls. The 4x H200 probe of 07:03 (docs/BENCHMARKS.md, branch nordc13)
// built the barrier and fence probes four ways: this one and `nvcc -c`
// then a link with -rdc=true both built and ran on 2 and 4 devices;
// NVSHMEM's host library alone (NVSHMEM_HOSTLIB_ONLY, with
// nvshmemx_hostlib_init_attr) did not compile: that macro makes
// nvshmem_ptr, nvshmem_my_pe and nvshmem_n_pes always_inline
// declarations without a body. Large device functions are out of line
// in both programs, as in today's (Note [Large device functions out of
// line] in funcs.go).

// Note [A world's start and exit]
//
// Users time a program from its start to its exit. On 4x H200 (07:03,
// docs/BENCHMARKS.md, branch nordc13) tree merge sort at depth 23 ran
// 305 ms on the device in a whole run of 0.96 s as today's program, and
// 94 ms in 3.5-4.2 s as a world of 4. With --time a world program's
// parent prints, for itself and each device's process, when it reached
// each point in ms after it started (gpuc_world_mark, gpuc_world_startup
// in world.h: the process's start from /proc/self/stat, to a 10 ms tick;
// the loader's end in .preinit_array; CUDA's start; the context;
// NVSHMEM's; the pool; the clock; the host program's end; finalize; the
// exit status reported; the parent's taking it). The probe of 07:44
// (4x H200, persistence on; /work/gpu-notes/res-start13-1.txt), world_step
// at R=0 (no kernel) on 2 devices, the same on 4 but where said:
//   - loading NVSHMEM's host library (41 MB) costs nothing to speak of:
//     the loader is done 2-12 ms after the start, an empty-kernel program
//     linked against it starts as fast as one that is not (0.99-1.07 s
//     against 1.06-1.23 s to its kernel);
//   - CUDA's start (cudaGetDeviceCount) took 0.75-1.1 s with the machine's
//     4 GPUs in sight and 0.2 s with one (CUDA_VISIBLE_DEVICES=0), in a
//     process alone; the context 0.13-0.25 s more, 0.4 s where 4
//     processes make theirs at once;
//   - nvshmemx_init_attr took 1.0-1.4 s, of which NCCL's communicators
//     took 0.7-1.0: NVSHMEM, built with NCCL, opens the system's
//     libnccl.so.2 (and through it libibverbs and libmlx5) and makes a
//     communicator for each of 5 teams, for collectives that gpuc never
//     calls; with NVSHMEM_DISABLE_NCCL=1, 0.3-0.37 s. nvshmem_finalize
//     took 0.5 s with them and 0.02 s without, and the exit handlers
//     after it 75-130 ms against 1.5. NVSHMEM_DISABLE_LOCAL_ONLY_PROXY
//     and NVSHMEM_DISABLE_CUDA_VMM changed nothing;
//   - a process's end after its exit handlers, the driver's teardown in
//     the kernel, took 0.1-0.43 s, which the parent waited for.
// So (the same probe, whole runs): NVSHMEM_DISABLE_NCCL=1, which
// gpuc_world_env sets whatever the user's, took a world of 2 from 3.0-3.3
// s to 1.5-1.8 and of 4 from 3.6-3.8 to 1.9-2.3, tree merge sort 23 on 2
// from 3.2 to 1.8 s and on 4 from 3.7 to 2.5; each device's process sees
// only its GPU, where the user left CUDA_VISIBLE_DEVICES unset
// (gpuc_only_gpu: NVSHMEM's P2P transport finds a peer it cannot see
// through NVML, and world_step's pool mapped every peer on 2 and 4), and
// with NCCL off that took a world of 2 to 1.1 s (of 4: 2.0, the contexts'
// 0.4 s at once remain); each device's process reports its exit status
// in the shared page as its exit starts (gpuc_world_report, after CUDA's
// exit handlers), and the parent ends as every device has reported, not
// waiting for the driver's teardown, as a detached program does not
// (Note [Detached exit] in detach.h): a device's process that has
// reported dies with the parent (PR_SET_PDEATHSIG), its teardown left to
// the kernel, which may still be freeing its GPU memory when the next
// program starts, as after a detached program. Today's programs see
// device 0 alone too (gpuc_only_gpu(0) after gpuc_detach): an
// empty-kernel program took 1.3-1.4 s with 4 GPUs in sight and 0.43 s
// with one. A world program that carries the one-device program runs it
// detached at DEVICES=1, as today's. The call of 08:09 (4x H200,
// res-start13-2.txt; old and new built and run in the same call), whole
// runs in ms: tree merge sort 23 as today's program 1512 -> 745-795, its
// world of 1 1747 -> 882-967, of 2 3175 -> 1254-1370, of 4 4426 ->
// 2062-2132, device times unchanged; world_step at R=0 as today's
// 1082-1146 -> 451-524, world of 2 3268-3322 -> 928-1017; world_fence
// found no miss on 2 and 4 with a GPU in sight a process. What remains
// of a world's start is CUDA's and NVSHMEM's own, and unavoidable here:
// on 4 the contexts, made at once, end 0.4-0.8 s after the first
// process's CUDA started, whether each process sees one GPU or four;
// NVSHMEM's init without NCCL takes 0.3-0.45 s (the bootstrap, the
// topology through NVML, the heap's reservation, the teams).

// Note [The world barrier in a kernel]
//
// gpuc_world_sync (world.h) is a world barrier inside a cooperative
// kernel: a grid barrier, then the first thread of each device meets
// the others (gpuc_world_meet_devices), then a grid barrier. The meeting
// is over the peer pointers, with two words in the pool at one offset
// on every device, zeroed before the first:
//   - arrive: a system fence, then one atomicAdd_system on device 0's
//     count of arrivals, a count of all barriers so far, never reset:
//     barrier number p (each device counts its own, gpuc_world_passes)
//     is complete when the count reaches p*k;
//   - the device whose add makes it so is the last to arrive: it fences
//     and writes p into every device's passed word, through the peer
//     pointers; every other device polls its own word, in its own
//     memory, until it reads p (a word only grows, and no device can
//     write p+1 before every device has passed p), then fences.
// Why every write before the barrier, of any thread of any device, to
// its own memory or another's, is visible to every thread of every
// device after it: the first grid barrier orders the device's threads'
// writes before its first thread's system fence (a grid sync is a
// fence and a barrier of the grid at device scope, and PTX's causality
// order is transitive across scopes); that fence and the atomic on the
// count are a release at system scope, which the last arriver's add
// reads (the adds form one release sequence, each a read-modify-write
// of the one word), and its fence after the add an acquire; its fence
// before the stores and the stores a release, which a poller's read
// of p and its fence after acquire; the second grid barrier orders
// that fence before every thread of the device. The same fences and
// grid barriers carried the nvshmem_barrier_all that this replaces
// (which is a fence, atomics and a wait on a signal). The count and
// the passed word are on 128-byte lines of their own, so that the
// pollers do not share the count's line.

// Note [A world kernel's registers]
//
// The world's step kernels of tree merge sort took 231 registers a
// thread (main_coop2; main_r1_k1 208), so an SM held one block of 256,
// where today's kernels take 128 and hold two: on an H200 the world's
// kernels ran at 0.76 of today's on one device (0.905 on an H100, whose
// memory is slower: the world's kernels wait on latency, today's on
// bandwidth). -maxrregcount does not reach a kernel with
// __launch_bounds__ (the 03:51 run of -maxrregcount=128 kept 231), so a
// world kernel of blocks of n threads is declared __launch_bounds__(n,
// GPUC_WORLD_MIN_BLOCKS(n)): as many blocks an SM as GPUC_WORLD_REGS
// registers a thread allow (world.h; nvcc's -D sets it). Its default is
// 128, two blocks of 256 an SM: the world's kernels on one H200 (tree
// merge sort 23, a world of one, -rdc, inline; 04:25) ran 369.8 ms with
// it against 388.0 with 255 (main_coop2 128 registers and 376 B of
// stack, against 231 and 288). Those figures are of the -rdc build that
// Note [A world built whole] replaced; built whole (4x H200, 07:03),
// main_coop2 and main_r1_k1 take 128 registers and 120 B of stack, and
// the world's kernels on one device run at 0.899 of today's.

// WorldFlagsLine is the comment in a world program that names
// WorldFlags, for the scripts that build it.
const WorldFlagsLine = "// nvcc world flags: "

// NVSHMEMDir is the shell command that prints the NVSHMEM wheel's
// directory on the GPU machines (../shared/MULTIGPU.md).
const NVSHMEMDir = `python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])"`

// worldKernels lists the kernels that some world launch runs: they take
// their first block and the whole grid as two more arguments.
func worldKernels(m *ir.Module) map[string]bool {
	out := map[string]bool{}
	for _, f := range m.Funcs {
		if f.Kind != ir.HostFunc {
			continue
		}
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if l, ok := s.(*ir.Launch); ok && l.World {
				out[l.Kernel] = true
			}
			return true
		})
	}
	return out
}

// worldHead is the top of a world program: build notes, the runtime, the
// prelude and world.h.
func worldHead(e *emitter, rest string) string {
	name := e.m.Name
	return banner(e.m, "NV=$("+NVSHMEMDir+")",
		WorldBuild(name, "sm_90"),
		"(a world program: ./"+name+" DEVICES=k runs on GPUs 0..k-1, one process each, joined by NVSHMEM)") +
		WorldFlagsLine + strings.Join(WorldFlags("$NV"), " ") + "\n" + rest + "\n" + worldRuntimeText()
}

// worldRuntimeText is world.h with the grain of the world's parts.
func worldRuntimeText() string {
	return fmt.Sprintf("#define GPUC_WORLD_GRAIN %dLL\n", ir.WorldGrain) + worldRuntime
}

// blockVar names the host's and the device's copies of the block length
// of distributed buffer b. Distributed buffers of one length share the
// device's copy (Note [One block constant a length]).
func blockVar(e *emitter, b *ir.Buffer) (host, device string) {
	return "gpuc_blk_" + e.n.c(b.Name), "gpuc_dblk_" + e.n.c(e.blockClass(b))
}

// Note [One block constant a length]
//
// Device code finds an element of a distributed buffer through its block
// length, a __constant__ (gpuc_dist, Note [World accesses]). A TRS world
// store has a dozen distributed arrays of one length (hd, the arguments,
// the counts and flags, the lists: DEVICES*per each); with a constant
// each, nvcc saw a dozen unrelated block lengths, and computed the offset
// from this device's block and its test once per array even where one
// slot id indexes them all (hd[t], arg0[t], ..., rc[t]). Buffers whose
// lengths print alike have equal blocks (a length is over parameters
// and constants, sized once), so they share one constant, named after
// the first of them: one offset and one test a slot id. The host keeps
// a block a buffer, and each buffer's setup writes the shared constant
// with its own, equal, value.

// blockClass is the name of the first distributed buffer whose length
// prints as b's (Note [One block constant a length]).
func (e *emitter) blockClass(b *ir.Buffer) string {
	if e.blockOf == nil {
		e.blockOf = map[string]string{}
		first := map[string]string{}
		for _, buf := range e.m.Buffers {
			if buf.Space != ir.Distributed {
				continue
			}
			key := ir.PrintExpr(buf.Len)
			if _, ok := first[key]; !ok {
				first[key] = buf.Name
			}
			e.blockOf[buf.Name] = first[key]
		}
	}
	if c, ok := e.blockOf[b.Name]; ok {
		return c
	}
	return b.Name
}

// distributed reports whether accesses to b go through the world's
// distribution: b is distributed and the module runs on a world.
func (e *emitter) distributed(b *ir.Buffer) bool { return e.world && b.Space == ir.Distributed }

// distElem is the element of distributed buffer b at global index idx,
// index in the IR, as an lvalue, with the index's check where node needs
// one (checkedIndex): a 32-bit index checks on the remote path only (Note
// [A world's hot path in 32 bits]).
func (f *fn) distElem(node any, pos ir.Pos, b *ir.Buffer, index ir.Expr, idx cx) cx {
	ptr := primary(f.e.n.c(b.Name))
	_, dev := blockVar(f.e, b)
	t := index.Type()
	if t != ir.I32 && t != ir.U32 {
		return call("gpuc_dist", ptr, cast(ir.I64, f.checkedIndex(node, pos, b, index, idx)), primary(dev))
	}
	lim, n := localVars(f.e, b)
	if !f.needsCheck(node, b, index) {
		return call("gpuc_dist32", ptr, cast(t, idx), primary(lim), primary(dev))
	}
	id := f.faultID(pos, abi.IndexFault(pos, b, abi.IndexUnsigned(t)))
	return call("gpuc_dist32c", ptr, cast(t, idx), primary(lim), primary(dev), primary(n), primary(fmt.Sprint(id)))
}

// localVars name the device's constants of b's block class for
// gpuc_dist32: this device's elements with 32-bit indices
// (gpuc_world_local32 in world.h) and the buffer's length.
func localVars(e *emitter, b *ir.Buffer) (lim, n string) {
	c := e.n.c(e.blockClass(b))
	return "gpuc_dlim_" + c, "gpuc_dlen_" + c
}

// distCheckHelper is gpuc_dist32 with the index's check on the remote
// path (Note [A world's hot path in 32 bits]), after the checks' helpers:
// the check and the remote path one call out of line.
const distCheckHelper = `template <typename T> __device__ GPUC_DIST_FAR_ATTR T *gpuc_dist_farc(T *p, long long i, long long block, long long len, int id) {
  return gpuc_dist_remote(p, gpuc_idx(i, len, id), block);
}
template <typename T, typename I> __device__ inline T &gpuc_dist32c(T *p, I i, unsigned lim, long long block, long long len, int id) {
#ifdef GPUC_DIST_WIDE
  return gpuc_dist(p, gpuc_idx((long long)i, len, id), block);
#else
  unsigned off;
  if (gpuc_dist_near(i, lim, block, &off)) return p[off];
  return *gpuc_dist_farc(p, (long long)i, block, len, id);
#endif
}
`

// Note [A world's hot path in 32 bits]
//
// A TRS world's slot ids are 32-bit (Note [Slot words] in frontends/trs),
// and so are the indices of its lists and counters, but gpuc_dist took
// every index as a 64-bit integer against a 64-bit block length: a
// 64-bit subtraction, multiply and compare, in register pairs, at each of
// the ~600 accesses of tree merge sort's step, and the remote path (a
// loop over the devices' blocks and the peer table) inline at each. The
// world's derive kernel took 255 registers and 632 bytes of stack where
// today's one-device program takes 209 and none (docs/BENCHMARKS.md,
// 21:07), and each checked access (checks are on by default) compared the
// index in 64 bits against the store's length, DEVICES*per, an
// expression of CAPACITY and DEVICES kept live in a register pair. An
// access whose IR index is 32-bit now goes through gpuc_dist32:
//   - the local test in 32 bits against lim, a __constant__ of the block
//     class (gpuc_dlim_), which the host sets to the elements of this
//     device's block that the buffer has (gpuc_world_local32), or 0 where
//     DEVICES*block passes 32 bits (every access then takes the exact
//     remote path);
//   - an element the local test finds is in the buffer, so its check
//     passes: gpuc_dist32c checks the index only on the remote path,
//     against the buffer's length in another __constant__ (gpuc_dlen_),
//     with the same fault and message;
//   - the remote path a call out of line, which well under 1% of
//     accesses take (the far A/B of 21:07: 408 bytes of stack instead of
//     632, and 1.5% faster).
// clang's PTX of tree merge sort 23 (scripts/clang-ptx.sh's flags): the
// world's trs_step 14,375 -> 11,280 instructions, 6,517 -> 3,397 of them
// 64-bit (docs/BENCHMARKS.md, branch world5). -DGPUC_DIST_WIDE builds the
// old paths for the A/B. The peer bases stay in constant memory.

// worldBuiltin spells device_id() and num_devices().
func (f *fn) worldBuiltin(op ir.BuiltinOp) cx {
	switch {
	case f.e.threads && f.host && op == ir.NumDevices: // device 0's host program (Note [World on threads] in package abi)
		return primary(f.e.n.c(ir.DevicesParam))
	case !f.e.world && op == ir.DeviceID:
		return primary("0")
	case !f.e.world:
		return primary("1")
	case f.host && op == ir.DeviceID:
		return primary("gpuc_world.rank")
	case f.host:
		return primary("gpuc_world.size")
	case op == ir.DeviceID:
		return primary("gpuc_dev_id")
	}
	return primary("gpuc_num_devs")
}

// worldStmt emits the host's world statements.
func (f *fn) worldStmt(s ir.Stmt) {
	if !f.host {
		f.errorf(s.At(), "host statement in %s", f.where())
		return
	}
	switch s := s.(type) {
	case *ir.WorldBarrier:
		switch {
		case f.e.world && f.collectiveNext:
			f.line("// world_barrier: the collective that follows holds one")
		case f.e.world && f.worldSynced:
			f.line("// world_barrier: the one before still holds (Note [World barriers that repeat])")
		case f.e.world:
			f.line("gpuc_world_barrier();")
		}
	case *ir.AllGather:
		b := f.e.m.Buffer(s.Buf)
		if b == nil || !b.Space.IsDevice() {
			f.errorf(s.Pos, "allgather of %s, which is not a device buffer", s.Buf)
			return
		}
		if f.e.world {
			f.line("gpuc_world_allgather(%s);", f.e.hostBuf(b))
		}
	case *ir.AllReduce:
		pre, v := f.operands(s.Value)
		f.pre(pre)
		if !f.e.world {
			f.line("%s = %s;", f.e.n.c(s.Dst), v[0].s)
			return
		}
		op, ok := worldOps[s.Op]
		if !ok {
			f.errorf(s.Pos, "allreduce(%s)", s.Op)
			return
		}
		drained := ""
		if f.e.readBack(s.Value) {
			drained = ", true" // Note [A reduction after a read-back]
		}
		f.line("%s = gpuc_world_allreduce<%s>(%s, %s%s);", f.e.n.c(s.Dst), ctype(s.Value.Type()), op, v[0].s, drained)
	}
}

// Note [A reduction after a read-back]
//
// A world's allreduce holds a world barrier, so each device's host waits
// for its device's work before it meets the others (gpuc_world_allreduce
// in world.h). Where the value is an element of a device buffer, read
// back from the device, that wait is already over when the value is in
// hand: a read-back is a synchronous copy on the stream that every
// launch, copy and stream barrier of the host program uses
// (gpuc_to_host). The wait costs about 3 us a call even then
// (cudaDeviceSynchronize on an idle H200, 2026-11-27 04:25, world_step
// as a world of one: 24.2 us an iteration with it, 21.1 without, 21.2
// for today's launch and read-back; cudaStreamQuery in its place cost
// 1.5 of the 3 us), a tenth of the 30 us that a host iteration may take.
// So the backend passes drained = true where the value is a load of a
// device buffer, possibly converted, whose index calls nothing: the read
// is the last thing the operand does.

// readBack reports whether host expression x ends with a read-back of a
// device buffer (Note [A reduction after a read-back]).
func (e *emitter) readBack(x ir.Expr) bool {
	for {
		c, ok := x.(*ir.Convert)
		if !ok {
			break
		}
		x = c.X
	}
	l, ok := x.(*ir.Load)
	if !ok || e.m.Array(l.Buf) != nil {
		return false
	}
	b := e.m.Buffer(l.Buf)
	return b != nil && b.Space.IsDevice() && !ir.AnyExpr(l.Index, func(x ir.Expr) bool {
		_, call := x.(*ir.Call)
		return call
	})
}

var worldOps = map[ir.AtomicOp]string{
	ir.AtomicAdd: "GPUC_WORLD_ADD", ir.AtomicMin: "GPUC_WORLD_MIN", ir.AtomicMax: "GPUC_WORLD_MAX",
	ir.AtomicAnd: "GPUC_WORLD_AND", ir.AtomicOr: "GPUC_WORLD_OR", ir.AtomicXor: "GPUC_WORLD_XOR",
}

// worldLaunch declares the geometry of a launch of a kernel that world
// launches run (C++ locals): the whole grid gpuc_grid_all, this device's
// first block gpuc_b0 and its number of blocks gpuc_grid, which a launch
// that is not world runs whole.
func (f *fn) worldLaunch(s *ir.Launch, grid, block string) {
	f.line("const long long gpuc_grid_all = %s, gpuc_block = %s;", grid, block)
	if !s.World {
		f.line("const long long gpuc_b0 = 0, gpuc_grid = gpuc_grid_all;")
		return
	}
	f.line("const long long gpuc_b0 = gpuc_world_blocks(gpuc_grid_all), gpuc_grid = gpuc_world_grid(gpuc_grid_all, %t);", s.Coop)
}

// distBlock spells the block length of b for gpuc_dist_copy: its host
// variable if b is distributed, else 0.
func (f *fn) distBlock(b *ir.Buffer) string {
	if b == nil || !f.e.distributed(b) {
		return "0"
	}
	h, _ := blockVar(f.e, b)
	return h
}

// keepsWorldSync reports whether host statement s leaves the devices as
// the last world barrier left them: a declaration or assignment of a
// local that reads no memory and calls nothing (Note [World barriers that
// repeat]).
func keepsWorldSync(s ir.Stmt) bool {
	switch s.(type) {
	case *ir.Decl, *ir.Assign:
		return !ir.ExprsHold(s, readsOrCalls)
	}
	return false
}

// readsOrCalls says whether e is a load or a call.
func readsOrCalls(e ir.Expr) bool {
	switch e.(type) {
	case *ir.Load, *ir.Call:
		return true
	}
	return false
}

// forKeepsWorldSync reports whether host loop s, entered as the last
// world barrier left the devices, starts each iteration and ends so:
// its init, condition and step read no memory and call nothing, and its
// body, which neither breaks nor continues, ends with a statement that
// ends in a world barrier (Note [World barriers that repeat]): a TRS
// world's fallback of WORLDSTEPS iterations.
func forKeepsWorldSync(s *ir.For) bool {
	if len(s.Body) == 0 || !worldSyncs(s.Body[len(s.Body)-1]) {
		return false
	}
	if s.Init != nil && !keepsWorldSync(s.Init) || s.Post != nil && !keepsWorldSync(s.Post) {
		return false
	}
	if s.Cond != nil && ir.AnyExpr(s.Cond, readsOrCalls) {
		return false
	}
	jumps := false
	for _, b := range s.Body {
		ir.WalkStmts([]ir.Stmt{b}, func(x ir.Stmt) bool {
			switch x.(type) {
			case *ir.Break, *ir.Continue, *ir.Return, *ir.Raise:
				jumps = true
			}
			return !jumps
		})
	}
	return !jumps
}

// worldSyncs reports whether s ends in a world barrier in a world
// program: a world launch ends with one (Note [World] in package ir), and
// so do world_barrier and the two collectives. A world launch right after
// such a statement needs no barrier of its own to start with.
func worldSyncs(s ir.Stmt) bool {
	switch s := s.(type) {
	case *ir.Launch:
		return s.World
	case *ir.WorldBarrier, *ir.AllGather, *ir.AllReduce:
		return true
	}
	return false
}

// worldSwap reports whether swapping a and b holds a world barrier: the
// devices share the one storage of a distributed or replicated buffer.
func (e *emitter) worldSwap(a, b *ir.Buffer) bool {
	shared := func(x *ir.Buffer) bool {
		return x != nil && (x.Space == ir.Distributed || x.Space == ir.Replicated)
	}
	return e.world && (shared(a) || shared(b))
}

// worldGeometry spells bid(), gdim() and gid() in a kernel that world
// launches run: global, from the launch's first block and whole grid.
var worldGeometry = map[ir.BuiltinOp]string{
	ir.BlockID:  "(int)(blockIdx.x + gpuc_b0)",
	ir.GridDim:  "gpuc_gdim",
	ir.GlobalID: "(int)((blockIdx.x + gpuc_b0) * blockDim.x + threadIdx.x)",
}

// worldParams are the kernel parameters that worldLaunch's arguments fill.
const worldParams = "[[maybe_unused]] int gpuc_b0, [[maybe_unused]] int gpuc_gdim"

// worldDecls declares the block lengths of distributed buffers.
func (e *emitter) worldDecls(b *strings.Builder) {
	for _, buf := range e.m.Buffers {
		if e.distributed(buf) {
			h, d := blockVar(e, buf)
			fmt.Fprintf(b, "static long long %s; // distributed %s: elements per device\n", h, buf.Name)
			if e.blockClass(buf) == buf.Name {
				fmt.Fprintf(b, "__constant__ long long %s;\n", d)
				lim, n := localVars(e, buf)
				fmt.Fprintf(b, "__constant__ unsigned %s;\n__constant__ long long %s;\n", lim, n)
			}
		}
	}
}
