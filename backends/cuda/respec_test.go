package cuda

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/frontends/kir"
	"gpuc/internal/irtest"
	"gpuc/ir"
)

// respecModules returns testdata/respec.kir as partial-eval receives it
// and after the passes from it on, as gpuc compile --pe-runtime has them.
func respecModules(t *testing.T) (before, after *ir.Module) {
	t.Helper()
	before = load(t, "testdata/respec.kir")
	after = load(t, "testdata/respec.kir")
	irtest.RunPasses(t, after, nil, "partial-eval", "simplify")
	return before, after
}

// TestRespecProgram checks the structure of a program that specializes
// again at run time, and that g++ accepts it against stubs of CUDA's
// runtime, driver and NVRTC headers.
func TestRespecProgram(t *testing.T) {
	before, after := respecModules(t)
	out, err := Emit(after, Options{Respec: &Respec{Before: before, Args: []string{"--passes=partial-eval,simplify"}}})
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, f := range []fact{
		{`// Build: nvcc -O3 -arch=sm_90 -o respec respec.cu -lnvrtc -lcuda`, 1},
		{`#include <nvrtc.h>`, 1},
		{`static const char gpuc_rt_module\[\] =\n    "module respec;\\n"`, 1},
		{`static const char \*const gpuc_rt_statics\[\] = \{"tbl"\};`, 1},
		{`static const char \*const gpuc_rt_kernel_names\[\] = \{"gpuc_rt_apply"\};`, 1},
		{`gpuc_rt_take_args\(&argc, argv, gpuc_rt_statics, 1, "respec"\);\n\s*const bool gpuc_time = gpuc_parse_args`, 1},
		{`GPUC_CUDA\(cudaGetSymbolAddress\(&gpuc_rt_error_word, gpuc_error\)\);`, 1},
		{`gpuc_rt_specialize\("respec", gpuc_rt_module, gpuc_rt_args, 1, gpuc_rt_kernel_names, gpuc_rt_kernels, 1, gpuc_rt_error_word, gpuc_rt_error_values\);`, 1},
		{`void \*gpuc_args\[\] = \{&data\.ptr, &out\.ptr, &N, &B\};`, 1},
		{`gpuc_rt_launch\(gpuc_rt_kernels\[0\], gpuc_grid, gpuc_block, gpuc_align16\(\(size_t\)gpuc_len_tile \* sizeof\(int\)\), gpuc_args\);`, 1},
		{`GPUC_LAUNCH\((fill|apply), `, 2},
	} {
		checkFact(t, text, f)
	}
	gxx(t, text, "-I", "testdata/driver")
}

// TestEmitNVRTC checks the NVRTC source of the kernels that read static
// data, specialized on other data, and that g++ accepts its device side.
func TestEmitNVRTC(t *testing.T) {
	before, spec := load(t, "testdata/respec.kir"), load(t, "testdata/respec.kir")
	spec.Buffer("tbl").Init = []ir.Bits{2, 0, 0, 5}
	irtest.RunPasses(t, spec, nil, "partial-eval", "simplify")
	out, err := EmitNVRTC(spec, before, true)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, f := range []fact{
		{`#include`, 0},
		{`__constant__ int tbl\[4\] = \{2, 0, 0, 5\};`, 1},
		{`extern "C" __global__ void gpuc_rt_apply\(const int \*__restrict__ data, int \*out, int N, int B\) \{`, 1},
		{`__global__ void (gpuc_rt_)?fill`, 0},
		{`w = gpuc_mul\(2, x\);`, 1},
		{`gpuc_device_raise\(1\); // "value out of range"`, 1},
		{`__device__ int \*gpuc_error_at;`, 1},
		{`\bmain\b`, 0},
	} {
		checkFact(t, text, f)
	}
	gxx(t, text, "-D__CUDA_ARCH__=900", "-D__CUDACC_RTC__")
}

// TestNVRTCPrelude checks that the device runtime for NVRTC is cut out of
// the headers whole and pulls in no C library header.
func TestNVRTCPrelude(t *testing.T) {
	p := nvrtcPrelude()
	for _, want := range []string{"GPUC_HD constexpr int gpuc_add(int a, int b)", "gpuc_align16(size_t n)", "__device__ inline T *gpuc_shared(", "gpuc_zero_shared("} {
		if !strings.Contains(p, want) {
			t.Errorf("the NVRTC prelude lacks %q", want)
		}
	}
	if strings.Contains(p, "#include") || strings.Contains(p, "gpuc_array") {
		t.Errorf("the NVRTC prelude holds host code or includes:\n%s", p)
	}
}

// TestRespecRejects checks what run-time specialization refuses.
func TestRespecRejects(t *testing.T) {
	for name, tt := range map[string]struct{ src, want string }{
		"host read": {`module m; buffer t: i32[1] global static = {1}; host main() { printf "%d\n", t[0]; }`,
			"host function main reads a static buffer"},
		"coop": {`module m; buffer t: i32[1] global static = {1}; buffer o: i32[1] global output;
kernel k() { o[0] = t[0]; } host main() { launch k() grid 1 block 1 coop; }`,
			"kernel k reads static data and is launched cooperatively"},
	} {
		m, err := kir.Parse(name+".kir", []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Emit(m, Options{Respec: &Respec{Before: m}}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", name, err, tt.want)
		}
	}
}

// gxx checks C++ text with g++ against the CUDA stub, where g++ is
// present.
func gxx(t *testing.T, text string, flags ...string) {
	t.Helper()
	g, stub := gxxStub(t)
	file := filepath.Join(t.TempDir(), "prog.cu")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-std=c++17", "-fsyntax-only", "-Wall", "-Werror", "-x", "c++", "-include", stub}, flags...)
	if out, err := exec.Command(g, append(args, file)...).CombinedOutput(); err != nil {
		t.Errorf("g++ %s: %v\n%s", strings.Join(flags, " "), err, out)
	}
}
