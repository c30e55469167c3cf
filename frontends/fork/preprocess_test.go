package fork_test

import (
	"strings"
	"testing"

	"gpuc/frontends/fork"
)

// TestMacros checks Note [Preprocessor lines]: object-like macros expand,
// nested and undefined, outside strings and comments; other directives
// are refused where they stand.
func TestMacros(t *testing.T) {
	src := `#include <fork.h>
#define N 4
#define M (N * 2)   /* uses N */
#define LOOP LOOP
sh int a[M];
void main() {
  int i, LOOP;
  LOOP = 1;
  start(M) { a[$] = $ * N; }
  for (i = 0; i < M; i++) printf("%d ", a[i]);
  // #define N 5 in a comment is no directive
#undef N
  int N;
  N = 3;
  printf("%d %s %d\n", N, "M #define", LOOP);
}
`
	if got, want := run(t, src, nil), "0 4 8 12 16 20 24 28 3 M #define 1\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	_, err := fork.Parse("t.fork", []byte("#define F(x) x\n#if 1\nvoid main() {}\n#endif\n#define Y \\\n"), fork.Options{})
	want := []string{
		"t.fork:1:1: error: function-like macro F is not supported",
		"t.fork:2:1: error: preprocessor directive #if is not supported",
		"t.fork:4:1: error: preprocessor directive #endif is not supported",
		"t.fork:5:1: error: macro Y continues on the next line",
	}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("got %v, want %s", err, w)
		}
	}
}

// TestPointers checks that pointer types get the diagnostic the package
// doc promises, not a syntax error.
func TestPointers(t *testing.T) {
	_, err := fork.Parse("t.fork", []byte("void main() {\n  int *p, **q;\n  p = (char *) 0;\n}\n"), fork.Options{})
	want := "t.fork:2:7: error: pointers are outside the Fork subset\nt.fork:3:13: error: pointers are outside the Fork subset"
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}

// TestIlog2 checks Fork's ilog2: folded in constants, following an
// overridden parameter, and computed at run time for every integer type.
func TestIlog2(t *testing.T) {
	src := `static const int N = 1024;
static const int L = ilog2(N);
const int P = 100;
sh int r[8];
void main() {
  int i;
  unsigned u;
  long big;
  u = 4294967295u;
  big = 1099511627776l;
  printf("%d %d %d %d %d %d\n", L, ilog2(P), ilog2(0), ilog2(-5), ilog2(u), ilog2(big));
  for (i = 1; i < 70; i = i * 3) printf("%d ", ilog2(i));
  start(8) { r[$] = ilog2($ + 1); }
  for (i = 0; i < 8; i++) printf("%d ", r[i]);
  printf("\n");
}
`
	if got, want := run(t, src, nil), "10 6 -1 -1 31 40\n0 1 3 4 0 1 1 2 2 2 2 3 \n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := run(t, src, map[string]int64{"P": 1000}), "10 9 -1 -1 31 40\n"; !strings.HasPrefix(got, want) {
		t.Errorf("P=1000: got %q, want %q...", got, want)
	}
	_, err := fork.Parse("t.fork", []byte("void main() { double d; d = 2.0; printf(\"%d\\n\", ilog2(d)); }\n"), fork.Options{})
	if err == nil || !strings.Contains(err.Error(), "t.fork:1:55: error: ilog2 takes an integer, not f64") {
		t.Errorf("ilog2 of a double: got %v", err)
	}
}
