package llvm_test

import (
	"strings"
	"testing"

	"gpuc/backends/llvm"
	"gpuc/frontends/kir"
)

// TestOneDevice checks the world on the LLVM backend, whose programs run
// on one device (Note [World] in package ir): the world's constructs take
// their one-device meaning, and a module whose DEVICES defaults to more
// than one is refused.
func TestOneDevice(t *testing.T) {
	const src = `module w;
param DEVICES: i32 = %s;
param N: i32 = 64;
buffer cells: i32[N] distributed output;
kernel fill(n: i32) {
  var i: i32 = gid();
  if i < n {
    cells[i] = device_id() + num_devices();
  }
}
host main() {
  launch fill(N) grid (N + 31) / 32 block 32 world;
}
`
	for _, target := range []llvm.Target{llvm.NVPTX, llvm.Host} {
		m, err := kir.Parse("w.kir", []byte(strings.Replace(src, "%s", "1", 1)))
		if err != nil {
			t.Fatal(err)
		}
		out, err := llvm.Emit(m, llvm.Options{Target: target})
		if err != nil {
			t.Fatalf("target %d: %v", target, err)
		}
		// device_id() + num_devices() is 0 + 1.
		if !strings.Contains(string(out), "add i32 0, 1") {
			t.Errorf("target %d: no 0 + 1 in\n%s", target, out)
		}
		m, err = kir.Parse("w.kir", []byte(strings.Replace(src, "%s", "2", 1)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = llvm.Emit(m, llvm.Options{Target: target})
		if err == nil || !strings.Contains(err.Error(), "w.kir:2:1: error: llvm: module w runs on DEVICES=2 devices by default, and this backend's programs run on one") {
			t.Errorf("target %d: got %v", target, err)
		}
	}
}
