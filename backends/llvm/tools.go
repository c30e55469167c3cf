package llvm

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"gpuc/backends/cuda"
	"gpuc/ir"
)

// LLCNames are the names under which PTX looks for llc, in order.
var LLCNames = []string{"llc-16", "llc"}

// FindTool returns the path of the first of names on PATH, or "".
func FindTool(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// PTX compiles an NVPTX module, as Emit writes it, to PTX for sm_90 with
// llc. It fails with a clear error where no llc is on PATH.
func PTX(module []byte) ([]byte, error) {
	llc := FindTool(LLCNames...)
	if llc == "" {
		return nil, fmt.Errorf("llvm: PTX needs llc (%s) on PATH; or emit the module with --emit=llvm and run llc elsewhere", strings.Join(LLCNames, " or "))
	}
	dir, err := os.MkdirTemp("", "gpuc-ptx")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "kernels.ll"), filepath.Join(dir, "kernels.ptx")
	if err := os.WriteFile(in, module, 0o644); err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd := exec.Command(llc, "-O3", "-march=nvptx64", "-mcpu=sm_90", in, "-o", out)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("llvm: %s: %v\n%s", filepath.Base(llc), err, stderr.String())
	}
	return os.ReadFile(out)
}

// HostProgram writes the C++ host program that runs m's kernels, as Emit
// writes them with opts: for NVPTX a CUDA driver API program that embeds
// ptx, the kernels compiled by PTX; for Host a program to link with the
// kernels compiled from the module.
func HostProgram(m *ir.Module, opts Options, ptx []byte) ([]byte, error) {
	if opts.Target == Host {
		return cuda.Emit(m, cuda.Options{Device: cuda.CPU, NoChecks: opts.NoChecks})
	}
	if len(ptx) == 0 {
		return nil, fmt.Errorf("llvm: the driver API host program needs the kernels' PTX")
	}
	return cuda.Emit(m, cuda.Options{Device: cuda.DriverAPI, PTX: ptx, NoChecks: opts.NoChecks})
}

// HybridProgram returns the C++ host program that runs each launch on
// the CPU or the GPU, where the data is (Note [Hybrid migration] in
// backends/cuda/hybrid.h): it embeds ptx, the module's NVPTX kernels,
// and links with the module's --target=host object.
func HybridProgram(m *ir.Module, opts Options, ptx []byte) ([]byte, error) {
	if len(ptx) == 0 {
		return nil, fmt.Errorf("llvm: the hybrid host program needs the kernels' PTX")
	}
	return cuda.Emit(m, cuda.Options{Device: cuda.Hybrid, PTX: ptx, NoChecks: opts.NoChecks})
}
