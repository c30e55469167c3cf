package trs_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gpuc/frontends/trs"
	"gpuc/frontends/trs/maude"
	"gpuc/frontends/trs/rewrite"
)

// TestRECDiagnostics checks the REC format's errors (Note [REC]): each is
// positioned in the file and line it comes from, included files too.
func TestRECDiagnostics(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "nat.rec")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(lib, "% Peano numbers\nSORTS\n  Nat\nCONS\n  d0 : -> Nat\n  s : Nat -> Nat\nOPNS\n  plus : Nat Nat -> Nat\nVARS\n  N M : Nat\nRULES\n  plus(d0, N) -> N\n  plus(s(N), M) -> s(plus(N, M))\n")
	for _, c := range []struct{ src, want string }{
		{"REC-SPEC A\n#include \"nat.rec\"\nEVAL\n  plus(s(d0), s(d0))\nEND-SPEC\n", ""},
		{"REC-SPEC A\n#include \"nat.rec\"\nRULES\n  plus(N, d0) -> N if N -><- M\nEVAL\n  d0\nEND-SPEC\n",
			"a.rec:4:30: error: variable M of a condition does not occur on the left"},
		{"REC-SPEC A\nSORTS\n  B\nCONS\n  t : -> B\n#include \"nat.rec\"\nRULES\n  plus(N, s(M)) -> N if N -><- d0 and-if M ->/<- t\nEVAL\n  d0\nEND-SPEC\n",
			"a.rec:8:50: error: the right side of the condition (t) has sort B, want Nat"},
		{"REC-SPEC A\n#include \"nat.rec\"\nRULES\n  plus(N, s(M)) -> N if N -><-\nEVAL\n  d0\nEND-SPEC\n",
			"a.rec:5:1: error: "},
		{"REC-SPEC A\n#include \"none.rec\"\nEVAL\n  d0\nEND-SPEC\n", "a.rec:2:10: error: cannot find none.rec"},
		{"REC-SPEC A\n#include \"nat.rec\"\nEVAL\n  d0\n  s(d0)\nEND-SPEC\n",
			"a.rec:5:3: error: EVAL has 2 terms; gpuc evaluates one: pass the one to evaluate with --input"},
		{"REC-SPEC A\n#include \"nat.rec\"\nEVAL\n  plus(d0)\nEND-SPEC\n", "a.rec:4:3: error: plus takes 2 arguments, not 1"},
		{"REC-SPEC A\n#include \"bad.rec\"\nEVAL\n  d0\nEND-SPEC\n", "bad.rec:4:11: error: unknown sort Num"},
	} {
		write(filepath.Join(dir, "bad.rec"), "SORTS\n  Nat\nCONS\n  d0 : -> Num\n")
		file := filepath.Join(dir, "a.rec")
		sys, err := trs.Load(file, []byte(c.src), trs.Options{})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.src, err)
		case c.want == "" && sys.Format(sys.Input) != "plus(s(d0), s(d0))":
			t.Errorf("%q: input %s", c.src, sys.Format(sys.Input))
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), filepath.Join(dir, c.want))):
			t.Errorf("%q: got %v, want %s", c.src, err, c.want)
		}
	}
}

// TestRECCorpus runs the Rewrite Engines Competition's benchmarks
// (../shared/corpus/trs/rec/REC, skipped where the corpus is absent):
// every one must load, conditional rules included (Note [Conditional
// rules]); where one has several EVAL terms, the first two are evaluated.
// The normal forms of those within the test's limits must agree between
// the CPU rewriter and Maude, which takes the conditional rules as they
// are written, and for the smaller ones with gpuc run, rewrite counts
// included.
func TestRECCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/corpus/trs/rec/REC/*.rec")
	if len(files) == 0 {
		t.Skip("../shared/corpus/trs/rec is absent: the REC conformance test needs the corpus beside the repository")
	}
	_, err := exec.LookPath("maude")
	haveMaude := err == nil
	if !haveMaude && os.Getenv("GPUC_NO_MAUDE") == "" {
		t.Fatal("maude is not installed (apt-get install maude, as .ci/run does; or set GPUC_NO_MAUDE)")
	}
	// Short mode takes the benchmarks within a tenth of the rewrite bound
	// (Note [Short mode] in internal/irtest).
	maxSteps, maxInterp := int64(4_000_000), int64(40_000)
	if testing.Short() {
		maxSteps = 400_000
	}
	var compared, conditional, interpreted atomic.Int32
	t.Cleanup(func() {
		t.Logf("%d REC evaluations compared, %d of them with conditional rules, %d in the interpreter", compared.Load(), conditional.Load(), interpreted.Load())
		if compared.Load() < 30 || conditional.Load() < 10 || interpreted.Load() < 15 {
			t.Errorf("too few REC evaluations compared")
		}
	})
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".rec")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			inputs := []string{""}
			if evals := recEvals(src); len(evals) > 1 {
				inputs = evals[:2]
			}
			for _, input := range inputs {
				sys, err := trs.Load(f, src, trs.Options{Input: input})
				if err != nil {
					t.Fatal(err)
				}
				r := rewrite.New(sys, 1<<21)
				r.MaxSteps = maxSteps
				if err := r.Normalize(); errors.Is(err, rewrite.ErrSteps) || errors.Is(err, rewrite.ErrCapacity) {
					t.Skipf("too large for the test: %v", err)
				} else if err != nil {
					t.Fatal(err)
				}
				want := trs.Summarize(r, r.Root()).String()
				compared.Add(1)
				for _, rl := range sys.Rules {
					if len(rl.Conds) > 0 {
						conditional.Add(1)
						break
					}
				}
				if haveMaude {
					nf, err := maude.Run(sys, time.Minute)
					switch {
					case err != nil && strings.Contains(err.Error(), "stack overflow"):
						t.Logf("maude: stack overflow (its own limit: the normal form is deep)")
					case err != nil:
						t.Fatal(err)
					default:
						g := sys.Graph(nf)
						if got := trs.Summarize(g, g.Root()).String(); got != want {
							t.Errorf("maude: %s, the CPU rewriter: %s", got, want)
						}
					}
				}
				if r.Steps > maxInterp {
					continue
				}
				interpreted.Add(1)
				m, err := trs.Lower(sys, trs.Options{Print: "summary", Stats: true})
				if err != nil {
					t.Fatal(err)
				}
				out := runModule(t, m, map[string]int64{"CAPACITY": 1 << 20}, 0, false)
				if !strings.HasPrefix(out, want+"\n") || !strings.Contains(out, "rewrites: "+strconv.FormatInt(r.Steps, 10)+"\n") {
					t.Errorf("gpuc run prints\n%s\nwant %s and %d rewrites", out, want, r.Steps)
				}
			}
		})
	}
}

// recEvals returns the terms after EVAL in a REC file, as text.
func recEvals(src []byte) []string {
	text := string(src)
	for i := strings.IndexByte(text, '%'); i >= 0; i = strings.IndexByte(text, '%') {
		end := strings.IndexByte(text[i:], '\n')
		if end < 0 {
			end = len(text) - i
		}
		text = text[:i] + text[i+end:]
	}
	i := strings.LastIndex(text, "EVAL")
	j := strings.LastIndex(text, "END-SPEC")
	if i < 0 || j < i {
		return nil
	}
	var out []string
	rest := strings.TrimSpace(text[i+len("EVAL") : j])
	for rest != "" {
		k := strings.IndexAny(rest, "( \t\r\n")
		if k < 0 {
			return append(out, rest)
		}
		if after := strings.TrimLeft(rest[k:], " \t\r\n"); strings.HasPrefix(after, "(") {
			k = len(rest) - len(after)
			for depth := 0; k < len(rest); k++ {
				if rest[k] == '(' {
					depth++
				} else if rest[k] == ')' {
					if depth--; depth == 0 {
						k++
						break
					}
				}
			}
		}
		out = append(out, rest[:k])
		rest = strings.TrimSpace(rest[k:])
	}
	return out
}
