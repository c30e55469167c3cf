package fork_test

import (
	"errors"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/frontends/fork"
	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
)

// TestGolden pins the lowering of the example and of the programs
// in testdata: X.fork lowers to testdata/X.kir.
func TestGolden(t *testing.T) {
	files := irtest.Glob(t, "testdata/*.fork")
	files = append(files, "../../examples/fork/prefix.fork")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			got := ir.Print(mustParse(t, filepath.Base(file), irtest.ReadFile(t, file), defaultOpts))
			golden := "testdata/" + strings.TrimSuffix(filepath.Base(file), ".fork") + ".kir"
			irtest.GoldenFile(t, golden, got)
		})
	}
}

// A private condition splits the group, a shared one does not; so for
// loops.
func TestSplits(t *testing.T) {
	src := `
const int N = 8;
sh int a[N];
sh int flag;
void main() {
  int i;
  start(N) {
    pr int k;
    if ($ < 3) a[$] = 1;
    if (flag == 0) a[$] += 10;
    for (k = 0; k < $; k++) a[$] += 100;
    while (flag < 3) flag++;
  }
  for (i = 0; i < N; i++) printf("%d ", a[i]);
  printf("%d\n", flag);
}`
	m := mustParse(t, "t.fork", src, defaultOpts)
	counts := map[string]int{
		"split": count(m, isSplit), "if": count(m, isIf),
		"split while": count(m, isSplitWhile), "while": count(m, isWhile),
	}
	for what, want := range map[string]int{"split": 1, "if": 1, "split while": 1, "while": 1} {
		if counts[what] != want {
			t.Errorf("%d %s statements, want %d:\n%s", counts[what], what, want, ir.Print(m))
		}
	}
	if got, want := mustRun(t, m, nil, true), "11 111 211 310 410 510 610 710 3\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Each statement is a PRAM step: every processor reads before any writes,
// and the writes are priority stores, or plain ones under
// --crcw=arbitrary, where the race checker sees the conflict.
func TestSteps(t *testing.T) {
	src := `
const int N = 6;
sh int a[N];
sh int w;
void main() {
  int i;
  start(N) {
    a[$] = $ * 10;
    if ($ > 0) a[$] = a[$ - 1] + 1;
    w = $ + 1;
  }
  for (i = 0; i < N; i++) printf("%d ", a[i]);
  printf("| %d\n", w);
}`
	m := mustParse(t, "t.fork", src, defaultOpts)
	if got, want := mustRun(t, m, nil, true), "0 1 11 21 31 41 | 1\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	step := "var t: i32 = a[pid() - 1] + 1;\n      barrier grid;\n      prio a[pid()] = t;\n      barrier grid;"
	if text := ir.Print(m); !strings.Contains(text, step) {
		t.Errorf("the shift is not read, barrier, write, barrier:\n%s", text)
	}
	stores := func(m *ir.Module, prio bool) int {
		return count(m, func(s ir.Stmt) bool { st, ok := s.(*ir.Store); return ok && st.Priority == prio })
	}
	if n := stores(m, false); n != 0 {
		t.Errorf("%d plain stores in synchronous code under --crcw=priority", n)
	}
	arb := mustParse(t, "t.fork", src, fork.Options{CRCW: "arbitrary"})
	if n := stores(arb, true); n != 0 || stores(arb, false) != 3 {
		t.Errorf("--crcw=arbitrary: %d priority stores, %d plain ones, want 0 and 3", n, stores(arb, false))
	}
	var re *interp.RaceError
	if err := interp.Run(arb, interp.Config{Race: true}); !errors.As(err, &re) {
		t.Errorf("--crcw=arbitrary under the race checker: %v, want a race on w", err)
	}
}

// Constants are parameters, derived expressions or folded values; a const
// array of constant length is a static buffer.
func TestConstants(t *testing.T) {
	src := `
const int N = 4;
const long BIG = 1l << 40;
const int M = 2 * N;
static const int K = 3;
const double HALF = 0.5;
const int tbl[3] = {7, 8, 9};
const char huge[70000] = {1};
sh int a[M];
void main() {
  start(M) a[$] = $ * K + tbl[$ % 3] + huge[0];
  printf("%d %d %ld %f\n", a[M - 1], M, BIG, HALF);
}`
	m := mustParse(t, "t.fork", src, defaultOpts)
	var params []string
	for _, p := range m.Params {
		params = append(params, p.Name)
	}
	if got := strings.Join(params, " "); got != "N BIG" {
		t.Errorf("parameters %s, want N BIG", got)
	}
	if b := m.Buffer("tbl"); b == nil || b.Role != ir.Static || b.Space != ir.Constant {
		t.Errorf("tbl is not a static constant buffer: %+v", b)
	}
	if b := m.Buffer("huge"); b == nil || b.Role != ir.Static || b.Space != ir.Global {
		t.Errorf("huge is not a static global buffer: %+v", b)
	}
	if got := ir.PrintExpr(m.Buffer("a").Len); got != "2 * N" {
		t.Errorf("a has length %s, want 2 * N", got)
	}
	if got, want := mustRun(t, m, nil, true), "30 8 1099511627776 0.500000\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := mustRun(t, m, map[string]int64{"N": 5}, false), "35 10 1099511627776 0.500000\n"; got != want {
		t.Errorf("N=5: got %q, want %q", got, want)
	}
}

// start without a count runs on the PROCS parameter, whose default is
// --procs.
func TestBareStart(t *testing.T) {
	src := "sh int n;\nvoid main() {\n  start n = groupsize();\n  printf(\"%d\\n\", n);\n}\n"
	m := mustParse(t, "t.fork", src, fork.Options{Procs: 37})
	if p := m.Param("PROCS"); p == nil || p.Default != 37 {
		t.Fatalf("PROCS parameter %+v, want default 37", p)
	}
	if got := mustRun(t, m, map[string]int64{"PROCS": 5}, true); got != "5\n" {
		t.Errorf("PROCS=5 prints %q", got)
	}
	if m := mustParse(t, "t.fork", "void main() { start(2) { } }", defaultOpts); m.Param("PROCS") != nil {
		t.Errorf("PROCS declared without a bare start")
	}
}

// Functions: host versions for sequential callers, device versions (with
// $, @ and groupsize() as parameters where they use them) for parallel
// ones, sync functions inlined, arrays bound per call.
func TestFunctions(t *testing.T) {
	src := `
sh int out[8], hist[4];
int sq(int x) { return x * x; }
int tag(int x) { return x * 100 + $ * 10 + @; }
sync int total(int v) { return mpadd(&hist[0], v) + v; }
void fill(int a[], int n) { int i; for (i = 0; i < n; i++) a[i] = sq(i); }
void main() {
  fill(out, 3);
  fill(hist, 4);
  printf("%d %d\n", out[2], hist[3]);
  start(4) {
    out[$] = tag(sq($));
    out[4 + $] = total($ + 1);
  }
  printf("%d %d %d %d\n", out[1], out[3], out[5], out[7]);
}`
	m := mustParse(t, "t.fork", src, defaultOpts)
	var names []string
	for _, f := range m.Funcs {
		names = append(names, f.Kind.String()+" "+f.Name)
	}
	want := "host main, host fill_out, host fill_hist, func sq_dev, func tag_dev, host sq"
	if got := strings.Join(names, ", "); got != want {
		t.Errorf("functions: %s\nwant %s", got, want)
	}
	if tag := m.Func("tag_dev"); tag == nil || len(tag.Params) != 4 {
		t.Errorf("tag_dev does not take $, @ and groupsize(): %v", tag)
	}
	if got, want := mustRun(t, m, nil, true), "4 9\n110 930 3 10\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// break, continue and return in synchronous code leave through flags.
func TestJumps(t *testing.T) {
	src := `
sh int steps[6], found[6], odd[6];
sync int search(int limit) {
  pr int i;
  for (i = 0; ; i++) {
    if (i * i > limit) return i;
    steps[$]++;
  }
  return -1;
}
void main() {
  int i;
  start(6) {
    pr int k = 0;
    found[$] = search($ * 5);
    do {
      k++;
      if (k % 2 == 0) continue;
      if (k > $) break;
      odd[$] += k;
    } while (k < 100);
  }
  for (i = 0; i < 6; i++) printf("%d/%d/%d ", steps[i], found[i], odd[i]);
  printf("\n");
}`
	want := "1/1/0 3/3/1 4/4/1 4/4/4 5/5/4 6/6/9 \n"
	if got := run(t, src, nil); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// &&, || and ?: evaluate only what C evaluates, also when the skipped
// side writes shared memory in a step.
func TestConditionalEffects(t *testing.T) {
	src := `
sh int a[4], b[4], n;
void main() {
  int i;
  start(4) {
    pr int r = $ % 2 ? (a[$] = $ + 1) : (b[$] = $ + 5);
    if ($ > 1 && mpadd(&n, 1) >= 0) a[$] += 100;
    if ($ == 0 || (b[$] = 7)) b[$] += r;
  }
  for (i = 0; i < 4; i++) printf("%d %d ", a[i], b[i]);
  printf("%d\n", n);
}`
	// b[$] = 7 in || is sequenced before the body's b[$] += r.
	want := "0 10 2 9 100 14 104 11 2\n"
	if got := run(t, src, nil); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// seq runs on processor 0 and the group waits; fork renumbers.
func TestSeqAndFork(t *testing.T) {
	src := `
sh int g[8];
void main() {
  start(8) {
    fork(2; @ = $ / 4; $ = 3 - $ % 4)
      g[@ * 4 + $] = groupsize() * 100 + @ * 10 + $;
    seq printf("%d %d %d\n", g[0], g[3], g[7]);
  }
}`
	m := mustParse(t, "t.fork", src, defaultOpts)
	if got, want := mustRun(t, m, nil, true), "400 403 413\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	seq := count(m, func(s ir.Stmt) bool {
		i, ok := s.(*ir.If)
		return ok && ir.PrintExpr(i.Cond) == "pid() == 0"
	})
	if seq != 1 || count(m, func(s ir.Stmt) bool { _, ok := s.(*ir.Fork); return ok }) != 1 {
		t.Errorf("want one fork and one if pid() == 0:\n%s", ir.Print(m))
	}
}

// Types: C's conversions, literals and printf's promotions.
func TestTypes(t *testing.T) {
	src := `
void main() {
  char c = 'A' + 2;
  unsigned u = -1;
  long l = 3000000000;
  double d = 7 / 2 + 7 / 2.0;
  float f = 1.5f;
  bool b = 5;
  int i = 0x10 + 010 + (int)2.9 + (u > 0) + b;
  printf("%c %d %u %ld %.2f %f %d %d %x|%5d|%-3d|%s\n", c, c, u, l, d, f, b, i, 255u, 42, 7, "end");
  printf("%d %d %u %d\n", -7 / 2, -7 % 2, u >> 28, 1 << 3 | 1);
}`
	want := "C 67 4294967295 3000000000 6.50 1.500000 1 28 ff|   42|7  |end\n-3 -1 15 9\n"
	if got := run(t, src, nil); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Names that C allows but the IR reserves, and shadowing, are renamed.
func TestNames(t *testing.T) {
	src := `
sh int buffer[2];
int min(int a, int b) { return a < b ? a : b; }
void main() {
  int var = 3;
  { int var = 4; buffer[0] = var; }
  start(2) { pr int split = $; sh int buffer2; buffer2 = 1; buffer[1] = min(split, 9) + buffer2; }
  printf("%d %d %d\n", var, buffer[0], buffer[1]);
}`
	// Both processors write buffer[1]; processor 0 wins.
	if got, want := run(t, src, nil), "3 4 1\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// No input makes the frontend panic: mutations of the examples give
// diagnostics, never an internal error, or modules that verify.
func TestMutations(t *testing.T) {
	files := irtest.Glob(t, "../../examples/fork/*.fork")
	rng := rand.New(rand.NewSource(1))
	tokens := []string{"$", "@", "sh", "start", "fork(2; @ = 0)", "sync", "{", "}", ";", "(", "[", "&", "mpadd(", "break;", "return", "x", "0", "\"%d\"", "seq", "farm", "error(\"m\");"}
	for _, file := range files {
		src := irtest.ReadFile(t, file)
		for range 150 {
			i, j := rng.Intn(len(src)), rng.Intn(len(src))
			if i > j {
				i, j = j, i
			}
			j = min(j, i+rng.Intn(20))
			mutant := src[:i] + tokens[rng.Intn(len(tokens))] + src[j:]
			m, err := fork.Parse("m.fork", []byte(mutant), defaultOpts)
			switch {
			case err != nil && strings.Contains(err.Error(), "internal error"):
				t.Fatalf("%s mutated:\n%s\n%v", file, mutant, err)
			case err == nil:
				if err := ir.Verify(m, ir.SPMDLevel); err != nil {
					t.Fatalf("%s mutated does not verify:\n%s\n%v\n%s", file, mutant, err, ir.Print(m))
				}
			}
		}
	}
}
