package interp_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"gpuc/ir/interp"
)

// coopSrc computes inclusive prefix sums of 1..N across blocks in one
// cooperative kernel, a grid barrier between the steps; its fallback
// prints a marker, then does the same with one launch per step.
const coopSrc = `module coop;
param N: i32 = 1000;
buffer a: i32[N] global scratch;
buffer t: i32[N] global scratch;
kernel init() {
  if gid() < N {
    a[gid()] = gid() + 1;
  }
}
kernel steps() {
  var i: i32 = gid();
  for var d: i32 = 1; d < N; d = d * 2 {
    if i < N && i >= d {
      t[i] = a[i - d];
    }
    barrier grid;
    if i < N && i >= d {
      a[i] = a[i] + t[i];
    }
    barrier grid;
  }
}
kernel read(d: i32) {
  var i: i32 = gid();
  if i < N && i >= d {
    t[i] = a[i - d];
  }
}
kernel add(d: i32) {
  var i: i32 = gid();
  if i < N && i >= d {
    a[i] = a[i] + t[i];
  }
}
host main() {
  launch init() grid (N + 127) / 128 block 128;
  launch steps() grid (N + 127) / 128 block 128 coop else {
    printf "fallback\n";
    for var d: i32 = 1; d < N; d = d * 2 {
      launch read(d) grid (N + 127) / 128 block 128;
      launch add(d) grid (N + 127) / 128 block 128;
    }
  }
  printf "%d %d\n", a[N / 2], a[N - 1];
}
`

func TestCoopLaunch(t *testing.T) {
	want := func(n int) string { return fmt.Sprintf("%d %d\n", (n/2+1)*(n/2+2)/2, n*(n+1)/2) }
	for _, tc := range []struct {
		limit int64
		race  bool
		pre   string
	}{{0, false, ""}, {0, true, ""}, {512, false, "fallback\n"}, {512, true, "fallback\n"}} {
		got := mustRun(t, "coop.kir", coopSrc, interp.Config{CoopThreads: tc.limit, Race: tc.race})
		if got != tc.pre+want(1000) {
			t.Errorf("limit %d race %v: got %q, want %q", tc.limit, tc.race, got, tc.pre+want(1000))
		}
	}
	// Without its first grid barrier the kernel races across blocks.
	racy := strings.Replace(coopSrc, "      t[i] = a[i - d];\n    }\n    barrier grid;\n", "      t[i] = a[i - d];\n    }\n", 1)
	_, err := run(t, "racy.kir", racy, interp.Config{Race: true})
	var re *interp.RaceError
	if !errors.As(err, &re) {
		t.Fatalf("racy cooperative kernel: %v, want a race", err)
	}
	// Without a fallback, a launch that does not fit is an error.
	tooBig := strings.Replace(coopSrc, " coop else {", " coop;\n  if false {", 1)
	_, err = run(t, "big.kir", tooBig, interp.Config{CoopThreads: 512})
	if err == nil || !strings.Contains(err.Error(), "cooperative launch of 8 blocks of 128 threads does not fit: at most 512 threads run at once") {
		t.Errorf("too big without fallback: %v", err)
	}
}
