package passes_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// TestPartialEval runs partial-eval on testdata/partial_eval/*.txtar:
// in.kir must become out.kir and print what it printed before, in every
// interpreter mode, and the report must read as the section report says.
func TestPartialEval(t *testing.T) {
	irtest.Golden(t, "testdata/partial_eval/*.txtar", func(t *testing.T, a *txtar.Archive) map[string]string {
		m, rep := specialize(t, string(irtest.Section(t, a, "in.kir")), &passes.Config{})
		return map[string]string{"out.kir": ir.Print(m), "report": rep}
	})
}

// specialize runs partial-eval on src with cfg, checks that the program
// prints the same before and after, and returns the module and report.
func specialize(t *testing.T, src string, cfg *passes.Config) (*ir.Module, string) {
	t.Helper()
	m := irtest.Parse(t, "in.kir", []byte(src))
	before := irtest.Run(t, m, nil)
	cfg.Report = &passes.Report{}
	irtest.RunPasses(t, m, cfg, "partial-eval")
	for _, icfg := range []interp.Config{{}, {Race: true}} {
		if after := irtest.RunWith(t, m, icfg); after != before {
			t.Errorf("output changed (%+v):\nbefore:\n%s\nafter:\n%s", icfg, before, after)
		}
	}
	var rep strings.Builder
	cfg.Report.Write(&rep)
	return m, rep.String()
}

// runaway is a kernel whose loop over a static table runs a million
// times: only the budget stops its unrolling.
const runaway = `module runaway;

buffer tbl: i32[4] constant static = {1, 2, 3, 4};
buffer out: i32[1] global output;

kernel k() {
  var s: i32 = 0;
  for var j: i32 = 0; j < 1000000; j = j + 1 {
    s = s + tbl[j % 4];
  }
  out[0] = s;
}

host main() {
  launch k() grid 1 block 1;
}
`

// TestPartialEvalBudget checks that the budget stops runaway unrolling:
// the loop is kept, the report says where and why, and the specialized
// kernel stays within the budget.
func TestPartialEvalBudget(t *testing.T) {
	for _, budget := range []int{100, 5000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			m, rep := specialize(t, runaway, &passes.Config{PEBudget: budget})
			want := fmt.Sprintf("in.kir:8:3: partial-eval: loop kept: unrolling it passed the budget of %d statements (--pe-budget)", budget)
			if !strings.Contains(rep, want) {
				t.Errorf("report lacks %q:\n%s", want, rep)
			}
			loops := 0
			ir.WalkStmts(m.Func("k").Body, func(s ir.Stmt) bool {
				if _, ok := s.(*ir.For); ok {
					loops++
				}
				return true
			})
			if loops != 1 {
				t.Errorf("%d loops left, want the one kept:\n%s", loops, ir.Print(m))
			}
			if m.Buffer("tbl") == nil || m.Buffer("tbl").Space != ir.Constant {
				t.Errorf("tbl is not kept in constant memory:\n%s", ir.Print(m))
			}
		})
	}
	// With room for every iteration, the loop goes.
	small := strings.Replace(runaway, "1000000", "40", 1)
	m, _ := specialize(t, small, &passes.Config{PEBudget: 1000})
	if m.Buffer("tbl") != nil {
		t.Errorf("tbl is still read after unrolling 40 iterations:\n%s", ir.Print(m))
	}
}

// TestPartialEvalPlacement checks that --pe-placement forces where static
// data lives, and that the forced choices that cannot be met are errors
// at the right place.
func TestPartialEvalPlacement(t *testing.T) {
	src := string(irtest.Section(t, mustArchive(t, "testdata/partial_eval/placement.txtar"), "in.kir"))
	for _, tt := range []struct {
		placement passes.Placement
		want      map[string]string // buffer -> space, "" for gone
	}{
		{"global", map[string]string{"lut": "global", "pick": "global", "coef": "global"}},
		{"constant", map[string]string{"lut": "constant", "pick": "constant", "coef": "constant"}},
		{"auto", map[string]string{"lut": "global", "pick": "constant", "coef": ""}},
	} {
		m, _ := specialize(t, src, &passes.Config{PEPlacement: tt.placement})
		for name, space := range tt.want {
			b := m.Buffer(name)
			got := ""
			if b != nil {
				got = b.Space.String()
			}
			if got != space {
				t.Errorf("--pe-placement=%s: %s in %q, want %q", tt.placement, name, got, space)
			}
		}
	}
	for placement, want := range map[passes.Placement]string{
		"code":  "in.kir:14:14: error: partial-eval: --pe-placement=code, but static buffer lut is still read here, at an index not known at compile time",
		"stack": "--pe-placement=stack: want auto, code, constant or global",
	} {
		m := irtest.Parse(t, "in.kir", []byte(src))
		err := irtest.TryPasses(m, &passes.Config{PEPlacement: placement}, "partial-eval")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--pe-placement=%s: error %v, want %q", placement, err, want)
		}
	}
}

// TestPartialEvalConstantOverflow checks that forcing static data into
// constant memory fails, at the buffer, where it does not fit.
func TestPartialEvalConstantOverflow(t *testing.T) {
	src := `module big;
buffer a: i32[10000] global static = {` + strings.Repeat("1, ", 9999) + `1};
buffer b: i32[10000] global static = {` + strings.Repeat("2, ", 9999) + `2};
buffer out: i32[1] global output;
kernel k(i: i32) { out[0] = a[i] + b[i]; }
host main() { launch k(3) grid 1 block 1; }
`
	m := irtest.Parse(t, "big.kir", []byte(src))
	err := irtest.TryPasses(m, &passes.Config{PEPlacement: "constant"}, "partial-eval")
	want := "big.kir:3:1: error: partial-eval: --pe-placement=constant: static buffer b (40000 bytes) does not fit in the 64 KiB of constant memory with the 40000 bytes before it"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

func mustArchive(t *testing.T, path string) *txtar.Archive {
	t.Helper()
	a, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPrefilter checks the prefilters of Note [Static prefilters] on
// testdata/partial_eval/prefilter/*.txtar: section scan is kernel scan after
// partial-eval, report its report. The program must print the same with
// and without them, at every N (near the end of data the filter lets
// every position through), and --pe-prefilter=false must leave them out.
func TestPrefilter(t *testing.T) {
	irtest.Golden(t, "testdata/partial_eval/prefilter/*.txtar", func(t *testing.T, a *txtar.Archive) map[string]string {
		src := string(irtest.Section(t, a, "in.kir"))
		m, rep := specialize(t, src, &passes.Config{})
		plain, _ := specialize(t, src, &passes.Config{PENoPrefilter: true})
		for _, b := range plain.Buffers {
			if strings.HasPrefix(b.Name, "pf") {
				t.Errorf("--pe-prefilter=false declared %s", b.Name)
			}
		}
		for _, n := range []int64{1, 3, 4, 37, 600} {
			p := map[string]int64{"N": n}
			if got, want := irtest.Run(t, m, p), irtest.Run(t, plain, p); got != want {
				t.Errorf("N=%d: with prefilters\n%s\nwithout\n%s", n, got, want)
			}
		}
		text := ir.Print(m)
		i := strings.Index(text, "kernel scan(")
		j := strings.Index(text[i:], "\n}\n")
		return map[string]string{"scan": text[i : i+j+3], "report": rep}
	})
}

// TestPrefilterRandom runs random matchers of the form of
// testdata/partial_eval/prefilter/scan.txtar, with and without prefilters: patterns of
// 2 to 6 bytes over a small alphabet, some with a wildcard, on
// data with many matches. Both must print the same at every N, and most
// trials must have a prefilter.
func TestPrefilterRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	filters := 0
	for trial := 0; trial < 40; trial++ {
		alphabet := 2 + rng.Intn(6)
		var sigs []string
		patterns := 8 + rng.Intn(12)
		for p := 0; p < patterns; p++ {
			n := 2 + rng.Intn(5)
			sigs = append(sigs, fmt.Sprint(n))
			wild := rng.Intn(n - 1) // the one place that may be a wildcard
			for j := 0; j < n; j++ {
				if n > 2 && j == wild && rng.Intn(2) == 0 {
					sigs = append(sigs, "256")
				} else {
					sigs = append(sigs, fmt.Sprint(60+rng.Intn(alphabet)))
				}
			}
		}
		sigs = append(sigs, "0")
		src := fmt.Sprintf(`module random;

param N: i32 = 300;

buffer sigs: i32[%d] constant static = {%s};
buffer data: i8[N] global scratch;
buffer count: i32[%d] global output;

kernel fill() {
  var i: i32 = gid();
  if i < N {
    data[i] = i8((i * %d + i / 7) %% %d + 60);
  }
}

kernel scan() {
  for var i: i32 = gid(); i < N; i = i + 32 {
    var k: i32 = 0;
    var id: i32 = 0;
    while sigs[k] != 0 {
      var len: i32 = sigs[k];
      var hit: bool = i + len <= N;
      for var j: i32 = 0; hit && j < len; j = j + 1 {
        if sigs[k + 1 + j] != 256 && (i32(data[i + j]) & 255) != sigs[k + 1 + j] {
          hit = false;
        }
      }
      if hit {
        atomic add count[id], 1;
      }
      k = k + len + 1;
      id = id + 1;
    }
  }
}

host main() {
  launch fill() grid (N + 63) / 64 block 64;
  launch scan() grid 1 block 32;
}
`, len(sigs), strings.Join(sigs, ", "), patterns, 1+rng.Intn(9), alphabet)
		filtered, rep := specialize(t, src, &passes.Config{})
		plain, _ := specialize(t, src, &passes.Config{PENoPrefilter: true})
		if strings.Contains(rep, "prefilter") {
			filters++
		}
		for _, n := range []int64{1, 5, 61, 300} {
			p := map[string]int64{"N": n}
			if got, want := irtest.Run(t, filtered, p), irtest.Run(t, plain, p); got != want {
				t.Errorf("trial %d, N=%d: with prefilters\n%s\nwithout\n%s\nprogram:\n%s", trial, n, got, want, src)
			}
		}
	}
	if filters < 30 { // a trial may need more tables than the pass makes
		t.Errorf("only %d of 40 trials had a prefilter", filters)
	}
}
