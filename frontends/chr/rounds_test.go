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
)

// TestSumSteps checks issue 18's bound on interchangeable heads: sum/1
// over n constraints, where every owner contends for the same partners,
// ends in at most 2*log2(n)+8 steps, because each step commits a maximal
// set of firings (Note [Parallel firing]), at the SPMD level and lowered.
func TestSumSteps(t *testing.T) {
	src := readFile(t, "../../examples/chr/sum.chr")
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
			out := mustRun(t, mustParse(t, "sum.chr", src, chr.Options{Query: query, Stats: true}), nil, false, lowered)
			if !strings.HasPrefix(out, fmt.Sprintf("sum(%d)\n", want)) {
				t.Fatalf("n=%d: store\n%s\nwant sum(%d)", n, out, want)
			}
			m := regexp.MustCompile(`(?m)^% steps: (\d+)$`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("n=%d: no step count in\n%s", n, out)
			}
			steps, _ := strconv.Atoi(m[1])
			if bound := 2*math.Log2(float64(n)) + 8; float64(steps) > bound {
				t.Errorf("n=%d (lowered %v): %d steps, more than 2*log2(n)+8 = %.1f", n, lowered, steps, bound)
			}
		}
	}
}
