package toolkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildWorld checks the nvcc command lines of Build, with a stand-in
// nvcc that records its arguments: a world program (Note [World on
// NVSHMEM] in backends/cuda) links NVSHMEM with relocatable device code;
// any other is built as before.
func TestBuildWorld(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "nvcc.args")
	nvcc := "#!/bin/sh\necho \"$@\" >> " + log + "\n"
	if err := os.WriteFile(filepath.Join(dir, "nvcc"), []byte(nvcc), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("GPUC_NVSHMEM", "/opt/nvshmem")
	world := filepath.Join(dir, "w.kir")
	plain := filepath.Join(dir, "p.kir")
	const src = "module w;\n%sparam N: i32 = 4;\nbuffer b: i32[N] global output;\nkernel k() { b[tid()] = tid(); }\nhost main() { launch k() grid 1 block N; }\n"
	if err := os.WriteFile(world, []byte(strings.Replace(src, "%s", "param DEVICES: i32 = 2;\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, []byte(strings.Replace(src, "%s", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{world, plain} {
		if err := Build(f, filepath.Join(dir, "prog"), Options{Toolchain: NVCC}); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("nvcc ran %d times, want 2:\n%s", len(lines), data)
	}
	for _, want := range []string{"-O3 -arch=sm_90 -rdc=true -Xnvlink --suppress-stack-size-warning -I/opt/nvshmem/include -o ", "/w.cu -L/opt/nvshmem/lib -l:libnvshmem_host.so.3 -lnvshmem_device -Xlinker -rpath,/opt/nvshmem/lib"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("world program: nvcc %s\nwant %q in it", lines[0], want)
		}
	}
	if strings.Contains(lines[1], "nvshmem") || strings.Contains(lines[1], "-rdc") {
		t.Errorf("program without DEVICES: nvcc %s", lines[1])
	}
}
