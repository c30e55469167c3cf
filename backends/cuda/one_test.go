package cuda

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/frontends/kir"
	"gpuc/internal/irtest"
	"gpuc/ir"
)

// TestWorldWithOne checks a world program that carries the one-device
// program (Note [A world of one runs the one-device program]): both
// programs in their namespaces after one head, main choosing, and the
// whole compiling with g++ against the stubs on both sides.
func TestWorldWithOne(t *testing.T) {
	world := load(t, "testdata/world/spread.kir")
	src := irtest.ReadFile(t, "testdata/world/spread.kir")
	var kept []string
	for _, l := range strings.Split(src, "\n") {
		if !strings.HasPrefix(l, "param DEVICES") {
			kept = append(kept, l)
		}
	}
	one, err := kir.Parse("spread-one.kir", []byte(strings.Join(kept, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Verify(one, ir.LaunchLevel); err != nil {
		t.Fatal(err)
	}
	out, err := Emit(world, Options{One: one})
	if err != nil {
		t.Fatal(err)
	}
	whole := string(out)
	for _, f := range []fact{
		{`(?m)^#define GPUC_WORLD_H$`, 1},
		{`(?m)^#define GPUC_RUNTIME_H$`, 1},
		{`(?m)^namespace gpuc_one \{$`, 1},
		{`(?m)^namespace gpuc_many \{$`, 1},
		{`(?m)^int run\(int argc, char \*\*argv\) \{$`, 2},
		{`(?m)^int main\(`, 1},
		{`static const char \*const gpuc_world_only\[\] = \{nullptr\};`, 1},
		{`if \(gpuc_world_of_one\(&argc, argv, 2LL, gpuc_world_only\)\) \{\n\s*gpuc_check_device_error_at = gpuc_one::gpuc_check_device_error;\n\s*return gpuc_one::run\(argc, argv\);`, 1},
		{`gpuc_check_device_error_at = gpuc_many::gpuc_check_device_error;\n\s*return gpuc_many::run\(argc, argv\);`, 1},
	} {
		checkFact(t, whole, f)
	}
	// The world program starts its world; the one-device program has no
	// DEVICES and no world pool.
	i, j := strings.Index(whole, "namespace gpuc_one {"), strings.Index(whole, "namespace gpuc_many {")
	if i < 0 || j < i {
		t.Fatal("no namespaces in order")
	}
	onePart, manyPart := whole[i:j], whole[j:]
	for _, f := range []fact{
		{`gpuc_world_start|gpuc_world_pool|"DEVICES"`, 0},
		{`GPUC_CUDA\(cudaMalloc\(&gpuc_pool, gpuc_pool_bytes\)\);`, 1},
		// Today's program: detached, device 0 alone in sight (Note [A
		// world's start and exit]).
		{`int run\(int argc, char \*\*argv\) \{\n\s*gpuc_detach\(true\);\n\s*gpuc_only_gpu\(0\);\n`, 1},
		{`gpuc_exit_notify\(0\);`, 2},
	} {
		checkFact(t, onePart, f)
	}
	for _, f := range []fact{
		{`gpuc_world_start\(gpuc_args, \(long long\)DEVICES\);`, 1},
		{`gpuc_world_pool\(gpuc_pool_bytes\)`, 1},
		{`gpuc_detach\(|gpuc_only_gpu\(0\)|gpuc_exit_notify\(0\)`, 0},
	} {
		checkFact(t, manyPart, f)
	}
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not found")
	}
	cudaStub, _ := filepath.Abs("testdata/cuda_stub.h")
	shmemStub, _ := filepath.Abs("testdata/nvshmem_stub.h")
	cu := irtest.WriteFile(t, t.TempDir(), "spread.cu", whole)
	for _, side := range []string{"-U__CUDA_ARCH__", "-D__CUDA_ARCH__=900"} {
		cmd := exec.Command(gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
			side, "-x", "c++", "-include", cudaStub, "-include", shmemStub, cu)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("g++ %s %s: %v\n%s", side, cu, err, out)
		}
	}
}

// TestWorldWithOneRefused checks what the one-device program may not be.
func TestWorldWithOneRefused(t *testing.T) {
	world := load(t, "testdata/world/spread.kir")
	if _, err := Emit(world, Options{One: load(t, "testdata/world/spread.kir")}); err == nil || !strings.Contains(err.Error(), "has the parameter DEVICES") {
		t.Errorf("a world module for one device: got %v", err)
	}
	one := load(t, "testdata/world/one.kir")
	if _, err := Emit(one, Options{One: one}); err == nil || !strings.Contains(err.Error(), "goes only with the CUDA backend's world program") {
		t.Errorf("a one-device module with one: got %v", err)
	}
}
