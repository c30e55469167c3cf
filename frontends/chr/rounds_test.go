package chr_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gpuc/frontends/chr"
	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// TestSumSteps checks issue 18's bound on interchangeable heads: sum/1
// over n constraints, where every owner contends for the same partners,
// ends in at most 2*log2(n)+8 steps, because each step commits a maximal
// set of firings (Note [Parallel firing]), at the SPMD level and lowered.
func TestSumSteps(t *testing.T) {
	src := irtest.ReadFile(t, "../../examples/chr/sum.chr")
	for _, n := range []int{2, 3, 17, 1000} {
		query := filepath.Join(t.TempDir(), "q.pl")
		var b strings.Builder
		want := 0
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "sum(%d).\n", i*i%97-40)
			want += i*i%97 - 40
		}
		if err := os.WriteFile(query, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, lowered := range []bool{false, true} {
			out, stats := runStats(t, mustParse(t, "sum.chr", src, chr.Options{Query: query, Stats: true}), nil, lowered)
			if out != fmt.Sprintf("sum(%d)\n", want) {
				t.Fatalf("n=%d: store\n%s\nwant sum(%d)", n, out, want)
			}
			m := regexp.MustCompile(`(?m)^% steps: (\d+)$`).FindStringSubmatch(stats)
			if m == nil {
				t.Fatalf("n=%d: no step count on stderr:\n%s", n, stats)
			}
			steps, _ := strconv.Atoi(m[1])
			if bound := 2*math.Log2(float64(n)) + 8; float64(steps) > bound {
				t.Errorf("n=%d (lowered %v): %d steps, more than 2*log2(n)+8 = %.1f", n, lowered, steps, bound)
			}
		}
		// One claim round a step still sums, in more steps.
		out, _ := runStats(t, mustParse(t, "sum.chr", src, chr.Options{Query: query, Stats: true}), map[string]int64{"ROUNDS": 1}, false)
		if out != fmt.Sprintf("sum(%d)\n", want) {
			t.Errorf("n=%d ROUNDS=1: store\n%s\nwant sum(%d)", n, out, want)
		}
	}
}

// runStats runs m with params, lowered with the default pipeline if
// asked, and returns what it prints on stdout and on stderr.
func runStats(t *testing.T, m *ir.Module, params map[string]int64, lowered bool) (string, string) {
	t.Helper()
	if lowered {
		ps, err := passes.Expand([]string{"default"})
		if err != nil {
			t.Fatal(err)
		}
		if err := passes.Run(m, ps, &passes.Config{VerifyEach: true}); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut strings.Builder
	if err := interp.Run(m, interp.Config{Stdout: &out, Stderr: &errOut, Params: params}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return out.String(), errOut.String()
}
