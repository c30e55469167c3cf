package interp_test

import (
	"fmt"
	"strings"
	"testing"

	"gpuc/ir/interp"
)

// atomicsKernel is instantiated for each integer type T: every thread
// applies every atomic operation once, exch feeds a count of the values it
// returns, and a cas loop counts to N. The host seeds the and and min
// cells, then checks that exch returned every value but the last once and
// clears the last, which depends on the schedule.
const atomicsKernel = `
buffer r_T: T[9] global output;
buffer seen_T: u32[N + 1] global scratch;

kernel k_T() {
  var i: i32 = gid();
  var v: T = T(i);
  atomic add r_T[0], v;
  atomic sub r_T[1], v;
  atomic min r_T[2], v ^ T(1000);
  atomic max r_T[3], v ^ T(1000);
  atomic and r_T[4], ~(T(1) << T(i % 31));
  atomic or r_T[5], T(1) << T(i % 29);
  atomic xor r_T[6], v * T(7);
  var old: T = T(0);
  old = atomic exch r_T[7], v + T(1);
  atomic add seen_T[old], 1u;
  var cur: T = T(0);
  var got: T = T(0);
  got = atomic cas r_T[8], cur, cur + T(1);
  while got != cur {
    cur = got;
    got = atomic cas r_T[8], cur, cur + T(1);
  }
}

host run_T() {
  r_T[2] = T(2147483647);
  r_T[4] = ~T(0);
  launch k_T() grid N / B block B;
  var bad: i32 = 0;
  for var j: i32 = 0; j <= N; j = j + 1 {
    var want: u32 = 1u;
    if T(j) == r_T[7] {
      want = 0u;
    }
    if seen_T[j] != want {
      bad = bad + 1;
    }
  }
  printf "T exch: %d bad\n", bad;
  r_T[7] = T(0);
}
`

const atomicsFloat = `
buffer f_T: T[3] global output;

kernel k_T() {
  var i: i32 = gid();
  atomic add f_T[0], T(1);
  atomic sub f_T[1], T(i % 2);
  atomic exch f_T[2], T(1.5);
}

host run_T() {
  launch k_T() grid N / B block B;
}
`

const atomicsInc = `
buffer w: u32[1] global output;
buffer incs: u32[100] global output;

kernel inc() {
  var o: u32 = 0u;
  o = atomic inc w[0], 99u;
  atomic add incs[o], 1u;
}
`

func atomicsModule() string {
	var b strings.Builder
	b.WriteString("module atomics;\n\nparam N: i32 = 16384;\nparam B: i32 = 128;\n")
	ints, floats := []string{"i32", "u32", "i64", "u64"}, []string{"f32", "f64"}
	for _, t := range ints {
		b.WriteString(strings.ReplaceAll(atomicsKernel, "T", t))
	}
	for _, t := range floats {
		b.WriteString(strings.ReplaceAll(atomicsFloat, "T", t))
	}
	b.WriteString(atomicsInc)
	b.WriteString("\nhost main() {\n")
	for _, t := range append(ints, floats...) {
		fmt.Fprintf(&b, "  run_%s();\n", t)
	}
	b.WriteString("  launch inc() grid N / B block B;\n}\n")
	return b.String()
}

func TestAtomics(t *testing.T) {
	src := atomicsModule()
	n := 16384
	var want strings.Builder
	for _, typ := range []string{"i32", "u32", "i64", "u64"} {
		fmt.Fprintf(&want, "%s exch: 0 bad\n", typ)
	}
	want.WriteString(intAtomics[int32](n) + intAtomics[uint32](n) + intAtomics[int64](n) + intAtomics[uint64](n))
	for range 2 {
		fmt.Fprintf(&want, "%f\n%f\n%f\n", float64(n), -float64(n/2), 1.5)
	}
	fmt.Fprintf(&want, "%d\n", n%100)
	for v := range 100 {
		count := n / 100
		if v < n%100 {
			count++
		}
		fmt.Fprintf(&want, "%d\n", count)
	}
	for _, cfg := range []interp.Config{{Workers: 4}, {Workers: 1}, {Race: true}} {
		if got := mustRun(t, "atomics.kir", src, cfg); got != want.String() {
			t.Errorf("workers=%d race=%v:\ngot\n%s\nwant\n%s", cfg.Workers, cfg.Race, got, want.String())
		}
	}
}

// intAtomics computes the final cells of atomicsKernel for type T.
func intAtomics[T int32 | uint32 | int64 | uint64](n int) string {
	var r [9]T
	r[2], r[4] = 2147483647, ^T(0)
	for i := range n {
		v := T(i)
		r[0] += v
		r[1] -= v
		r[2] = min(r[2], v^1000)
		r[3] = max(r[3], v^1000)
		r[4] &^= T(1) << (i % 31)
		r[5] |= T(1) << (i % 29)
		r[6] ^= v * 7
	}
	r[8] = T(n)
	var out strings.Builder
	for _, v := range r {
		fmt.Fprintf(&out, "%d\n", v)
	}
	return out.String()
}
