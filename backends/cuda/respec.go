package cuda

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"gpuc/backends/abi"
	"gpuc/backends/runtime"
	"gpuc/internal/diag"
	"gpuc/ir"
	"gpuc/passes"
)

// Note [Run-time specialization]
//
// A program that `gpuc compile --pe-runtime` wrote can specialize its
// kernels again when it runs, on other static data: `./prog --static
// sigs=other.txt`. There is one specializer, the partial-eval pass, so the
// program carries the module as that pass received it (Respec.Before,
// printed) and, given --static, runs the gpuc binary on it (the GPUC
// environment variable, else gpuc beside the program, else on PATH):
// `gpuc compile --emit=nvrtc --static ...` writes the specialized kernels
// as CUDA C (EmitNVRTC), which NVRTC compiles to a cubin for the device.
// The cubin is cached on disk under a hash of the module, the data, the
// passes, the architecture and the versions of gpuc and NVRTC
// ($GPUC_CACHE, else $XDG_CACHE_HOME/gpuc or ~/.cache/gpuc), with that
// full key beside it, which a hit must match byte for byte, so a second
// run with the same data loads it at once.
// The program reports the time it took on stderr.
//
// The kernels it replaces are those that read a static buffer, directly
// or through device functions. Their run-time versions must not depend on
// what specialization folds away, so they take an ABI of their own:
// their IR parameters, then every global buffer that is not static, then
// every module parameter, in declaration order. Static buffers are
// initialized __constant__ arrays of the NVRTC module (so they must fit
// in 64 KiB), raises keep the numbers of the unspecialized module, whose
// messages are a superset of any specialization's, and the error word is
// the program's, reached through a pointer that the program sets. The
// program launches them through the driver API; without --static it runs
// the kernels that nvcc compiled.
//
// Not supported, and refused when the program is compiled: cooperative
// launches of such kernels, and host code that reads a static buffer
// (the host's copy would keep the old data).

//go:embed respec.h
var respecRuntime string

// Respec asks for a program that can specialize again at run time.
type Respec struct {
	// Before is the module as partial-eval received it.
	Before *ir.Module
	// Args are the gpuc arguments that specialize it again, before
	// --static: the passes from partial-eval on, and their options.
	Args []string
}

// respecPlan is what the emitter knows of a Respec.
type respecPlan struct {
	*Respec
	kernels map[string]bool // the kernels specialized again
	statics []string        // Before's static buffers
	conv    *abi.Conv       // Before's convention, for shared memory
}

// newRespecPlan checks that m's program can specialize again.
func newRespecPlan(r *Respec, m *ir.Module) (*respecPlan, error) {
	p := &respecPlan{Respec: r, kernels: respecKernels(r.Before), conv: abi.New(r.Before, true)}
	for _, b := range r.Before.Buffers {
		if b.Role == ir.Static {
			p.statics = append(p.statics, b.Name)
		}
	}
	var errs diag.List
	for _, f := range m.Funcs {
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if l, ok := s.(*ir.Launch); ok && l.Coop && p.kernels[l.Kernel] {
				errs.Add(l.Pos, "cuda: --pe-runtime: kernel %s reads static data and is launched cooperatively; run-time specialization launches plainly (lower with --grid-sync=never)", l.Kernel)
			}
			return true
		})
	}
	readers := passes.StaticReaders(r.Before)
	for _, f := range r.Before.Funcs {
		if f.Kind == ir.HostFunc && readers[f.Name] {
			errs.Add(f.Pos, "cuda: --pe-runtime: host function %s reads a static buffer, whose host copy could not change at run time", f.Name)
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return p, nil
}

// respecKernels names the kernels of m that read a static buffer, in
// their bodies or through the device functions they call.
func respecKernels(m *ir.Module) map[string]bool {
	out := map[string]bool{}
	for name := range passes.StaticReaders(m) {
		if f := m.Func(name); f.Kind == ir.KernelFunc {
			out[name] = true
		}
	}
	return out
}

// fullABI lists what a run-time kernel takes after its own parameters:
// Before's global buffers that are not static, then its parameters.
func fullABI(before *ir.Module) ([]*ir.Buffer, []*ir.Param) {
	var bufs []*ir.Buffer
	for _, b := range before.Buffers {
		if b.Space.IsDevice() && b.Role != ir.Static {
			bufs = append(bufs, b)
		}
	}
	return bufs, before.Params
}

// respecGlobals declares what the program's run-time specialization
// needs: the module, the static buffers' names, gpuc's arguments and a
// handle per kernel.
func (e *emitter) respecGlobals(b *strings.Builder) {
	if e.rt == nil {
		return
	}
	b.WriteString("\n// Run-time specialization (Note [Run-time specialization] in backends/cuda):\n// the module as partial-eval received it, and what gpuc needs to specialize it again.\n")
	b.WriteString("static const char gpuc_rt_module[] =")
	for _, l := range strings.SplitAfter(ir.Print(e.rt.Before), "\n") {
		if l != "" {
			b.WriteString("\n    " + cstring(l))
		}
	}
	b.WriteString(";\n")
	fmt.Fprintf(b, "static const char *const gpuc_rt_statics[] = {%s};\n", cstrings(e.rt.statics))
	fmt.Fprintf(b, "static const char *const gpuc_rt_args[] = {%s};\n", cstrings(e.rt.Args))
	names := e.rt.kernelNames()
	var syms []string
	for _, k := range names {
		syms = append(syms, cstring(respecSymbol(k)))
	}
	fmt.Fprintf(b, "static const char *const gpuc_rt_kernel_names[] = {%s};\n", strings.Join(syms, ", "))
	fmt.Fprintf(b, "static CUfunction gpuc_rt_kernels[%d];\n", len(names))
}

func (p *respecPlan) kernelNames() []string {
	var out []string
	for k := range p.kernels {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func respecSymbol(kernel string) string { return "gpuc_rt_" + kernel }

func cstrings(ss []string) string {
	var q []string
	for _, s := range ss {
		q = append(q, cstring(s))
	}
	return strings.Join(q, ", ")
}

// respecArgs has main take --static from the command line, before the
// other arguments are read.
func (e *emitter) respecArgs(f *fn) {
	if e.rt != nil {
		f.line("gpuc_rt_take_args(&argc, argv, gpuc_rt_statics, %d, %s);", len(e.rt.statics), cstring(e.m.Name))
	}
}

// respecStart has main specialize again, when --static was given.
func (e *emitter) respecStart(f *fn) {
	if e.rt == nil {
		return
	}
	word, values := "nullptr", "nullptr"
	if len(e.raiseMsgs) > 0 {
		f.line("void *gpuc_rt_error_word = nullptr;")
		f.line("GPUC_CUDA(cudaGetSymbolAddress(&gpuc_rt_error_word, gpuc_error));")
		word = "gpuc_rt_error_word"
	}
	if len(e.raiseMsgs) > e.nRaise {
		f.line("void *gpuc_rt_error_values = nullptr;")
		f.line("GPUC_CUDA(cudaGetSymbolAddress(&gpuc_rt_error_values, gpuc_error_values));")
		values = "gpuc_rt_error_values"
	}
	f.line("gpuc_rt_specialize(%s, gpuc_rt_module, gpuc_rt_args, %d, gpuc_rt_kernel_names, gpuc_rt_kernels, %d, %s, %s);",
		cstring(e.m.Name), len(e.rt.Args), len(e.rt.kernels), word, values)
}

// respecLaunch launches kernel k: its run-time version where there is
// one, else the one nvcc compiled (emitted by plain).
func (e *emitter) respecLaunch(f *fn, k *ir.Func, args []cx, plain func()) {
	i := sort.SearchStrings(e.rt.kernelNames(), k.Name)
	f.line("if (gpuc_rt_kernels[%d] != nullptr) {", i)
	f.indent++
	ptrs := []string{}
	for j, a := range args {
		f.line("%s gpuc_a%d = %s;", ctype(k.Params[j].Type), j, a.s)
		ptrs = append(ptrs, fmt.Sprintf("&gpuc_a%d", j))
	}
	bufs, params := fullABI(e.rt.Before)
	for _, b := range bufs {
		ptrs = append(ptrs, "&"+e.hostBuf(b)+".ptr")
	}
	for _, p := range params {
		ptrs = append(ptrs, "&"+e.n.c(p.Name))
	}
	argv := "nullptr"
	if len(ptrs) > 0 {
		f.line("void *gpuc_args[] = {%s};", strings.Join(ptrs, ", "))
		argv = "gpuc_args"
	}
	f.line("gpuc_rt_launch(gpuc_rt_kernels[%d], gpuc_grid, gpuc_block, %s, %s);", i, e.respecShared(k), argv)
	f.indent--
	f.line("} else {")
	f.indent++
	plain()
	f.indent--
	f.line("}")
}

// respecShared spells the dynamic shared memory of k's run-time version:
// what the unspecialized kernel carves, at least what any specialization
// does.
func (e *emitter) respecShared(k *ir.Func) string {
	before := e.rt.Before.Func(k.Name)
	var parts []string
	for _, b := range e.rt.conv.Shared(before) {
		parts = append(parts, fmt.Sprintf("gpuc_align16((size_t)gpuc_len_%s * sizeof(%s))", e.n.c(b.Name), ctype(b.Elem)))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, " + ")
}

// EmitNVRTC writes the kernels of spec that a --pe-runtime program
// replaces, as CUDA C for NVRTC (Note [Run-time specialization]): spec is
// before, specialized on the data given at run time.
func EmitNVRTC(spec, before *ir.Module, checks bool) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("cuda: internal error emitting NVRTC source for %s: %v", spec.Name, r)
		}
	}()
	if errs := abi.SPMDConstructs(spec, "cuda"); len(errs) > 0 {
		return nil, errs
	}
	if err := constantStatics(spec); err != nil {
		return nil, err
	}
	e := newEmitter(spec, runtimeAPI{}, checks)
	e.stopOnly = true // a trap would lose the error word, which only the device holds here
	e.number(before)
	kernels := respecKernels(before)
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by gpuc from module %s for NVRTC: the kernels that read\n// static data, specialized on it. DO NOT EDIT.\n\n", spec.Name)
	b.WriteString(nvrtcPrelude())
	if len(e.raiseMsgs) > 0 {
		b.WriteString(nvrtcRaise)
	}
	if len(e.raiseMsgs) > e.nRaise {
		b.WriteString(nvrtcFault + checkHelpers)
	}
	for _, buf := range spec.Buffers {
		if buf.Role == ir.Static {
			vals := make([]string, len(buf.Init))
			for i, v := range buf.Init {
				vals[i] = constant(buf.Elem, v).s
			}
			fmt.Fprintf(&b, "__constant__ %s %s[%d] = {%s};\n", ctype(buf.Elem), e.n.c(buf.Name), max(1, len(vals)), ir.WrapList(vals, "    "))
		}
	}
	funcs := reachable(spec, kernels)
	bufs, params := fullABI(before)
	e.kernelSig = func(g *ir.Func) string { return e.fullSignature(g, bufs, params) }
	b.WriteString("\n" + outOfLineMacro)
	for _, g := range funcs {
		fmt.Fprintf(&b, "%s;\n", e.signatureOf(g))
	}
	for _, g := range funcs {
		b.WriteString("\n" + e.function(g))
	}
	if len(e.errs) > 0 {
		e.errs.Sort()
		return nil, e.errs
	}
	return []byte(b.String()), nil
}

// constantStatics puts the static buffers of m in constant memory, where
// the NVRTC module holds them.
func constantStatics(m *ir.Module) error {
	total := 0
	for _, b := range m.Buffers {
		if b.Role == ir.Static || b.Space == ir.Constant {
			total += len(b.Init) * b.Elem.Size()
		}
		if b.Role == ir.Static {
			b.Space = ir.Constant
		}
	}
	if total > ir.MaxConstantMemory {
		return fmt.Errorf("cuda: run-time specialization holds static data in constant memory, but %s's takes %d bytes, more than 64 KiB", m.Name, total)
	}
	return nil
}

// reachable lists the kernels of spec in names and the device functions
// they call, in module order.
func reachable(spec *ir.Module, names map[string]bool) []*ir.Func {
	want := map[string]bool{}
	for k := range names {
		want[k] = true
	}
	for changed := true; changed; {
		changed = false
		for _, f := range spec.Funcs {
			if !want[f.Name] {
				continue
			}
			ir.WalkAllExprs(f.Body, func(x ir.Expr) bool {
				if c, ok := x.(*ir.Call); ok && !want[c.Func] {
					want[c.Func], changed = true, true
				}
				return true
			})
		}
	}
	var out []*ir.Func
	for _, f := range spec.Funcs {
		if want[f.Name] && f.Kind != ir.HostFunc {
			out = append(out, f)
		}
	}
	return out
}

// fullSignature is the declaration of a run-time kernel.
func (e *emitter) fullSignature(g *ir.Func, bufs []*ir.Buffer, params []*ir.Param) string {
	var ps []string
	for _, p := range g.Params {
		ps = append(ps, ctype(p.Type)+" "+e.n.c(p.Name))
	}
	for _, b := range bufs {
		if e.conv.Writes(g, e.m.Buffer(b.Name)) {
			ps = append(ps, ctype(b.Elem)+" *"+e.n.c(b.Name))
		} else {
			ps = append(ps, "const "+ctype(b.Elem)+" *__restrict__ "+e.n.c(b.Name))
		}
	}
	for _, p := range params {
		ps = append(ps, ctype(p.Type)+" "+e.n.c(p.Name))
	}
	return fmt.Sprintf("extern \"C\" __global__ void %s(%s)", respecSymbol(g.Name), strings.Join(ps, ", "))
}

// nvrtcShim stands in for the C library headers that NVRTC lacks: what
// the scalar helpers of gpuc_runtime.h use.
const nvrtcShim = `#define GPUC_HD __host__ __device__
typedef decltype(sizeof(0)) size_t;
#define INT_MIN (-2147483647 - 1)
#define INT_MAX 2147483647
#define UINT_MAX 4294967295u
#define LLONG_MIN (-9223372036854775807LL - 1)
#define LLONG_MAX 9223372036854775807LL
#define ULLONG_MAX 18446744073709551615ULL
GPUC_HD inline void *gpuc_nvrtc_memcpy(void *dst, const void *src, size_t n) {
  for (size_t i = 0; i < n; i++) ((unsigned char *)dst)[i] = ((const unsigned char *)src)[i];
  return dst;
}
#define memcpy gpuc_nvrtc_memcpy
`

// nvrtcRaise records a raise in the program's error word.
const nvrtcRaise = `
// The program's error word, which it points this at.
__device__ int *gpuc_error_at;
[[noreturn]] __device__ inline void gpuc_device_raise(int id) {
  atomicCAS(gpuc_error_at, 0, id);
  asm volatile("exit;");
  __builtin_unreachable();
}
`

// nvrtcFault records a failed check in the program's error word and
// fault values (Note [Checks] in backends/abi).
const nvrtcFault = `
__device__ long long *gpuc_error_values_at;
__device__ int gpuc_checks = 1;
__device__ inline void gpuc_device_record(int id, long long a, long long b) {
  if (atomicCAS(gpuc_error_at, 0, id) == 0) {
    gpuc_error_values_at[0] = a;
    gpuc_error_values_at[1] = b;
  }
}
[[noreturn]] __device__ __attribute__((noinline)) void gpuc_device_fault(int id, long long a, long long b) {
  gpuc_device_record(id, a, b);
  gpuc_device_raise(id);
}
`

// nvrtcPrelude is the device side of the runtime for NVRTC: the scalar
// helpers of gpuc_runtime.h and the shared-memory helpers of prelude.cuh,
// cut out of them, after the shim.
func nvrtcPrelude() string {
	return nvrtcShim + "\n" +
		section(runtime.Header, "// ---- Scalar semantics ----", "// ---- Host arrays ----") +
		section(runtime.Header, "// gpuc_align16 rounds", "// ---- Types of values") +
		section(prelude, "// Shared memory: each kernel carves", "")
}

// section returns text from the line that starts with from up to the line
// that starts with to (to the end if to is ""). The markers are the
// headers' own comments; a missing one is a bug, which TestNVRTCPrelude
// catches.
func section(text, from, to string) string {
	i := strings.Index(text, from)
	if i < 0 {
		panic("runtime section " + from + " not found")
	}
	rest := text[i:]
	if to == "" {
		return rest
	}
	j := strings.Index(rest, to)
	if j < 0 {
		panic("runtime section end " + to + " not found")
	}
	return rest[:j]
}
