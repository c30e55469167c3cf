// Package toolkit builds and runs users' programs natively: `gpuc build`
// compiles a source file to an executable with the toolchain at hand
// (nvcc for the CUDA program, else clang for the LLVM backend's host
// build), and `gpuc exec` builds into a cache and runs the result. It
// drives the compiler the way `gpuc compile` does (package driver, then a
// backend) and the external tools; it is not a build system.
package toolkit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"gpuc/backends/cuda"
	"gpuc/backends/llvm"
	"gpuc/internal/driver"
	"gpuc/ir"
	"gpuc/passes"
)

// Toolchains that Build knows.
const (
	Auto   = "auto"   // hybrid for a program with hybrid points where LLVM is at hand; else nvcc where it is on PATH; else host
	NVCC   = "nvcc"   // the CUDA backend's program, built by nvcc: GPU only
	Host   = "host"   // the LLVM backend's host build, built by clang
	Hybrid = "hybrid" // the LLVM backend's hybrid program: host and GPU in one (Note [Hybrid migration] in backends/cuda/hybrid.h)
)

// Note [Hybrid by default]
// A program with hybrid points (TRS's fixpoint: Note [Hybrid points] in
// package ir) is built as the hybrid program where llc and clang are at
// hand, nvcc or not: it starts rewriting on the host at once, brings the
// GPU up on a thread of its own, and moves the store to whichever side
// the measured parallelism favours (issue 17: a sequential system must
// not pay CUDA's start-up and the GPU's latency per rewrite, a parallel
// one must still reach the GPU). It needs no CUDA toolkit to build
// (Note [Hybrid programs without the toolkit] in backends/cuda) and
// runs on the host where there is no driver or device. Its kernels on
// the GPU are LLVM's PTX for sm_90 (llc's; --arch is nvcc's), which the
// driver compiles on the first run and caches; a GPU that cannot run it
// leaves the program on the host (Note [A device that fails to start]
// in backends/cuda). --toolchain=nvcc builds today's GPU-only CUDA program instead;
// programs without hybrid points (Fork, CHR, .kir) build as before.

// Options say how to build.
type Options struct {
	// Toolchain is Auto, NVCC, Host or Hybrid.
	Toolchain string
	// Arch is nvcc's GPU architecture (default sm_90).
	Arch string
	// Frontend are the input flags, as command-line arguments
	// (driver.Inputs.Args), as for gpuc compile.
	Frontend []string
	// NoChecks leaves out the checks of indices and divisors.
	NoChecks bool
	// Log, if set, receives each tool's command line.
	Log func(cmd string)
}

// Resolve picks the toolchain for m (Note [Hybrid by default]): Auto
// becomes Hybrid for a module with hybrid points where the LLVM tools
// are on PATH, else NVCC where nvcc is, else Host. It fails if the
// chosen toolchain's tools are missing, or if Hybrid is asked of a
// module that has no hybrid points. With m nil it checks the tools alone.
func Resolve(toolchain string, m *ir.Module) (string, error) {
	points := m != nil && ir.HasHybridPoints(m)
	switch toolchain {
	case "", Auto:
		switch {
		case points && hybridTools():
			return Hybrid, nil
		case llvm.FindTool("nvcc") != "":
			return NVCC, nil
		}
		toolchain = Host
	case NVCC, Host, Hybrid:
	default:
		return "", fmt.Errorf("--toolchain=%s: want auto, nvcc, host or hybrid", toolchain)
	}
	switch {
	case toolchain == NVCC && llvm.FindTool("nvcc") == "":
		return "", fmt.Errorf("--toolchain=nvcc: nvcc is not on PATH")
	case toolchain == Host && (llvm.FindTool(clangNames...) == "" || llvm.FindTool(cxxNames...) == ""):
		return "", fmt.Errorf("the host build needs %s and %s on PATH (install clang-16)", strings.Join(clangNames, " or "), strings.Join(cxxNames, " or "))
	case toolchain == Hybrid && !hybridTools():
		return "", fmt.Errorf("the hybrid build needs %s, %s and %s on PATH (install llvm-16 and clang-16)", strings.Join(llcNames, " or "), strings.Join(clangNames, " or "), strings.Join(cxxNames, " or "))
	case toolchain == Hybrid && m != nil && !points:
		return "", fmt.Errorf("--toolchain=hybrid: the program has no hybrid points to move at (TRS programs have them); build it with nvcc or host")
	}
	return toolchain, nil
}

var (
	clangNames = []string{"clang-16", "clang"}
	cxxNames   = []string{"clang++-16", "clang++", "g++"}
	llcNames   = []string{"llc-16", "llc"}
)

// hybridTools reports whether the hybrid build's tools are on PATH.
func hybridTools() bool {
	return llvm.FindTool(llcNames...) != "" && llvm.FindTool(clangNames...) != "" && llvm.FindTool(cxxNames...) != ""
}

// Build compiles file into the executable out.
func Build(file, out string, o Options) error {
	m, one, err := driver.LoadWithOne(file, o.Frontend...)
	if err != nil {
		return err
	}
	tc, err := Resolve(o.Toolchain, m)
	if err != nil {
		return err
	}
	if tc == Hybrid {
		if err := hybridDefaults(m, o.Frontend); err != nil {
			return err
		}
	}
	gridSync := passes.GridSyncNever // the host build and the LLVM path relaunch
	if tc == NVCC {
		gridSync = passes.GridSyncAuto
	}
	if err := driver.Lower(m, []string{"default"}, &passes.Config{GridSync: gridSync}); err != nil {
		return err
	}
	if tc != NVCC || !cuda.UsesWorld(m) {
		one = nil
	}
	if one != nil {
		// The one-device program that DEVICES=1 runs (Note [A world of
		// one runs the one-device program] in backends/cuda).
		if err := driver.Lower(one, []string{"default"}, &passes.Config{GridSync: gridSync}); err != nil {
			return err
		}
	}
	dir, err := os.MkdirTemp("", "gpuc-build")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if tc == NVCC {
		cu, err := cuda.Emit(m, cuda.Options{NoChecks: o.NoChecks, One: one})
		if err != nil {
			return err
		}
		src := filepath.Join(dir, m.Name+".cu")
		if err := os.WriteFile(src, cu, 0o644); err != nil {
			return err
		}
		arch := o.Arch
		if arch == "" {
			arch = "sm_90"
		}
		if !cuda.UsesWorld(m) {
			return o.run(llvm.FindTool("nvcc"), "-O3", "-arch="+arch, "-o", out, src)
		}
		// A world program (Note [World on NVSHMEM] in backends/cuda)
		// links NVSHMEM's host library (Note [A world built whole]).
		nv, err := NVSHMEM()
		if err != nil {
			return fmt.Errorf("%s runs on a world of devices (parameter DEVICES): %v", file, err)
		}
		return o.run(llvm.FindTool("nvcc"), append([]string{"-O3", "-arch=" + arch, "-o", out, src}, cuda.WorldFlags(nv)...)...)
	}
	if tc == Hybrid {
		return o.buildHybrid(m, filepath.Join(dir, m.Name), out)
	}
	lo := llvm.Options{Target: llvm.Host, NoChecks: o.NoChecks}
	ll, err := llvm.Emit(m, lo)
	if err != nil {
		return err
	}
	cpp, err := llvm.HostProgram(m, lo, nil)
	if err != nil {
		return err
	}
	return o.link(filepath.Join(dir, m.Name), out, ll, cpp)
}

// link writes a host-target LLVM module and its C++ host program under
// base, compiles the module with clang and links both into out, with libs.
func (o Options) link(base, out string, ll, cpp []byte, libs ...string) error {
	if err := os.WriteFile(base+".ll", ll, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(base+".cpp", cpp, 0o644); err != nil {
		return err
	}
	if err := o.run(llvm.FindTool(clangNames...), "-O2", "-Wno-override-module", "-c", base+".ll", "-o", base+".o"); err != nil {
		return err
	}
	return o.run(llvm.FindTool(cxxNames...), append([]string{"-std=c++17", "-O2", "-o", out, base + ".cpp", base + ".o"}, libs...)...)
}

// hybridDefaults gives the parameter HybridIterParam, where m has it,
// the hybrid build's default, unless the command line set it.
func hybridDefaults(m *ir.Module, frontend []string) error {
	if m.Param(ir.HybridIterParam) == nil {
		return nil
	}
	for _, a := range frontend {
		if strings.HasPrefix(a, ir.HybridIterParam+"=") {
			return nil
		}
	}
	return driver.SetDefaults(m, []string{fmt.Sprintf("%s=%d", ir.HybridIterParam, ir.HybridIterDefault)})
}

// buildHybrid builds the hybrid program of the lowered module m into out,
// with base as the stem of its intermediate files: the kernels for the
// host (clang), the PTX (llc) and the host program that embeds it.
func (o Options) buildHybrid(m *ir.Module, base, out string) error {
	host := llvm.Options{Target: llvm.Host, NoChecks: o.NoChecks}
	ll, err := llvm.Emit(ir.CloneModule(m), host)
	if err != nil {
		return err
	}
	dev := llvm.Options{Target: llvm.NVPTX, NoChecks: o.NoChecks}
	nv, err := llvm.Emit(ir.CloneModule(m), dev)
	if err != nil {
		return err
	}
	if o.Log != nil {
		o.Log(llvm.FindTool(llcNames...) + " (PTX of the GPU side)")
	}
	ptx, err := llvm.PTX(nv)
	if err != nil {
		return err
	}
	cpp, err := llvm.HybridProgram(m, dev, ptx)
	if err != nil {
		return err
	}
	return o.link(base, out, ll, cpp, "-lpthread", "-ldl")
}

// run runs a tool and reports its output if it fails.
func (o Options) run(tool string, args ...string) error {
	if o.Log != nil {
		o.Log(tool + " " + strings.Join(args, " "))
	}
	var stderr bytes.Buffer
	cmd := exec.Command(tool, args...)
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v\n%s", filepath.Base(tool), err, strings.TrimRight(stderr.String(), "\n"))
	}
	return nil
}

// NVSHMEM finds NVSHMEM's directory, which holds include/ and lib/:
// $GPUC_NVSHMEM, else the nvidia-nvshmem wheel that python3 imports (as
// on the GPU machines: ../shared/MULTIGPU.md).
func NVSHMEM() (string, error) {
	if dir := os.Getenv("GPUC_NVSHMEM"); dir != "" {
		return dir, nil
	}
	out, err := exec.Command("python3", "-c", "import nvidia.nvshmem as m; print(list(m.__path__)[0])").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		return "", fmt.Errorf("NVSHMEM not found: install the nvidia-nvshmem-cu13 wheel for python3, or set GPUC_NVSHMEM to a directory with include/ and lib/")
	}
	return dir, nil
}
