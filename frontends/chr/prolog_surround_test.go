package chr_test

import (
	"os"
	"path/filepath"
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
sieve(N, _) :- M is N + 4, candidate(M).
test :- setup, user:candidate(7), sieve(40, 0).

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
		{":- chr_constraint p/1.\nd(X, X) :- p(X).\n", "t.chr:2:6: error: argument X of driver d/2 is outside the subset: a driver predicate's arguments are distinct variables"},
		{":- chr_constraint p/1.\nd(1) :- p(1).\n", "t.chr:2:3: error: argument 1 of driver d/1 is outside the subset"},
		{":- chr_constraint p/1.\nd(X) :- p(X).\n?- d(Y).\n", "t.chr:3:6: error: variable Y is unbound"},
		{":- chr_constraint p/1.\nd(X) :- cputime(X), p(X).\n?- d(1).\n", "t.chr:2:9: error: cputime/1 is not a CHR constraint"},
	} {
		if _, err := chr.Parse("t.chr", []byte(c.src), chr.Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s", c.src, err, c.want)
		}
	}
}

// TestUserOperators checks that operators declared with op/3 are read
// at their priority in rules, declarations and --query files (Note [User
// operators]), against SWI-Prolog, and that the operators gpuc does not
// read are named.
func TestUserOperators(t *testing.T) {
	src := `:- use_module(library(chr)).
:- op(600, xfx, →).
:- op(700, xfx, '~>').
:- chr_constraint (→)/2, (+int) ~> (+int), r/1.
A→A <=> true.
A→B \ A→B <=> true.
A→B \ A→C <=> A<B,B<C | B→C.
X ~> Y <=> Z is X * Y * 2, r(Z).
`
	query := "'→'(0,2), '→'(0,5), '→'(0,1), '→'(0,7), '~>'(3, 4)"
	m := mustParse(t, "ops.pl", src+"?- "+query+".\n", chr.Options{})
	got := mustRun(t, m, nil, false, false)
	if want := swipl(t, src+"?- "+query+".\n"); got != want {
		t.Errorf("gpuc run:\n%s\nSWI-Prolog:\n%s", got, want)
	}
	if !strings.Contains(got, "→(0,1)\n") || !strings.Contains(got, "r(") {
		t.Errorf("operators not read: %s", got)
	}
	q := filepath.Join(t.TempDir(), "q.pl")
	if err := os.WriteFile(q, []byte("0→2. 0→5.\n0→1. 0→7. 3 ~> 4.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fromFile := mustRun(t, mustParse(t, "ops.pl", src, chr.Options{Query: q}), nil, false, false); fromFile != got {
		t.Errorf("with the query in a file:\n%s\nwant\n%s", fromFile, got)
	}
	paren := ":- op(700, xfx, (~>)).\n:- chr_constraint (~>)/2.\n?- 1 ~> 2.\n"
	if got := mustRun(t, mustParse(t, "t.chr", paren, chr.Options{}), nil, false, false); got != "~>(1,2)\n" {
		t.Errorf("op(700, xfx, (~>)): %q", got)
	}
	for _, c := range []struct{ src, want string }{
		{":- op(100, xfy, #).\n", "t.chr:1:17: error: op/3 gives #, one of the operators gpuc's grammar fixes, a new meaning"},
		{":- op(700, xfx, ~>).\n:- chr_constraint (~>)/2.\n?- 1 ~> 2 ~> 3.\n", "t.chr:3:11: error: operator ~> is xfx, so it does not associate"},
		{":- op(650, xfx, ~>).\n", "t.chr:1:7: error: operator ~> (650, xfx) is outside what gpuc reads"},
		{":- op(700, xfy, ~>).\n", "t.chr:1:7: error: operator ~> (700, xfy) is outside what gpuc reads"},
		{":- op(700, fx, ~>).\n", "t.chr:1:7: error: operator ~> (700, fx) is outside what gpuc reads"},
		{":- op(700, xfx, [a, b]).\n", "t.chr:1:4: error: op/3 is read with a priority, a type and one operator name"},
		{":- chr_constraint p/1.\np(X) ~> q <=> true.\n", "t.chr:2:6: error: syntax error"},
		{":- op(400, yfx, times).\n:- chr_constraint r/1.\nr(X) <=> r(X times 2 times 3).\n", "t.chr:3:22: error: constraint argument times(times(X,2),3) is not a number"},
	} {
		if _, err := chr.Parse("t.chr", []byte(c.src), chr.Options{}); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want first %s", c.src, err, c.want)
		}
	}
}
