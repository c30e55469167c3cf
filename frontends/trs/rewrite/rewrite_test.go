package rewrite_test

import (
	"strings"
	"testing"

	"gpuc/frontends/trs"
	"gpuc/frontends/trs/rewrite"
)

func normalize(t *testing.T, src, input string, limit int) (*trs.System, *rewrite.Rewriter, error) {
	t.Helper()
	sys, err := trs.Load("t.trs", []byte(src), trs.Options{Input: input})
	if err != nil {
		t.Fatal(err)
	}
	r := rewrite.New(sys, limit)
	return sys, r, r.Normalize()
}

const plus = `(VAR x y)
(RULES
  plus(0, y) -> y
  plus(s(x), y) -> s(plus(x, y))
  double(x) -> plus(x, x)
)`

// Counts follow Listing 2 by hand: plus(s(s(0)), s(0)) takes two
// plus(s(x), y) steps and one plus(0, y).
func TestRewriteCounts(t *testing.T) {
	sys, r, err := normalize(t, plus, "plus(s(s(0)), s(0))", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := sys.FormatNode(r, r.Root()); got != "s(s(s(0)))" {
		t.Errorf("normal form %s", got)
	}
	if r.Steps != 3 {
		t.Errorf("%d rewrites, want 3", r.Steps)
	}
	if r.Live() != 4 {
		t.Errorf("%d live terms, want 4: 0 and the three s", r.Live())
	}
}

// A right-hand side that repeats a variable shares its subterm; the
// input's repeated subterm is one node, rewritten once.
func TestRewriteSharing(t *testing.T) {
	sys, r, err := normalize(t, plus, "plus(double(s(0)), double(s(0)))", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := sys.FormatNode(r, r.Root()); got != "s(s(s(s(0))))" {
		t.Errorf("normal form %s", got)
	}
	// double(s(0)) once: 1 + plus(s(0), s(0)) 2; then plus(s(s(0)), s(s(0))) 3.
	if r.Steps != 6 {
		t.Errorf("%d rewrites, want 6", r.Steps)
	}
}

// First matching rule in file order; non-left-linear rules compare terms.
func TestRewritePriorityAndEquality(t *testing.T) {
	src := `(VAR x y)
(RULES
  eq(x, x) -> true
  eq(x, y) -> false
  f(eq(x, y)) -> x
)`
	for input, want := range map[string]string{
		"eq(s(s(0)), s(s(0)))":  "true",
		"eq(s(0), s(s(0)))":     "false",
		"f(eq(s(0), s(s(0))))":  "f(false)",
		"c(eq(a, a), eq(a, b))": "c(true, false)",
	} {
		sys, r, err := normalize(t, src, input, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := sys.FormatNode(r, r.Root()); got != want {
			t.Errorf("%s: %s, want %s", input, got, want)
		}
	}
}

// Garbage is freed and reused: a long computation stays within a small
// store, and a store that is too small is an error.
func TestRewriteCapacity(t *testing.T) {
	src := `(VAR x y)
(RULES
  plus(0, y) -> y
  plus(s(x), y) -> s(plus(x, y))
  count(0) -> 0
  count(s(x)) -> count(pred(plus(x, s(0))))
  pred(s(x)) -> x
)`
	input := "count(s(s(s(s(s(s(s(s(s(s(0)))))))))))"
	if _, r, err := normalize(t, src, input, 40); err != nil || r.Live() != 1 {
		t.Errorf("count within 40 nodes: %v, %d live", err, r.Live())
	}
	if _, _, err := normalize(t, src, input, 12); err != rewrite.ErrCapacity {
		t.Errorf("within 12 nodes: %v, want ErrCapacity", err)
	}
}

// The span is the longest chain of dependent rewrites (Note [Critical
// path]): independent arguments overlap, a redex waits for its
// arguments, and a shared subterm counts once.
func TestRewriteSpan(t *testing.T) {
	for _, c := range []struct {
		input       string
		steps, span int64
	}{
		{"plus(s(s(0)), s(0))", 3, 3},
		// Two chains side by side: 3 and 4 steps.
		{"c(plus(s(s(0)), 0), plus(s(s(s(0))), 0))", 7, 4},
		// The outer plus waits for its first argument (2 steps), then takes 3.
		{"plus(plus(s(0), s(0)), s(0))", 5, 5},
		// double(s(0)) is one node: 3 steps, then plus(s(s(0)), s(s(0))) 3.
		{"plus(double(s(0)), double(s(0)))", 6, 6},
		// A collapse is a step: plus(0, y) -> y.
		{"plus(0, plus(0, 0))", 2, 2},
		{"s(0)", 0, 0},
	} {
		_, r, err := normalize(t, plus, c.input, 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.Steps != c.steps || r.Span != c.span {
			t.Errorf("%s: %d rewrites, span %d; want %d, %d", c.input, r.Steps, r.Span, c.steps, c.span)
		}
	}
}

// A right-hand side's repeated pending subterm is rewritten once (Note
// [Repeated subterms] in package trs): each level of g costs its rule,
// the let and h, not twice the level below.
func TestRewriteRepeatOnce(t *testing.T) {
	src := `(VAR x y)
(RULES
  g(0) -> 0
  g(s(x)) -> h(g(x), g(x))
  h(x, y) -> s(x)
)`
	input := "g(" + strings.Repeat("s(", 40) + "0" + strings.Repeat(")", 41)
	sys, r, err := normalize(t, src, input, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sys.FormatNode(r, r.Root()), strings.Repeat("s(", 40)+"0"+strings.Repeat(")", 40); got != want {
		t.Errorf("normal form %s", got)
	}
	if r.Steps != 3*40+1 {
		t.Errorf("%d rewrites, want %d", r.Steps, 3*40+1)
	}
}
