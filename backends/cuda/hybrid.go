package cuda

import (
	"fmt"
	"strings"

	"gpuc/backends/abi"
	"gpuc/backends/runtime"
	"gpuc/ir"
)

// hybridHandles prefixes the CUfunction handles of a hybrid program, whose
// CPU kernels have package abi's names.
const hybridHandles = "gpuc_cu_kernel_"

// hybrid runs each launch on the CPU, through the LLVM backend's
// --target=host kernels, or on the GPU, through its PTX and the driver
// API: on the side that holds the data, which the module's hybrid points
// move (Note [Hybrid migration] in hybrid.h). The program starts on the
// CPU while the CUDA context starts on a thread of its own.
type hybrid struct {
	portable
	ptx []byte
}

func (d hybrid) head(e *emitter) string {
	name := e.m.Name
	return banner(e.m,
		fmt.Sprintf("gpuc compile --emit=llvm --target=host ... -o %s.ll; clang-16 -O2 -c %s.ll -o %s.o", name, name, name),
		fmt.Sprintf("g++ -O2 -Wl,--as-needed -o %s %s.cpp %s.o -lpthread -ldl   (no CUDA toolkit needed; no -lcuda; no libstdc++ at run time: Note [No C++ library at run time] in cpu.h)", name, name, name)) +
		"#define GPUC_HYBRID 1\n" + driverDecls + "#include <dlfcn.h>\n\n" + runtime.Header + "\n" + detachPrelude + "\n" + cudaLoader() + "\n" + driverPrelude + "\n" + cpuPrelude + "\n" +
		hybridCUDA + "\n" + hybridRule + "\n" + hybridPrelude + "\n" + runtime.Device
}

func (hybrid) constant(e *emitter, b *ir.Buffer) string { return cpu{}.constant(e, b) }

// raiseSupport reads the error word of the side that ran the last launch.
func (hybrid) raiseSupport(e *emitter, b *strings.Builder) {
	hybridRaise(e, b)
}

// code declares both sides' kernels, and defines gpuc_hybrid_kernels,
// which the context thread runs once the module is loaded.
func (d hybrid) code(e *emitter, b *strings.Builder) []*ir.Func {
	driverAPI{ptx: d.ptx, handles: hybridHandles}.code(e, b)
	funcs := cpu{}.code(e, b)
	b.WriteString("\n// gpuc_hybrid_kernels finds the kernels and the error words on the device.\nstatic void gpuc_hybrid_kernels(void) {\n")
	for _, k := range kernels(e.m) {
		sym := abi.KernelPrefix + k.Name
		fmt.Fprintf(b, "  GPUC_CU(cuModuleGetFunction(&%s, gpuc_module, %s));\n", hybridHandles+k.Name, cstring(sym))
	}
	if len(e.raiseMsgs) > 0 {
		fmt.Fprintf(b, "  gpuc_error_word = gpuc_device_global(%s, sizeof(int));\n", cstring(abi.ErrorWord))
	}
	if len(e.raiseMsgs) > e.nRaise {
		fmt.Fprintf(b, "  gpuc_error_values_word = gpuc_device_global(%s, 2 * sizeof(long long));\n", cstring(abi.FaultValues))
		fmt.Fprintf(b, "  if (!gpuc_checks_on) {\n    const int off = 0;\n    GPUC_CU(cuMemcpyHtoD(gpuc_cu_ptr(gpuc_device_global(%s, sizeof off)), &off, sizeof off));\n  }\n", cstring(abi.ChecksWord))
	}
	b.WriteString("}\n")
	return funcs
}

// early starts the CUDA context's thread as soon as the arguments are
// read, before the parameters are fitted, which may wait for it.
func (hybrid) early(f *fn) { f.line("gpuc_hybrid_begin(gpuc_ptx);") }

// start starts the pool and the clock.
func (hybrid) start(f *fn) {
	f.line("gpuc_pool_get();")
	f.line("gpuc_clock_start();")
}

// setup allocates on the host, where the program starts, and registers
// every global and constant buffer for the moves.
func (hybrid) setup(f *fn, b *ir.Buffer) {
	cpu{}.portable.setup(f, b, abi.ConstantPrefix+b.Name, true)
	h, elem := f.e.hostBuf(b), "0"
	if _, ok := b.Len.(*ir.ParamRef); ok && b.Space == ir.Global {
		elem = fmt.Sprintf("sizeof(%s)", ctype(b.Elem))
	}
	switch b.Space {
	case ir.Global:
		f.line("gpuc_hybrid_register((void **)&%s.ptr, %s.bytes(), %s);", h, h, elem)
	case ir.Constant:
		f.line("gpuc_hybrid_register((void **)&%s.ptr, %s.bytes(), 0, %s);", h, h, cstring(abi.ConstantPrefix+b.Name))
	}
}

// launch launches on the side that holds the data.
func (hybrid) launch(f *fn, k *ir.Func, args []cx, smem, pos string) {
	f.line("if (gpuc_hybrid_on_device()) {")
	f.indent++
	driverAPI{handles: hybridHandles}.launch(f, k, args, smem, pos)
	f.indent--
	f.line("} else {")
	f.indent++
	cpu{}.launch(f, k, args, smem, pos)
	f.indent--
	f.line("}")
}

func (hybrid) sync(f *fn) { f.line("if (gpuc_hybrid_on_device()) GPUC_CU(cuCtxSynchronize());") }

func (hybrid) stop(f *fn) {
	f.line("if (gpuc_hybrid_on_device()) GPUC_CU(cuCtxSynchronize());")
	f.line("const double gpuc_ms = gpuc_clock_stop();")
}

// release reports where the points ran, frees both sides, and leaves
// without waiting where the context is still starting.
func (hybrid) release(f *fn) {
	f.line("if (gpuc_time) gpuc_hybrid_report();")
	cpu{}.portable.release(f)
	f.line("gpuc_hybrid_release();")
}

// hybridRaise defines gpuc_check_device_error for a hybrid program: the
// CPU's last raise or the device's error word, by where the data is.
func hybridRaise(e *emitter, b *strings.Builder) {
	portable{}.raiseSupport(e, b,
		"static void *gpuc_error_word;\n[[maybe_unused]] static void *gpuc_error_values_word;",
		"if (!gpuc_hybrid_on_device()) id = gpuc_cpu_raised;\n  else if (gpuc_error_word != nullptr) gpuc_to_host(&id, gpuc_error_word, sizeof id)",
		fmt.Sprintf("extern \"C\" int %s;", abi.ChecksWord),
		"{\n    if (gpuc_hybrid_on_device()) gpuc_to_host(gpuc_v, gpuc_error_values_word, sizeof gpuc_v);\n    else memcpy(gpuc_v, gpuc_cpu_values, sizeof gpuc_v);\n  }",
		abi.ChecksWord+" = 0")
}

// cudaCalls are the driver calls of a hybrid program, which it finds in
// libcuda.so.1 with dlsym on the context's thread: the program starts
// without loading the driver, and runs where there is none.
var cudaCalls = []string{
	"cuGetErrorString", "cuInit", "cuDeviceGet", "cuDeviceGetCount", "cuDevicePrimaryCtxRetain",
	"cuCtxSetCurrent", "cuCtxSynchronize", "cuModuleLoadDataEx", "cuModuleGetFunction",
	"cuModuleGetGlobal", "cuEventCreate", "cuMemAlloc", "cuMemFree", "cuMemsetD8", "cuMemcpyHtoD",
	"cuMemcpyDtoH", "cuMemcpyDtoD", "cuFuncGetAttribute", "cuFuncSetAttribute", "cuLaunchKernel",
	"cuMemGetInfo",
}

// cudaLoader declares a pointer for each of cudaCalls, defines
// gpuc_cuda_load, which fills them, and makes each call's name stand for
// its pointer. cuda.h may name a call by a versioned symbol
// (cuMemAlloc_v2): GPUC_STR spells the name after that macro.
func cudaLoader() string {
	var b strings.Builder
	b.WriteString("// The CUDA driver, loaded with dlopen by gpuc_cuda_load.\n")
	b.WriteString("#define GPUC_STR_(x) #x\n#define GPUC_STR(x) GPUC_STR_(x)\n")
	for _, c := range cudaCalls {
		fmt.Fprintf(&b, "static decltype(&%s) gpuc_dl_%s;\n", c, c)
	}
	b.WriteString("\n// gpuc_cuda_load loads libcuda.so.1 and finds its calls, and reports\n// whether it could.\n")
	b.WriteString("inline bool gpuc_cuda_load(void) {\n  void *lib = dlopen(\"libcuda.so.1\", RTLD_NOW | RTLD_LOCAL);\n  if (lib == nullptr) return false;\n")
	for _, c := range cudaCalls {
		fmt.Fprintf(&b, "  if ((gpuc_dl_%s = (decltype(gpuc_dl_%s))dlsym(lib, GPUC_STR(%s))) == nullptr) return false;\n", c, c, c)
	}
	b.WriteString("  return true;\n}\n")
	for _, c := range cudaCalls {
		fmt.Fprintf(&b, "#undef %s\n#define %s gpuc_dl_%s\n", c, c, c)
	}
	return b.String()
}
