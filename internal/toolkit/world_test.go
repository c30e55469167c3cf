package toolkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/backends/cuda"
)

// TestBuildWorld checks the nvcc command lines of Build, with a stand-in
// nvcc that records its arguments and keeps the source it builds: a world
// program (Note [World on NVSHMEM] in backends/cuda) is built whole in
// one nvcc run against NVSHMEM (Note [A world built whole]), with the
// flags that the program's own line names (the one recipe that the
// scripts read); any other is built as before.
func TestBuildWorld(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "nvcc.args")
	nvcc := "#!/bin/sh\necho \"$@\" >> " + log + "\nfor a; do case $a in *.cu) cp \"$a\" " + dir + "/; esac; done\n"
	if err := os.WriteFile(filepath.Join(dir, "nvcc"), []byte(nvcc), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("GPUC_NVSHMEM", "/opt/nvshmem")
	world := filepath.Join(dir, "w.kir")
	plain := filepath.Join(dir, "p.kir")
	const src = "module %s;\n%sparam N: i32 = 4;\nbuffer b: i32[N] global output;\nkernel k() { b[tid()] = tid(); }\nhost main() { launch k() grid 1 block N; }\n"
	if err := os.WriteFile(world, []byte(fmt.Sprintf(src, "w", "param DEVICES: i32 = 2;\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, []byte(fmt.Sprintf(src, "p", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "prog")
	for _, f := range []string{world, plain} {
		if err := Build(f, prog, Options{Toolchain: NVCC}); err != nil {
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
	cu, err := os.ReadFile(filepath.Join(dir, "w.cu"))
	if err != nil {
		t.Fatal(err)
	}
	named := ""
	for _, l := range strings.Split(string(cu), "\n") {
		if rest, ok := strings.CutPrefix(l, cuda.WorldFlagsLine); ok {
			named = strings.ReplaceAll(rest, "$NV", "/opt/nvshmem")
		}
	}
	if named == "" {
		t.Fatalf("w.cu has no line %q", cuda.WorldFlagsLine)
	}
	want := "-O3 -arch=sm_90 -o " + prog + " "
	if !strings.HasPrefix(lines[0], want) || !strings.HasSuffix(lines[0], "/w.cu "+named) {
		t.Errorf("world program: nvcc %s\nwant %q, the source, then the flags that w.cu names: %q", lines[0], want, named)
	}
	if named != "-I/opt/nvshmem/include -L/opt/nvshmem/lib -l:libnvshmem_host.so.3 -lnvshmem_device -Xlinker -rpath,/opt/nvshmem/lib" {
		t.Errorf("world flags %q: want NVSHMEM's libraries, built whole", named)
	}
	for _, l := range lines {
		if strings.Contains(l, "-rdc") || strings.Contains(l, "-c ") {
			t.Errorf("nvcc %s: relocatable device code, or a build in parts", l)
		}
	}
	if strings.Contains(lines[1], "nvshmem") {
		t.Errorf("program without DEVICES: nvcc %s", lines[1])
	}
}
