package chr_test

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gpuc/frontends/chr"
	"gpuc/internal/irtest"
	"gpuc/ir"
)

// TestPairing checks rules with interchangeable heads (Note [Pairing]):
// the final store is SWI-Prolog's, at the SPMD level and lowered with the
// race checker, and a step fires floor(c/k) firings on c constraints.
func TestPairing(t *testing.T) {
	values := func(name string, n int) string {
		var parts []string
		for i := 1; i <= n; i++ {
			parts = append(parts, fmt.Sprintf("%s(%d)", name, i*i%13-6))
		}
		return strings.Join(parts, ", ")
	}
	decl := ":- use_module(library(chr)).\n:- chr_constraint t(+int), sum(+int).\n"
	for _, c := range []struct {
		name, rules, query string
		steps              int // exact step count, or 0
	}{
		// Three heads: 99 -> 33 -> 11 -> 3+2 ... every grouping ends in one constraint.
		{"triple", "add3 @ t(X), t(Y), t(Z) <=> W is X+Y+Z, t(W).\n", values("t", 99), 6},
		// Another rule removes the paired type: claim rounds, and groups
		// whose members another rule removed propose nothing.
		{"zeros", "zero @ sum(0) <=> true.\nadd @ sum(X), sum(Y) <=> Z is X+Y, sum(Z).\n", values("sum", 200), 0},
		// Anonymous variables are distinct; equal values keep it confluent.
		{"anon", "drop @ sum(_), sum(_) <=> true.\n", strings.Repeat("sum(4), ", 50) + "sum(4)", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := decl + c.rules + "?- " + c.query + ".\n"
			want := swipl(t, src)
			m := mustParse(t, c.name+".chr", src, chr.Options{Stats: true})
			if !hasBuffer(m, "_rank") {
				t.Errorf("no ranking buffer: the rule is not paired")
			}
			out, stats := runStats(t, m, nil, false)
			if out != want {
				t.Errorf("gpuc run:\n%s\nwant (SWI-Prolog)\n%s", out, want)
			}
			if steps := statSteps(t, stats); c.steps != 0 && steps != c.steps {
				t.Errorf("%d steps, want %d\n%s", steps, c.steps, stats)
			}
			if got := mustRun(t, mustParse(t, c.name+".chr", src, chr.Options{}), smallProcs, true, true); got != want {
				t.Errorf("gpuc run --race --passes=default PROCS=7:\n%s\nwant\n%s", got, want)
			}
		})
	}
	// Heads that are not interchangeable keep the search.
	for _, rules := range []string{
		"r @ sum(X), sum(X) <=> true.\n",           // a repeated variable
		"r @ sum(X), sum(Y) <=> X < Y | sum(X).\n", // a guard
		"r @ sum(0), sum(Y) <=> sum(Y).\n",         // a constant
		"r @ sum(X) \\ sum(Y) <=> Z is X+Y, t(Z).\n",
	} {
		m := mustParse(t, "r.chr", decl+rules+"?- sum(1), sum(1), sum(2).\n", chr.Options{})
		if hasBuffer(m, "_rank") {
			t.Errorf("%s: paired, but its heads are not interchangeable", strings.TrimSpace(rules))
		}
	}
}

// TestSumStepsExact checks that sum over n constraints takes
// ceil(log2 n)+1 steps: every step halves the store (Note [Pairing]).
func TestSumStepsExact(t *testing.T) {
	src := irtest.ReadFile(t, "../../examples/chr/sum.chr")
	rules, _ := splitQuery(src)
	for _, n := range []int{1, 2, 5, 64, 1000} {
		var parts []string
		want := 0
		for i := 0; i < n; i++ {
			parts = append(parts, fmt.Sprintf("sum(%d)", i%7))
			want += i % 7
		}
		m := mustParse(t, "sum.chr", rules+"?- "+strings.Join(parts, ", ")+".\n", chr.Options{Stats: true})
		out, stats := runStats(t, m, nil, true)
		if out != fmt.Sprintf("sum(%d)\n", want) {
			t.Errorf("n=%d: store %q, want sum(%d)", n, out, want)
		}
		if steps, bound := statSteps(t, stats), int(math.Ceil(math.Log2(float64(n))))+1; steps != bound {
			t.Errorf("n=%d: %d steps, want ceil(log2 n)+1 = %d", n, steps, bound)
		}
	}
}

// TestClaimRoundsStatic checks which programs get claim rounds after the
// first (Note [Parallel firing]): only those whose proposals of different
// owners may claim one removed constraint.
func TestClaimRoundsStatic(t *testing.T) {
	for name, want := range map[string]bool{"fw": false, "min": false, "gcd": false, "primes": false, "sum": false, "exchange_sort": true} {
		src := irtest.ReadFile(t, "../../examples/chr/"+name+".chr")
		m := mustParse(t, name+".chr", src, chr.Options{})
		if got := strings.Contains(ir.Print(m), "= chr_lost[0]"); got != want {
			t.Errorf("%s: claim rounds loop %v, want %v", name, got, want)
		}
	}
	// Pairing by rank contends once another rule removes the type too.
	decl := ":- use_module(library(chr)).\n:- chr_constraint sum(+int).\n"
	for rules, want := range map[string]bool{
		"add @ sum(X), sum(Y) <=> Z is X+Y, sum(Z).\n":                          false,
		"zero @ sum(0) <=> true.\nadd @ sum(X), sum(Y) <=> Z is X+Y, sum(Z).\n": true,
	} {
		m := mustParse(t, "s.chr", decl+rules+"?- sum(1).\n", chr.Options{})
		if got := strings.Contains(ir.Print(m), "= chr_lost[0]"); got != want {
			t.Errorf("%s: claim rounds loop %v, want %v", strings.TrimSpace(rules), got, want)
		}
	}
}

// TestOutputOrder checks the printed order of a store that is dense
// (no dead slot), in order and out of it: the first skips the sorting
// network (Note [Output]), the second sorts; the text is formatted on
// the device in chunks of 3 lines, and of the default.
func TestOutputOrder(t *testing.T) {
	decl := ":- use_module(library(chr)).\n:- chr_constraint p(+int, +int).\nr @ p(X, _) <=> X > 100 | true.\n"
	for _, q := range []string{
		"p(1, 2), p(1, 5), p(2, -1), p(3, 0)",
		"p(3, 0), p(2, -1), p(1, 5), p(1, 2)",
		"p(1, 5), p(1, 2), p(200, 1), p(3, 0), p(2, -1)",
	} {
		src := decl + "?- " + q + ".\n"
		want := "p(1,2)\np(1,5)\np(2,-1)\np(3,0)\n"
		for _, lowered := range []bool{false, true} {
			for _, params := range []map[string]int64{smallProcs, {"PROCS": 7, "TEXT_LINES": 3}} {
				if got := mustRun(t, mustParse(t, "p.chr", src, chr.Options{}), params, true, lowered); got != want {
					t.Errorf("%s (lowered %v, %v):\n%s\nwant\n%s", q, lowered, params, got, want)
				}
			}
		}
	}
}

func hasBuffer(m *ir.Module, suffix string) bool {
	for _, b := range m.Buffers {
		if strings.HasSuffix(b.Name, suffix) {
			return true
		}
	}
	return false
}

func statSteps(t *testing.T, stats string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^% steps: (\d+)$`).FindStringSubmatch(stats)
	if m == nil {
		t.Fatalf("no step count on stderr:\n%s", stats)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
