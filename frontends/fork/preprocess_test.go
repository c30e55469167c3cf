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
