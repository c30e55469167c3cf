package termination_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gpuc/analysis/fromir"
	"gpuc/analysis/fromllvm"
	"gpuc/analysis/its"
	"gpuc/analysis/termination"
	"gpuc/internal/driver"
	"gpuc/passes"
)

// wants reads "// want KERNEL: VERDICT" lines.
func wants(t *testing.T, path string) map[string]string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(l, "// want "); ok {
			k, v, _ := strings.Cut(rest, ": ")
			m[k] = strings.TrimSpace(v)
		}
	}
	if len(m) == 0 {
		t.Fatalf("%s: no // want line", path)
	}
	return m
}

func systemsOf(t *testing.T, path string) []*its.System {
	t.Helper()
	if filepath.Ext(path) == ".cl" {
		ss, err := fromllvm.Systems(path, fromllvm.Options{Semantics: "wrap"})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return ss
	}
	m, err := driver.Load(path, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := driver.Lower(m, []string{"default"}, &passes.Config{}); err != nil {
		t.Fatal(err)
	}
	ss, err := fromir.Systems(m, path)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

func verdictText(r *termination.Result) string {
	v := string(r.Verdict)
	if r.Condition != "" {
		v += " if " + r.Condition
	}
	return v
}

// TestConstructedKernels runs the constructed soundness cases, each written in .kir and in .cl,
// through the translators and the engine: every kernel gets its expected verdict, and the .kir
// and .cl forms of a case agree up to parameter names.
func TestConstructedKernels(t *testing.T) {
	if _, err := exec.LookPath("z3"); err != nil {
		t.Skip("z3 is not installed")
	}
	clang := true
	for _, tool := range []string{"clang-16", "opt-16"} {
		if _, err := exec.LookPath(tool); err != nil {
			clang = false
		}
	}
	eng, err := termination.NewEngine(termination.Config{Budget: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	files, _ := filepath.Glob("testdata/kernels/*")
	for _, f := range files {
		if filepath.Ext(f) == ".cl" && !clang {
			t.Logf("%s: skipped: clang-16 and opt-16 are not installed", f)
			continue
		}
		want := wants(t, f)
		for _, sys := range systemsOf(t, f) {
			w, ok := want[sys.Name]
			if !ok {
				continue
			}
			delete(want, sys.Name)
			r := eng.Analyze(sys)
			if got := verdictText(r); got != w {
				t.Errorf("%s: got %s, want %s", f, r.Line(), w)
			}
			if r.Verdict == termination.False && r.Witness == nil {
				t.Errorf("%s: FALSE without a witness", f)
			}
		}
		for k := range want {
			t.Errorf("%s: no kernel %s", f, k)
		}
	}
}
