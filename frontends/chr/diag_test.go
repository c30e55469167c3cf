package chr_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/frontends/chr"
	"gpuc/internal/irtest"
)

// Programs outside the subset get one positioned diagnostic naming the
// construct; none panics.
var diagnostics = []struct {
	name, src, want string
}{
	{"syntax", ":- chr_constraint a/1.\na(X) <=> X > | true.\n", "t.chr:2:14: error: syntax error"},
	{"undeclared head", "b(X) <=> true.\n", "t.chr:1:1: error: b/1 is not a declared constraint"},
	{"undeclared body", ":- chr_constraint a/1.\na(X) <=> X > 1 | b(X).\n", "t.chr:2:18: error: b/1 is not a CHR constraint; calling Prolog predicates"},
	{"cut", ":- chr_constraint a/1.\na(X) <=> !, a(X).\n", "t.chr:2:10: error: the cut (!) is outside the CHR subset"},
	{"disjunction", ":- chr_constraint a/1.\na(X) <=> (a(X) ; true).\n", "t.chr:2:16: error: control construct ; in a body is outside the subset"},
	{"unification", ":- chr_constraint a/1, b/1.\na(X) \\ b(Y) <=> X = Y.\n", "t.chr:2:19: error: unification (=) in a body is outside the subset"},
	{"nonground body", ":- chr_constraint a/1.\na(X) <=> a(Y).\n", "t.chr:2:12: error: variable Y is unbound here"},
	{"compound arg", ":- chr_constraint a/1.\na(X) <=> X > 0 | a(X-1).\n", "t.chr:2:21: error: constraint argument X-1 is not a number"},
	{"prolog predicate", ":- chr_constraint a/1.\nfoo(1) :- a(1).\n", "t.chr:2:5: error: argument 1 of driver foo/1 is outside the subset"},
	{"prolog guard", ":- chr_constraint a/1.\na(X) <=> var(X) | true.\n", "t.chr:2:10: error: guard var/1 is outside the subset"},
	{"pragma", ":- chr_constraint a/1.\na(X) # Id <=> true pragma passive(Id).\n", "error: pragmas"},
	{"list head", ":- chr_constraint a/1.\na([X]) <=> true.\n", "t.chr:2:3: error: head argument a list is outside the subset"},
	{"int float", ":- chr_constraint a/1.\n?- a(1), a(2.5).\n", "t.chr:2:10: error: type mismatch"},
	{"int division", ":- chr_constraint a/1, b/1.\na(X) <=> Y is X / 2, b(Y).\n", "t.chr:2:17: error: / on two integers"},
	{"float mod", ":- chr_constraint a/1, b/1.\na(X) <=> Y is X mod 2, b(Y).\n?- a(1.5).\n", "t.chr:2:17: error: mod takes integers"},
	{"rebind", ":- chr_constraint a/1.\na(X) <=> X is 3, a(X).\n", "t.chr:2:10: error: X is already bound"},
	{"bad query", ":- chr_constraint a/1.\n?- a(X).\n", "t.chr:2:6: error: variable X is unbound: queries post ground constraints"},
	{"query predicate", ":- chr_constraint a/1.\n?- foo(1).\n", "t.chr:2:4: error: foo/1 is not a CHR constraint"},
	{"op", ":- op(700, fx, ~>).\n", "t.chr:1:7: error: operator ~> (700, fx) is outside what gpuc reads"},
	{"twice", ":- chr_constraint a/1.\n:- chr_constraint a/1.\n", "t.chr:2:20: error: constraint a/1 declared twice"},
	{"big", ":- chr_constraint a/1.\n?- a(123456789012345678901234567890).\n", "t.chr:2:6: error: integer does not fit in 64 bits"},
	{"bad type", ":- chr_constraint a(+list).\n", "t.chr:1:22: error: argument type list is outside the subset"},
	{"guard binding", ":- chr_constraint a/1.\na(X) <=> Y is X + 1 | true.\n", "t.chr:2:12: error: is/2 in a guard binds a variable"},
	{"two queries", ":- chr_constraint a/1.\n?- a(1).\n?- a(2).\n", "t.chr:3:1: error: a second query"},
}

func TestDiagnostics(t *testing.T) {
	for _, tc := range diagnostics {
		t.Run(tc.name, func(t *testing.T) {
			_, err := chr.Parse("t.chr", []byte(tc.src), chr.Options{})
			if err == nil {
				t.Fatalf("no error for\n%s", tc.src)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%v\nwant it to contain\n%s", err, tc.want)
			}
		})
	}
}

// TestCorpus reads every program of the shared CHR corpus: each either
// lowers or is refused with positioned diagnostics, and none panics.
func TestCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/corpus/chr/*/*")
	if len(files) == 0 {
		t.Skip("no ../shared/corpus/chr beside the repository")
	}
	lowered := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = chr.Parse(filepath.Base(f), src, chr.Options{})
		if err == nil {
			lowered++
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(err.Error()), "\n") {
			if !strings.HasPrefix(line, filepath.Base(f)+":") || !strings.Contains(line, ": error: ") || strings.Contains(line, "internal error") {
				t.Errorf("%s: diagnostic without a position or with an internal error: %s", f, line)
			}
		}
	}
	if lowered < 7 {
		t.Errorf("only %d corpus programs lower; gcd, dense_int, primes (swi-examples), exchange_sort, gcd_subtract, shortest_paths and mergesort should", lowered)
	}
}

// TestQueryFile reads the query from a data file, as --query does, and
// refuses a malformed one with a positioned error.
func TestQueryFile(t *testing.T) {
	dir := t.TempDir()
	q := filepath.Join(dir, "q.pl")
	if err := os.WriteFile(q, []byte("min(4).\nmin(-2).\nmin(9).\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := irtest.ReadFile(t, "../../examples/chr/min.chr")
	m := mustParse(t, "min.chr", src, chr.Options{Query: q})
	if got := mustRun(t, m, nil, false, false); got != "min(-2)\n" {
		t.Errorf("with --query: %q", got)
	}
	if err := os.WriteFile(q, []byte("min(4).\nmin(X).\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := chr.Parse("min.chr", []byte(src), chr.Options{Query: q})
	if err == nil || !strings.Contains(err.Error(), "q.pl:2:5: error: variable X is unbound") {
		t.Errorf("bad query file: %v", err)
	}
}
