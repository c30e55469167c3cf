package llvm_test

import (
	"strings"
	"testing"

	"gpuc/backends/llvm"
	"gpuc/internal/irtest"
)

// TestWorldRejected checks that the LLVM backend, which runs one device,
// reports each construct of a world of devices (Note [World] in package
// ir) with its position.
func TestWorldRejected(t *testing.T) {
	m := irtest.ParseFile(t, "../../ir/interp/testdata/world.kir")
	irtest.RunPasses(t, m, nil, "default")
	_, err := llvm.Emit(m, llvm.Options{})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"world.kir:8:1: error: llvm: parameter DEVICES belongs to a world of several devices",
		"world.kir:11:1: error: llvm: distributed buffer x belongs",
		"world.kir:17:3: error: llvm: world launch belongs",
		"world.kir:25:3: error: llvm: allgather belongs",
		"world.kir:31:3: error: llvm: allreduce belongs",
		"world.kir:35:3: error: llvm: world_barrier belongs",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
}
