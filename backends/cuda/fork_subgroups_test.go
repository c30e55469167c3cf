package cuda_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gpuc/backends/cuda"
	"gpuc/internal/driver"
	"gpuc/passes"
)

// TestForkSubgroupsCompile compiles the Fork examples whose subgroups
// declare sh variables (Note [Subgroup instances] in frontends/fork),
// whose buffers are sized by expressions over parameters that saturate,
// with g++ against the CUDA stub, host and device sides, one with
// cooperative launches and one with relaunches.
func TestForkSubgroupsCompile(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not found")
	}
	stub, err := filepath.Abs("testdata/cuda_stub.h")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// One grid-sync mode each keeps the test cheap.
	for name, gs := range map[string]passes.GridSync{"subgroup_sh": passes.GridSyncAuto, "dcsum": passes.GridSyncNever} {
		m, err := driver.Load("../../examples/fork/" + name + ".fork")
		if err != nil {
			t.Fatal(err)
		}
		if err := driver.Lower(m, []string{"default"}, &passes.Config{VerifyEach: true, GridSync: gs}); err != nil {
			t.Fatal(err)
		}
		out, err := cuda.Emit(m, cuda.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cu := filepath.Join(dir, name+"-"+string(gs)+".cu")
		if err := os.WriteFile(cu, out, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(cu), func(t *testing.T) {
			t.Parallel()
			for _, side := range []string{"-U__CUDA_ARCH__", "-D__CUDA_ARCH__=900"} {
				cmd := exec.Command(gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
					side, "-x", "c++", "-include", stub, cu)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("g++ %s %s: %v\n%s", side, cu, err, out)
				}
			}
		})
	}
}
