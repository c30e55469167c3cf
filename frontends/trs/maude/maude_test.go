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

// oddEven is REC-SIMPLE's oddeven: the second and third rules of odd
// (and of even) share a left-hand side and differ in a condition.
const oddEven = `REC-SPEC OddEven
SORTS
  Nat Bool
CONS
  true : -> Bool
  false : -> Bool
  d0 : -> Nat
  s : Nat -> Nat
OPNS
  odd : Nat -> Bool
  even : Nat -> Bool
VARS
  N : Nat
RULES
  odd(d0) -> false
  odd(s(N)) -> true if even(N) -><- true
  odd(s(N)) -> false if even(N) -><- false
  even(d0) -> true
  even(s(N)) -> true if odd(N) -><- true
  even(s(N)) -> false if odd(N) -><- false
EVAL
odd(d0)
END-SPEC
`

// A rule's conditions are evaluated once (Note [Conditions evaluated
// once]): with matchers, odd(s^20(d0)) took 3^20 evaluations of even and
// did not finish in minutes; in sequence it takes 2^20, as the rules do.
func TestConditionsEvaluatedOnce(t *testing.T) {
	const n = 20
	input := "odd(" + strings.Repeat("s(", n) + "d0" + strings.Repeat(")", n+1)
	sys, err := trs.Load("oddeven.rec", []byte(oddEven), trs.Options{Input: input})
	if err != nil {
		t.Fatal(err)
	}
	m := Module(sys)
	odd := sys.Lookup("odd")
	for _, want := range []string{
		"ceq " + opName(odd) + "(W0-0) = N1 if some1(N1) := " + tryName(odd, 0) + "(W0-0) .",
		"eq " + tryName(odd, 1) + "(" + op(sys, "s") + "(R1V0)) = " + condName(odd, 1, 0) + "(R1V0, " + op(sys, "even") + "(R1V0), " + op(sys, "true") + ") .",
		"eq " + condName(odd, 1, 0) + "(R1V0, X1, Y1) = " + tryName(odd, 2) + "(" + op(sys, "s") + "(R1V0)) [owise] .",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("the module lacks %q:\n%s", want, m)
		}
	}
	if strings.Contains(m, "op "+matcher(odd, 1)+" ") {
		t.Errorf("odd still has a matcher:\n%s", m)
	}
	if _, err := exec.LookPath("maude"); err != nil {
		t.Skip("maude is not installed; TestExamplesMaude in package trs requires it")
	}
	term, err := Run(sys, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := sys.Format(term); got != "false" {
		t.Errorf("maude: %s, want false", got)
	}
}
