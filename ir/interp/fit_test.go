package interp_test

import (
	"fmt"
	"testing"

	"gpuc/ir/interp"
)

// A fitted parameter that the command line does not set takes the largest
// value up to its default whose device buffers fit in its fraction of
// the device's free memory (Note [Fitted parameters] in package ir).
func TestFitParams(t *testing.T) {
	const src = `module fit;

param N: i32 = 1000000 fit 0.5;
param M: i32 = 8;

buffer a: i32[N] global scratch;
buffer b: u8[M] global output;
buffer s: i32[N] shared scratch;
array h: i64[N];

host main() {
  printf "N=%d\n", N;
}
`
	for _, tc := range []struct {
		memory int64
		params map[string]int64
		want   int64
	}{
		{4000, nil, 498},                              // (4000/2 - 8 bytes of b) / 4; s and h do not count
		{4001, nil, 498},                              // the budget rounds down
		{4000, map[string]int64{"M": 1000}, 250},      // other parameters at their values
		{4000, map[string]int64{"M": 5000}, 1},        // nothing fits: 1, the least
		{4000, map[string]int64{"N": 123456}, 123456}, // set, not fitted
		{1 << 40, nil, 1000000},                       // the default is the upper bound
		{0, nil, 1000000},                             // DefaultDeviceMemory
	} {
		out := mustRun(t, "fit.kir", src, interp.Config{DeviceMemory: tc.memory, Params: tc.params})
		if want := fmt.Sprintf("N=%d\n", tc.want); out[:len(want)] != want {
			t.Errorf("memory %d, %v: prints %q, want %q first", tc.memory, tc.params, out, want)
		}
	}
}

// Fitted parameters are fitted in declaration order, the later ones
// counting as 1 while the earlier are fitted, so each fraction bounds the
// total with the earlier parameters at their values.
func TestFitOrder(t *testing.T) {
	const src = `module fit2;

param A: i64 = 1000000 fit 0.25;
param B: i64 = 1000000 fit 0.75;
param C: u64 = 18446744073709551615 fit 1;

buffer a: u8[A] global scratch;
buffer b: u8[B * 2l] global scratch;
buffer c: u8[C / 1000ul] global scratch;

host main() {
  printf "%ld %ld %lu\n", A, B, C;
}
`
	// A: A + 2 + 0 <= 250, so 248; B: 248 + 2B + 0 <= 750, so 251;
	// C: 248 + 502 + C/1000 <= 1000, so 250999.
	out := mustRun(t, "fit2.kir", src, interp.Config{DeviceMemory: 1000})
	if want := "248 251 250999\n"; out != want {
		t.Errorf("prints %q, want %q", out, want)
	}
}
