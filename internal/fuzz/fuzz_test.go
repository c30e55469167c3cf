package fuzz_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gpuc/backends/cuda"
	"gpuc/backends/llvm"
	"gpuc/internal/driver"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// root is the repository root, from this package's directory.
const root = "../.."

// fuzzing reports whether this run fuzzes (go test -fuzz), rather than
// running the seeds as tests, as make test does.
func fuzzing() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
}

// seeds adds the files that match each pattern (relative to the
// repository root) to f's corpus, at most max of each pattern, skipping
// large ones. Without fuzzing, only the first two of each pattern run:
// the examples' own tests compile them all, and make test must stay
// fast. The second argument of a TRS seed is its input term.
func seeds(f *testing.F, max int, patterns ...string) {
	if !fuzzing() {
		max = 2
	}
	for _, p := range patterns {
		files, _ := filepath.Glob(filepath.Join(root, p))
		if len(files) > max {
			files = files[:max]
		}
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil || len(src) > 64<<10 {
				continue
			}
			input, _ := os.ReadFile(strings.TrimSuffix(file, filepath.Ext(file)) + ".input")
			f.Add(src, strings.TrimSpace(string(input)))
		}
	}
}

// corpus is where the shared corpus is, or "" with a log line.
func corpus(f *testing.F) string {
	dir := filepath.Join(root, "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		f.Logf("no shared corpus at %s: seeding from the repository only", dir)
		return ""
	}
	return filepath.Join("..", "shared", "corpus")
}

// bad reports whether err is what gpuc must never produce (Note [Fuzz
// targets]).
func bad(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "internal error") || strings.Contains(msg, "panic")
}

// withDeadline runs fn on a goroutine of its own and fails t if it
// fails, panics, or takes longer than d: a hang.
func withDeadline(t *testing.T, d time.Duration, fn func() error) {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v", r)
			}
		}()
		done <- fn()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(d):
		t.Fatalf("no result after %v: a hang", d)
	}
}

// load writes src to a file of the extension and loads it.
func load(dir, ext string, src []byte, input string) (*ir.Module, error) {
	file := filepath.Join(dir, "fuzz"+ext)
	if err := os.WriteFile(file, src, 0o644); err != nil {
		return nil, fmt.Errorf("internal error: %v", err)
	}
	var args []string
	if input != "" && ext == ".trs" {
		args = append(args, "--input="+input)
	}
	return driver.Load(file, args...)
}

// compileAll takes src through the whole compile path (Note [Fuzz
// targets]).
func compileAll(t *testing.T, ext string, src []byte, input string) {
	dir := t.TempDir()
	withDeadline(t, 20*time.Second, func() (failure error) {
		check := func(stage string, err error) bool {
			if bad(err) && failure == nil {
				failure = fmt.Errorf("%s: %v", stage, err)
			}
			return err == nil
		}
		for _, gridSync := range []passes.GridSync{passes.GridSyncNever, passes.GridSyncAlways} {
			m, err := load(dir, ext, src, input)
			if !check("load", err) {
				return failure
			}
			cfg := &passes.Config{VerifyEach: true, GridSync: gridSync}
			if !check("passes, grid sync "+string(gridSync), driver.Lower(m, []string{"default"}, cfg)) {
				continue
			}
			_, err = cuda.Emit(m, cuda.Options{})
			check("CUDA, grid sync "+string(gridSync), err)
			if gridSync != "never" {
				continue
			}
			for _, tgt := range []llvm.Target{llvm.NVPTX, llvm.Host} {
				_, err = llvm.Emit(m, llvm.Options{Target: tgt})
				check("LLVM "+tgt.String(), err)
			}
			_, err = llvm.HostProgram(m, llvm.Options{Target: llvm.Host}, nil)
			check("host program", err)
			_, err = llvm.HostProgram(m, llvm.Options{Target: llvm.NVPTX}, []byte("// PTX stand-in\n"))
			check("driver API host program", err)
		}
		return failure
	})
}

func FuzzFork(f *testing.F) {
	seeds(f, 100, "examples/fork/*.fork", "frontends/fork/testdata/*.fork")
	f.Fuzz(func(t *testing.T, src []byte, input string) { compileAll(t, ".fork", src, "") })
}

func FuzzCHR(f *testing.F) {
	seeds(f, 100, "examples/chr/*.chr")
	if c := corpus(f); c != "" {
		seeds(f, 50, c+"/chr/*/*.chr", c+"/chr/*/*.pl")
	}
	f.Fuzz(func(t *testing.T, src []byte, input string) { compileAll(t, ".chr", src, "") })
}

func FuzzTRS(f *testing.F) {
	seeds(f, 100, "examples/trs/*.trs")
	if c := corpus(f); c != "" {
		seeds(f, 20, c+"/trs/tpdb/*.trs", c+"/trs/rec/REC/*.rec")
	}
	f.Fuzz(func(t *testing.T, src []byte, input string) {
		// A .rec seed is a REC specification, which .trs reads too.
		compileAll(t, ".trs", src, input)
	})
}

func FuzzKIR(f *testing.F) {
	seeds(f, 100, "examples/kir/*.kir", "frontends/kir/testdata/*.kir", "frontends/fork/testdata/*.kir",
		"backends/cuda/testdata/*.kir", "backends/llvm/testdata/*.kir", "ir/interp/testdata/*.kir")
	f.Fuzz(func(t *testing.T, src []byte, input string) { compileAll(t, ".kir", src, "") })
}

// maxSteps and maxTime bound each run of FuzzForkPasses (Note [Step
// limit] and Note [Bounded runs] in package interp). The time bound keeps
// a slow input (a list with a cycle, which pointer jumping never leaves,
// over a thousand processors) well under the fuzzer's own limit, past
// which it reports the input as a hang.
const (
	maxSteps = 200000
	maxTime  = 2 * time.Second
)

// run runs m in the interpreter and returns what it printed and its error.
func run(m *ir.Module) (string, error) {
	var out bytes.Buffer
	err := interp.Run(m, interp.Config{Stdout: &out, MaxSteps: maxSteps, Timeout: maxTime, Workers: 1})
	return out.String(), err
}

// limited reports whether err is a limit of the interpreter, which the
// two runs need not reach alike: the lowered program counts its steps
// differently.
func limited(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "--max-steps") || strings.Contains(err.Error(), "interpreter's limit") ||
		strings.Contains(err.Error(), "(--timeout)"))
}

func FuzzForkPasses(f *testing.F) {
	seeds(f, 100, "examples/fork/*.fork", "frontends/fork/testdata/*.fork")
	f.Fuzz(func(t *testing.T, src []byte, input string) {
		dir := t.TempDir()
		withDeadline(t, 20*time.Second, func() error {
			m, err := load(dir, ".fork", src, "")
			if err != nil {
				if bad(err) {
					return fmt.Errorf("load: %v", err)
				}
				return nil
			}
			lowered := ir.CloneModule(m)
			if err := driver.Lower(lowered, []string{"default"}, &passes.Config{VerifyEach: true}); err != nil {
				if bad(err) {
					return fmt.Errorf("passes: %v", err)
				}
				return nil
			}
			before, errBefore := run(m)
			after, errAfter := run(lowered)
			switch {
			case bad(errBefore) || bad(errAfter):
				return fmt.Errorf("run: %v / %v", errBefore, errAfter)
			case limited(errBefore) || limited(errAfter):
			case (errBefore == nil) != (errAfter == nil):
				return fmt.Errorf("before the passes: %v; after: %v", errBefore, errAfter)
			case before != after:
				return fmt.Errorf("the passes change the output:\n%s", diff(before, after))
			case errBefore != nil && !sameRaise(errBefore, errAfter):
				return fmt.Errorf("before the passes: %v; after: %v", errBefore, errAfter)
			}
			return nil
		})
	})
}

// sameRaise reports whether two failed runs fail alike: the same raise,
// or both with a fault.
func sameRaise(a, b error) bool {
	var ra, rb *interp.RaiseError
	if errors.As(a, &ra) || errors.As(b, &rb) {
		return errors.As(a, &ra) && errors.As(b, &rb) && ra.Msg == rb.Msg
	}
	return true
}

// diff shows the first line where two outputs differ.
func diff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d: %q before, %q after", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines before, %d after", len(la), len(lb))
}
