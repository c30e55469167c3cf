package smt

import (
	"testing"
	"time"
)

// TestCanonical checks Note [Queries equal up to names]: scripts that differ only in the names
// of declared symbols, the order of conjuncts or unused declarations share a form; scripts that
// differ in anything else do not.
func TestCanonical(t *testing.T) {
	base := "(declare-const |vp@0| (_ BitVec 32))\n(declare-const |n@0| (_ BitVec 32))\n(declare-const |x@0| (_ BitVec 8))\n" +
		"(assert (and (bvslt |vp@0| |n@0|) true))\n(assert (not (bvslt |vp@0| (bvadd |vp@0| (_ bv1 32)))))\n"
	same := []string{
		// renamed, an unused declaration more, the conjuncts in another order
		"(declare-const |vp_2@0| (_ BitVec 32))\n(declare-const |unused| (_ BitVec 64))\n(declare-const |m@0| (_ BitVec 32))\n" +
			"(assert (not (bvslt |vp_2@0| (bvadd |vp_2@0| (_ bv1 32)))))\n(assert (bvslt |vp_2@0| |m@0|))\n",
		// the names of the canonical form itself, in another order
		"(declare-const |k1| (_ BitVec 32))\n(declare-const |k0| (_ BitVec 32))\n" +
			"(assert (bvslt |k1| |k0|))\n(assert (not (bvslt |k1| (bvadd |k1| (_ bv1 32)))))\n",
	}
	differ := []string{
		// a constant changed
		"(declare-const |vp@0| (_ BitVec 32))\n(declare-const |n@0| (_ BitVec 32))\n" +
			"(assert (bvslt |vp@0| |n@0|))\n(assert (not (bvslt |vp@0| (bvadd |vp@0| (_ bv2 32)))))\n",
		// the two variables swapped in one place only
		"(declare-const |vp@0| (_ BitVec 32))\n(declare-const |n@0| (_ BitVec 32))\n" +
			"(assert (bvslt |n@0| |vp@0|))\n(assert (not (bvslt |vp@0| (bvadd |vp@0| (_ bv1 32)))))\n",
		// a sort changed
		"(declare-const |vp@0| (_ BitVec 16))\n(declare-const |n@0| (_ BitVec 16))\n" +
			"(assert (bvslt |vp@0| |n@0|))\n(assert (not (bvslt |vp@0| (bvadd |vp@0| (_ bv1 16)))))\n",
		// one variable where there were two
		"(declare-const |vp@0| (_ BitVec 32))\n" +
			"(assert (bvslt |vp@0| |vp@0|))\n(assert (not (bvslt |vp@0| (bvadd |vp@0| (_ bv1 32)))))\n",
	}
	want, ok := canonical(base)
	if !ok {
		t.Fatalf("no canonical form for\n%s", base)
	}
	for _, s := range same {
		if got, ok := canonical(s); !ok || got != want {
			t.Errorf("want the form of the base for\n%s\ngot (ok %v)\n%s\nwant\n%s", s, ok, got, want)
		}
	}
	for _, s := range differ {
		if got, ok := canonical(s); ok && got == want {
			t.Errorf("a different formula has the base's form:\n%s", s)
		}
	}
	for _, bad := range []string{
		"(check-sat)\n",
		"(declare-const |a| (_ BitVec 8))\n(declare-const |a| (_ BitVec 8))\n(assert (bvult |a| |a|))\n",
		// an unquoted declaration: never renamed, no form
		"(declare-const w (_ BitVec 32))\n(assert (bvslt w w))\n",
	} {
		if _, ok := canonical(bad); ok {
			t.Errorf("a canonical form for a script that is not declarations and assertions:\n%s", bad)
		}
	}
}

// TestCanonicalCacheAnswers runs two renamed queries, one sat and one unsat, through one solver:
// the canonical cache answers the renamed copy of each with its own answer.
func TestCanonicalCacheAnswers(t *testing.T) {
	s := startZ3(t, 10*time.Second)
	unsat := "(declare-const |a| (_ BitVec 8))\n(assert (bvult |a| (_ bv3 8)))\n(assert (bvugt |a| (_ bv5 8)))\n"
	sat := "(declare-const |a| (_ BitVec 8))\n(assert (bvult |a| (_ bv3 8)))\n(assert (bvugt |a| (_ bv1 8)))\n"
	for _, c := range []struct {
		script, renamed string
		want            Result
	}{
		{unsat, "(declare-const |b| (_ BitVec 8))\n(assert (bvugt |b| (_ bv5 8)))\n(assert (bvult |b| (_ bv3 8)))\n", Unsat},
		{sat, "(declare-const |b| (_ BitVec 8))\n(assert (bvugt |b| (_ bv1 8)))\n(assert (bvult |b| (_ bv3 8)))\n", Sat},
	} {
		r, _, err := s.Check(c.script)
		if err != nil || r != c.want {
			t.Fatalf("%s: got %v, %v; want %v", c.script, r, err, c.want)
		}
		q := s.Queries
		r, _, err = s.Check(c.renamed)
		if err != nil || r != c.want {
			t.Fatalf("%s: got %v, %v; want %v", c.renamed, r, err, c.want)
		}
		if s.Queries != q {
			t.Errorf("%s: asked the solver again (%d queries, was %d)", c.renamed, s.Queries, q)
		}
	}
	// A query that asks for values gets no answer from a sat in the canonical cache.
	q := s.Queries
	if r, m, err := s.Check("(declare-const |c| (_ BitVec 8))\n(assert (bvugt |c| (_ bv1 8)))\n(assert (bvult |c| (_ bv3 8)))\n", "|c|"); err != nil || r != Sat || m["|c|"] == "" {
		t.Fatalf("got %v %v %v, want sat with a value of c", r, m, err)
	}
	if s.Queries != q+1 {
		t.Errorf("a query for values was answered from the canonical cache")
	}
}
