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
		// Both loops' accesses and the loop's divisor N; a[0] after
		// them (N may be 0).
		"counted": "checks: 1 kept (0 in loops), 3 hoisted, 0 elided",
		// 0 <= k < N in the first loop; the others start below zero or
		// could step past the largest i32.
		"counter": "checks: 0 kept (0 in loops), 2 hoisted, 2 elided",
		// a[w] after a[w], a[w + 1] after the if's a[w + 1], and the
		// loads a[w] after the store a[w] go; b is longer, a[w + 2]
		// behind && may not have run, w moves, and lim's index holds a
		// load.
		"dominated": "checks: 8 kept (0 in loops), 0 hoisted, 4 elided",
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
