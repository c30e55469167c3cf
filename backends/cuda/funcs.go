package cuda

import (
	"fmt"
	"strings"

	"gpuc/backends/abi"
	"gpuc/ir"
)

// fn emits the body of one function.
type fn struct {
	e      *emitter
	f      *ir.Func
	host   bool
	b      strings.Builder
	indent int
	temps  []string        // declarations of the temporaries, see operands
	reads  map[string]bool // locals whose value is read
	length bool            // emitting a buffer's length, which start-up checked
	plan   *abi.CheckPlan  // where device checks go (Note [Check placement] in package abi)
	active []*abi.Hoist    // hoisted tests that hold in the loop copy being emitted
	goOn   bool            // failed checks record and go on (Note [Going on after a fault] in package abi)
	halts  bool            // goOn in a kernel with barriers: after each and before it ends, a fault stops it
	// worldSynced: the devices are as the last world barrier left them
	// when the statement being emitted starts (Note [World barriers that
	// repeat]); collectiveNext: the one after it is a collective, which
	// holds a world barrier. syncedEntry: the next block starts so;
	// syncedExit: the last block emitted ended so.
	worldSynced, collectiveNext, syncedEntry, syncedExit bool
	// inWorldLaunch: the launch being emitted is a world launch.
	inWorldLaunch bool
}

func (e *emitter) newFn(f *ir.Func) *fn {
	return &fn{e: e, f: f, host: f.Kind == ir.HostFunc, indent: 1, reads: readVars(f.Body)}
}

func (f *fn) line(format string, args ...any) {
	if format != "" {
		f.b.WriteString(strings.Repeat("  ", f.indent))
	}
	fmt.Fprintf(&f.b, format, args...)
	f.b.WriteByte('\n')
}

// temp declares a new temporary of type t at the top of the function.
func (f *fn) temp(t ir.Type) string {
	name := fmt.Sprintf("gpuc_t%d", len(f.temps)+1)
	f.temps = append(f.temps, fmt.Sprintf("%s %s = %s;", ctype(t), name, constant(t, 0).s))
	return name
}

func (f *fn) errorf(pos ir.Pos, format string, args ...any) {
	f.e.errorf(pos, "%s %s: %s", f.f.Kind, f.f.Name, fmt.Sprintf(format, args...))
}

// where names the kind of code f holds, for messages.
func (f *fn) where() string {
	switch f.f.Kind {
	case ir.KernelFunc:
		return "a kernel"
	case ir.DeviceFunc:
		return "a device function"
	}
	return "host code"
}

// readVars lists the locals whose values body reads. A read inside an
// assignment to the same local does not count: nvcc calls such a local
// "set but never used".
func readVars(body []ir.Stmt) map[string]bool {
	reads := map[string]bool{}
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		self := ""
		if a, ok := s.(*ir.Assign); ok {
			self = a.Name
		}
		for _, x := range ir.StmtExprs(s) {
			ir.WalkExpr(x, func(x ir.Expr) bool {
				if v, ok := x.(*ir.Var); ok && v.Name != self {
					reads[v.Name] = true
				}
				return true
			})
		}
		return true
	})
	return reads
}

// function emits the definition of g.
func (e *emitter) function(g *ir.Func) string {
	f := e.newFn(g)
	if e.checks && g.Kind != ir.HostFunc {
		f.plan = abi.PlanChecks(e.m, g)
		f.goOn = !e.world && !e.stopOnly && e.conv.GoOn(g)
		f.halts = f.goOn && e.conv.BarrierStops(g)
	}
	var prologue []string
	if g.Kind == ir.KernelFunc {
		prologue = f.sharedPrologue()
	}
	f.block(g.Body)
	if f.halts && !endsInJump(g.Body) {
		f.line("gpuc_fault_halt();")
	}
	var b strings.Builder
	if f.plan != nil {
		going := ""
		if f.goOn {
			going = ", going on"
		}
		fmt.Fprintf(&b, "// %s: %s%s\n", g.Name, f.plan, going)
	}
	fmt.Fprintf(&b, "%s {\n", e.signatureOf(g))
	for _, l := range append(f.temps, prologue...) {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	b.WriteString(f.b.String())
	b.WriteString("}\n")
	return b.String()
}

// signature spells g's C++ declaration: kernels and device functions take
// their IR parameters and then the buffers and module parameters they use,
// as package abi says.
//
// Buffers g only reads are const __restrict__: nothing writes them while
// it runs, so nvcc may use the read-only cache. Buffers g writes are
// __restrict__ too, unless g holds a barrier: then threads talk through
// them, and __restrict__ (LLVM's noalias) would let nvcc keep a value
// loaded before the barrier in a register after it, never seeing another
// thread's store. A device function does not know its callers: a buffer
// it only reads may be written by the kernel that calls it, across a grid
// barrier, so it is const __restrict__ only when no function writes it.
func (e *emitter) signature(g *ir.Func) string {
	restrict := " *__restrict__ "
	if ir.HasBarrier(g.Body, false) {
		restrict = " *"
	}
	var params []string
	for _, p := range g.Params {
		params = append(params, ctype(p.Type)+" "+e.n.c(p.Name))
	}
	for _, b := range e.conv.Buffers(g) {
		switch {
		case b.Space == ir.Shared:
			params = append(params, ctype(b.Elem)+" *"+e.n.c(b.Name))
		case e.conv.Writes(g, b):
			params = append(params, ctype(b.Elem)+restrict+e.n.c(b.Name))
		case g.Kind == ir.DeviceFunc && e.writtenAnywhere(b):
			params = append(params, "const "+ctype(b.Elem)+" *"+e.n.c(b.Name))
		default:
			params = append(params, "const "+ctype(b.Elem)+" *__restrict__ "+e.n.c(b.Name))
		}
	}
	for _, p := range e.conv.Params(g) {
		// With checks on, g receives the parameters of its buffers'
		// lengths, which its checks may all have been settled without.
		attr := ""
		if e.checks {
			attr = "[[maybe_unused]] "
		}
		params = append(params, attr+ctype(p.Type)+" "+e.n.c(p.Name))
	}
	if g.Kind == ir.KernelFunc && e.worldKernels[g.Name] {
		params = append(params, worldParams)
	}
	prefix := map[ir.FuncKind]string{ir.KernelFunc: "__global__ ", ir.DeviceFunc: "__device__ "}[g.Kind]
	if g.Kind == ir.DeviceFunc && outOfLine(g) {
		prefix += "GPUC_OUT_OF_LINE " // Note [Large device functions out of line]
	}
	bounds := ""
	if n := abi.MaxBlock(e.m, g.Name); g.Kind == ir.KernelFunc && n > 0 {
		// nvcc budgets registers for the blocks the program launches
		// (at the parameters' defaults), never so many that they cannot
		// run.
		bounds = fmt.Sprintf(" __launch_bounds__(%d)", n)
		if e.world {
			// Note [A world kernel's registers] in world.go.
			bounds = fmt.Sprintf(" __launch_bounds__(%d, GPUC_WORLD_MIN_BLOCKS(%d))", n, n)
		}
	}
	return fmt.Sprintf("%s%s%s %s(%s)", prefix, ctype(g.Result), bounds, e.n.c(g.Name), strings.Join(params, ", "))
}

// signatureOf is g's declaration: signature's, or kernelSig's for a
// kernel where it is set.
func (e *emitter) signatureOf(g *ir.Func) string {
	if e.kernelSig != nil && g.Kind == ir.KernelFunc {
		return e.kernelSig(g)
	}
	return e.signature(g)
}

// extraArgs spells the extra arguments of a call of the device function g:
// in device code, buffers and parameters go by their own names.
func (e *emitter) extraArgs(g *ir.Func) []string {
	var out []string
	for _, b := range e.conv.Buffers(g) {
		out = append(out, e.n.c(b.Name))
	}
	for _, p := range e.conv.Params(g) {
		out = append(out, e.n.c(p.Name))
	}
	return out
}

// sharedPrologue carves the kernel's shared buffers out of its dynamic
// shared memory and zeroes it, as the host sized it (see hostSharedSize).
func (f *fn) sharedPrologue() []string {
	bufs := f.e.conv.Shared(f.f)
	if len(bufs) == 0 {
		return nil
	}
	out := []string{
		"extern __shared__ __align__(16) unsigned char gpuc_smem[];",
		"size_t gpuc_off = 0;",
	}
	for _, b := range bufs {
		t := ctype(b.Elem)
		out = append(out, fmt.Sprintf("%s *const %s = gpuc_shared<%s>(gpuc_smem, &gpuc_off, %s);",
			t, f.e.n.c(b.Name), t, f.expr(b.Len).s))
	}
	return append(out, "gpuc_zero_shared(gpuc_smem, gpuc_off);")
}

// holdsBarrier reports whether g holds a block or grid barrier.
// writtenAnywhere reports whether some kernel or device function of the
// module stores to b.
func (e *emitter) writtenAnywhere(b *ir.Buffer) bool {
	for _, f := range e.m.Funcs {
		if f.Kind != ir.HostFunc && e.conv.Writes(f, b) {
			return true
		}
	}
	return false
}

// Note [Large device functions out of line]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// nvcc inlines every device function into each of its callers, and check
// placement (Note [Check placement] in backends/abi) versions a loop into a
// checked and an unchecked copy. A TRS program's step function (one case
// per rule, thousands of lines) was thereby compiled a dozen times over:
// ptxas alone took 444 s for REC's benchexpr20 and 102 s for tak36 on the
// GPU machine (nvcc --time, 2026-11-26), cicc 47 s and 36 s. A device
// function with more than outOfLineStmts statements is declared
// GPUC_OUT_OF_LINE, which is __noinline__ under nvcc and NVRTC and nothing
// for a host compiler (the host builds and the stub checks): it is
// compiled once, and a call costs a few instructions against the
// hundreds a call of such a function runs. GPUC_OUT_OF_LINE may be
// defined empty on nvcc's command line (-DGPUC_OUT_OF_LINE=) to inline
// everything, as before, for comparison. World programs take it too, and
// so does the one-device program a world program carries: both are built
// whole, as today's program is (Note [A world built whole] in world.go).
// Until 2026-11-27 world programs were built -rdc=true, where ptxas
// compiles such a function apart, with no register cap, and refuses a
// kernel whose __launch_bounds__ allow fewer registers than it uses (tree
// merge sort's trs_small: 128 against trs_step's 254, 2026-11-26), so
// there it was __forceinline__.
//
// The bound is 400 statements: a call out of line cost the
// transformation tree's kernels a third (trs_step of 343 statements:
// transtree 26's rewriting kernels 30.3 ms out of line against 22.6 ms
// inline, --checks=off, one H100, 2026-11-26 18:40), where tak36's (588),
// merge sort's (586), tree merge sort's (702) and REC benchexpr20's
// (3087) stay out of line for their build times.
const outOfLineStmts = 400

// outOfLineMacro defines GPUC_OUT_OF_LINE (Note [Large device functions
// out of line]) and GPUC_CHECKED_COPY, which precedes the checked copy of
// a versioned loop (Note [Check placement] in backends/abi): that copy
// runs only where a check may fail, so nvcc does not unroll it, and the
// registers of its unrolled body do not cost the whole kernel occupancy.
// -DGPUC_CHECKED_COPY= on nvcc's command line unrolls it as before. Both
// precede the functions' declarations.
const outOfLineMacro = `#ifndef GPUC_OUT_OF_LINE
#if defined(__CUDACC__) && !defined(GPUC_CUDA_STUB)
#define GPUC_OUT_OF_LINE __noinline__
#else
#define GPUC_OUT_OF_LINE
#endif
#endif
#ifndef GPUC_CHECKED_COPY
#if defined(__CUDACC__) && !defined(GPUC_CUDA_STUB)
#define GPUC_CHECKED_COPY _Pragma("unroll 1")
#else
#define GPUC_CHECKED_COPY
#endif
#endif
`

// outOfLine reports whether the device function g is large enough to stay
// out of line (Note [Large device functions out of line]).
func outOfLine(g *ir.Func) bool {
	n := 0
	ir.WalkStmts(g.Body, func(ir.Stmt) bool { n++; return n <= outOfLineStmts })
	return n > outOfLineStmts
}

// exitNotify tells the visible process of a detaching program that the
// output is whole, once the last report is printed: freeing memory and
// the driver's teardown after it are the child's alone (Note [Detached
// exit] in detach.h). A second call does nothing.
func (f *fn) exitNotify() {
	if f.e.detach {
		f.line("gpuc_exit_notify(0);")
	}
}
