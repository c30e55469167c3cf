package chr_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/frontends/chr"
	"gpuc/internal/irtest"
)

// TestDeclaresConstraints checks which .pl files read as CHR (Note [CHR
// in .pl files]).
func TestDeclaresConstraints(t *testing.T) {
	for src, want := range map[string]bool{
		":- use_module(library(chr)).\n:- chr_constraint gcd/1.\n": true,
		"\uFEFF:- chr_constraint gcd/1.\n":                         true,
		"  :-  constraints leq/2.\n":                               true,
		"% :- chr_constraint gcd/1.\nfoo.\n":                       false,
		"/*\n:- chr_constraint gcd/1.\n*/\nfoo.\n":                 false,
		"p :- write(':- chr_constraint x'), nl.\n":                 false,
		"main :- writeln(hello).\n":                                false,
	} {
		if got := chr.DeclaresConstraints([]byte(src)); got != want {
			t.Errorf("%q: got %v, want %v", src, got, want)
		}
	}
	if _, err := chr.ParseProlog("a.pl", []byte("main :- writeln(hello).\n"), chr.Options{}); err == nil ||
		!strings.Contains(err.Error(), "a.pl:1:1: error: a .pl file is read as CHR when it declares constraints") {
		t.Errorf("plain Prolog: got %v", err)
	}
}

// TestCorpusSWI runs every program of the shared CHR corpus that lies in
// the subset, as its authors keep it, with a query in a --query file (the
// one its comments give, where they give one), and compares the final
// store with SWI-Prolog's (skipped where the corpus is absent). The
// reasons why the others are outside the subset are in docs/CHR.md.
func TestCorpusSWI(t *testing.T) {
	dir := "../../../shared/corpus/chr"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no corpus at %s", dir)
	}
	for name, query := range map[string]string{
		"chr-book/exchange_sort.pl":  "a(0,1), a(1,5), a(3,7), a(4,9), a(2,10)",
		"chr-book/gcd_subtract.pl":   "gcd(94017), gcd(1155), gcd(2035)",
		"chr-book/shortest_paths.pl": "e(1,2), e(2,3), e(3,4), e(4,1), e(2,5)",
		"chr-book/mergesort.pl":      "'→'(0,2), '→'(0,5), '→'(0,1), '→'(0,7)",
		"swi-examples/gcd.chr":       "X is 37*11*11*7*3, Y is 11*7*5*3, Z is 37*11*5, gcd:gcd(X), gcd:gcd(Y), gcd:gcd(Z)",
		"swi-examples/primes.chr":    "primes:candidate(200)",
		"swi-benchmarks/primes.chr":  "primes:candidate(300)",
		"swi-tests/dense_int.chr":    "dense_int:dense_int",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := irtest.ReadFile(t, filepath.Join(dir, name))
			qfile := filepath.Join(t.TempDir(), "query.pl")
			if err := os.WriteFile(qfile, []byte(query+".\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			parse := chr.Parse
			if filepath.Ext(name) == ".pl" {
				parse = chr.ParseProlog
			}
			m, err := parse(filepath.Base(name), []byte(src), chr.Options{Query: qfile})
			if err != nil {
				t.Fatalf("%s as its authors keep it: %v", name, err)
			}
			got := mustRun(t, m, nil, false, false)
			if got == "" && name != "swi-tests/dense_int.chr" {
				t.Errorf("empty store")
			}
			if want := swipl(t, src+"\n?- "+query+".\n"); got != want {
				t.Errorf("gpuc run:\n%s\nSWI-Prolog:\n%s", got, want)
			}
		})
	}
}
