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

// TestCHRBookPL runs the CHR book's programs in the subset as their
// authors keep them, .pl files with the query in a comment, and compares
// the final store with SWI-Prolog's (skipped where the corpus is absent).
func TestCHRBookPL(t *testing.T) {
	dir := "../../../shared/corpus/chr/chr-book"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no corpus at %s", dir)
	}
	for name, query := range map[string]string{
		"exchange_sort.pl":  "a(0,1), a(1,5), a(3,7), a(4,9), a(2,10)",
		"gcd_subtract.pl":   "gcd(94017), gcd(1155), gcd(2035)",
		"shortest_paths.pl": "e(1,2), e(2,3), e(3,4), e(4,1), e(2,5)",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := irtest.ReadFile(t, filepath.Join(dir, name))
			qfile := filepath.Join(t.TempDir(), "query.pl")
			if err := os.WriteFile(qfile, []byte(query+".\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := chr.ParseProlog(name, []byte(src), chr.Options{Query: qfile})
			if err != nil {
				t.Fatalf("%s as its authors keep it: %v", name, err)
			}
			got := mustRun(t, m, nil, false, false)
			if want := swipl(t, src+"\n?- "+query+".\n"); got != want {
				t.Errorf("gpuc run:\n%s\nSWI-Prolog:\n%s", got, want)
			}
		})
	}
}
