package abi_test

import (
	"testing"

	"gpuc/backends/abi"
	"gpuc/internal/irtest"
)

// TestDerivedFacts checks Note [Derived range facts]: bounds under a
// minimum and remainders by a length, and the near misses that stay
// checked.
func TestDerivedFacts(t *testing.T) {
	m := irtest.Parse(t, "derived.kir", []byte(`module derived;

param N: i32 = 8;
param M: i32 = 4;

buffer a: i32[N] global scratch;
buffer top: i32[1] global scratch;

host main() {
  launch mins() grid 1 block N;
  launch near_mins() grid 1 block N;
  launch rems(0) grid 1 block N;
  launch near_rems(0) grid 1 block N;
}

kernel mins() {
  if gid() < min(top[0], N) {
    a[gid()] = 1;
  }
  if !(min(N, top[0]) <= gid()) {
    a[gid()] = 2;
  }
  if gid() < min(M, min(top[0], N)) {
    a[gid()] = 3;
  }
}

kernel near_mins() {
  if gid() <= min(top[0], N) {
    a[gid()] = 1;
  }
  if gid() < max(top[0], N) {
    a[gid()] = 2;
  }
  if gid() < min(top[0], M) {
    a[gid()] = 3;
  }
}

kernel rems(x: i32) {
  a[gid() % 8] = 1;
  a[0] = 0;
  a[gid() % N] = 2;
  if x >= 0 {
    a[x % N] = 3;
  }
}

kernel near_rems(x: i32) {
  a[gid() % N] = 1;
  a[x % N] = 2;
  a[gid() % M] = 3;
  a[gid() % 9] = 4;
}
`))
	for name, want := range map[string]string{
		// Each a[gid()] under x < min(..., N).
		"mins": "checks: 0 kept (0 in loops), 0 hoisted, 3 elided",
		// <= a minimum; a maximum; a minimum without N.
		"near_mins": "checks: 3 kept (0 in loops), 0 hoisted, 0 elided",
		// gid() % 8 (N may be less than 8: kept); a[0] makes N >= 1,
		// so gid() % N and x % N (x >= 0 there) are in range, and the
		// divisors too.
		"rems": "checks: 2 kept (0 in loops), 0 hoisted, 4 elided",
		// N may be 0 at first (the divisor's check is kept, the
		// index's too; N >= 1 after, so x % N's divisor goes); x may be
		// negative; M is not a's length, nor 9.
		"near_rems": "checks: 6 kept (0 in loops), 0 hoisted, 1 elided",
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
