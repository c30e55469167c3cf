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
