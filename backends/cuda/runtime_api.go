package cuda

import (
	_ "embed"
	"fmt"
	"strings"

	"gpuc/backends/runtime"
	"gpuc/internal/version"
	"gpuc/ir"
)

//go:embed prelude.cuh
var prelude string

// runtimeAPI is the CUDA backend's own device: kernels and device
// functions in CUDA C in the same .cu file, launched with <<<...>>>, and
// device memory through the CUDA runtime API.
type runtimeAPI struct{}

func (runtimeAPI) head(e *emitter) string {
	name := e.m.Name
	if e.rt != nil {
		return banner(e.m, fmt.Sprintf("nvcc -O3 -arch=sm_90 -o %s %s.cu -lnvrtc -lcuda", name, name),
			"(run-time specialization: ./"+name+" --static NAME=FILE runs gpuc, from $GPUC, beside the program or on PATH)") +
			"#include <cuda.h>\n#include <nvrtc.h>\n\n" + runtime.Header + "\n" + detachPrelude + "\n" + prelude + "\n" + runtime.Device + "\n" +
			"// The gpuc that wrote this program, for the run-time specialization cache's key.\n" +
			"#define GPUC_VERSION " + cstring(version.Full()) + "\n" + respecRuntime
	}
	if e.world {
		return worldHead(e, runtime.Header+"\n"+prelude+"\n"+runtime.Device)
	}
	return banner(e.m, fmt.Sprintf("nvcc -O3 -arch=sm_90 -o %s %s.cu", name, name)) +
		runtime.Header + "\n" + detachPrelude + "\n" + prelude + "\n" + runtime.Device
}

// constant declares a constant buffer's __constant__ symbol, which device
// code reads directly. Its length is constant (see constLength).
func (runtimeAPI) constant(e *emitter, b *ir.Buffer) string {
	return fmt.Sprintf("__constant__ %s %s[%s];\n", ctype(b.Elem), e.n.c(b.Name), e.constLength(b))
}

// Note [Error word]
//
// A raise in device code (an IR raise, or a failed check) must reach the
// host as the interpreter's message, at the host's next look: after each
// copy from the device, before each printf, before printing the outputs and
// before any other error. The first raise sets the device's error word,
// gpuc_error, by a compare-and-swap; only that raise writes its values and
// then its number into pinned host memory mapped for the device, with
// system fences between, and stops (Note [Checks] in backends/abi) or
// goes on (Note [Going on after a fault] there).
//
// The host's look is a stream synchronisation and a read of the pinned
// number: no copy from the device. A host loop that launches a step and
// reads a count back each iteration (TRS and CHR fixpoints, world programs'
// iterations) so pays one round trip a read-back instead of two; a copy
// from the device costs about 7 us on an H200, a synchronisation of an idle
// stream well under one. Writes of a finished kernel to mapped host memory
// are visible to the host after the synchronisation, so the number read is
// the raise's, if one happened.
//
// Where kernels hold grid barriers, a raising thread stops the whole kernel
// with a trap (the others would wait for it at the next barrier forever);
// the launch fails, and the fail hook finds the message in the pinned copy,
// since the device can no longer be asked.

// Note [Stopping in PTX]
//
// PTX has no unreachable: after a call that never returns, ptxas may take
// the next block for a successor. A failed check therefore once ended in
// PTX's exit after a fault function that returned (branch chk), on the
// suspicion that the [[noreturn]] fault kept values live across every
// check. Measured A/B on one H100 (scripts/bench-checks-ab.sh, 2026-11-26
// 18:30): no gain on transtree 26 (31.7 against 32.0 ms of rewriting
// kernels) or tree merge sort 23, and tak36's trs_step spilled 5064 bytes
// instead of 2242, its kernels 83.7 ms against 71.2. So the fault stays
// [[noreturn]] and stops itself, and the checks word stays in global
// memory. What had made transtree's kernels slower since 2026-11-22 was
// not the checks but a call out of line (Note [Large device functions out
// of line]).

// raiseSupport writes the device's error word and the host's check of it,
// where device code raises (Note [Error word]).
func (runtimeAPI) raiseSupport(e *emitter, b *strings.Builder) {
	if len(e.raiseMsgs) == 0 {
		b.WriteString("\n// No device code raises.\nstatic void gpuc_check_device_error(void) {}\n__device__ inline void gpuc_fault_halt(void) {}\n")
		return
	}
	msgs, n := raiseMessages(e)
	faults := len(e.raiseMsgs) > e.nRaise
	stop := "asm volatile(\"exit;\");"
	if gridBarriers(e.m) {
		stop = "__trap();"
	}
	fmt.Fprintf(b, `
// Errors raised in device code (Note [Error word] in backends/cuda): the
// number of the first one, on the device and in pinned host memory, and the
// messages by number.
__device__ int gpuc_error;
__device__ int *gpuc_error_sys;
static int *gpuc_error_host;
static const char *const gpuc_raise_msgs[] = {%s};

// gpuc_device_stop ends the raising thread: it exits, or where kernels hold
// grid barriers it stops the whole kernel, since the others would wait for
// it at the next one forever.
[[noreturn]] __device__ inline void gpuc_device_stop(void) {
  %s
  __builtin_unreachable();
}

// gpuc_error_mirror copies the error word's number to the host's, once its
// values are written: only the raise that set the word calls it.
__device__ inline void gpuc_error_mirror(int id) {
  __threadfence_system();
  *(volatile int *)gpuc_error_sys = id;
  __threadfence_system();
}

// gpuc_fault_halt stops the whole kernel after a barrier where a fault
// was recorded: a thread whose check went on stops here (Note [Going on
// after a fault] in backends/abi), and so do the others, which could
// otherwise wait for it at the next barrier.
__device__ inline void gpuc_fault_halt(void) {
  if (__builtin_expect(*(volatile int *)&gpuc_error != 0, 0)) __trap();
}

// gpuc_device_raise records a raise in device code and stops.
[[noreturn]] __device__ inline void gpuc_device_raise(int id) {
  if (atomicCAS(&gpuc_error, 0, id) == 0) gpuc_error_mirror(id);
  gpuc_device_stop();
}
`, msgs, stop)
	hostValues := "nullptr"
	if faults {
		hostValues = "gpuc_error_values_host"
		fmt.Fprintf(b, `
// Checks (Note [Checks] in backends/abi): a failed one records its values
// with its number, on the device and in pinned host memory, unless CHECKS=0
// cleared gpuc_checks.
__device__ long long gpuc_error_values[2];
__device__ long long *gpuc_error_values_sys;
static long long *gpuc_error_values_host;
__device__ int gpuc_checks = 1;
__device__ inline __attribute__((always_inline)) void gpuc_device_record(int id, long long a, long long b) {
  if (atomicCAS(&gpuc_error, 0, id) == 0) {
    gpuc_error_values[0] = a;
    gpuc_error_values[1] = b;
    gpuc_error_values_sys[0] = a;
    gpuc_error_values_sys[1] = b;
    gpuc_error_mirror(id);
  }
}
[[noreturn]] __device__ __attribute__((noinline)) void gpuc_device_fault(int id, long long a, long long b) {
  gpuc_device_record(id, a, b);
  gpuc_device_stop();
}
%s
static void gpuc_device_checks_off(void) {
  const int off = 0;
  GPUC_CUDA(cudaMemcpyToSymbol(gpuc_checks, &off, sizeof off));
}
`, checkHelpers)
		if e.world {
			b.WriteString(distCheckHelper)
		}
	}
	b.WriteString(raisedFunc(e, n))
	b.WriteString(`
// gpuc_error_host_init allocates the pinned error word, mapped for the
// device, before the first launch.
static void gpuc_error_host_init(void) {
  GPUC_CUDA(cudaHostAlloc((void **)&gpuc_error_host, sizeof(int), cudaHostAllocMapped));
  *gpuc_error_host = 0;
  int *dev = nullptr;
  GPUC_CUDA(cudaHostGetDevicePointer((void **)&dev, gpuc_error_host, 0));
  GPUC_CUDA(cudaMemcpyToSymbol(gpuc_error_sys, &dev, sizeof dev));
`)
	if faults {
		b.WriteString(`  GPUC_CUDA(cudaHostAlloc((void **)&gpuc_error_values_host, 2 * sizeof(long long), cudaHostAllocMapped));
  gpuc_error_values_host[0] = gpuc_error_values_host[1] = 0;
  long long *values = nullptr;
  GPUC_CUDA(cudaHostGetDevicePointer((void **)&values, gpuc_error_values_host, 0));
  GPUC_CUDA(cudaMemcpyToSymbol(gpuc_error_values_sys, &values, sizeof values));
`)
	}
	b.WriteString("}\n")
	fmt.Fprintf(b, `
// gpuc_check_device_error waits for the device, then reads the pinned copy
// of the error word: no copy from the device.
static void gpuc_check_device_error(void) {
  if (!gpuc_device_ran) return;
  gpuc_device_ran = false;
  GPUC_CUDA(cudaStreamSynchronize(0));
  const int id = *(volatile int *)gpuc_error_host;
  if (id > 0) gpuc_raised(id, %s);
}

// gpuc_report_device_error is the fail hook: an error raised on the device
// came first. It reads the pinned copy, which survives a trap that stops a
// kernel, then asks the device; it stays quiet if neither tells.
static void gpuc_report_device_error(void) {
  int id = gpuc_error_host != nullptr ? *(volatile int *)gpuc_error_host : 0;
  if (id > 0) gpuc_raised(id, %s);
`, hostValues, hostValues)
	if faults {
		b.WriteString(`  long long gpuc_v[2] = {0, 0};
  if (cudaMemcpyFromSymbol(&id, gpuc_error, sizeof id) == cudaSuccess && id > 0 &&
      cudaMemcpyFromSymbol(gpuc_v, gpuc_error_values, sizeof gpuc_v) == cudaSuccess)
    gpuc_raised(id, gpuc_v);
}
`)
	} else {
		b.WriteString(`  if (cudaMemcpyFromSymbol(&id, gpuc_error, sizeof id) == cudaSuccess && id > 0) gpuc_raised(id, nullptr);
}
`)
	}
}

// checkHelpers are the device's checks of an index and a divisor, over
// gpuc_device_fault (Note [Checks] in backends/abi). The fault does not
// return, and CHECKS=0 is read on the failing path only: where a check
// passes, nothing was called that could have written memory, so the
// compiler keeps what it loaded across it. The failing path is marked
// unlikely, so that the passing one falls through.
const checkHelpers = `
__device__ inline long long gpuc_idx(long long i, long long n, int id) {
  if (__builtin_expect((unsigned long long)i >= (unsigned long long)n, 0) && gpuc_checks) gpuc_device_fault(id, i, n);
  return i;
}
template <typename T> __device__ inline T gpuc_divisor(T b, int id) {
  if (__builtin_expect(b == 0, 0) && gpuc_checks) gpuc_device_fault(id, 0, 0);
  return b;
}
// The checks that go on (Note [Going on after a fault] in backends/abi):
// a failed one records as gpuc_device_fault does and gives index 0 or
// divisor 1; the kernel stops at its end or its next barrier.
__device__ inline long long gpuc_idx_go(long long i, long long n, int id) {
  if (__builtin_expect((unsigned long long)i >= (unsigned long long)n, 0) && gpuc_checks) {
    gpuc_device_record(id, i, n);
    return 0;
  }
  return i;
}
template <typename T> __device__ inline T gpuc_divisor_go(T b, int id) {
  if (__builtin_expect(b == 0, 0) && gpuc_checks) {
    gpuc_device_record(id, 0, 0);
    return 1;
  }
  return b;
}
`

// raisedFunc defines gpuc_raised, which reports error word id: a raise's
// message, or a fault's with its values; n is the length of the table.
func raisedFunc(e *emitter, n int) string {
	var body strings.Builder
	if e.nRaise > 0 {
		fmt.Fprintf(&body, "\n  if (id > 0 && id <= %d) gpuc_fail(\"%%s\", gpuc_raise_msgs[id]);", e.nRaise)
	}
	if n-1 > e.nRaise {
		fmt.Fprintf(&body, "\n  if (id > %d && id < %d) gpuc_fault(gpuc_raise_msgs[id], v[0], v[1]);", e.nRaise, n)
	}
	return fmt.Sprintf(`
// gpuc_raised reports the error that number id in the error word names,
// with the fault's values v.
[[maybe_unused]] static void gpuc_raised(int id, [[maybe_unused]] const long long *v) {%s
}
`, body.String())
}

// gridBarriers reports whether some kernel of m holds a grid barrier: it
// runs as a cooperative launch.
func gridBarriers(m *ir.Module) bool {
	for _, f := range m.Funcs {
		if f.Kind == ir.KernelFunc && ir.HasBarrier(f.Body, true) {
			return true
		}
	}
	return false
}

// code: the program defines every function, kernels and device functions
// in CUDA C.
func (runtimeAPI) code(e *emitter, _ *strings.Builder) []*ir.Func { return e.m.Funcs }

func (runtimeAPI) start(f *fn) {
	if recursive(f.e.m) {
		// Recursive device functions need more than the default 1 KiB of
		// stack per thread.
		f.line("GPUC_CUDA(cudaDeviceSetLimit(cudaLimitStackSize, 16 * 1024));")
	}
	// Note [Loading before the clock]
	for _, k := range f.e.m.Funcs {
		if k.Kind == ir.KernelFunc {
			f.line("gpuc_max_block((const void *)%s);", f.e.n.c(k.Name))
		}
	}
	if f.e.hasCopiedInputs() {
		f.line("gpuc_input_stream_init();")
	}
	for _, l := range coopGeometries(f.e) {
		f.line("gpuc_coop_per(%s, %d, 0);", f.e.n.c(l.kernel), l.block)
	}
	loads, writes := hostReads(f.e.m)
	if loads {
		f.line("gpuc_read_init();")
	}
	if len(writes) > 0 {
		// The ring of chunks follows the largest written buffer (Note
		// [A ring as deep as the text]); the lengths are known here.
		most := ""
		for _, b := range writes {
			size := "(long long)" + f.e.hostBuf(b) + ".bytes()"
			if most == "" {
				most = size
			} else {
				most = "gpuc_max(" + most + ", " + size + ")"
			}
		}
		f.line("gpuc_write_init((size_t)%s);", most)
	}
	switch {
	case f.e.world && len(globalBuffers(f.e.m)) > 0:
		// Sized by hostMain before NVSHMEM starts (gpuc_world_init).
		f.line("unsigned char *gpuc_pool = gpuc_world_pool(gpuc_pool_bytes);")
	case len(globalBuffers(f.e.m)) > 0:
		f.e.poolSize(f)
		f.line("unsigned char *gpuc_pool = nullptr;")
		f.line("GPUC_CUDA(cudaMalloc(&gpuc_pool, gpuc_pool_bytes));")
		f.e.streamInputs(f)
	}
	f.line("gpuc_profile.on = gpuc_time;")
	f.line("cudaEvent_t gpuc_start, gpuc_stop;")
	f.line("GPUC_CUDA(cudaEventCreate(&gpuc_start));")
	f.line("GPUC_CUDA(cudaEventCreate(&gpuc_stop));")
	f.line("GPUC_CUDA(cudaEventRecord(gpuc_start));")
	f.line("gpuc_profile.start_ns = gpuc_now_ns();")
}

// Note [Loading before the clock]
//
// --time's device clock starts after the program's start-up: creating
// the CUDA context, reading the input files (Note [Input files] in
// gpuc_runtime.h), allocating the pinned error word (Note [Error word])
// and loading the kernels' code, which CUDA does lazily, at a
// kernel's first launch or query, unless asked before. The program
// asks each kernel's attributes (gpuc_max_block, which keeps them for
// the launch checks) before the clock starts, and allocates the pool of
// device buffers (its size follows the parameters, never the input), the
// page-locked buffer of small read-backs (gpuc_to_host) and the chunks
// that text is written through (Note [Writing from the device] in
// gpuc_device.h), so that the time before the first
// kernel is zeroing and setup (the input files are read into the
// device after the pool's allocation, Note [Streamed input] in
// prelude.cuh), which --time then splits into the host's part and the
// device's.
// scripts/bench/chr_fw.cu, the hand-written baseline, loads its kernel
// and allocates its buffer before its clock too.

// pool zeroes the global buffers, one pool that start allocated before
// the clock with one cudaMalloc, with one cudaMemsetAsync (one per run of
// buffers between input buffers, Note [Input copies]): a call per buffer
// cost about as much as a small program's kernels. setup cuts each buffer
// out of it. A world program's pool is on NVSHMEM's symmetric heap, sized
// and allocated before the clock starts (poolSize, gpuc_world_pool), with
// the same layout on every device, and zeroed whole inside it.
func (runtimeAPI) pool(f *fn) {
	if len(globalBuffers(f.e.m)) == 0 {
		return
	}
	if f.e.world {
		f.line("gpuc_world_pool_zero(gpuc_pool, gpuc_pool_bytes);")
		return
	}
	// An input buffer's copy fills it whole (gpuc_stream_input reads
	// exactly its length), so zeroing skips it: min over 10^8 reads
	// 0.8 GB of its 6 GB pool.
	globals := globalBuffers(f.e.m)
	at := func(i int) string {
		if i == len(globals) {
			return "gpuc_pool_bytes"
		}
		return "gpuc_at_" + f.e.n.c(globals[i].Name)
	}
	for i := 0; i < len(globals); {
		if filledByCopy(globals[i]) {
			i++
			continue
		}
		j := i
		for j < len(globals) && !filledByCopy(globals[j]) {
			j++
		}
		if i == 0 && j == len(globals) {
			f.line("GPUC_CUDA(cudaMemsetAsync(gpuc_pool, 0, gpuc_pool_bytes, 0));")
		} else {
			f.line("GPUC_CUDA(cudaMemsetAsync(gpuc_pool + %s, 0, %s - %s, 0));", at(i), at(j), at(i))
		}
		i = j
	}
}

// filledByCopy reports whether the copy of an input file fills b whole
// before any kernel runs, so that the pool's zeroing may skip it.
func filledByCopy(b *ir.Buffer) bool {
	return b.Role == ir.Input && b.Space == ir.Global
}

// Note [Input copies]
//
// The input buffers of a program that is not a world's are copied in on
// a non-blocking stream of their own (gpuc_in_stream, created before the
// clock) as their files are read, and the host waits for the copies
// before the clock starts (Note [Streamed input] in prelude.cuh), so
// every kernel, copy and read-back after it sees them. The pool's zeroing
// after the clock starts skips the input buffers.

// hasCopiedInputs reports whether m has an input buffer that its copy
// fills (filledByCopy), in a program that is not a world's.
func (e *emitter) hasCopiedInputs() bool {
	if e.world {
		return false
	}
	for _, b := range e.m.Buffers {
		if filledByCopy(b) {
			return true
		}
	}
	return false
}

// streamed reports whether b is read into the device through page-locked
// chunks before the clock (Note [Streamed input] in prelude.cuh).
func (e *emitter) streamed(b *ir.Buffer) bool {
	_, ok := e.dev.(runtimeAPI)
	return ok && !e.world && filledByCopy(b)
}

// inputChecks checks each streamed input buffer's file where the other
// input files are read, before CUDA starts, so that a missing file or
// one of the wrong size fails at once, as before streaming.
func (e *emitter) inputChecks() []string {
	var out []string
	for i, b := range e.m.Buffers {
		if e.streamed(b) {
			out = append(out, fmt.Sprintf("gpuc_check_input(&gpuc_buffers[%d], %s, %s.len);", i, typeTag(b.Elem), e.hostBuf(b)))
		}
	}
	return out
}

// streamInputs reads the streamed input buffers into the pool, after its
// allocation and before the clock.
func (e *emitter) streamInputs(f *fn) {
	for i, b := range e.m.Buffers {
		if e.streamed(b) {
			f.line("gpuc_stream_input(&gpuc_buffers[%d], %s, %s.len, gpuc_pool + gpuc_at_%s);", i, typeTag(b.Elem), e.hostBuf(b), e.n.c(b.Name))
		}
	}
}

// coopGeometry is a cooperative launch's kernel and constant block size.
type coopGeometry struct {
	kernel string
	block  int64
}

// coopGeometries lists the cooperative launches of e's module whose block
// size is a constant and whose kernel has no shared memory, once each: the
// program asks the device how many blocks of each fit before the clock
// starts (Note [Loading before the clock]).
func coopGeometries(e *emitter) []coopGeometry {
	var out []coopGeometry
	seen := map[coopGeometry]bool{}
	for _, f := range e.m.Funcs {
		if f == nil || f.Kind != ir.HostFunc {
			continue
		}
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			l, ok := s.(*ir.Launch)
			if !ok || !l.Coop {
				return true
			}
			k := e.m.Func(l.Kernel)
			c, isConst := l.Block.(*ir.Const)
			if k == nil || !isConst || len(e.conv.Shared(k)) > 0 || (l.World && e.world) {
				return true
			}
			g := coopGeometry{l.Kernel, c.Int()}
			if g.block >= 1 && g.block <= 1024 && !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
			return true
		})
	}
	return out
}

// hostReads reports whether m's host program loads from a device buffer
// (gpuc_to_host's small read-backs) and which buffers it writes to the
// output (Note [Writing from the device] in gpuc_device.h), so that the
// page-locked buffers they go through are allocated before the clock.
func hostReads(m *ir.Module) (loads bool, writes []*ir.Buffer) {
	seen := map[*ir.Buffer]bool{}
	for _, f := range m.Funcs {
		if f == nil || f.Kind != ir.HostFunc {
			continue
		}
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if w, ok := s.(*ir.Write); ok {
				if b := m.Buffer(w.Array); b != nil && b.Space != ir.Shared && !seen[b] {
					seen[b] = true
					writes = append(writes, b)
				}
			}
			return true
		})
		ir.WalkAllExprs(f.Body, func(e ir.Expr) bool {
			if l, ok := e.(*ir.Load); ok && m.Buffer(l.Buf) != nil {
				loads = true
			}
			return true
		})
	}
	return loads, writes
}

// poolSize computes gpuc_pool_bytes and each global buffer's place in the
// pool, gpuc_at_NAME. A distributed buffer takes its block.
func (e *emitter) poolSize(f *fn) {
	globals := globalBuffers(e.m)
	if len(globals) == 0 {
		if e.world {
			f.line("const size_t gpuc_pool_bytes = 0;")
		}
		return
	}
	f.line("size_t gpuc_pool_bytes = 0;")
	for _, g := range globals {
		bytes := e.hostBuf(g) + ".bytes()"
		if e.distributed(g) {
			host, _ := blockVar(e, g)
			bytes = fmt.Sprintf("(size_t)%s * sizeof(%s)", host, ctype(g.Elem))
		}
		f.line("const size_t gpuc_at_%s = gpuc_pool_bytes;", e.n.c(g.Name))
		f.line("gpuc_pool_bytes = gpuc_pool_add(gpuc_pool_bytes, %s);", bytes)
	}
}

// setup finds a constant buffer, or cuts a global one out of the pool,
// then fills it.
func (runtimeAPI) setup(f *fn, b *ir.Buffer) {
	h, name := f.e.hostBuf(b), f.e.n.c(b.Name)
	if b.Space == ir.Constant {
		f.line("GPUC_CUDA(cudaGetSymbolAddress((void **)&%s.ptr, %s));", h, name)
	} else {
		f.line("%s.ptr = (%s *)(gpuc_pool + gpuc_at_%s);", h, ctype(b.Elem), name)
	}
	if f.e.distributed(b) {
		host, dev := blockVar(f.e, b)
		f.line("GPUC_CUDA(cudaMemcpyToSymbol(%s, &%s, sizeof %s));", dev, host, host)
		lim, n := localVars(f.e, b)
		f.line("{ const unsigned gpuc_lim = gpuc_world_local32(%s, %s.len); GPUC_CUDA(cudaMemcpyToSymbol(%s, &gpuc_lim, sizeof gpuc_lim)); }", host, h, lim)
		f.line("GPUC_CUDA(cudaMemcpyToSymbol(%s, &%s.len, sizeof %s.len));", n, h, h)
		switch {
		case b.Role == ir.Input:
			f.line("gpuc_dist_fill(%s, %s, gpuc_in_%s);", h, host, name)
		case b.Role == ir.Static && len(b.Init) > 0:
			f.line("gpuc_dist_fill(%s, %s, gpuc_init_%s);", h, host, name)
		}
		return
	}
	switch {
	case b.Role == ir.Input && b.Space == ir.Constant:
		f.line("GPUC_CUDA(cudaMemcpyToSymbol(%s, gpuc_in_%s, %s.bytes()));", name, name, h)
	case f.e.streamed(b):
		// Copied in before the clock (Note [Streamed input]).
	case b.Role == ir.Input:
		f.line("GPUC_CUDA(cudaMemcpyAsync(%s.ptr, gpuc_in_%s, %s.bytes(), cudaMemcpyHostToDevice, 0));", h, name, h)
	case b.Role == ir.Static && len(b.Init) == 0:
	case b.Role == ir.Static && b.Space == ir.Constant:
		f.line("GPUC_CUDA(cudaMemcpyToSymbol(%s, gpuc_init_%s, sizeof gpuc_init_%s));", name, name, name)
	case b.Role == ir.Static:
		f.line("GPUC_CUDA(cudaMemcpy(%s.ptr, gpuc_init_%s, sizeof gpuc_init_%s, cudaMemcpyHostToDevice));", h, name, name)
	}
}

// globalBuffers lists m's global buffers, and those of the world's spaces
// (Note [World] in package ir), in declaration order.
func globalBuffers(m *ir.Module) []*ir.Buffer {
	var out []*ir.Buffer
	for _, b := range m.Buffers {
		if b.Space.IsDevice() {
			out = append(out, b)
		}
	}
	return out
}

// launch checks the geometry on the host, launches with <<<...>>> and
// checks the launch.
func (runtimeAPI) launch(f *fn, k *ir.Func, args []cx, smem, pos string) {
	own := args
	for _, a := range f.e.launchArgs(k) {
		args = append(args, primary(a))
	}
	name := f.e.n.c(k.Name)
	f.line("if (gpuc_launchable(%s, %s, %s, gpuc_grid, gpuc_block, %s)) {", name, cstring(k.Name), pos, smem)
	f.line("  gpuc_profile_mark();")
	plain := func() {
		f.line("GPUC_LAUNCH(%s, gpuc_grid, gpuc_block, %s)%s;", name, smem, call("", args...).s)
		f.line("GPUC_CUDA(cudaGetLastError());")
	}
	f.indent++
	if f.e.rt != nil && f.e.rt.kernels[k.Name] {
		f.e.respecLaunch(f, k, own, plain)
	} else {
		plain()
	}
	f.indent--
	f.line("  gpuc_profile_mark();")
	f.line("  gpuc_profile_launch(false, %s);", cstring(f.f.Name))
	f.line("  gpuc_device_ran = true;")
	f.line("}")
}

func (runtimeAPI) sync(f *fn) { f.line("GPUC_CUDA(cudaDeviceSynchronize());") }

func (runtimeAPI) stop(f *fn) {
	f.line("GPUC_CUDA(cudaEventRecord(gpuc_stop));")
	f.line("GPUC_CUDA(cudaEventSynchronize(gpuc_stop));")
}

func (runtimeAPI) release(f *fn) {
	f.line("if (gpuc_time) {")
	f.line("  float ms = 0;")
	f.line("  GPUC_CUDA(cudaEventElapsedTime(&ms, gpuc_start, gpuc_stop));")
	if f.e.world {
		f.line("  gpuc_world_profile();")
	}
	f.line("  gpuc_report_time(ms);")
	f.line("  gpuc_profile_report(ms, gpuc_start, gpuc_stop);")
	f.line("}")
	f.exitNotify()
	f.line("GPUC_CUDA(cudaEventDestroy(gpuc_start));")
	f.line("GPUC_CUDA(cudaEventDestroy(gpuc_stop));")
	switch {
	case f.e.world:
		f.line("gpuc_world_end();")
	case len(globalBuffers(f.e.m)) > 0:
		f.line("GPUC_CUDA(cudaFree(gpuc_pool));")
	}
	if f.e.hasCopiedInputs() {
		f.line("gpuc_stage_free();")
	}
}

// recursive reports whether some device function of m calls itself,
// directly or through others.
func recursive(m *ir.Module) bool {
	calls := map[string][]string{}
	for _, g := range m.Funcs {
		if g.Kind != ir.DeviceFunc {
			continue
		}
		ir.WalkAllExprs(g.Body, func(x ir.Expr) bool {
			if c, ok := x.(*ir.Call); ok {
				calls[g.Name] = append(calls[g.Name], c.Func)
			}
			return true
		})
	}
	state := map[string]int{} // 1: on the path, 2: done
	var cyclic func(string) bool
	cyclic = func(name string) bool {
		switch state[name] {
		case 1:
			return true
		case 2:
			return false
		}
		state[name] = 1
		for _, c := range calls[name] {
			if cyclic(c) {
				return true
			}
		}
		state[name] = 2
		return false
	}
	for name := range calls {
		if cyclic(name) {
			return true
		}
	}
	return false
}
