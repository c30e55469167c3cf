package passes_test

import (
	"testing"

	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
)

// TestWorldLowering lowers a module with a world region (Note [World] in
// package ir) and checks that every launch made of the region is world,
// with blocks of ir.WorldGrain threads, and that the program prints the
// same on 1 to 4 devices before and after, cooperative or relaunched.
func TestWorldLowering(t *testing.T) {
	const file = "../ir/interp/testdata/world.kir"
	spmd := irtest.ParseFile(t, file)
	want := irtest.RunWith(t, spmd, interp.Config{})
	for k := 2; k <= 4; k++ {
		if got := irtest.RunWith(t, spmd, interp.Config{Devices: k}); got != want {
			t.Errorf("%d devices at the SPMD level: got\n%s\nwant\n%s", k, got, want)
		}
	}
	for _, coop := range []int64{1, 0} { // relaunches, then one cooperative kernel
		m := irtest.ParseFile(t, file)
		irtest.RunPasses(t, m, nil, "default")
		launches := 0
		ir.WalkStmts(m.Main().Body, func(s ir.Stmt) bool {
			if l, ok := s.(*ir.Launch); ok {
				launches++
				if c, ok := l.Block.(*ir.Const); !l.World || !ok || c.Int() != ir.WorldGrain {
					t.Errorf("%s: launch of %s: world %v, block %s", l.Pos, l.Kernel, l.World, ir.PrintExpr(l.Block))
				}
			}
			return true
		})
		if launches == 0 {
			t.Fatal("no launches")
		}
		for k := 1; k <= 4; k++ {
			if got := irtest.RunWith(t, m, interp.Config{Devices: k, CoopThreads: coop, Race: k == 2}); got != want {
				t.Errorf("%d devices, coop capacity %d: got\n%s\nwant\n%s", k, coop, got, want)
			}
		}
	}
}

// worldLoopSrc has a world region with a loop around grid barriers, a
// split and a priority store: the passes' bookkeeping buffers (host
// loop conditions, group counts, claims) must be one value for the world.
const worldLoopSrc = `module worldloop;

param DEVICES: i32 = 1;
param N: i32 = 1024;

buffer v: i32[N] distributed output;
buffer best: i32[1] distributed output;
buffer sizes: i32[2] distributed output;

host main() {
  region N world {
    v[pid()] = pid() % 7;
    barrier grid;
    var round: i32 = 0;
    while round < 3 {
      var x: i32 = v[(pid() + 1) % N];
      barrier grid;
      v[pid()] = v[pid()] + x;
      barrier grid;
      round = round + 1;
    }
    prio best[0] = pid() + 100;
    split pid() < 700 {
      if pid() == 0 {
        sizes[0] = groupsize();
      }
    } else {
      if pid() == 700 {
        sizes[1] = groupsize();
      }
    }
  }
}
`

func TestWorldLoweringBookkeeping(t *testing.T) {
	spmd := irtest.Parse(t, "worldloop.kir", []byte(worldLoopSrc))
	want := irtest.RunWith(t, spmd, interp.Config{})
	for k := 2; k <= 4; k++ {
		if got := irtest.RunWith(t, spmd, interp.Config{Devices: k}); got != want {
			t.Errorf("%d devices at the SPMD level: got\n%s\nwant\n%s", k, got, want)
		}
	}
	for _, coop := range []int64{1, 0} {
		m := irtest.Parse(t, "worldloop.kir", []byte(worldLoopSrc))
		irtest.RunPasses(t, m, nil, "default")
		for k := 1; k <= 4; k++ {
			if got := irtest.RunWith(t, m, interp.Config{Devices: k, CoopThreads: coop}); got != want {
				t.Errorf("lowered, %d devices, coop capacity %d: got\n%s\nwant\n%s", k, coop, got, want)
			}
		}
	}
}
