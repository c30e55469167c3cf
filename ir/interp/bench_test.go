package interp_test

import (
	"testing"

	"gpuc/ir/interp"
)

// vecAdd1M launches one vector addition over 2^20 threads.
const vecAdd1M = `module vecadd1m;
param N: i32 = 1048576;
param B: i32 = 256;
buffer a: f32[N] global scratch;
buffer b: f32[N] global scratch;
buffer c: f32[N] global scratch;
kernel add() {
  var i: i32 = gid();
  if i < N {
    c[i] = a[i] + b[i];
  }
}
host main() {
  launch add() grid (N + B - 1) / B block B;
}
`

// BenchmarkVecAdd1M times a whole run: allocating the buffers and running
// the 1M-thread kernel.
func BenchmarkVecAdd1M(b *testing.B) {
	m := parse(b, "vecadd1m.kir", vecAdd1M)
	for _, bc := range []struct {
		name string
		cfg  interp.Config
	}{{"workers=all", interp.Config{}}, {"workers=1", interp.Config{Workers: 1}}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if err := interp.Run(m, bc.cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScan times the Kogge-Stone scan, whose barriers make every
// block run team-wide.
func BenchmarkScan(b *testing.B) {
	m := parse(b, "scan.kir", readFile(b, "../../examples/kir/scan.kir"))
	cfg := interp.Config{Params: map[string]int64{"N": 1 << 20}}
	for b.Loop() {
		if err := interp.Run(m, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHistogram times a million device-function calls and atomics.
func BenchmarkHistogram(b *testing.B) {
	m := parse(b, "histogram.kir", readFile(b, "../../examples/kir/histogram.kir"))
	for b.Loop() {
		if err := interp.Run(m, interp.Config{}); err != nil {
			b.Fatal(err)
		}
	}
}
