// Package cuda writes gpuc's C++ programs for a module at the launch
// level: the CUDA backend's self-contained .cu file, kernels and a host
// main, and the host programs that run the LLVM backend's kernels, through
// the CUDA driver API or on the CPU. One host emitter (host.go) serves the
// three; what depends on where the kernels run is a device (device.go).
//
// The program it writes behaves as `gpuc run` does on the same module:
// the same command line (NAME=VALUE, BUF=FILE, BUF=@FILE, plus --time
// and --stats=FILE),
// the same bytes on standard output, and "error: MSG" with exit status 1
// for every error, raised or not; a failed check of an index or a divisor
// is the interpreter's positioned error (Note [Checks] in package abi). How C++ is made to follow the IR's
// semantics (wrapping arithmetic, saturating conversions, left-to-right
// evaluation) is told where it is done: backends/runtime/gpuc_runtime.h
// for scalars, expr.go for evaluation order, backends/runtime/gpuc_device.h
// for memory. Kernels and host agree on arguments as package abi says.
//
// Where the GPU leaves behaviour open the outputs may still differ: data
// races and the order of float atomics, out-of-range indexing and integer
// division by zero in device code with the checks off, and, when one
// launch raises or faults several times, which one is reported (the first
// to reach the device's error word).
//
// It is not an optimiser: kernels keep the IR's structure, and nvcc does
// the rest. Nor does it lower SPMD constructs (regions, grid barriers,
// splits, forks, priority stores, multiprefix atomics); the passes do, and
// Emit rejects a module that still holds them.
package cuda

import (
	"fmt"
	"strings"

	"gpuc/backends/abi"
	"gpuc/internal/diag"
	"gpuc/ir"
)

// Options controls code generation.
type Options struct {
	// Device says where the kernels run; the zero value is the CUDA
	// backend's own .cu program.
	Device Device
	// PTX is the text of the kernels, which a DriverAPI program embeds.
	PTX []byte
	// Respec, if set, has a RuntimeAPI program specialize the kernels
	// that read static data again at run time (Note [Run-time
	// specialization]).
	Respec *Respec
	// NoChecks leaves out the device code's checks of indices and
	// divisors (Note [Checks] in package abi): `gpuc compile --checks=off`.
	NoChecks bool
	// One, if set, is the one-device program that a world program (the
	// module has DEVICES) runs when DEVICES=1: a module at the launch
	// level without DEVICES (Note [A world of one runs the one-device
	// program]). Only the CUDA backend's own program takes it.
	One *ir.Module
}

// Device is where a program's kernels run, as its host side sees them.
type Device uint8

const (
	// RuntimeAPI: the kernels are CUDA C in the same .cu file, launched
	// through the CUDA runtime API. This is the CUDA backend's program.
	RuntimeAPI Device = iota
	// DriverAPI: the kernels are the LLVM backend's PTX, embedded in the
	// program, loaded and launched through the CUDA driver API.
	DriverAPI
	// CPU: the kernels are the LLVM backend's --target=host module, whose
	// functions the program calls, each running every block and thread.
	CPU
	// Hybrid: both of the last two, each launch running on the side that
	// holds the data (Note [Hybrid migration] in hybrid.h).
	Hybrid
)

// Emit writes the program for m, which must be at the launch level and
// have passed ir.Verify. Errors are positioned, as a diag.List.
func Emit(m *ir.Module, opts Options) (out []byte, err error) {
	if m == nil {
		return nil, fmt.Errorf("cuda: nil module")
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("cuda: internal error emitting module %s: %v", m.Name, r)
		}
	}()
	if errs := abi.SPMDConstructs(m, "cuda"); len(errs) > 0 {
		return nil, errs
	}
	dev, err := newDevice(opts)
	if err != nil {
		return nil, err
	}
	e := newEmitter(m, dev, !opts.NoChecks)
	if e.world && opts.Respec != nil {
		return nil, fmt.Errorf("cuda: run-time specialization of module %s, which runs on a world of devices, is not supported", m.Name)
	}
	switch {
	case e.threads:
		if errs := abi.ThreadWorldConstructs(m, "cuda"); len(errs) > 0 {
			return nil, errs
		}
	case opts.Device != RuntimeAPI:
		// The LLVM backend's programs run on one device, but for the
		// CPU's world on threads.
		if errs := abi.WorldConstructs(m, "llvm"); len(errs) > 0 {
			return nil, errs
		}
	}
	if opts.Respec != nil {
		if opts.Device != RuntimeAPI {
			return nil, fmt.Errorf("cuda: run-time specialization needs the CUDA backend's own program")
		}
		if e.rt, err = newRespecPlan(opts.Respec, m); err != nil {
			return nil, err
		}
		e.number(opts.Respec.Before, m)
	}
	var text string
	if opts.One != nil {
		if text, err = e.moduleWithOne(opts.One, opts); err != nil {
			return nil, err
		}
	} else {
		text = e.module()
	}
	if len(e.errs) > 0 {
		e.errs.Sort()
		return nil, e.errs
	}
	return []byte(text), nil
}

// emitter holds what the functions of one module share.
type emitter struct {
	m         *ir.Module
	dev       device
	n         *namer
	conv      *abi.Conv
	raiseIDs  map[string]int  // messages raised in device code, see abi.Raises
	raiseMsgs []string        // the raises' messages, then the faults' formats
	nRaise    int             // how many of raiseMsgs are raises
	checks    bool            // device code checks indices and divisors
	faultIDs  map[string]int  // the checks' formats, see abi.Faults
	effectful map[string]bool // functions whose calls have effects
	errs      diag.List
	rt        *respecPlan           // run-time specialization, if asked for
	stopOnly  bool                  // no check goes on (Note [Going on after a fault] in package abi)
	kernelSig func(*ir.Func) string // kernels' declarations, if not signature's
	// world: the module runs on a world of devices (Note [World on
	// NVSHMEM]); worldKernels are the kernels that world launches run.
	world        bool
	worldKernels map[string]bool
	blockOf      map[string]string // distributed buffers' block constants (Note [One block constant a length])
	// threads: the module runs on a world of devices that are the CPU
	// program's worker threads (Note [World on threads] in package abi).
	threads bool
	// detach: main may run in a child of the visible process (Note
	// [Detached exit] in detach.h); a world's parent supervises its
	// processes itself.
	detach bool
}

func newEmitter(m *ir.Module, dev device, checks bool) *emitter {
	e := &emitter{m: m, dev: dev, n: newNamer(m), conv: abi.New(m, checks), effectful: effectful(m), checks: checks}
	if _, ok := dev.(runtimeAPI); ok && UsesWorld(m) {
		e.world, e.worldKernels = true, worldKernels(m)
	}
	if _, ok := dev.(cpu); ok && UsesWorld(m) {
		e.threads = true
	}
	if _, ok := dev.(detacher); ok && !e.world {
		e.detach = true
	}
	e.number(m)
	return e
}

// number numbers the raises and, with checks, the faults of src: m, or
// the module before run-time specialization, whose numbers every
// specialization keeps (and then m's, for checks that lowering made).
func (e *emitter) number(src *ir.Module, more ...*ir.Module) {
	e.raiseIDs, e.raiseMsgs = abi.Raises(src)
	e.nRaise = len(e.raiseMsgs)
	e.faultIDs = map[string]int{}
	if e.checks {
		var fmts []string
		e.faultIDs, fmts = abi.Faults(src, e.nRaise+1, more...)
		e.raiseMsgs = append(e.raiseMsgs, fmts...)
	}
}

// faultID is the number of a fault's format; one that numbering missed
// (a specialization's check that the module before it lacks) is an
// error, never a silent fault without a message.
func (f *fn) faultID(pos ir.Pos, format string) int {
	id, ok := f.e.faultIDs[format]
	if !ok {
		f.errorf(pos, "internal error: check %q has no number", format)
	}
	return id
}

func (e *emitter) errorf(pos ir.Pos, format string, args ...any) {
	e.errs.Add(pos, "cuda: "+format, args...)
}

// module writes the whole program: the device's head (build notes, the
// runtime, the device's prelude), the module's globals, its functions and
// main.
func (e *emitter) module() string {
	return e.dev.head(e) + e.body("main")
}

// body writes what follows the head: the module's globals, its functions
// and the host's entry point, named main.
func (e *emitter) body(main string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n// ---- Module %s ----\n", e.m.Name)
	e.globals(&b)
	e.dev.raiseSupport(e, &b)
	e.respecGlobals(&b)
	funcs := e.dev.code(e, &b)
	b.WriteString("\n// Functions.\n")
	b.WriteString(outOfLineMacro)
	for _, f := range funcs {
		fmt.Fprintf(&b, "%s;\n", e.signature(f))
	}
	for _, f := range funcs {
		b.WriteString("\n")
		b.WriteString(e.function(f))
	}
	b.WriteString(e.fitParams())
	b.WriteString("\n")
	b.WriteString(e.hostMain(main))
	return b.String()
}

// hostBuf names the host's descriptor (a gpuc_dev) of a global or
// constant buffer. A constant buffer's own name is its __constant__
// symbol, which device code reads directly.
func (e *emitter) hostBuf(b *ir.Buffer) string {
	if b.Space == ir.Constant {
		return "gpuc_c_" + e.n.c(b.Name)
	}
	return e.n.c(b.Name)
}

// globals declares the parameters, buffers, arrays and static contents.
func (e *emitter) globals(b *strings.Builder) {
	if len(e.m.Params) > 0 {
		b.WriteString("\n// Parameters; NAME=VALUE on the command line sets them.\n")
	}
	for _, p := range e.m.Params {
		fmt.Fprintf(b, "static %s %s = %s;\n", ctype(p.Type), e.n.c(p.Name), constant(p.Type, ir.IntBits(p.Type, p.Default)).s)
	}
	if len(e.m.Buffers) > 0 {
		b.WriteString("\n// Buffers: device memory as the host sees it, and shared buffers' lengths.\n")
	}
	for _, buf := range e.m.Buffers {
		e.bufferDecl(b, buf)
	}
	if len(e.m.Arrays) > 0 {
		b.WriteString("\n// Host arrays.\n")
	}
	for _, a := range e.m.Arrays {
		fmt.Fprintf(b, "static gpuc_array<%s> %s = {nullptr, 0, %s};\n", ctype(a.Elem), e.n.c(a.Name), cstring(a.Name))
	}
	e.worldDecls(b)
	for _, k := range e.m.Funcs {
		if k.Kind == ir.KernelFunc && len(e.conv.Shared(k)) > 0 {
			fmt.Fprintf(b, "static size_t %s; // dynamic shared memory of kernel %s\n", smemVar(e, k), k.Name)
		}
	}
}

func (e *emitter) bufferDecl(b *strings.Builder, buf *ir.Buffer) {
	name, t := e.n.c(buf.Name), ctype(buf.Elem)
	switch buf.Space {
	case ir.Shared:
		fmt.Fprintf(b, "static long long gpuc_len_%s; // shared, one per block\n", name)
		return
	case ir.Constant:
		b.WriteString(e.dev.constant(e, buf))
	}
	fmt.Fprintf(b, "static gpuc_dev<%s> %s = {nullptr, 0, %s};\n", t, e.hostBuf(buf), cstring(buf.Name))
	if buf.Role == ir.Static && len(buf.Init) > 0 {
		vals := make([]string, len(buf.Init))
		for i, v := range buf.Init {
			vals[i] = constant(buf.Elem, v).s
		}
		fmt.Fprintf(b, "static const %s gpuc_init_%s[] = {%s};\n", t, name, ir.WrapList(vals, "    "))
	}
}

// constLength spells the length of a constant buffer, which the verifier
// keeps constant, as a C++ constant expression (the runtime's arithmetic
// helpers are constexpr). An empty buffer still needs one element.
func (e *emitter) constLength(buf *ir.Buffer) string {
	f := &fn{e: e, f: &ir.Func{Name: buf.Name, Kind: ir.DeviceFunc}}
	return "gpuc_max(1LL, (long long)" + operand(f.expr(buf.Len)) + ")"
}

func smemVar(e *emitter, k *ir.Func) string { return "gpuc_smem_" + e.n.c(k.Name) }
