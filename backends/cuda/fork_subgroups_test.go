package cuda_test

import (
	"os"
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
	gxx, stub := cuda.GxxStub(t)
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
			cuda.BothSides(t, gxx, stub, cu)
		})
	}
}
