package maude

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"gpuc/frontends/trs"
)

func load(t *testing.T, src, input string) *trs.System {
	t.Helper()
	sys, err := trs.Load("t.trs", []byte(src), trs.Options{Input: input})
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

const order = `(VAR x y)
(RULES
  f(x, y) -> first
  f(a, y) -> second
  g(x) -> h(x)
)`

// op names a symbol of sys as Module does.
func op(sys *trs.System, name string) string { return opName(sys.Lookup(name)) }

// Later rules are conditional on the earlier ones not matching, so that
// Maude keeps gpuc's order.
func TestModuleKeepsRuleOrder(t *testing.T) {
	sys := load(t, order, "f(a, b)")
	m := Module(sys)
	f, a, b := op(sys, "f"), op(sys, "a"), op(sys, "b")
	match := matcher(sys.Lookup("f"), 0)
	for _, want := range []string{
		"set include BOOL off .",
		"op " + match + " : S0 S0 -> B .",
		"eq " + f + "(R0V0, R0V1) = " + op(sys, "first") + " .",
		"eq " + match + "(R0V0, R0V1) = tt .",
		"eq " + match + "(W0-0, W0-1) = ff [owise] .",
		"ceq " + f + "(" + a + ", R1V0) = " + op(sys, "second") + " if " + match + "(" + a + ", R1V0) = ff .",
		"red " + f + "(" + a + ", " + b + ") .",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("the module lacks %q:\n%s", want, m)
		}
	}
}

// Only rules that overlap an earlier one get its matcher: f's second
// rule, e's third (both earlier ones), and not k's rules, e's second (a
// term e(x, x) is never e(a, b)) or p's (no finite term is both x and
// s(x)).
func TestOverlap(t *testing.T) {
	sys := load(t, `(VAR x y z)
(RULES
  f(x, y) -> a
  f(a, y) -> b
  k(a) -> a
  k(b) -> b
  e(x, x) -> a
  e(a, b) -> b
  e(y, z) -> a
  p(x, s(x)) -> a
  p(y, y) -> b
)`, "a")
	m := Module(sys)
	for name, want := range map[string][]bool{"f": {true, false}, "k": {false, false}, "e": {true, true, false}, "p": {false, false}} {
		s := sys.Lookup(name)
		for j, w := range want {
			if got := strings.Contains(m, "op "+matcher(s, j)+" "); got != w {
				t.Errorf("%s: matcher of rule %d declared %v, want %v", name, j, got, w)
			}
		}
	}
	e, a, b := op(sys, "e"), op(sys, "a"), op(sys, "b")
	for _, want := range []string{
		"eq " + e + "(" + a + ", " + b + ") = " + b + " .",
		"ceq " + e + "(R6V0, R6V1) = " + a + " if " + matcher(sys.Lookup("e"), 0) + "(R6V0, R6V1) = ff /\\ " + matcher(sys.Lookup("e"), 1) + "(R6V0, R6V1) = ff .",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("the module lacks %q:\n%s", want, m)
		}
	}
}

// Maude wraps long results over lines; Result joins them.
func TestResultReadsWrappedOutput(t *testing.T) {
	sys := load(t, order, "g(f(a, b))")
	h, first := op(sys, "h"), op(sys, "first")
	out := "==========================================\nreduce in GPUC-TRS : x .\n" +
		"rewrites: 3\nresult S0: " + h + "(\n    " + first + ")\nBye.\n"
	term, err := Result(sys, out)
	if err != nil {
		t.Fatal(err)
	}
	if got := sys.Format(term); got != "h(first)" {
		t.Errorf("read %s", got)
	}
	for _, bad := range []string{"no result here", "result S0: s99", "result S0: " + h + "(" + first,
		"result S0: " + h + "(" + first + ", " + first + ")", "result S0: " + first + "+"} {
		if _, err := Result(sys, bad); err == nil {
			t.Errorf("Result(%q) gave no error", bad)
		}
	}
}

func TestRunMaude(t *testing.T) {
	if _, err := exec.LookPath("maude"); err != nil {
		t.Skip("maude is not installed; TestExamplesMaude in package trs requires it")
	}
	sys := load(t, order, "c(f(a, b), f(b, b), g(a))")
	term, err := Run(sys, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got := sys.Format(term); got != "c(first, first, h(a))" {
		t.Errorf("maude: %s", got)
	}
}
