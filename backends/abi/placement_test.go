package abi_test

import (
	"testing"

	"gpuc/backends/abi"
	"gpuc/internal/irtest"
)

// TestPlanChecks checks the decisions of Note [Check placement] on
// kernels made to hit each rule, by their counts: what a range analysis
// proves, what one test before a loop settles, and what must stay
// checked because the test could not be made before the loop or the
// loop cannot be emitted twice. hoist.kir in backends/cuda/testdata runs
// such programs to their faults.
func TestPlanChecks(t *testing.T) {
	m := irtest.Parse(t, "plan.kir", []byte(`module plan;

param N: i32 = 8;

buffer a: i32[N] global scratch;
buffer b: i32[N * N] global scratch;
buffer lim: i32[1] global scratch;

host main() {
  launch guarded(N) grid 1 block N;
  launch counted() grid 1 block N;
  launch barrier_loop() grid 1 block N;
  launch counter() grid 1 block N;
  launch dominated(0) grid 1 block 1;
  launch moving_bound() grid 1 block N;
  launch var_step() grid 1 block N;
  launch loaded() grid 1 block N;
}

kernel guarded(n: i32) {
  if gid() < n {
    a[gid()] = 1;
  }
  if gid() < N {
    a[gid()] = a[gid()] + 1;
    var x: i32 = gid() - 1;
    a[x] = 2;
  }
  a[gid()] = 3;
}

kernel counted() {
  var s: i32 = 0;
  for var k: i32 = 0; k < N; k = k + 1 {
    s = s + b[gid() * N + k] / N;
  }
  var j: i32 = 0;
  while j < N {
    s = s + a[N - 1 - j];
    j = j + 2;
  }
  a[0] = s;
}

kernel barrier_loop() {
  for var k: i32 = 0; k < N; k = k + 1 {
    b[k * N] = 1;
    barrier;
  }
}

kernel dominated(u: i32) {
  var w: i32 = u;
  var x: i32 = a[w];
  b[w] = x;
  a[w] = x + 1;
  if a[w + 1] > 0 {
    a[w + 1] = 2;
  }
  if w > 0 && a[w + 2] > 0 {
    a[w + 2] = 2;
  }
  w = w + 1;
  a[w] = 3;
  lim[a[w]] = 1;
  lim[a[w]] = 2;
}

kernel counter() {
  for var k: i32 = 0; k < N; k = k + 1 {
    a[k] = a[k] + 1;
  }
  for var k: i32 = 0 - 1; k < N; k = k + 1 {
    a[k] = 1;
  }
  for var k: i32 = 0; k < N; k = k + 2 {
    a[k] = 1;
  }
}

kernel moving_bound() {
  var n: i32 = N;
  for var k: i32 = 0; k < n; k = k + 1 {
    a[k] = 1;
    n = n - 1;
  }
}

kernel var_step() {
  var k: i32 = 0;
  while k < N {
    a[k] = 1;
    k = k + 1;
    k = k + 1;
  }
}

kernel loaded() {
  for var k: i32 = 0; k < lim[0]; k = k + 1 {
    a[k] = 1;
    lim[0] = 0;
  }
  for var k: i32 = 0; k < lim[0]; k = k + 1 {
    a[k] = 1;
  }
}
`))
	for name, want := range map[string]string{
		// gid() < n with every launch passing N; a[x] is not gid().
		"guarded": "checks: 2 kept (0 in loops), 0 hoisted, 3 elided",
		// Both loops' accesses are hoisted; the divisor N is not zero
		// where 0 <= k < N; a[0] after the loops is kept (N may be 0).
		"counted": "checks: 1 kept (0 in loops), 2 hoisted, 1 elided",
		// 0 <= k < N in the first loop; the others start below zero or
		// could step past the largest i32.
		"counter": "checks: 0 kept (0 in loops), 2 hoisted, 2 elided",
		// a[w] after a[w], a[w + 1] after the if's a[w + 1], the loads
		// a[w] after the store a[w], and a[w + 2] where the && that
		// reads it held go; b is longer, w moves, and lim's index
		// holds a load.
		"dominated": "checks: 7 kept (0 in loops), 0 hoisted, 5 elided",
		// Threads could take different copies across the barrier.
		"barrier_loop": "checks: 1 kept (1 in loops), 0 hoisted, 0 elided",
		// The bound changes in the loop, the counter moves twice.
		"moving_bound": "checks: 1 kept (1 in loops), 0 hoisted, 0 elided",
		"var_step":     "checks: 1 kept (1 in loops), 0 hoisted, 0 elided",
		// A bound loaded from a buffer the loop writes is not
		// invariant; lim[0] itself is a constant index in range.
		"loaded": "checks: 1 kept (1 in loops), 1 hoisted, 0 elided",
	} {
		f := m.Func(name)
		if f == nil {
			t.Fatalf("no kernel %s", name)
		}
		if got := abi.PlanChecks(m, f).String(); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}

// TestRangeFacts checks Note [Range facts] on kernels shaped like the
// TRS store's walks: an id loaded from memory is checked at its first
// use only, across statement lists, joins and loops, until it is set
// again; where no path proves it, its check stays.
func TestRangeFacts(t *testing.T) {
	m := irtest.Parse(t, "facts.kir", []byte(`module facts;

param N: i32 = 8;

buffer a: i32[N] global scratch;
buffer c: i32[N] global scratch;

host main() {
  launch walk(0) grid 1 block 1;
  launch branchy() grid 1 block N;
  launch back() grid 1 block 1;
}

kernel walk(s: i32) {
  var t: i32 = s;
  var more: bool = true;
  while more {
    var h: i32 = a[t];
    var x: i32 = 0;
    if h > 0 {
      x = c[t];
      if a[x] == 0 && c[x] == 0 {
        more = false;
      }
    }
    c[x] = 1;
    var pa: i32 = -1;
    if h > 1 {
      pa = x;
    }
    if pa >= 0 {
      a[pa] = x / N;
    }
    t = c[t];
  }
  a[t] = 3;
}

kernel branchy() {
  var x: i32 = c[gid()];
  if x > 5 {
    a[x] = 1;
  }
  if !(x < 0) {
    c[x] = 3;
  }
  a[x] = 2;
  c[x] = 4;
}

kernel back() {
  var x: i32 = 0;
  a[0] = 0;
  for var k: i32 = 0; k < N; k = k + 1 {
    a[x] = 1;
    x = c[k];
  }
}
`))
	for name, want := range map[string]string{
		// Kept: a[t] (t is s, then loaded), a[x] (x loaded), and a[t]
		// after the loop. Elided: c[t] after a[t]; c[x] behind &&;
		// c[x] = 1, where x is 0 (N > 0 as a[t] passed) or checked;
		// a[pa], with pa -1 or x, not negative there; x / N; c[t].
		"walk": "checks: 3 kept (2 in loops), 0 hoisted, 6 elided",
		// c[gid()] and x's first uses: the ifs' a[x] and c[x] may not
		// have run, and x >= 0 is not x < N; c[x] = 4 after a[x] = 2.
		"branchy": "checks: 4 kept (0 in loops), 0 hoisted, 1 elided",
		// a[0] (N may be 0); a[x] with x loaded at the back edge; c[k]
		// under 0 <= k < N.
		"back": "checks: 2 kept (1 in loops), 0 hoisted, 1 elided",
	} {
		f := m.Func(name)
		if f == nil {
			t.Fatalf("no kernel %s", name)
		}
		if got := abi.PlanChecks(m, f).String(); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}

// TestOffsetFacts checks Note [Offset facts]: a window's reads x + c
// under one test of its end, x + d < n or x + d <= n, with 0 <= x < n
// known, and the reads that stay checked: beyond the tested end, at the
// tested end of a <= test, without x < n, and in i32 sums, which could
// wrap.
func TestOffsetFacts(t *testing.T) {
	m := irtest.Parse(t, "offsets.kir", []byte(`module offsets;

param N: i64 = 64;
param M: i32 = 8;

buffer d: u8[N] global scratch;
buffer e: i32[M] global scratch;
buffer out: i64[N] global scratch;

host main() {
  launch window() grid 1 block 1;
  launch ends() grid 1 block 1;
  launch unbounded(0l) grid 1 block 1;
  launch narrow(0) grid 1 block 1;
}

kernel window() {
  var s: i64 = 0l;
  var i: i64 = i64(gid());
  while i < N {
    if !(0l <= i && i + 3l < N) || d[i + 1l] == u8(1) && d[i + 3l] == u8(2) {
      s = s + i64(d[i + 4l]);
    }
    i = i + 64l;
  }
  out[0] = s;
}

kernel ends() {
  var i: i64 = i64(gid());
  if i < N && d[i] == u8(0) {
    if i + 3l <= N && d[i + 2l] == u8(1) {
      out[i] = i64(d[i + 3l]);
    }
  }
}

kernel unbounded(j: i64) {
  if 0l <= j && j + 3l < N {
    out[j + 2l] = 1l;
  }
}

kernel narrow(j: i32) {
  if 0 <= j && j < M && j + 3 < M {
    e[j + 2] = 1;
  }
}
`))
	for name, want := range map[string]string{
		// Elided: d[i + 1] and d[i + 3] under 0 <= i, i < N (the
		// loop's test) and i + 3 < N. d[i + 4], past the tested end,
		// is hoisted out of the loop; out[0] is kept (N may be 0).
		"window": "checks: 1 kept (0 in loops), 1 hoisted, 2 elided",
		// Elided: d[i] and out[i] (0 <= i < N), and d[i + 2] under
		// i + 3 <= N. Kept: d[i + 3], the tested end of a <= test.
		"ends": "checks: 1 kept (0 in loops), 0 hoisted, 3 elided",
		// No j < N: j + 2 could be past a wrap of j + 3.
		"unbounded": "checks: 1 kept (0 in loops), 0 hoisted, 0 elided",
		// An i32 sum could wrap: kept.
		"narrow": "checks: 1 kept (0 in loops), 0 hoisted, 0 elided",
	} {
		f := m.Func(name)
		if f == nil {
			t.Fatalf("no kernel %s", name)
		}
		if got := abi.PlanChecks(m, f).String(); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}

// TestBelowAndConstantRanges checks the facts of buffers with a below
// bound (Note [Bounded buffers] in package ir), whose loads index any
// buffer of the bound's length and whose stores check their values, and
// Note [Constant ranges].
func TestBelowAndConstantRanges(t *testing.T) {
	m := irtest.Parse(t, "below.kir", []byte(`module below;

param N: i32 = 8;
param M: i32 = 8;

buffer ids: i32[N] global scratch below "N";
buffer far: i32[M] global scratch below "N";
buffer val: i32[N] global scratch;
buffer wide: i32[M] global scratch;
buffer bytes: i8[N] global scratch;
buffer table: u32[4096] global scratch;

host main() {
  launch walk() grid 1 block 1;
  launch masks() grid 1 block N;
  launch chase(1) grid 1 block 1;
}

kernel walk() {
  var t: i32 = ids[0];
  val[t] = 1;
  val[ids[t]] = 2;
  wide[t] = 3;
  ids[t] = ids[t];
  ids[1] = t;
  ids[2] = val[t];
  var u: i32 = far[0];
  val[u] = 4;
  far[1] = u;
}

kernel chase(s: i32) {
  var x: i32 = s;
  while x != 0 {
    val[x] = 1;
    x = ids[x];
    val[x] = 2;
  }
}

kernel masks() {
  var i: i32 = gid();
  var b0: i32 = i32(bytes[i]) & 255;
  var b1: i32 = i32(bytes[i]) & 255;
  table[2048 + (b0 << 8 | b1) >> 5] = 1u;
  table[(b0 << 8 | b1) >> 3] = 2u;
  table[b0 * 16 + (b1 & 15)] = 3u;
  table[b0 + b1 - 1] = 4u;
  table[(i32(bytes[i]) << 8) >> 5] = 5u;
  table[(b0 << 24) >> 20] = 6u;
  table[u32(b0) * 16u + 15u] = 7u;
}
`))
	for name, want := range map[string]string{
		// Kept: ids[0], ids[1] and ids[2] (N may be 0), wide[t] (M is
		// not N), the value of ids[2] = val[t], far[0], and val[u]: far
		// has length M, so its loads prove nothing. Elided: val[t] and
		// ids[t] with t = ids[0], a load below N from a buffer of N;
		// val[ids[t]]; ids[t] = ids[t], its index, load and value; the
		// value t of ids[1] = t; val[t]; the value u of far[1] = u,
		// which val[u] checked.
		"walk": "checks: 8 kept (0 in loops), 0 hoisted, 9 elided",
		// val[x] = 1 at the loop's head, where x may still be s; the
		// load ids[x] after it, and val[x] = 2 with x = ids[x], a load
		// below N whatever its index.
		"chase": "checks: 1 kept (1 in loops), 0 hoisted, 2 elided",
		// bytes[i]'s first load (i could pass N; the others follow
		// it); b0 and b1 are in [0, 255], through their declarations.
		// Elided: (2048 + a 16-bit value) >> 5 and b0 * 16 + (b1 & 15)
		// are below 4096, and the u32 b0 * 16 + 15. Kept: a 16-bit
		// value >> 3 is not below 4096; b0 + b1 - 1 may be -1; a
		// signed byte << 8 may be negative; b0 << 24 may wrap to a
		// negative i32.
		"masks": "checks: 5 kept (0 in loops), 0 hoisted, 5 elided",
	} {
		f := m.Func(name)
		if f == nil {
			t.Fatalf("no kernel %s", name)
		}
		if got := abi.PlanChecks(m, f).String(); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}
