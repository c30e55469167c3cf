// Package irtest is the shared harness for tests written in .kir text:
// parsing and verifying modules, running them in the interpreter, and
// golden txtar files whose sections hold each stage's text (in the manner
// of CUE's cuetxtar and TinyGo's transform tests).
package irtest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"gpuc/frontends/kir"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// Update makes Golden rewrite the expected sections with actual output:
// go test ./passes -update.
var Update = flag.Bool("update", false, "rewrite golden files with actual output")

// Parse parses .kir text and verifies it at its own level, failing the test
// on any error.
func Parse(t testing.TB, name string, src []byte) *ir.Module {
	t.Helper()
	m, err := kir.Parse(name, src)
	if err != nil {
		t.Fatalf("parse %s:\n%v", name, err)
	}
	if err := ir.Verify(m, m.Level()); err != nil {
		t.Fatalf("verify %s:\n%v\n%s", name, err, ir.Print(m))
	}
	return m
}

// ParseFile reads and parses a .kir file.
func ParseFile(t testing.TB, path string) *ir.Module {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Parse(t, path, src)
}

// ReadFile returns the text of the file at path, failing the test if it
// cannot be read.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// WriteFile writes text to the file name in dir and returns its path,
// failing the test if it cannot.
func WriteFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ArgsFile reads the NAME=VALUE parameter arguments in the file at path,
// as examples keep them beside a program; a missing file holds none.
func ArgsFile(t testing.TB, path string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(data)) {
		name, val, _ := strings.Cut(f, "=")
		v, err := strconv.ParseInt(val, 0, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[name] = v
	}
	return out
}

// CheckLowered checks what a frontend made of file: m verifies at the SPMD
// level, and its printed form parses back and prints the same.
func CheckLowered(t testing.TB, file string, m *ir.Module) {
	t.Helper()
	text := ir.Print(m)
	if err := ir.Verify(m, ir.SPMDLevel); err != nil {
		t.Fatalf("%s does not verify:\n%v\n%s", file, err, text)
	}
	back, err := kir.Parse(file+".kir", []byte(text))
	if err != nil {
		t.Fatalf("printed %s does not parse: %v\n%s", file, err, text)
	}
	if again := ir.Print(back); again != text {
		t.Fatalf("printed %s does not print back the same:\n%s\n---\n%s", file, text, again)
	}
}

// Run runs m in the interpreter with the given parameter overrides and
// returns what it printed, failing the test on any error.
func Run(t testing.TB, m *ir.Module, params map[string]int64) string {
	t.Helper()
	return RunWith(t, m, interp.Config{Params: params})
}

// RunWith is Run with a whole interpreter configuration; its Stdout is
// replaced.
func RunWith(t testing.TB, m *ir.Module, cfg interp.Config) string {
	t.Helper()
	var out bytes.Buffer
	cfg.Stdout = &out
	if err := interp.Run(m, cfg); err != nil {
		t.Fatalf("run %s: %v\noutput so far:\n%s", m.Name, err, out.String())
	}
	return out.String()
}

// Glob returns the files that match pattern, failing the test if none
// does: a glob that matches nothing tests nothing.
func Glob(t testing.TB, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no files match %s", pattern)
	}
	return files
}

// Note [Short mode]
// make test runs go test -short, and must end within 4 minutes on a 2-core
// machine without a GPU; make test-long (which CI runs after make test)
// runs every test whole. The sweeps whose every case goes through code
// that another case in short mode already covers run only in the long
// mode, each saying so with LongOnly: the LLVM backend's host and NVPTX
// builds of the TPDB rewrite systems (the TRS examples written for gpuc
// go through the same generator), the constructed termination cases under
// cvc5 (z3 runs them in short mode too), the termination verdicts of the
// whole kernel corpus (short mode checks a sample of each feature and
// verdict), the CUDA backend's g++ check of the host programs that the
// LLVM backend's tests build with clang++ and run, every other mutant of
// the constructed termination systems, and the REC benchmarks past a
// smaller rewrite bound. A feature's own test never runs only in the
// long mode.

// LongOnly skips t in short mode, with why: what covers the same code
// there (Note [Short mode]).
func LongOnly(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("short mode (make test-long runs it): %s", why)
	}
}

// RunPasses runs the named passes and pipelines on m, verifying after
// each, and fails the test on any error. cfg may be nil; VerifyEach is
// set on it.
func RunPasses(t testing.TB, m *ir.Module, cfg *passes.Config, names ...string) {
	t.Helper()
	if err := TryPasses(m, cfg, names...); err != nil {
		t.Fatalf("passes %s on %s:\n%v", strings.Join(names, ","), m.Name, err)
	}
}

// TryPasses is RunPasses for tests that expect an error: it returns it.
func TryPasses(m *ir.Module, cfg *passes.Config, names ...string) error {
	ps, err := passes.Expand(names)
	if err != nil {
		return err
	}
	if cfg == nil {
		cfg = &passes.Config{}
	}
	cfg.VerifyEach = true
	return passes.Run(m, ps, cfg)
}

// Golden runs check on every txtar archive matching pattern. check
// receives the archive and returns, per section name, the actual text;
// each must equal the archive's section of that name. With -update, the
// archive is rewritten with the actual text instead.
func Golden(t *testing.T, pattern string, check func(t *testing.T, a *txtar.Archive) map[string]string) {
	t.Helper()
	for _, file := range Glob(t, pattern) {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := check(t, a)
			if t.Failed() {
				return
			}
			changed := false
			for name, text := range got {
				i := section(a, name)
				if i < 0 {
					a.Files = append(a.Files, txtar.File{Name: name})
					i = len(a.Files) - 1
				}
				want := string(a.Files[i].Data)
				if want == text {
					continue
				}
				if *Update {
					a.Files[i].Data = []byte(text)
					changed = true
					continue
				}
				t.Errorf("%s: section %s differs\n--- want\n%s--- got\n%s", file, name, want, text)
			}
			if changed {
				if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// GoldenFile checks got against the file at path, or with -update
// rewrites the file with it.
func GoldenFile(t testing.TB, path, got string) {
	t.Helper()
	if *Update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := ReadFile(t, path); got != want {
		t.Errorf("%s differs (go test -update rewrites it); got:\n%s", path, got)
	}
}

// Section returns the text of the archive's section called name, failing
// the test if there is none.
func Section(t testing.TB, a *txtar.Archive, name string) []byte {
	t.Helper()
	i := section(a, name)
	if i < 0 {
		t.Fatalf("archive has no section %s", name)
	}
	return a.Files[i].Data
}

func section(a *txtar.Archive, name string) int {
	for i, f := range a.Files {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// CountStmts summarises the synchronisation structure of m in one line,
// for tests that assert structural facts rather than whole texts: the
// number of grid barriers, block barriers, splits, split whiles, forks,
// regions, kernels and launches.
func CountStmts(m *ir.Module) string {
	var grid, block, split, splitWhile, fork, region, launch, kernels int
	for _, f := range m.Funcs {
		if f.Kind == ir.KernelFunc {
			kernels++
		}
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			switch s := s.(type) {
			case *ir.Barrier:
				if s.Grid {
					grid++
				} else {
					block++
				}
			case *ir.Split:
				split++
			case *ir.SplitWhile:
				splitWhile++
			case *ir.Fork:
				fork++
			case *ir.Region:
				region++
			case *ir.Launch:
				launch++
			}
			return true
		})
	}
	return fmt.Sprintf("grid barriers %d, block barriers %d, splits %d, split whiles %d, forks %d, regions %d, kernels %d, launches %d",
		grid, block, split, splitWhile, fork, region, kernels, launch)
}
