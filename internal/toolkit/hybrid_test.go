package toolkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/internal/driver"
)

// TestBuildHybrid checks Note [Hybrid by default]: a TRS program builds
// as the hybrid program where the LLVM tools are at hand, a program
// without hybrid points does not, and --toolchain=hybrid of one is a
// clear error. The hybrid program, with no CUDA driver here, prints what
// gpuc run prints, by default and with HYBRID=cpu.
func TestBuildHybrid(t *testing.T) {
	if !hybridTools() {
		t.Skip("llc-16, clang-16 or a C++ compiler is missing")
	}
	trs := "../../examples/trs/peano.trs"
	m, err := driver.Load(trs)
	if err != nil {
		t.Fatal(err)
	}
	if tc, err := Resolve(Auto, m); err != nil || tc != Hybrid {
		t.Fatalf("Resolve(auto, %s) = %q, %v; want hybrid", trs, tc, err)
	}
	fork, err := driver.Load("../../examples/fork/crcw.fork")
	if err != nil {
		t.Fatal(err)
	}
	if tc, err := Resolve(Auto, fork); err != nil || tc == Hybrid {
		t.Errorf("Resolve(auto, crcw.fork) = %q, %v; want no hybrid", tc, err)
	}
	if _, err := Resolve(Hybrid, fork); err == nil || !strings.Contains(err.Error(), "no hybrid points") {
		t.Errorf("Resolve(hybrid, crcw.fork): %v; want an error naming the hybrid points", err)
	}
	want, err := os.ReadFile("../../examples/trs/peano.out")
	if err != nil {
		t.Fatal(err)
	}
	var log []string
	exe := filepath.Join(t.TempDir(), "peano")
	if err := Build(trs, exe, Options{Log: func(c string) { log = append(log, c) }}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(log, "\n"), "-ldl") {
		t.Errorf("the build did not link the hybrid program:\n%s", strings.Join(log, "\n"))
	}
	for _, env := range [][]string{nil, {"HYBRID=cpu"}} {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil || string(out) != string(want) {
			t.Errorf("%v: %v\ngot:\n%s\nwant:\n%s", env, err, out, want)
		}
	}
}
