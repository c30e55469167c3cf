package chr_test

import (
	"strings"
	"testing"

	"gpuc/frontends/chr"
)

// TestSurroundingProlog checks the Prolog that surrounds CHR programs as
// their authors keep them: a driver predicate of any name that posts
// constraints, and module-qualified constraints, against SWI-Prolog (in
// module user, where chr_dump.pl finds the store).
func TestSurroundingProlog(t *testing.T) {
	src := `:- use_module(library(chr)).
:- chr_constraint candidate/1, prime/1.

candidate(1) <=> true.
candidate(N) <=> user:prime(N), N1 is N - 1, user:candidate(N1).
absorb @ prime(Y) \ prime(X) <=> 0 =:= X mod Y | true.

setup :- N is 10 * 3, candidate(N).
test :- setup, user:candidate(7).

?- test.
`
	got := mustRun(t, mustParse(t, "primes.chr", src, chr.Options{}), nil, false, false)
	if want := swipl(t, src); got != want {
		t.Errorf("gpuc run:\n%s\nSWI-Prolog:\n%s", got, want)
	}
	for _, c := range []struct{ src, want string }{
		{":- chr_constraint p/1.\n?- p(john).\n", "constraint argument john is an atom: atoms are outside the subset"},
		{":- chr_constraint p/1, q/0.\nq <=> p(john).\n", "constraint argument john is an atom: atoms are outside the subset"},
		{":- chr_constraint p/1.\nd :- p(1).\nd :- p(2).\n", "t.chr:3:3: error: d/0 is defined twice"},
		{":- chr_constraint p/1.\nd :- d.\n?- d.\n", "d/0 calls drivers more than 64 deep"},
		{":- chr_constraint p/1.\nd(X) :- p(X).\n", "t.chr:2:1: error: Prolog predicate d/1 is outside the CHR subset"},
	} {
		if _, err := chr.Parse("t.chr", []byte(c.src), chr.Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s", c.src, err, c.want)
		}
	}
}

// TestOpDirective checks that operators declared with op/3, which the
// fixed grammar does not read, are named as the reason for the syntax
// errors their uses cause.
func TestOpDirective(t *testing.T) {
	src := ":- chr_constraint p/1.\n:- op(700, xfx, '~>').\np(X) ~> q <=> true.\n"
	_, err := chr.Parse("t.chr", []byte(src), chr.Options{})
	want := "t.chr:2:1: error: operator '~>' declared with op/3 is outside the subset, whose operators are fixed: write its terms in canonical form, '~>'(A, B)\n"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want first\n%s", err, want)
	}
}
