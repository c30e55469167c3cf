package trs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// REC-BAD's soundness-1 and soundness-2 are refused for the REC-2017 rule
// each breaks (Note [REC discipline]), and a specification that keeps the
// rules loads.
func TestRECDiscipline(t *testing.T) {
	const head = "REC-SPEC T\nSORTS\n  %s\nCONS\n  d0 : -> %[1]s\n  s : %[1]s -> %[1]s\n  g : %[1]s -> %[1]s\nOPNS\n  f : %[1]s -> %[1]s\n  h : %[1]s -> %[1]s\nVARS\n  X : %[1]s\nRULES\n"
	for _, c := range []struct{ sort, rules, want string }{
		{"S", "  f(g(X)) -> X\n", "t.rec:6:3: error: constructor s and sort S (declared at t.rec:3:3) differ only in case, which REC-2017 forbids"},
		{"N", "  f(h(X)) -> X\n", "t.rec:14:5: error: the left-hand side of a rule of f applies operation h below its head; REC-2017's patterns are constructor terms"},
		{"N", "  g(X) -> X\n", "t.rec:14:3: error: the left-hand side of a rule is headed by constructor g; REC-2017's rules define operations (OPNS)"},
		{"N", "  f(g(s(X))) -> h(X)\n  f(g(d0)) -> d0\n  h(X) -> X\n", ""},
	} {
		src := strings.ReplaceAll(head, "%[1]s", c.sort)
		src = strings.Replace(src, "%s", c.sort, 1) + c.rules + "EVAL\n  f(g(d0))\nEND-SPEC\n"
		_, err := Load("t.rec", []byte(src), Options{})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.rules, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %s", c.rules, err, c.want)
		}
	}
}

// REC-BAD's overloading and syntax-2 name their defects: a symbol
// declared twice (REC-2017 has no overloading), and variables used with no
// VARS section.
func TestRECDefectsNamed(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"REC-SPEC T\nSORTS\n  N P\nCONS\n  z : -> N\n  g : N -> N\n  g : P -> N\nOPNS\nVARS\nRULES\nEVAL\n  z\nEND-SPEC\n",
			"t.rec:7:3: error: symbol g is declared twice (first at t.rec:6:3): REC-2017 has no overloading"},
		{"REC-SPEC T\nSORTS\n  N\nCONS\n  z : -> N\nOPNS\n  f : N -> N\nRULES\n  f(P) -> P\nEVAL\n  f(z)\nEND-SPEC\n",
			"t.rec:9:5: error: unknown symbol P: the specification declares no variables (REC-2017 declares them in a VARS section)"},
	} {
		_, err := Load("t.rec", []byte(c.src), Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}

// TestRECBADNamed checks that REC-2017's rules that the order, idset,
// marchiori, terminationreachability and tautologyhard-1 benchmarks break
// are named, each on a small specification, and that the checks go on
// after an application written without parentheses.
func TestRECBADNamed(t *testing.T) {
	const head = "REC-SPEC T\nSORTS\n  N\nCONS\n  d0 : -> N\n  s : N -> N\nOPNS\n  f : N -> N\n  g : N -> N\n  h : N N -> N\n  a : -> N\nVARS\n  x y : N\nRULES\n"
	for _, c := range []struct{ rules, eval, want string }{
		{"  g d0 -> d0\n  g s(x) -> x\n", "g(d0)", "t.rec:15:3: error: g d0 applies g without parentheses, which REC-2017 does not allow: write g(d0)"},
		{"  f s(x) -> f x\n", "f(d0)", "t.rec:15:3: error: f s(x) applies f without parentheses, which REC-2017 does not allow: write f(s(x))"},
		{"  f s(x) -> q\n", "f(d0)", "t.rec:15:13: error: unknown symbol q"},
		{"  g(d0) -> d0\n  f(x) -> x\n  g(s(x)) -> x\n", "g(d0)", "t.rec:17:3: error: this rule of g follows a rule of f, apart from the first rule of g at t.rec:15:3"},
		{"  h(x, x) -> x\n", "h(d0, d0)", "t.rec:15:8: error: variable x occurs twice in the left-hand side of this rule of h: REC-2017's rules are left-linear"},
		{"  h(x, y) -> x\n  h(y, x) -> x\n", "h(d0, d0)", "t.rec:16:3: error: this rule and the one at t.rec:15:3 rewrite h(y, x) without conditions: REC-2017's rules are deterministic"},
		{"  a -> d0 if a -><- s(d0)\n", "a", "t.rec:15:16: error: the condition of this rule of a evaluates its own left-hand side a, which recurses forever"},
		{"  g(s(x)) -> x\n", "g(f(s(d0)))", "t.rec:17:5: error: no rule of f matches f(s(d0))"},
		{"  g(s(x)) -> x\n", "g(d0)", "t.rec:17:3: error: no rule of g matches g(d0): its normal form keeps the operation"},
	} {
		src := head + c.rules + "EVAL\n  " + c.eval + "\nEND-SPEC\n"
		_, err := Load("t.rec", []byte(src), Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %s", c.rules, err, c.want)
		}
	}
	// REC-2008's OPS is named, and read on: a symbol that heads a rule is
	// an operation.
	ops := "REC-SPEC T\nSORTS\n  N\nOPS\n  d : -> N\n  n0 : N -> N\n  p : N -> N\nVARS\n  X : N\nRULES\n  n0(d) -> d\n  p(n0(X)) -> X\nEVAL\n  p(n0(d))\nEND-SPEC\n"
	_, err := Load("t.rec", []byte(ops), Options{})
	for _, want := range []string{"t.rec:4:1: error: OPS is REC-2008's section", "t.rec:12:5: error: the left-hand side of a rule of p applies operation n0 below its head"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("OPS: got %v, want %s", err, want)
		}
	}
	// Overlaps that first-match resolves, conditions on other terms and
	// partial operations applied in their domain stay allowed.
	ok := head + "  h(d0, y) -> y\n  h(x, d0) -> x\n  a -> d0 if s(d0) -><- d0\n  a -> s(d0) if s(d0) ->/<- d0\n  g(s(x)) -> x\nEVAL\n  g(s(h(d0, a)))\nEND-SPEC\n"
	if _, err := Load("t.rec", []byte(ok), Options{}); err != nil {
		t.Errorf("a specification that keeps REC-2017's rules: %v", err)
	}
}

// An incorrect rule that applies a partial operation outside its domain
// only while rewriting is named, whether it builds the application or
// its argument (fibfree-2 and fibfree-3, Note [REC evaluation check]); a
// specification that keeps to the domain, or that needs more work than
// the check does, loads.
func TestRECEvalCheck(t *testing.T) {
	const head = "REC-SPEC T\nSORTS\n  N\nCONS\n  d : -> N\n  s : N -> N\n  h : N N -> N\nOPNS\n  p : N -> N\n  f : N -> N\n  big : N -> N\nVARS\n  X : N\nRULES\n  p(s(X)) -> X\n"
	const big = "  big(d) -> d\n  big(s(X)) -> h(big(X), big(X))\n"
	for _, c := range []struct{ rules, eval, want string }{
		{"  f(s(X)) -> s(p(X))\n", "f(s(s(d)))", ""},
		{"  f(s(X)) -> s(p(X))\n", "f(s(d))", "t.rec:16:3: error: evaluating f(s(d)) (EVAL at t.rec:18:3) reaches p(d), which no rule of p matches; this rule made it (f(s(X)) -> s(p(X)))"},
		{"  f(s(X)) -> p(p(s(X)))\n", "f(s(d))", "t.rec:15:3: error: evaluating f(s(d)) (EVAL at t.rec:18:3) reaches p(d), which no rule of p matches; this rule made it (p(s(X)) -> X)"},
		{"  f(X) -> p(X) if X ->/<- d\n  f(X) -> d if X -><- d\n", "f(d)", ""},
		{"  f(X) -> p(big(X))\n" + big, "f(s(s(s(d))))", "t.rec:18:3: error: evaluating f(s(s(s(d)))) (EVAL at t.rec:20:3) reaches p(h(h(h(d, d), h(d, d)), h(h(d, d), h(d, d)))), which no rule of p matches; this rule made it (big(s(X)) -> h(big(X), big(X)))"},
		// 2^20 nodes: more than the check's budget, which stops unjudged.
		{"  f(X) -> p(big(X))\n" + big, "f(" + strings.Repeat("s(", 20) + "d" + strings.Repeat(")", 20) + ")", ""},
	} {
		src := head + c.rules + "EVAL\n  " + c.eval + "\nEND-SPEC\n"
		_, err := Load("t.rec", []byte(src), Options{})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.rules, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %s", c.rules, err, c.want)
		}
	}
}

// TestRECBADCorpus checks every REC-BAD benchmark of the corpus against
// the defect it was written to show (skipped where the corpus is absent).
func TestRECBADCorpus(t *testing.T) {
	dir := "../../../shared/corpus/trs/rec/REC-BAD"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no corpus at %s", dir)
	}
	for name, want := range map[string]string{
		"bubblesort1.rec":             "the left-hand side of a rule of cons applies operation cons below its head",
		"fibfree-1.rec":               "the left-hand side of a rule of plus applies operation n0 below its head",
		"fibfree-2.rec":               "fibfree-2.rec:259:3: error: evaluating fib(n6(n1(d))) (EVAL at fibfree-2.rec:280:22) reaches prec(d), which no rule of prec matches; this rule made it (prec(n0(X)) -> n9(prec(X)))",
		"fibfree-3.rec":               "fibfree-3.rec:259:3: error: evaluating fib(n6(n1(d))) (EVAL at fibfree-3.rec:280:22) reaches prec(d), which no rule of prec matches; this rule made it (prec(n0(X)) -> d)",
		"tricky-1.rec":                "tricky-1.rec:17:15: error: d0 takes 1 argument, not 0",
		"idset.rec":                   "variable G occurs twice in the left-hand side of this rule of inside",
		"marchiori.rec":               "rewrite a without conditions: REC-2017's rules are deterministic",
		"order-1.rec":                 "this rule of g follows a rule of f",
		"order-2.rec":                 "unknown symbol s",
		"order-3.rec":                 "g d0 applies g without parentheses",
		"overloading.rec":             "REC-2017 has no overloading",
		"soundness-1.rec":             "differ only in case",
		"soundness-2.rec":             "applies operation g below its head",
		"syntax-1.rec":                "ends without END-SPEC",
		"syntax-2.rec":                "declares no variables",
		"tautologyhard-1.rec":         "no rule of xor matches xor(a4, a5)",
		"terminationreachability.rec": "evaluates its own left-hand side a",
	} {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Load(name, src, Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %s", name, err, want)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.rec"))
	if len(files) != 17 {
		t.Errorf("%d REC-BAD files, the table has 17", len(files))
	}
}
