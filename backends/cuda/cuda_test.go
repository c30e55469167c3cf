package cuda

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gpuc/frontends/kir"
	"gpuc/internal/irtest"
	"gpuc/ir"
)

// Tests check structural facts of the generated programs, in the manner of
// Go's test/codegen, rather than whole golden files; a C++ compiler checks
// that they are well-formed. Whether they print what the interpreter
// prints needs a GPU: scripts/gpu-check.sh.

// programs are the .kir files that must compile: the examples and the
// programs in testdata that exercise every construct.
func programs(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{"../../examples/kir/*.kir", "testdata/*.kir", "testdata/coop/*.kir"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if filepath.Base(f) != "spmd.kir" {
				out = append(out, f)
			}
		}
	}
	if len(out) < 8 {
		t.Fatalf("found only %d programs", len(out))
	}
	return out
}

// portablePrograms is programs without those in testdata/coop, which
// launch cooperatively, as only the runtime API programs can.
func portablePrograms(t *testing.T) []string {
	var out []string
	for _, p := range programs(t) {
		if filepath.Base(filepath.Dir(p)) != "coop" {
			out = append(out, p)
		}
	}
	return out
}

// load parses and verifies a .kir file.
func load(t *testing.T, path string) *ir.Module {
	t.Helper()
	m := irtest.ParseFile(t, path)
	if err := ir.Verify(m, ir.LaunchLevel); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// emit compiles a .kir file and returns the module's part of the program,
// after the runtime and the prelude, which every program shares.
func emit(t *testing.T, path string) (module, whole string) {
	t.Helper()
	return emitWith(t, path, Options{})
}

// emitUnchecked is emit without the device code's checks, whose wrapping
// of indices and divisors the facts of other constructs leave out.
func emitUnchecked(t *testing.T, path string) (module, whole string) {
	t.Helper()
	return emitWith(t, path, Options{NoChecks: true})
}

func emitWith(t *testing.T, path string, opts Options) (module, whole string) {
	t.Helper()
	out, err := Emit(load(t, path), opts)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	whole = string(out)
	i := strings.Index(whole, "// ---- Module ")
	if i < 0 {
		t.Fatalf("%s: no module section in the output", path)
	}
	return whole[i:], whole
}

// fact is a regular expression and how many times it must match the
// module's part of the program (-1: at least once).
type fact struct {
	re   string
	want int
}

func TestExampleFacts(t *testing.T) {
	tests := []struct {
		file  string
		facts []fact
	}{
		{"vecadd", []fact{
			{`(?m)^__global__ .*\{$`, 3},
			{`__syncthreads\(\)`, 0},
			{`extern __shared__`, 0},
			// One pool for the global buffers, zeroed at once.
			{`cudaMalloc\(`, 1},
			{`GPUC_CUDA\(cudaMemsetAsync\(gpuc_pool, 0, gpuc_pool_bytes, 0\)\);`, 1},
			{`a\.ptr = \(float \*\)\(gpuc_pool \+ gpuc_at_a\);`, 1},
			{`GPUC_CUDA\(cudaFree\(gpuc_pool\)\);`, 1},
			{`atomicAdd\(&total\[0\], \(double\)c\[i\]\)`, 1},
			{`__fmul_rn\(\(float\)\(i % 1000\), 0\.5f\)`, 1},
			{`gpuc_div\(gpuc_sub\(gpuc_add\(N, B\), 1\), gpuc_nonzero_at\(B, "[^"]*"\)\)`, 1},
			{`printf\("sum = %\.1f\\n", gpuc_nan_canon\(total\.get\(0, "[^"]*"\)\)\)`, 1},
			{`__global__ void __launch_bounds__\(256\) add\(const float \*__restrict__ a, const float \*__restrict__ b, float \*__restrict__ c, int N\) \{`, 1},
		}},
		{"scan", []fact{
			{`(?m)^__global__ .*\{$`, 2},
			{`__syncthreads\(\)`, 3},
			{`extern __shared__`, 1},
			{`cudaMalloc\(`, 1},
			{`int \*const tmp = gpuc_shared<int>\(gpuc_smem, &gpuc_off, B\);`, 1},
			{`gpuc_zero_shared\(gpuc_smem, gpuc_off\);`, 1},
			{`gpuc_smem_scan = gpuc_align16\(\(size_t\)gpuc_len_tmp \* sizeof\(int\)\);`, 1},
			{`off = gpuc_mul\(off, 2\)`, 1},
			{`tmp\[t\] = gpuc_add\(tmp\[t\], x\);`, 1},
			{`data\.get\(k, "\.\./\.\./examples/kir/scan\.kir:\d+:\d+"\)`, 2},
		}},
		{"histogram", []fact{
			{`(?m)^__global__ .*\{$`, 1},
			{`(?m)^__device__ unsigned hash\(unsigned x\) \{$`, 1},
			{`extern __shared__`, 1},
			{`cudaMalloc\(`, 1},
			{`atomicAdd\(&local\[\(int\)gpuc_rem\(hash\(\(unsigned\)i\), \(unsigned\)K\)\], 1u\);`, 1},
			{`gpuc_atomic_add_agg<unsigned, false>\(\(unsigned \*\)&hist\[k\], \(unsigned\)local\[k\]\);`, 1},
			{`unsigned h = x \* 2654435761u;`, 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			module, _ := emitUnchecked(t, "../../examples/kir/"+tt.file+".kir")
			for _, f := range tt.facts {
				checkFact(t, module, f)
			}
			if strings.Contains(module, "gpuc_error") {
				t.Errorf("no device code raises, but the program has an error word")
			}
		})
	}
}

func checkFact(t *testing.T, text string, f fact) {
	t.Helper()
	n := len(regexp.MustCompile(f.re).FindAllStringIndex(text, -1))
	if f.want < 0 && n == 0 || f.want >= 0 && n != f.want {
		t.Errorf("%s: %d matches, want %d", f.re, n, f.want)
	}
}

// TestTestdataFacts checks the programs that exercise every construct.
func TestTestdataFacts(t *testing.T) {
	tests := []struct {
		file  string
		facts []fact
	}{
		{"host", []fact{
			{`int fib\(int n\);`, 1},
			{`return gpuc_add\(fib\(gpuc_sub\(n, 1\)\), fib\(gpuc_sub\(n, 2\)\)\);`, 1},
			// Calls with effects are evaluated left to right.
			{`\(gpuc_t(\d+) = note\(1\), gpuc_t(\d+) = \(gpuc_t(\d+) = note\(2\), gpuc_t(\d+) = note\(3\), gpuc_mul\(gpuc_t\d+, gpuc_t\d+\)\), gpuc_sub\(gpuc_t\d+, gpuc_t\d+\)\)`, 1},
			{`printf\("args %d %d\\n", note\(4\), note\(5\)\);`, 0},
			// Only the side of a select that is taken is evaluated.
			{`int picked = \(log_\.at\(0, "[^"]*"\) > 100 \? note\(6\) : note\(7\)\);`, 1},
			{`gpuc_copy\(`, 5},
			{`gpuc_swap\(dev, other\);`, 2},
			{`printf\("\[%5d\]\[%-5d\]\[%05d\]\[%x\]\[%08x\]\[%c%c\]\\n", 42, 42, -42, 255u, 48879u, 72, 105\);`, 1},
			{`printf\("u64 %lu %lx %lu\\n", \(unsigned long\)ul, \(unsigned long\)\(ul >> \(SHIFT & 63ULL\)\)`, 1},
			// Text and plain integers print without printf.
			{`gpuc_pn = gpuc_put_i64\(gpuc_pb, gpuc_pn, \(long long\)x\);`, 1},
			{`fwrite\("quote \\" back \\\\ tab\\t\?\\\? percent 100%\\n", 1, 35, stdout\);`, 1},
			{`gpuc_cvt_i32\(3\.9\)`, 1},
			{`gpuc_div\(b, -1\)`, 1},
			{`gpuc_shl\(1, \(33 & 31\)\)`, 1},
			{`\(signed char\)\(c \+ \(signed char\)1\)`, 1},
			{`gpuc_fmul\(f, 3\.0f\)`, 1},
			// A switch is C's, unless a case breaks out of a loop.
			{`case 0: case 1: \{`, 1},
			{`case 2147483647: \{`, 1},
			{`dev\.get\(gpuc_sub\(N, 1\), "[^"]*"\)`, 2},
			{`wide\.set\(0, 18446744073709551615ULL, "[^"]*"\);`, 1},
			{`__fmul_rn|__dmul_rn`, 0},
			// No parameter is fitted.
			{`gpuc_fit|gpuc_free_memory`, 0},
			{`\{"N", GPUC_I32, &N, false\}`, 1},
		}},
		{"fit", []fact{
			// Fitted after the command line is read, before anything is
			// sized, in declaration order.
			{`gpuc_parse_args\(argc, argv, gpuc_params, 3, gpuc_buffers, 3, "fit"\);\n\s*gpuc_fit_params\(gpuc_params, gpuc_time\);\n\n\s*// Sizes`, 1},
			{`if \(!\(!params\[0\]\.set \|\| !params\[1\]\.set\)\) return;\n\s*const unsigned long long free_bytes = gpuc_free_memory\(\);`, 1},
			{`(?s)gpuc_fit\(8LL, gpuc_fit_budget\(0\.5, free_bytes\).*gpuc_fit\(1000000000000000LL, gpuc_fit_budget\(0\.001, free_bytes\)`, 1},
			{`M = \(long long\)v;`, 2},
			// Global buffers count; shared ones do not.
			{`n = gpuc_add_bytes\(n, \(long long\)gpuc_mul\(N, K\), sizeof\(int\)\);\n\s*n = gpuc_add_bytes\(n, \(long long\)M, sizeof\(unsigned char\)\);\n\s*return n;`, 1},
			{`gpuc_add_bytes\(`, 2},
			{`gpuc_report_fit\("M", \(long long\)M, 0\.001, free_bytes, used\);`, 1},
		}},
		{"device", []fact{
			{`__device__ int gcd\(int a, int b\) \{`, 1},
			{`return gcd\(b, gpuc_rem\(a, b\)\);`, 1},
			// Buffers, shared buffers and parameters reach device
			// functions as arguments.
			{`__device__ int weigh\(int x, const int \*__restrict__ weights, int N\) \{`, 1},
			{`__device__ void deposit\(int t, long long v, long long \*sums, int S\) \{`, 1},
			{`deposit\(t, .*, sums, S\);`, 1},
			{`__constant__ unsigned char table\[`, 1},
			{`__constant__ float scale\[`, 1},
			{`cudaMemcpyToSymbol\(`, 2},
			{`cudaMalloc\(`, 1},
			{`gpuc_pool_bytes = gpuc_pool_add\(gpuc_pool_bytes, `, 11},
			// A global input buffer is read into the device, through
			// page-locked chunks, before the clock (Note [Streamed
			// input]); no block of its size is read first.
			{`gpuc_read_input\(&gpuc_buffers\[0\]`, 0},
			{`gpuc_stream_input\(&gpuc_buffers\[0\], GPUC_I32, in\.len, gpuc_pool \+ gpuc_at_in\);`, 1},
			// Its file is checked before CUDA starts, as reading did.
			{`(?s)gpuc_check_input\(&gpuc_buffers\[0\], GPUC_I32, in\.len\);\n.*gpuc_max_block`, 1},
			// printf stderr goes to standard error or --stats=FILE.
			{`fprintf\(gpuc_stats_stream\(\), "table %d\\n", `, 1},
			// Input files of constant buffers are read into
			// page-locked memory.
			{`gpuc_input_alloc = gpuc_pinned_alloc;`, 1},
			{`gpuc_free_input\(gpuc_in_in\);`, 0},
			// The copies run on a stream of their own, after the
			// pool's allocation and before the clock (Note [Input
			// copies]); the chunks are freed after the clock stops.
			{`(?s)gpuc_input_stream_init\(\);\n.*cudaMalloc\(&gpuc_pool, gpuc_pool_bytes\)\);\n\s*gpuc_stream_input\(&gpuc_buffers\[0\].*cudaEventRecord\(gpuc_start\)`, 1},
			{`cudaMemcpyAsync\(in\.ptr`, 0},
			{`(?s)cudaEventRecord\(gpuc_stop\).*gpuc_stage_free\(\);`, 1},
			// The kernels load and the pool is allocated before the clock
			// starts, and the pool is zeroed after (Note [Loading before
			// the clock]).
			{`(?s)gpuc_max_block\(\(const void \*\)[a-z_0-9]+\);\n.*cudaMalloc\(&gpuc_pool, gpuc_pool_bytes\)\);\n(\s*gpuc_stream_input\([^\n]*\n)*\s*gpuc_profile\.on = gpuc_time;.*cudaEventRecord\(gpuc_start\).*cudaMemsetAsync\(gpuc_pool`, 1},
			{`static const int gpuc_init_weights\[\] = \{3, -1, 4, -1\};`, 1},
			// Integer adds to global memory combine a warp's updates of
			// one address; a constant addend needs no shuffles.
			{`old = \(int\)gpuc_atomic_add_agg<unsigned, true>\(\(unsigned \*\)&acc32\[0\], \(unsigned\)1\);`, 1},
			{`gpuc_atomic_add_agg<unsigned, true>\(\(unsigned \*\)&acc32\[1\], \(unsigned\)0 - \(unsigned\)2\);`, 1},
			{`atomicAnd\(&accu\[2\]`, 1},
			{`atomicInc\(&accu\[4\], 9u\);`, 1},
			{`gpuc_atomic_add_agg<unsigned long long, true>\(\(unsigned long long \*\)&acc64\[1\], \(unsigned long long\)0 - \(unsigned long long\)3LL\);`, 1},
			// Extrema whose old value nobody reads combine a warp's values.
			{`gpuc_atomic_extremum_agg<long long, false>\(&acc64\[2\], gpuc_neg\(\(long long\)i\)\);`, 1},
			{`gpuc_atomic_extremum_agg<int, true>\(&acc32\[3\], i\);`, 1},
			{`atomicXor\(\(unsigned long long \*\)&acc64\[3\]`, 1},
			{`seen = atomicCAS\(&accul\[3\], 0ULL, 7ULL\);`, 1},
			{`atomicAdd\(&accf\[1\], -__fmul_rn\(0\.25f, scale\[1\]\)\);`, 1},
			{`atomicExch\(\(unsigned long long \*\)&accd\[1\], \(unsigned long long\)__double_as_longlong\(\(double\)scale\[0\]\)\);`, 1},
			{`__syncthreads\(\);`, 2},
		}},
		{"shared", []fact{
			{`extern __shared__`, 1},
			{`gpuc_shared<(unsigned char|double|int|bool)>`, 4},
			{`__device__ void mark\(int t, unsigned char \*marks\) \{`, 1},
		}},
		{"raise_device", []fact{
			{`__device__ int gpuc_error;`, 1},
			{`gpuc_device_raise\(1\); // "store full"`, 1},
			{`asm volatile\("exit;"\);`, 1},
			{`gpuc_fail_hook = gpuc_report_device_error;`, 1},
			// The host's look reads the pinned copy (Note [Error word]).
			{`cudaStreamSynchronize\(0\)\);\n\s*const int id = \*\(volatile int \*\)gpuc_error_host;`, 1},
			{`gpuc_check_device_error\(\);\n\s*fwrite\("after\\n", 1, 6, stdout\);`, 1},
		}},
		// A raise in a cooperative kernel stops the whole kernel.
		{"coop/raise", []fact{
			{`asm volatile\("exit;"\);`, 0},
			{`\{\n\s*__trap\(\);\n\s*__builtin_unreachable\(\);`, 1},
			{`if \(atomicCAS\(&gpuc_error, 0, id\) == 0\) gpuc_error_mirror\(id\);`, 1},
			// The error word is allocated before the clock starts.
			{`(?s)gpuc_error_host_init\(\);\n.*cudaEventRecord\(gpuc_start\).*gpuc_fail_hook = gpuc_report_device_error;`, 1},
			{`id = gpuc_error_host != nullptr \? \*\(volatile int \*\)gpuc_error_host : 0;`, 1},
		}},
		{"raise_host", []fact{
			{`gpuc_raise\("too many ticks: \\"limit\\" reached"\);`, 1},
			{`gpuc_error|gpuc_device_raise\(`, 0},
		}},
		{"edges", []fact{
			// classify's switch is C's; steps's breaks out of its loop.
			{`switch \(x\) \{`, 1},
			{`\} else if \(gpuc_t1 == 1\) \{`, 1},
		}},
		{"names", []fact{
			{`static int float_ = 4;`, 1},
			{`static gpuc_dev<int> xgpuc_dev_ = \{nullptr, 0, "gpuc_dev"\};`, 1},
			{`__device__ int exit_\(int class_, int new_, int INT_MAX_\) \{`, 1},
			{`int errno_ = \(int\)threadIdx\.x;`, 1},
			{`gpuc_use\(unused\);`, 2},
			{`gpuc_use\(ignored\);`, 2},
			{`void main_\(\);`, 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			module, _ := emitUnchecked(t, "testdata/"+tt.file+".kir")
			for _, f := range tt.facts {
				checkFact(t, module, f)
			}
		})
	}
}

// TestFreeMemory checks where each kind of program learns the free
// device memory that it fits parameters to.
func TestFreeMemory(t *testing.T) {
	_, cu := emit(t, "testdata/fit.kir")
	checkFact(t, cu, fact{`GPUC_CUDA\(cudaMemGetInfo\(&free_bytes, &total\)\);`, 1})
	driver := emitFor(t, "testdata/fit.kir", DriverAPI)
	checkFact(t, driver, fact{`gpuc_device_context\(\);\n\s*GPUC_CU\(cuMemGetInfo\(&free_bytes, &total\)\);`, 1})
	checkFact(t, driver, fact{`gpuc_fit_params\(gpuc_params, gpuc_time\);`, 1})
	cpu := emitFor(t, "testdata/fit.kir", CPU)
	checkFact(t, cpu, fact{`"MemAvailable: %llu kB"`, 1})
	checkFact(t, cpu, fact{`sysconf\(_SC_AVPHYS_PAGES\)`, 1})
	// The CPU's device memory is calloc'd, zero already, and taken only
	// where the program writes it.
	checkFact(t, cpu, fact{`gpuc_device_zero\(big`, 0})
	checkFact(t, driver, fact{`gpuc_device_zero\(big\.ptr, big\.bytes\(\)\);`, 1})
}

// cudaCall matches a call of the CUDA runtime API.
var cudaCall = regexp.MustCompile(`\bcuda[A-Z]\w*\(`)

// TestEveryCUDACallChecked checks that every CUDA runtime call of every
// program is wrapped in GPUC_CUDA, except the two that report errors and
// a world device's count of the GPUs in sight, which none is where the
// machine lacks its GPU (gpuc_world_start checks it), and that every
// launch is followed by a check.
func TestEveryCUDACallChecked(t *testing.T) {
	unchecked := regexp.MustCompile(`cudaGetErrorString\(err\)|^const cudaError_t found = cudaGetDeviceCount\(&count\);$|if \(cudaMemcpyFromSymbol\(&id, gpuc_error, sizeof id\) == cudaSuccess|^cudaMemcpyFromSymbol\(gpuc_v, gpuc_error_values, sizeof gpuc_v\) == cudaSuccess\)$`)
	for _, path := range append(programs(t), worldPrograms(t)...) {
		_, whole := emit(t, path)
		lines := strings.Split(whole, "\n")
		for i, line := range lines {
			code := strings.TrimSpace(line)
			if !uncheckedCall(t, code, cudaCall, unchecked, "GPUC_CUDA(", fmt.Sprintf("%s:%d", path, i+1)) {
				continue
			}
			if strings.HasPrefix(code, "GPUC_LAUNCH(") && strings.TrimSpace(lines[i+1]) != "GPUC_CUDA(cudaGetLastError());" {
				t.Errorf("%s:%d: launch without a check: %s", path, i+1, code)
			}
		}
	}
}

// TestCompilesAsCPlusPlus checks every program with g++ against a stub of
// CUDA's declarations, once as the host side and once as the device side
// (__CUDA_ARCH__ set) of the __host__ __device__ helpers. Warnings count,
// as nvcc's do in scripts/gpu-check.sh.
func TestCompilesAsCPlusPlus(t *testing.T) {
	gxx, stub := gxxStub(t)
	dir := t.TempDir()
	for _, path := range programs(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".kir")
		_, whole := emit(t, path)
		cu := filepath.Join(dir, name+".cu")
		if err := os.WriteFile(cu, []byte(whole), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bothSides(t, gxx, stub, cu)
		})
	}
}

// gxxStub returns g++ and the stub of CUDA's declarations, and skips the
// test where g++ is absent.
func gxxStub(t *testing.T) (gxx, stub string) {
	t.Helper()
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not found")
	}
	stub, err = filepath.Abs("testdata/cuda_stub.h")
	if err != nil {
		t.Fatal(err)
	}
	return gxx, stub
}

// bothSides checks the program cu with g++ against the stub, as the host
// side and as the device side; warnings count, as nvcc's do in
// scripts/gpu-check.sh.
func bothSides(t *testing.T, gxx, stub, cu string) {
	t.Helper()
	for _, side := range []string{"-U__CUDA_ARCH__", "-D__CUDA_ARCH__=900"} {
		cmd := exec.Command(gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
			side, "-x", "c++", "-include", stub, cu)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("g++ %s %s: %v\n%s", side, cu, err, out)
		}
	}
}

// TestRejects checks that Emit returns errors, and does not panic, for
// modules it cannot compile: SPMD constructs, and code that the verifier
// would reject.
func TestRejects(t *testing.T) {
	spmd, err := os.ReadFile("testdata/spmd.kir")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, src string
		want      []string
	}{
		{"spmd", string(spmd), []string{
			"spmd.kir:9:3: error: cuda: region is SPMD-level",
			"spmd.kir:10:7: error: cuda: pid() is SPMD-level",
			"spmd.kir:11:5: error: cuda: barrier grid is SPMD-level",
		}},
		{"printf in a kernel", `module m; kernel k() { printf "x"; } host main() { launch k() grid 1 block 1; }`,
			[]string{"kernel k: host statement in a kernel"}},
		{"tid in host code", `module m; host main() { printf "%d", tid(); }`,
			[]string{"host main: builtin tid is not available in host code"}},
		{"barrier in a device function", `module m; func f() { barrier; } host main() { }`,
			[]string{"func f: barrier in a device function"}},
		{"atomic on i8", `module m; buffer b: i8[1] global output; kernel k() { atomic add b[0], i8(1); } host main() { }`,
			[]string{"kernel k: atomic add on i8 is not supported on the GPU"}},
		{"no main", `module m; kernel k() { }`, []string{"module m has no host function main"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := kir.Parse(tt.name+".kir", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			out, err := Emit(m, Options{})
			if err == nil {
				t.Fatalf("Emit succeeded:\n%s", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestRejectsNilModule checks the one input that has no position.
func TestRejectsNilModule(t *testing.T) {
	if _, err := Emit(nil, Options{}); err == nil {
		t.Fatal("Emit(nil) succeeded")
	}
}

func TestNames(t *testing.T) {
	m := &ir.Module{Params: []*ir.Param{{Name: "int_"}, {Name: "gpuc_x"}, {Name: "xgpuc_x_"}}}
	n := newNamer(m)
	for in, want := range map[string]string{
		"x": "x", "int": "int__", "int_": "int_", "printf": "printf_", "gpuc_x": "xgpuc_x__",
		"GPUCy": "xGPUCy_", "EINTR": "EINTR_", "INT_MAX": "INT_MAX_", "size_t": "size_t_",
		"uint4": "uint4_", "cudaFoo": "cudaFoo_", "atomicBar": "atomicBar_", "_x": "_x_", "a__b": "a__b_",
	} {
		if got := n.c(in); got != want {
			t.Errorf("c(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCString(t *testing.T) {
	for in, want := range map[string]string{
		"plain":         `"plain"`,
		"a\"b\\c\n\t":   `"a\"b\\c\n\t"`,
		"??=":           `"?\?="`,
		"\x00\x01\xff7": `"\000\001\3777"`,
	} {
		if got := cstring(in); got != want {
			t.Errorf("cstring(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestConstants(t *testing.T) {
	for _, tt := range []struct {
		t    ir.Type
		bits ir.Bits
		want string
	}{
		{ir.I32, ir.IntBits(ir.I32, -2147483648), "(-2147483647 - 1)"},
		{ir.I32, ir.IntBits(ir.I32, -5), "-5"},
		{ir.I64, ir.IntBits(ir.I64, -9223372036854775808), "(-9223372036854775807LL - 1)"},
		{ir.U64, ^uint64(0), "18446744073709551615ULL"},
		{ir.U32, 7, "7u"},
		{ir.I8, ir.IntBits(ir.I8, -3), "(signed char)(-3)"},
		{ir.U8, 200, "(unsigned char)200"},
		{ir.Bool, 1, "true"},
		{ir.F32, ir.FloatBits(ir.F32, 0.1), "0.1f"},
		{ir.F32, ir.FloatBits(ir.F32, 1e30), "1.0e+30f"},
		{ir.F64, ir.FloatBits(ir.F64, -0.0), "0.0"},
		{ir.F64, 0x8000000000000000, "-0.0"},
		{ir.F32, 0x7fc00000, "gpuc_f32_from_bits(0x7fc00000u)"},
		{ir.F64, 0xfff0000000000000, "gpuc_f64_from_bits(0xfff0000000000000ULL)"},
	} {
		if got := constant(tt.t, tt.bits).s; got != tt.want {
			t.Errorf("constant(%s, %#x) = %s, want %s", tt.t, tt.bits, got, tt.want)
		}
	}
}

// fakePTX stands in for llc's output in the driver API programs.
const fakePTX = "//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 7.8\n.target sm_90\n"

// emitFor compiles a .kir file for a device of the LLVM backend.
func emitFor(t *testing.T, path string, dev Device) string {
	t.Helper()
	out, err := Emit(load(t, path), Options{Device: dev, PTX: []byte(fakePTX)})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return string(out)
}

// TestLLVMHostsCompile checks the host programs of the LLVM backend with
// g++: the driver API and hybrid ones against a stub of cuda.h, the CPU
// one as it is.
func TestLLVMHostsCompile(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not found")
	}
	stub, err := filepath.Abs("testdata/driver")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, path := range portablePrograms(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".kir")
		for _, dev := range []Device{DriverAPI, CPU, Hybrid} {
			file := filepath.Join(dir, fmt.Sprintf("%s-%d.cpp", name, dev))
			if err := os.WriteFile(file, []byte(emitFor(t, path, dev)), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Run(filepath.Base(file), func(t *testing.T) {
				t.Parallel()
				if dev == CPU {
					irtest.LongOnly(t, "backends/llvm's TestHostTarget builds the same host programs with clang++ -Wall -Wextra -Werror and runs them")
				}
				cmd := exec.Command(gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I", stub, file)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("g++ %s: %v\n%s", file, err, out)
				}
			})
		}
	}
}

// uncheckedCall reports the calls that call matches in the line of code
// at where that the macro check does not wrap; comments, #defines and
// what except matches are passed over: it reports whether code was read.
func uncheckedCall(t *testing.T, code string, call, except *regexp.Regexp, check, where string) bool {
	t.Helper()
	if strings.HasPrefix(code, "//") || strings.HasPrefix(code, "#define") || except.MatchString(code) {
		return false
	}
	for _, loc := range call.FindAllStringIndex(code, -1) {
		if !strings.HasSuffix(code[:loc[0]], check) {
			t.Errorf("%s: unchecked call: %s", where, code)
		}
	}
	return true
}

// TestEveryDriverCallChecked checks that every CUDA driver call of the
// driver API programs is wrapped in GPUC_CU, except the two whose
// failures are reported by hand.
func TestEveryDriverCallChecked(t *testing.T) {
	driverCall := regexp.MustCompile(`\bcu[A-Z]\w*\(`)
	unchecked := regexp.MustCompile(`cuGetErrorString\(err, &why\)|CUresult err = cuModuleLoadDataEx\(`)
	for _, path := range portablePrograms(t) {
		for i, line := range strings.Split(emitFor(t, path, DriverAPI), "\n") {
			uncheckedCall(t, strings.TrimSpace(line), driverCall, unchecked, "GPUC_CU(", fmt.Sprintf("%s:%d", path, i+1))
		}
	}
}

// TestLLVMHostFacts checks the structure of the LLVM backend's host
// programs.
func TestLLVMHostFacts(t *testing.T) {
	module := func(text string) string { return text[strings.Index(text, "// ---- Module "):] }
	checkFacts := func(t *testing.T, text string, facts []fact) {
		t.Helper()
		for _, f := range facts {
			checkFact(t, text, f)
		}
	}
	driver := module(emitFor(t, "../../examples/kir/scan.kir", DriverAPI))
	checkFacts(t, driver, []fact{
		{`static const char gpuc_ptx\[\] =\n    "//\\n"`, 1},
		{`static CUfunction gpuc_kernel_(init|scan);`, 2},
		{`GPUC_CU\(cuModuleGetFunction\(&gpuc_kernel_scan, gpuc_module, "gpuc_kernel_scan"\)\);`, 1},
		{`void \*gpuc_args\[\] = \{&data\.ptr, &N, &B\};`, 1},
		{`GPUC_CU\(cuLaunchKernel\(gpuc_kernel_scan, \(unsigned\)gpuc_grid, 1, 1, \(unsigned\)gpuc_block, 1, 1, \(unsigned\)gpuc_smem_scan, nullptr, gpuc_args, nullptr\)\);`, 1},
		{`__global__|<<<|cudaMalloc`, 0},
		{`data\.get\(k, "\.\./\.\./examples/kir/scan\.kir:\d+:\d+"\)`, 2},
	})
	cpu := module(emitFor(t, "testdata/raise_device.kir", CPU))
	checkFacts(t, cpu, []fact{
		{`extern "C" int gpuc_kernel_insert\(int gpuc_grid, int gpuc_block, unsigned char \*gpuc_shared, int gpuc_lo, int gpuc_hi, int \*next, int \*store, int N, int CAP\);`, 1},
		// The worker pool runs the blocks (Note [Blocks across cores]).
		{`return gpuc_kernel_insert\(\(int\)gpuc_grid, \(int\)gpuc_block, gpuc_sh, gpuc_lo, gpuc_hi, next\.ptr, store\.ptr, N, CAP\);\n\s*\};\n\s*gpuc_cpu_launch\(\(int\)gpuc_grid, \(int\)gpuc_block, 0, gpuc_blocks\);\n\s*gpuc_device_ran = true;\n\s*gpuc_check_device_error\(\);`, 1},
		{`extern "C" __thread int gpuc_error;`, 1},
	})
	constants := module(emitFor(t, "testdata/device.kir", CPU))
	checkFacts(t, constants, []fact{
		{`extern "C" unsigned char gpuc_const_table\[\];`, 1},
		{`gpuc_c_table\.ptr = gpuc_const_table;`, 1},
	})
}
