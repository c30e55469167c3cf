package fromllvm

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"gpuc/internal/diag"
)

// Note [Compiling external kernels]
// OpenCL and CUDA sources go through clang-16 and opt-16 before llir/llvm v0.3.6 reads them
// (../shared/TERMINATION.md has the recipe and its traps):
//   - -Xclang -disable-O0-optnone, and optnone/noinline deleted, or opt does nothing at -O0;
//   - mustprogress (attribute and loop metadata) deleted: it lets LLVM assume that loops end;
//   - typed pointers (-Xclang -no-opaque-pointers, opt -opaque-pointers=0) and " memory(...)"
//     deleted from attribute groups, the LLVM 14 syntax llir reads;
//   - opt runs inline,sroa,early-cse,instcombine,simplifycfg,loop-simplify and nothing that
//     deletes loops or moves loads across loop iterations (no LICM, no GVN): a load inside a loop
//     stays there, so the thread-modular abstraction still sees it reread.
// The opt pipeline is fixed: verdicts must not depend on which passes a user has.

// Options says how to compile one external kernel.
type Options struct {
	Clang, Opt string   // default clang-16 and opt-16
	Defines    []string // -D options (NAME or NAME=VALUE), after the file's own header ones
	// Prelude is a header for CUDA sources; "" means the bundled prelude
	// (prelude/gpuc_cuda_prelude.h: __global__ and friends, builtin variables, vector types).
	Prelude string
	// Semantics is "wrap" (the default, also "") or "c": assume that signed overflow does not
	// happen where LLVM says nsw (gpuc check --semantics=c); each assumption is listed in
	// System.Assumed.
	Semantics string
}

//go:embed prelude/gpuc_cuda_prelude.h
var cudaPrelude []byte

// annotationDefines defines GPUVerify's specification macros away, as its corpus needs
// (they are not OpenCL, and verdicts use launch facts only).
var annotationDefines = []string{
	"__requires(x)=", "__ensures(x)=", "__function_wide_invariant(x)=",
	"__global_invariant(x)=0", "__invariant(x)=0", "__assume(x)=", "__assert(x)=",
	"__global_requires(x)=", "__global_ensures(x)=",
}

var (
	reMemoryAttr   = regexp.MustCompile(` memory\([^)]*\)`)
	reMustProgress = regexp.MustCompile(`\b(mustprogress|noinline|optnone)\b ?`)
	reLoopProgress = regexp.MustCompile(`!\{!"llvm\.loop\.mustprogress"\}`)
)

// HeaderDefines reads the -D options from a kernel's second line when it is a GPUVerify
// command line ("//--local_size=... -DN=4"), as the corpus writes them.
func HeaderDefines(src []byte) []string {
	lines := strings.SplitN(string(src), "\n", 3)
	if len(lines) < 2 || !strings.HasPrefix(strings.TrimSpace(lines[1]), "//") {
		return nil
	}
	var ds []string
	for _, f := range strings.Fields(strings.TrimPrefix(strings.TrimSpace(lines[1]), "//")) {
		if strings.HasPrefix(f, "-D") && len(f) > 2 {
			ds = append(ds, f[2:])
		}
	}
	return ds
}

// CompileFile turns path (.cl, .cu or .ll) into LLVM IR text that llir/llvm reads.
func CompileFile(path string, o Options) (string, error) {
	clang, opt := o.Clang, o.Opt
	if clang == "" {
		clang = "clang-16"
	}
	if opt == "" {
		opt = "opt-16"
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp("", "gpuc-term-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	raw := filepath.Join(tmp, "in.ll")
	var args []string
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".cl":
		args = []string{"-x", "cl", "-cl-std=CL2.0", "-Xclang", "-finclude-default-header", "-target", "spir64"}
	case ".cu":
		prelude := o.Prelude
		if prelude == "" {
			prelude = filepath.Join(tmp, "gpuc_cuda_prelude.h")
			if err := os.WriteFile(prelude, cudaPrelude, 0o644); err != nil {
				return "", err
			}
		}
		// An empty cuda.h: the prelude declares what kernels use from it.
		inc := filepath.Join(tmp, "include")
		if err := os.Mkdir(inc, 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(inc, "cuda.h"), nil, 0o644); err != nil {
			return "", err
		}
		args = []string{"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_70", "-nocudainc", "-nocudalib",
			"-include", prelude, "-I", inc}
	case ".ll":
		if line, col, ok := opaquePointer(src); ok {
			return "", diag.Errorf(diag.Pos{File: path, Line: line, Col: col}, "LLVM IR with opaque pointers (ptr) is not supported: the translator reads LLVM 14's typed pointers; emit it with clang-16 -Xclang -no-opaque-pointers, or pass the .cl or .cu source")
		}
		if err := os.WriteFile(raw, src, 0o644); err != nil {
			return "", err
		}
	default:
		return "", diag.Errorf(diag.Pos{File: path, Line: 1, Col: 1}, "not an external kernel (want .ll, .cl or .cu)")
	}
	if args != nil {
		for _, d := range annotationDefines {
			args = append(args, "-D"+d)
		}
		for _, d := range append(HeaderDefines(src), o.Defines...) {
			args = append(args, "-D"+d)
		}
		args = append(args, "-emit-llvm", "-S", "-O0", "-Xclang", "-disable-O0-optnone",
			"-Xclang", "-no-opaque-pointers", "-gline-tables-only", "-fno-discard-value-names",
			"-Wno-everything", path, "-o", raw)
		if err := run(clang, args); err != nil {
			return "", clangError(path, clang, err)
		}
	}
	text, err := os.ReadFile(raw)
	if err != nil {
		return "", err
	}
	fixed := filepath.Join(tmp, "fixed.ll")
	if err := os.WriteFile(fixed, fixText(text), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(tmp, "out.ll")
	if err := run(opt, []string{"-opaque-pointers=0", "-S", "-inline-threshold=100000",
		"-passes=inline,function(sroa,early-cse,instcombine,simplifycfg,loop-simplify)", fixed, "-o", out}); err != nil {
		return "", fmt.Errorf("%s:1:1: error: %s: %v", path, opt, err)
	}
	res, err := os.ReadFile(out)
	if err != nil {
		return "", err
	}
	return string(fixText(res)), nil
}

// reOpaquePtr finds the type ptr (not a name such as %ptr): LLVM 15 and later write every
// pointer so, and opt-16 -opaque-pointers=0 cannot read it back into typed pointers.
var reOpaquePtr = regexp.MustCompile(`(^|[\s(,<{\[])ptr([\s),>}\]]|$)`)

// opaquePointer gives the position of the first opaque pointer type of an .ll file (comments
// skipped), if any.
func opaquePointer(src []byte) (line, col int, ok bool) {
	for i, l := range strings.Split(string(src), "\n") {
		if c := strings.IndexByte(l, ';'); c >= 0 {
			l = l[:c]
		}
		if m := reOpaquePtr.FindStringSubmatchIndex(l); m != nil {
			return i + 1, m[3] + 1, true
		}
	}
	return 0, 0, false
}

// fixText deletes what llir/llvm v0.3.6 cannot read and what lets LLVM assume progress.
func fixText(b []byte) []byte {
	b = reMemoryAttr.ReplaceAll(b, nil)
	b = reMustProgress.ReplaceAll(b, nil)
	b = reLoopProgress.ReplaceAll(b, []byte(`!{}`))
	return b
}

// clangError gives clang's first error about path, positioned as clang put it ("expected '}'"
// at 1:48), or else its exit at path's start.
func clangError(path, clang string, err error) error {
	var out *exec.ExitError
	if errors.As(err, &out) {
		for _, line := range strings.Split(string(out.Stderr), "\n") {
			rest, ok := strings.CutPrefix(line, path+":")
			if !ok {
				continue
			}
			var l, c int
			if n, _ := fmt.Sscanf(rest, "%d:%d:", &l, &c); n != 2 {
				continue
			}
			if _, msg, ok := strings.Cut(rest, ": error: "); ok {
				return diag.Errorf(diag.Pos{File: path, Line: l, Col: c}, "%s", msg)
			}
		}
	}
	return diag.Errorf(diag.Pos{File: path, Line: 1, Col: 1}, "%s: %v", clang, err)
}

func run(name string, args []string) error {
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			exit.Stderr = stderr.Bytes()
		}
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			return err
		}
		return fmt.Errorf("%w: %s", err, msg)
	}
	return nil
}
