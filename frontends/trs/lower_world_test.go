package trs

import (
	"testing"

	"gpuc/ir"
)

// The host's copy of the trace holds one device's trace, 4*TRACECAP
// words, in a world as on one device: it was DEVICES*WorldGrain times
// that (512 MiB on four devices), which the interpreter allocated for
// each device, and which peaked internal/driver's tests at 4 GB.
func TestWorldTraceCopy(t *testing.T) {
	for _, world := range []bool{false, true} {
		m := lowerSource(t, peano, Options{World: world, Trace: true})
		for _, devices := range []int64{1, 4, 64} {
			n := ir.RewriteExpr(ir.CloneExpr(m.Array("h_tr").Len), func(e ir.Expr) ir.Expr {
				switch p, _ := e.(*ir.ParamRef); {
				case p != nil && p.Name == ir.DevicesParam:
					return ir.IntConst(p.T, devices)
				case p != nil && p.Name == pTraceCap:
					return ir.IntConst(p.T, 65536)
				}
				return e
			})
			if got, why := ir.EvalConst(n); why != "" || int64(got) != 4*65536 {
				t.Errorf("world %v, DEVICES=%d, TRACECAP=65536: h_tr has %d words (%s), want %d", world, devices, int64(got), why, 4*65536)
			}
		}
	}
}
