package cuda

import (
	_ "embed"
	"fmt"
	"strings"

	"gpuc/backends/abi"
	"gpuc/backends/runtime"
	"gpuc/ir"
)

// The LLVM backend's devices: the CUDA driver API and the CPU. Their
// programs hold only the host side; the kernels are the LLVM backend's,
// reached by the symbols of package abi. Both reach device memory
// through the primitives of gpuc_device.h and share what follows.

//go:embed driver.h
var driverPrelude string

//go:embed cpu.h
var cpuPrelude string

//go:embed hybrid.h
var hybridPrelude string

//go:embed hybrid_rule.h
var hybridRule string

//go:embed hybrid_cuda.h
var hybridCUDA string

//go:embed detach.h
var detachPrelude string

//go:embed driver_decls.h
var driverDecls string

// portable holds what the driver API and CPU devices share.
type portable struct{}

// setup allocates a global buffer or finds a constant one, the LLVM
// module's global, and fills it. Module globals start zeroed, and so do
// allocations where zeroed says so.
func (portable) setup(f *fn, b *ir.Buffer, find string, zeroed bool) {
	h, name, t := f.e.hostBuf(b), f.e.n.c(b.Name), ctype(b.Elem)
	if b.Space == ir.Constant {
		f.line("%s.ptr = %s;", h, find)
	} else {
		f.line("%s.ptr = (%s *)gpuc_device_alloc(gpuc_alloc_size(%s.bytes()));", h, t, h)
	}
	switch {
	case b.Role == ir.Input:
		f.line("gpuc_to_device(%s.ptr, gpuc_in_%s, %s.bytes());", h, name, h)
	case b.Role == ir.Static && len(b.Init) > 0:
		f.line("gpuc_to_device(%s.ptr, gpuc_init_%s, sizeof gpuc_init_%s);", h, name, name)
	case b.Role != ir.Static && b.Space.IsDevice() && !zeroed:
		f.line("gpuc_device_zero(%s.ptr, %s.bytes());", h, h)
	}
}

// raiseSupport defines the check of the error word, which read reads into
// the int id. Where device code checks (Note [Checks] in backends/abi),
// faults declares the fault's values and the checks word, values reads
// the values into long long gpuc_v[2], and off clears the checks word.
func (portable) raiseSupport(e *emitter, b *strings.Builder, decl, read, faults, values, off string) {
	if len(e.raiseMsgs) == 0 {
		b.WriteString("\n// No device code raises.\nstatic void gpuc_check_device_error(void) {}\n")
		return
	}
	msgs, n := raiseMessages(e)
	fmt.Fprintf(b, `
// Errors raised in device code: the kernels' error word holds the number
// of the first one; the messages by number.
%s
static const char *const gpuc_raise_msgs[] = {%s};
`, decl, msgs)
	v := "nullptr"
	if len(e.raiseMsgs) > e.nRaise {
		v = "gpuc_v"
		fmt.Fprintf(b, `
// Checks (Note [Checks] in backends/abi): the values of a failed one, and
// the word that CHECKS=0 clears.
%s
static void gpuc_device_checks_off(void) {
  %s;
}
`, faults, off)
		read += ";\n  long long gpuc_v[2] = {0, 0};\n  if (id > 0) " + values
	}
	b.WriteString(raisedFunc(e, n))
	fmt.Fprintf(b, `
static void gpuc_check_device_error(void) {
  if (!gpuc_device_ran) return;
  gpuc_device_ran = false;
  int id = 0;
  %s;
  gpuc_raised(id, %s);
}

// gpuc_report_device_error is the fail hook: an error raised on the device
// came first.
static void gpuc_report_device_error(void) { gpuc_check_device_error(); }
`, read, v)
}

func (portable) stop(f *fn) { f.line("const double gpuc_ms = gpuc_clock_stop();") }

func (portable) release(f *fn) {
	f.line("if (gpuc_time) gpuc_report_time(gpuc_ms);")
	f.exitNotify()
	for _, b := range f.e.m.Buffers {
		if b.Space.IsDevice() {
			f.line("gpuc_device_free(%s.ptr);", f.e.hostBuf(b))
		}
	}
}

// driverAPI runs the LLVM backend's PTX, embedded in the program, through
// the CUDA driver API.
type driverAPI struct {
	portable
	ptx []byte
	// handles prefixes the kernels' handles; "" is package abi's kernel
	// prefix, which a hybrid program's CPU kernels have (hybrid.go).
	handles string
}

// handle names the CUfunction of kernel k.
func (d driverAPI) handle(k *ir.Func) string {
	if d.handles == "" {
		return abi.KernelPrefix + k.Name
	}
	return d.handles + k.Name
}

func (d driverAPI) head(e *emitter) string {
	name := e.m.Name
	return banner(e.m, fmt.Sprintf("nvcc -O3 -o %s %s.cpp -lcuda", name, name),
		fmt.Sprintf("(or g++ -O2 -I$CUDA_HOME/include -o %s %s.cpp -lcuda)", name, name)) +
		"#include <cuda.h>\n\n" + runtime.Header + "\n" + detachPrelude + "\n" + driverPrelude + "\n" + runtime.Device
}

func (driverAPI) constant(*emitter, *ir.Buffer) string { return "" }

func (d driverAPI) raiseSupport(e *emitter, b *strings.Builder) {
	d.portable.raiseSupport(e, b, "static void *gpuc_error_word;",
		"if (gpuc_error_word != nullptr) gpuc_to_host(&id, gpuc_error_word, sizeof id)",
		"static void *gpuc_error_values_word;",
		"gpuc_to_host(gpuc_v, gpuc_error_values_word, sizeof gpuc_v)",
		fmt.Sprintf("const int off = 0;\n  gpuc_to_device(gpuc_device_global(%s, sizeof off), &off, sizeof off)", cstring(abi.ChecksWord)))
}

// code embeds the PTX and declares a handle for each kernel.
func (d driverAPI) code(e *emitter, b *strings.Builder) []*ir.Func {
	b.WriteString("\n// The kernels: PTX from the LLVM backend, and their handles.\n")
	b.WriteString("static const char gpuc_ptx[] =")
	for _, l := range strings.SplitAfter(string(d.ptx), "\n") {
		if l != "" {
			b.WriteString("\n    " + cstring(l))
		}
	}
	b.WriteString(";\n")
	for _, k := range kernels(e.m) {
		fmt.Fprintf(b, "static CUfunction %s;\n", d.handle(k))
	}
	return hostFuncs(e.m)
}

func (driverAPI) start(f *fn) {
	f.line("gpuc_device_start(gpuc_ptx);")
	for _, k := range kernels(f.e.m) {
		sym := abi.KernelPrefix + k.Name
		f.line("GPUC_CU(cuModuleGetFunction(&%s, gpuc_module, %s));", sym, cstring(sym))
	}
	if len(f.e.raiseMsgs) > 0 {
		f.line("gpuc_error_word = gpuc_device_global(%s, sizeof(int));", cstring(abi.ErrorWord))
	}
	if len(f.e.raiseMsgs) > f.e.nRaise {
		f.line("gpuc_error_values_word = gpuc_device_global(%s, 2 * sizeof(long long));", cstring(abi.FaultValues))
	}
	f.line("gpuc_clock_start();")
}

func (d driverAPI) setup(f *fn, b *ir.Buffer) {
	d.portable.setup(f, b, fmt.Sprintf("(%s *)gpuc_device_global(%s, %s.bytes())",
		ctype(b.Elem), cstring(abi.ConstantPrefix+b.Name), f.e.hostBuf(b)), false)
}

// launch passes the arguments by address, as cuLaunchKernel wants: the
// kernel's own through typed locals, then the buffers' device addresses
// and the parameters.
func (d driverAPI) launch(f *fn, k *ir.Func, args []cx, smem, pos string) {
	sym := d.handle(k)
	f.line("if (gpuc_launchable(%s, %s, %s, gpuc_grid, gpuc_block, %s)) {", sym, cstring(k.Name), pos, smem)
	f.indent++
	var ptrs []string
	for i, a := range args {
		f.line("%s gpuc_a%d = %s;", ctype(k.Params[i].Type), i, a.s)
		ptrs = append(ptrs, fmt.Sprintf("&gpuc_a%d", i))
	}
	for _, a := range f.e.launchArgs(k) {
		ptrs = append(ptrs, "&"+a)
	}
	argv := "nullptr"
	if len(ptrs) > 0 {
		f.line("void *gpuc_args[] = {%s};", strings.Join(ptrs, ", "))
		argv = "gpuc_args"
	}
	f.line("GPUC_CU(cuLaunchKernel(%s, (unsigned)gpuc_grid, 1, 1, (unsigned)gpuc_block, 1, 1, (unsigned)%s, nullptr, %s, nullptr));",
		sym, smem, argv)
	f.line("gpuc_device_ran = true;")
	f.indent--
	f.line("}")
}

func (driverAPI) sync(f *fn) { f.line("GPUC_CU(cuCtxSynchronize());") }

// cpu calls the LLVM backend's --target=host kernels, each a C function
// that runs every block and thread of a launch.
type cpu struct{ portable }

func (cpu) head(e *emitter) string {
	name := e.m.Name
	return banner(e.m, fmt.Sprintf("clang-16 -O2 -c %s.ll -o %s.o   (gpuc compile --emit=llvm --target=host)", name, name),
		fmt.Sprintf("clang++-16 -O2 -o %s %s.cpp %s.o   (or g++)", name, name, name)) +
		runtime.Header + "\n" + cpuPrelude + "\n" + hybridRule + "\n" + hybridPrelude + "\n" + runtime.Device
}

// constant declares the LLVM module's global that holds a constant buffer.
func (cpu) constant(e *emitter, b *ir.Buffer) string {
	return fmt.Sprintf("extern \"C\" %s %s[];\n", ctype(b.Elem), abi.ConstantPrefix+b.Name)
}

// raiseSupport reads the message of the last launch's first raise, which
// the worker pool keeps (cpu.h).
func (c cpu) raiseSupport(e *emitter, b *strings.Builder) {
	c.portable.raiseSupport(e, b, "", "id = gpuc_cpu_raised",
		fmt.Sprintf("extern \"C\" int %s;", abi.ChecksWord),
		"memcpy(gpuc_v, gpuc_cpu_values, sizeof gpuc_v)",
		abi.ChecksWord+" = 0")
}

// code declares the kernels' error word, thread-local, and each kernel's
// function: the launch geometry, the worker's shared area and the range
// of blocks, then the arguments that package abi lists (Note [Blocks
// across cores] in backends/llvm/kernel.go).
func (cpu) code(e *emitter, b *strings.Builder) []*ir.Func {
	fmt.Fprintf(b, "\n// The kernels' error word: each worker's own.\nextern \"C\" __thread int %s;\n", abi.ErrorWord)
	values := "  (void)vals;\n"
	if len(e.raiseMsgs) > e.nRaise { // checks: a fault's values, the worker's own too
		fmt.Fprintf(b, "extern \"C\" __thread long long %s[2];\n", abi.FaultValues)
		values = fmt.Sprintf("  vals[0] = %s[0];\n  vals[1] = %s[1];\n", abi.FaultValues, abi.FaultValues)
	}
	fmt.Fprintf(b, "static int gpuc_take_error(long long *vals) {\n  int id = %s;\n  %s = 0;\n%s  return id;\n}\n",
		abi.ErrorWord, abi.ErrorWord, values)
	if e.threads {
		fmt.Fprintf(b, "\n// The worker's device and the world's size (Note [World on threads] in\n// backends/abi), each worker's own.\nextern \"C\" __thread int %s, %s;\n",
			abi.DeviceIDWord, abi.NumDevicesWord)
	}
	ks := kernels(e.m)
	if len(ks) > 0 {
		b.WriteString("\n// The kernels, compiled from the LLVM backend's --target=host module.\n")
	}
	for _, k := range ks {
		params := []string{"int gpuc_grid", "int gpuc_block", "unsigned char *gpuc_shared", "int gpuc_lo", "int gpuc_hi"}
		for _, p := range k.Params {
			params = append(params, ctype(p.Type)+" "+e.n.c(p.Name))
		}
		for _, buf := range e.conv.Buffers(k) {
			params = append(params, ctype(buf.Elem)+" *"+e.n.c(buf.Name))
		}
		for _, p := range e.conv.Params(k) {
			params = append(params, ctype(p.Type)+" "+e.n.c(p.Name))
		}
		fmt.Fprintf(b, "extern \"C\" int %s(%s);\n", abi.KernelPrefix+k.Name, strings.Join(params, ", "))
	}
	return hostFuncs(e.m)
}

// start reads the worker pool's settings before any work, so that a bad
// GPUC_THREADS stops the program before it prints.
func (cpu) start(f *fn) {
	f.line("gpuc_pool_get();")
	f.line("gpuc_clock_start();")
}

// setup needs no zeroing: gpuc_device_alloc callocs, so that a large
// buffer takes memory only where the program writes it. Global buffers
// are registered for the moves of hybrid points (Note [Hybrid migration]
// in cpu.h), where the module has any.
func (c cpu) setup(f *fn, b *ir.Buffer) {
	c.portable.setup(f, b, abi.ConstantPrefix+b.Name, true)
	if b.Space == ir.Global && hasHybrid(f.e.m) {
		h, elem := f.e.hostBuf(b), "0"
		if _, ok := b.Len.(*ir.ParamRef); ok {
			elem = fmt.Sprintf("sizeof(%s)", ctype(b.Elem))
		}
		f.line("gpuc_hybrid_register((void **)&%s.ptr, %s.bytes(), %s);", h, h, elem)
	}
}

// release reports where the hybrid points ran, for --time, and frees the
// spares of the moves.
func (c cpu) release(f *fn) {
	if hasHybrid(f.e.m) {
		f.line("if (gpuc_time) gpuc_hybrid_report();")
	}
	c.portable.release(f)
	if hasHybrid(f.e.m) {
		f.line("gpuc_hybrid_release();")
	}
}

// hasHybrid reports whether a host function of m has a hybrid point.
func hasHybrid(m *ir.Module) bool {
	for _, fn := range hostFuncs(m) {
		if ir.AnyExprIn(fn.Body, func(e ir.Expr) bool {
			b, ok := e.(*ir.Builtin)
			return ok && b.Op == ir.Hybrid
		}) {
			return true
		}
	}
	return false
}

// launch runs the kernel's function over the launch's blocks on the
// worker pool, the kernel's own arguments evaluated once; an error raised
// in it ends the program at once, as in the interpreter.
func (cpu) launch(f *fn, k *ir.Func, args []cx, smem, pos string) {
	f.line("if (gpuc_check_geometry(%s, gpuc_grid, gpuc_block)) {", pos)
	f.indent++
	all := []string{"(int)gpuc_grid", "(int)gpuc_block", "gpuc_sh", "gpuc_lo", "gpuc_hi"}
	for i, a := range args {
		f.line("%s gpuc_a%d = %s;", ctype(k.Params[i].Type), i, a.s)
		all = append(all, fmt.Sprintf("gpuc_a%d", i))
	}
	all = append(all, f.e.launchArgs(k)...)
	if f.e.threads {
		threadsLaunch(f, k, all, smem)
	} else {
		f.line("auto gpuc_blocks = [&](unsigned char *gpuc_sh, int gpuc_lo, int gpuc_hi) {")
		f.line("  return %s(%s);", abi.KernelPrefix+k.Name, strings.Join(all, ", "))
		f.line("};")
		f.line("gpuc_cpu_launch((int)gpuc_grid, (int)gpuc_block, %s, gpuc_blocks);", smem)
	}
	f.line("gpuc_device_ran = true;")
	if len(f.e.raiseMsgs) > 0 {
		f.line("gpuc_check_device_error();")
	}
	f.indent--
	f.line("}")
}

func (cpu) sync(*fn) {}

// kernels lists the module's kernels.
func kernels(m *ir.Module) []*ir.Func {
	var out []*ir.Func
	for _, f := range m.Funcs {
		if f.Kind == ir.KernelFunc {
			out = append(out, f)
		}
	}
	return out
}
