package trs_test

import (
	"os"
	"strings"
	"testing"

	"gpuc/frontends/trs"
	"gpuc/frontends/trs/rewrite"
)

// TestExtrapolate checks Note [Fitted summaries] against the CPU rewriter:
// the transformation tree's normal form at depth 7, extrapolated from
// depths 3 and 4, and tree merge sort's at depth 6 from depths 3 and 4,
// whose rewrite count is nearly but not exactly affine in 2^depth (the
// leaves' lists are rotations of one another). A normal form that is not
// a tree over the shallower one is refused.
func TestExtrapolate(t *testing.T) {
	nest := func(n int, t, f string) string {
		for range n {
			t = f + "(" + t + ")"
		}
		return t
	}
	list := "Cons(S(S(S(Zero()))), Cons(S(Zero()), Cons(S(S(S(S(Zero())))), Cons(S(Zero()), Cons(S(S(S(S(S(Zero()))))), Nil())))))"
	for _, c := range []struct {
		file  string
		input func(d int) string
		exact bool
	}{
		{"transtree.trs", func(d int) string { return "Expand(" + nest(d, "Zero()", "Suc") + ")" }, true},
		{"treemergesort.trs", func(d int) string { return "Gen(" + nest(d, "Zero()", "S") + ", " + list + ")" }, false},
	} {
		src, err := os.ReadFile("../../examples/trs/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		run := func(d int) *rewrite.Rewriter {
			sys, err := trs.Load(c.file, src, trs.Options{Input: c.input(d)})
			if err != nil {
				t.Fatal(err)
			}
			r := rewrite.New(sys, 0)
			if err := r.Normalize(); err != nil {
				t.Fatal(err)
			}
			return r
		}
		r3, r4, r6 := run(3), run(4), run(6)
		sum, steps, err := trs.Extrapolate(r3, r3.Root(), r3.Steps, r4, r4.Root(), r4.Steps, 2)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if want := trs.Summarize(r6, r6.Root()); sum != want {
			t.Errorf("%s: extrapolated %v, the rewriter gives %v", c.file, sum, want)
		}
		if off := float64(steps-r6.Steps) / float64(r6.Steps); c.exact && steps != r6.Steps || off > 0.01 || off < -0.01 {
			t.Errorf("%s: %d rewrites fitted, %d made", c.file, steps, r6.Steps)
		}
		if _, _, err := trs.Extrapolate(r4, r4.Root(), r4.Steps, r3, r3.Root(), r3.Steps, 2); err == nil || !strings.Contains(err.Error(), "not the shallower normal form") {
			t.Errorf("%s: depths swapped: got %v", c.file, err)
		}
	}
}
