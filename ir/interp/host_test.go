package interp_test

import (
	"errors"
	"strings"
	"testing"

	"gpuc/ir/interp"
)

func TestParams(t *testing.T) {
	src := `module p;
param N: i32 = 10;
param M: u8 = 7;
param L: i64 = -3;
host main() {
  printf "%d %d %ld\n", N, i32(M), L;
}
`
	if got := mustRun(t, "p.kir", src, interp.Config{}); got != "10 7 -3\n" {
		t.Errorf("defaults: got %q", got)
	}
	got := mustRun(t, "p.kir", src, interp.Config{Params: map[string]int64{"N": -5, "M": 255, "L": 1 << 40}})
	if got != "-5 255 1099511627776\n" {
		t.Errorf("overrides: got %q", got)
	}
	for _, tc := range []struct {
		params map[string]int64
		want   string
	}{
		{map[string]int64{"M": 256}, "parameter M=256 is out of range for u8"},
		{map[string]int64{"N": 1 << 31}, "parameter N=2147483648 is out of range for i32"},
		{map[string]int64{"K": 1}, "unknown parameter K (the module has N, M, L)"},
	} {
		_, err := run(t, "p.kir", src, interp.Config{Params: tc.params})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v: got error %v, want %q", tc.params, err, tc.want)
		}
	}
}

func TestOutputBuffers(t *testing.T) {
	src := `module out;
buffer a: bool[2] global output;
buffer b: i8[1] global output;
buffer c: u8[1] global output;
buffer d: i32[1] global output;
buffer e: u32[1] global output;
buffer f: i64[1] global output;
buffer g: u64[1] global output;
buffer h: f32[2] global output;
buffer k: f64[2] global scratch;
buffer l: f64[2] global output;
host main() {
  a[1] = true;
  b[0] = i8(-5);
  c[0] = u8(200);
  d[0] = -7;
  e[0] = 4000000000u;
  f[0] = -9000000000l;
  g[0] = 18446744073709551615ul;
  h[0] = 1.5f;
  h[1] = 1.0f / 3.0f;
  k[0] = 99.0;
  l[0] = -0.25;
  l[1] = 1.0 / 0.0;
}
`
	want := "0\n1\n-5\n200\n-7\n4000000000\n-9000000000\n18446744073709551615\n1.500000\n0.333333\n-0.250000\ninf\n"
	if got := mustRun(t, "out.kir", src, interp.Config{}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestPrintf(t *testing.T) {
	src := `module pf;
host main() {
  printf "[%5d|%-5d|%05d|%d|%d|%d]\n", 42, -7, -42, true, u8(200), i8(-5);
  printf "[%u|%ld|%lu|%x|%lx|%c|%s|%.3s|%-4s|]\n", 4294967295u, -9000000000l, 18446744073709551615ul, 255u, 4294967296ul, 65, "hi", "abcdef", "ab";
  printf "[%8.3f|%e|%f|%.0f|%f|%f|%%]\n", 3.14159, 12345.678, f64(0.1f), 2.5, 1.0 / 0.0, -1.0 / 0.0;
}
`
	want := "[   42|-7   |-0042|1|200|-5]\n" +
		"[4294967295|-9000000000|18446744073709551615|ff|100000000|A|hi|abc|ab  |]\n" +
		"[   3.142|1.234568e+04|0.100000|2|inf|-inf|%]\n"
	if got := mustRun(t, "pf.kir", src, interp.Config{}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestPrintfStderr: printf stderr writes to Config.Stderr at once, never
// to Stdout, and a nil Stderr discards it.
func TestPrintfStderr(t *testing.T) {
	src := `module pf;
host main() {
  printf "out %d\n", 1;
  printf stderr "err %d %s\n", 2, "x";
  printf "out %d\n", 3;
}
`
	var errOut strings.Builder
	if got := mustRun(t, "pf.kir", src, interp.Config{Stderr: &errOut}); got != "out 1\nout 3\n" {
		t.Errorf("stdout %q, want the two out lines", got)
	}
	if errOut.String() != "err 2 x\n" {
		t.Errorf("stderr %q, want %q", errOut.String(), "err 2 x\n")
	}
	if got := mustRun(t, "pf.kir", src, interp.Config{}); got != "out 1\nout 3\n" {
		t.Errorf("with no Stderr, stdout %q", got)
	}
}

func TestRaise(t *testing.T) {
	src := `module r;
buffer o: i32[1] global output;
host main() {
  printf "before\n";
  if o[0] == 0 {
    raise "store full";
  }
  printf "after\n";
}
`
	out, err := run(t, "r.kir", src, interp.Config{})
	var re *interp.RaiseError
	if !errors.As(err, &re) || re.Msg != "store full" || err.Error() != "store full" {
		t.Fatalf("got error %v (%T), want RaiseError store full", err, err)
	}
	if out != "before\n" {
		t.Errorf("output %q, want only what was printed before the raise", out)
	}
}

func TestRaiseInKernel(t *testing.T) {
	src := `module r;
buffer n: u32[1] global scratch;
kernel k() {
  var old: u32 = 0u;
  old = atomic add n[0], 1u;
  if old >= 5000u {
    raise "capacity exceeded";
  }
}
host main() {
  printf "start\n";
  launch k() grid 100 block 100;
  printf "unreachable\n";
}
`
	for _, workers := range []int{1, 4} {
		out, err := run(t, "r.kir", src, interp.Config{Workers: workers})
		var re *interp.RaiseError
		if !errors.As(err, &re) || re.Msg != "capacity exceeded" || out != "start\n" {
			t.Errorf("workers=%d: got %v, output %q", workers, err, out)
		}
	}
}

func TestRecursion(t *testing.T) {
	src := `module rec;
buffer out: i32[16] global output;
func fib(n: i32): i32 {
  if n < 2 {
    return n;
  }
  return fib(n - 1) + fib(n - 2);
}
kernel k() {
  out[tid()] = fib(tid());
}
host fact(n: i64): i64 {
  if n <= 1l {
    return 1l;
  }
  return n * fact(n - 1l);
}
host main() {
  launch k() grid 1 block 16;
  printf "%ld\n", fact(20l);
}
`
	want := "2432902008176640000\n0\n1\n1\n2\n3\n5\n8\n13\n21\n34\n55\n89\n144\n233\n377\n610\n"
	if got := mustRun(t, "rec.kir", src, interp.Config{}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	deep := `module deep;
func down(n: i32): i32 {
  return down(n + 1);
}
buffer o: i32[1] global scratch;
kernel k() {
  o[0] = down(0);
}
host main() {
  launch k() grid 1 block 1;
}
`
	mustFail(t, "deep.kir", deep, interp.Config{}, "deep.kir:3:10: error: calls nested more than 10000 deep")
}

func TestSwitch(t *testing.T) {
	src := `module sw;
buffer out: i32[8] global output;
func classify(x: i32): i32 {
  switch x {
    case 0, 1 {
      return 10;
    }
    case -3 {
      return 20;
    }
    case 5 {
    }
    default {
      return 30;
    }
  }
  return 40;
}
kernel k() {
  out[tid()] = classify(tid() - 3);
}
host main() {
  launch k() grid 1 block 8;
  for var i: i64 = 0l; i < 3l; i = i + 1l {
    switch i {
      case 1 {
        printf "one\n";
      }
      default {
        printf "other %ld\n", i;
      }
    }
  }
}
`
	want := "other 0\none\nother 2\n20\n30\n30\n10\n10\n30\n30\n30\n"
	if got := mustRun(t, "sw.kir", src, interp.Config{}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCopySwapReadBack(t *testing.T) {
	src := `module cs;
param N: i32 = 8;
buffer a: i32[N] global scratch;
buffer b: i32[N] global output;
array h: i32[N + 2];
kernel fill(k: i32) {
  a[tid()] = tid() * k;
}
host main() {
  for var i: i32 = 0; i < N + 2; i = i + 1 {
    h[i] = 100 + i;
  }
  copy b[2], h[5], 3;
  launch fill(10) grid 1 block N;
  swap a, b;
  printf "a: %d %d %d %d\n", a[1], a[2], a[4], a[5];
  copy h[0], b[1], 2;
  printf "h: %d %d %d\n", h[0], h[1], h[2];
  b[N - 1] = -1;
}
`
	want := "a: 0 105 107 0\nh: 10 20 102\n0\n10\n20\n30\n40\n50\n60\n-1\n"
	if got := mustRun(t, "cs.kir", src, interp.Config{}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestSelectIsLazy checks C's ?: semantics: the side not taken is not
// evaluated, so its out-of-range load is no error.
func TestSelectIsLazy(t *testing.T) {
	src := `module sel;
buffer d: i32[4] global scratch;
host main() {
  var i: i32 = 4;
  printf "%d %d\n", i < 4 ? d[i] : 7, i >= 4 ? 8 : d[i];
}
`
	if got := mustRun(t, "sel.kir", src, interp.Config{}); got != "7 8\n" {
		t.Errorf("got %q, want %q", got, "7 8\n")
	}
	mustFail(t, "sel.kir", strings.Replace(src, "i < 4 ?", "i > 3 ?", 1), interp.Config{}, "sel.kir:5:29: error: index 4 out of range for buffer d of length 4")
}

func TestRunTimeErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"index", `module e;
param N: i32 = 1024;
buffer data: i32[N] global scratch;
kernel k() {
  data[gid()] = 1;
}
host main() {
  printf "x\n";
  launch k() grid 5 block 256;
}`, "e.kir:5:3: error: index 1024 out of range for buffer data of length 1024"},
		{"negative index", `module e;
buffer data: i32[4] global scratch;
array h: u8[4];
host main() {
  h[0] = u8(data[-1 + 0 * 3]);
}`, "e.kir:5:13: error: index -1 out of range for buffer data of length 4"},
		{"array index", `module e;
array h: u64[3];
host main() {
  var i: u32 = 3u;
  h[i] = 1ul;
}`, "e.kir:5:3: error: index 3 out of range for array h of length 3"},
		{"division", `module e;
buffer data: i32[4] global scratch;
kernel k(d: i32) {
  data[tid()] = 10 / (d - tid());
}
host main() {
  launch k(2) grid 1 block 4;
}`, "e.kir:4:20: error: integer division by zero"},
		{"remainder", `module e;
host main() {
  var z: u64 = 0ul;
  printf "%lu\n", 5ul % z;
}`, "e.kir:4:23: error: integer division by zero"},
		{"block too large", `module e;
kernel k() {
}
host main() {
  launch k() grid 1 block 1025;
}`, "e.kir:5:3: error: block size 1025 is outside 1..1024"},
		{"block zero", `module e;
kernel k() {
}
host main() {
  launch k() grid 1 block 0;
}`, "block size 0 is outside 1..1024"},
		{"negative grid", `module e;
kernel k() {
}
host main() {
  launch k() grid 0 - 2 block 32;
}`, "e.kir:5:3: error: negative grid size -2"},
		{"negative length", `module e;
param N: i32 = -1;
buffer data: i32[N] global scratch;
host main() {
}`, "e.kir:3:1: error: buffer data has negative length -1"},
		{"copy range", `module e;
buffer a: i32[8] global scratch;
array h: i32[4];
host main() {
  copy h[2], a[0], 3;
}`, "e.kir:5:3: error: copy range [2, 2+3) is out of bounds for array h of length 4"},
		{"copy count", `module e;
buffer a: i32[8] global scratch;
array h: i32[4];
host main() {
  copy h[0], a[0], -1;
}`, "e.kir:5:3: error: copy of a negative count -1"},
		{"swap", `module e;
buffer a: i32[8] global scratch;
buffer b: i32[9] global scratch;
host main() {
  swap a, b;
}`, "e.kir:5:3: error: swap of a (length 8) and b (length 9), which differ in length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustFail(t, "e.kir", tc.src, interp.Config{Workers: 2}, tc.want)
		})
	}
}

// A launch with grid 0 runs nothing, and the program goes on.
func TestEmptyGrid(t *testing.T) {
	src := `module e;
buffer o: i32[1] global output;
kernel k() {
  o[0] = 1;
}
host main() {
  launch k() grid 0 block 32;
  printf "done\n";
}
`
	if got := mustRun(t, "e.kir", src, interp.Config{}); got != "done\n0\n" {
		t.Errorf("got %q", got)
	}
}

// The lowest failing block is reported, whatever the number of workers.
func TestErrorOfLowestBlock(t *testing.T) {
	src := `module e;
buffer data: i32[100] global scratch;
kernel k() {
  if bid() % 7 == 3 {
    data[1000 + bid()] = 1;
  }
}
host main() {
  launch k() grid 500 block 32;
}
`
	for _, w := range []int{1, 2, 8} {
		mustFail(t, "e.kir", src, interp.Config{Workers: w}, "index 1003 out of range")
	}
}

// Malformed modules are reported, not panicked on.
func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"barrier in host", "module e;\nhost main() {\n  barrier;\n}\n", "e.kir:3:3: error: barrier in host code"},
		{"launch in kernel", "module e;\nkernel k() {\n  launch k() grid 1 block 1;\n}\nhost main() {\n}\n",
			"e.kir:3:3: error: launch in a kernel; it is a host statement"},
		{"no main", "module e;\nhost start() {\n}\n", "module has no host function main()"},
		{"printf", "module e;\nhost main() {\n  printf \"%d %d\\n\", 1;\n}\n", "printf format has more conversions than the 1 arguments"},
		{"grid barrier", "module e;\nkernel k() {\n  barrier grid;\n}\nhost main() {\n  launch k() grid 1 block 1;\n}\n", "e.kir:3:3: error: grid barrier in a kernel launched without coop"},
		{"tid in host", "module e;\nhost main() {\n  printf \"%d\\n\", tid();\n}\n", "e.kir:3:18: error: tid() in host code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, "e.kir", tc.src, interp.Config{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %s", err, tc.want)
			}
		})
	}
}
