package trs

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"gpuc/ir"
	"gpuc/ir/interp"
)

// A world's host reads one word a decision (Note [A world's host decides
// once]): main's loop loads one device word outside its regions, and
// WORLDSTEPS iterations a decision print what one does, the trace and
// statistics included, on every number of devices.
func TestWorldHostDecidesOnce(t *testing.T) {
	src, err := os.ReadFile("../../examples/trs/treemergesort.trs")
	if err != nil {
		t.Fatal(err)
	}
	m := lowerSource(t, string(src), Options{World: true, Capacity: 1 << 16, Print: "summary", Stats: true, Trace: true})
	var loop *ir.While
	ir.WalkStmts(m.Func("main").Body, func(s ir.Stmt) bool {
		if w, ok := s.(*ir.While); ok && loop == nil {
			loop = w
		}
		return true
	})
	if loop == nil {
		t.Fatal("main has no loop")
	}
	loads := 0
	ir.WalkStmts(loop.Body, func(s ir.Stmt) bool {
		if _, ok := s.(*ir.Region); ok {
			return false
		}
		ir.ExprsHold(s, func(e ir.Expr) bool {
			if l, ok := e.(*ir.Load); ok && m.Buffer(l.Buf) != nil {
				loads++
			}
			return false
		})
		return true
	})
	if loads != 1 {
		t.Errorf("main's loop reads %d device words outside its regions, want 1:\n%s", loads, ir.Print(m))
	}
	var want string
	for _, k := range []int{1, 2, 3} {
		reads := int64(-1)
		for _, steps := range []int64{1, 2, 5} {
			var out, errs bytes.Buffer
			var st interp.Stats
			cfg := interp.Config{Stdout: &out, Stderr: &errs, Devices: k, Params: map[string]int64{pWorldSteps: steps}, Stats: &st}
			if err := interp.Run(m, cfg); err != nil {
				t.Fatalf("%d devices, WORLDSTEPS=%d: %v", k, steps, err)
			}
			got := out.String() + errs.String()
			if !strings.Contains(got, "rewrites: ") || !strings.Contains(got, "iteration,") {
				t.Fatalf("%d devices, WORLDSTEPS=%d: no statistics or trace in\n%s", k, steps, got)
			}
			if want == "" {
				want = got
			} else if got != want {
				t.Errorf("%d devices, WORLDSTEPS=%d prints\n%s\none device, one step a decision\n%s", k, steps, got, want)
			}
			// Device 0's host reads fewer words with more steps a decision.
			for _, c := range st.Counters {
				if c.Name == "host reads" {
					if reads >= 0 && c.Value >= reads {
						t.Errorf("%d devices, WORLDSTEPS=%d: %d host reads, not fewer than %d", k, steps, c.Value, reads)
					}
					reads = c.Value
				}
			}
		}
		if k > 1 && reads < 0 {
			t.Errorf("%d devices: no host reads counted", k)
		}
	}
	var out bytes.Buffer
	err = interp.Run(m, interp.Config{Stdout: &out, Devices: 2, Params: map[string]int64{pWorldSteps: 0}})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(msgSteps)) {
		t.Errorf("WORLDSTEPS=0: %v, want %q", err, msgSteps)
	}
}

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

// A world's summary takes the input's shared slots from each device's
// copy of the input (Note [Shared slots in the summary's marking]):
// trs_fold loads no argument's pending flag, size or hash itself, and
// the summary is the one-device program's on every number of devices.
func TestWorldSummaryReadsInputSlotsLocally(t *testing.T) {
	src, err := os.ReadFile("../../examples/trs/treemergesort.trs")
	if err != nil {
		t.Fatal(err)
	}
	m := lowerSource(t, string(src), Options{World: true, Capacity: 1 << 16, Print: "summary"})
	fold := m.Func("trs_fold")
	if fold == nil {
		t.Fatal("no trs_fold")
	}
	ir.WalkStmts(fold.Body, func(s ir.Stmt) bool {
		ir.ExprsHold(s, func(e ir.Expr) bool {
			if l, ok := e.(*ir.Load); ok {
				switch l.Buf {
				case "pn", "wl1", "jc", "fl", "rc":
					t.Errorf("trs_fold loads %s itself", l.Buf)
				}
			}
			return false
		})
		return true
	})
	var want string
	for _, k := range []int{1, 2, 3} {
		var out bytes.Buffer
		if err := interp.Run(m, interp.Config{Stdout: &out, Devices: k}); err != nil {
			t.Fatalf("%d devices: %v", k, err)
		}
		if want == "" {
			want = out.String()
		} else if out.String() != want {
			t.Errorf("%d devices print %q, one device %q", k, out.String(), want)
		}
	}
	var one bytes.Buffer
	if err := interp.Run(lowerSource(t, string(src), Options{Capacity: 1 << 16, Print: "summary"}), interp.Config{Stdout: &one}); err != nil {
		t.Fatal(err)
	}
	if one.String() != want || !strings.HasPrefix(want, "term size ") {
		t.Errorf("the world prints %q, the one-device program %q", want, one.String())
	}
}

// A world's summary runs SUMSTEPS rounds a host decision (Note [A
// world's summary decides on the device]): trs_output's loop reads one
// device word outside its regions, every SUMSTEPS prints the same
// summary and live count on every number of devices, with fewer host
// reads for more steps, and SUMROUNDS too small still leaves the
// summary to the host, with the same result.
func TestWorldSummaryDecidesOnDevice(t *testing.T) {
	src, err := os.ReadFile("../../examples/trs/treemergesort.trs")
	if err != nil {
		t.Fatal(err)
	}
	m := lowerSource(t, string(src), Options{World: true, Capacity: 1 << 16, Print: "summary", Stats: true})
	loops := 0
	ir.WalkStmts(m.Func("trs_output").Body, func(s ir.Stmt) bool {
		w, ok := s.(*ir.While)
		if !ok {
			return true
		}
		loops++
		loads := 0
		ir.WalkStmts(w.Body, func(s ir.Stmt) bool {
			if _, ok := s.(*ir.Region); ok {
				return false
			}
			ir.ExprsHold(s, func(e ir.Expr) bool {
				if l, ok := e.(*ir.Load); ok && m.Buffer(l.Buf) != nil {
					loads++
				}
				return false
			})
			return true
		})
		if loads != 1 {
			t.Errorf("trs_output's loop reads %d device words outside its regions, want 1", loads)
		}
		return false
	})
	if loops != 1 {
		t.Errorf("trs_output has %d loops, want 1:\n%s", loops, ir.Print(m))
	}
	var want string
	for _, k := range []int{1, 2, 3} {
		reads := int64(-1)
		for _, p := range []map[string]int64{{pSumSteps: 1}, {pSumSteps: 4}, {pSumSteps: 64}, {pSumRounds: 3}} {
			var out, errs bytes.Buffer
			var st interp.Stats
			if err := interp.Run(m, interp.Config{Stdout: &out, Stderr: &errs, Devices: k, Params: p, Stats: &st}); err != nil {
				t.Fatalf("%d devices, %v: %v", k, p, err)
			}
			got := out.String() + errs.String()
			if !strings.Contains(got, "term size ") || !strings.Contains(got, "live terms: ") {
				t.Fatalf("%d devices, %v: no summary in\n%s", k, p, got)
			}
			if want == "" {
				want = got
			} else if got != want {
				t.Errorf("%d devices, %v prints\n%s\nwant\n%s", k, p, got, want)
			}
			for _, c := range st.Counters {
				if c.Name != "host reads" {
					continue
				}
				if p[pSumSteps] == 0 {
					// The host's fold reads the store: more than any
					// summary on the device.
					if c.Value <= reads {
						t.Errorf("%d devices, %v: %d host reads, not more than the device's summary's %d", k, p, c.Value, reads)
					}
					continue
				}
				if reads >= 0 && c.Value >= reads {
					t.Errorf("%d devices, %v: %d host reads, not fewer than %d", k, p, c.Value, reads)
				}
				reads = c.Value
			}
		}
	}
	// Relaunched, where no cooperative grid fits (a launch a phase), and
	// cooperative, each under the race checker.
	for _, c := range []struct {
		k    int
		coop int64
	}{{2, 128}, {3, 128}, {2, 0}} {
		k := c.k
		var out, errs bytes.Buffer
		if err := interp.Run(m, interp.Config{Stdout: &out, Stderr: &errs, Devices: k, CoopThreads: c.coop, Race: true, Params: map[string]int64{pSumSteps: 4}}); err != nil {
			t.Fatalf("%d devices, cooperative capacity %d: %v", k, c.coop, err)
		}
		if got := out.String() + errs.String(); got != want {
			t.Errorf("%d devices, cooperative capacity %d, prints\n%s\nwant\n%s", k, c.coop, got, want)
		}
	}
	var out bytes.Buffer
	err = interp.Run(m, interp.Config{Stdout: &out, Devices: 2, Params: map[string]int64{pSumSteps: 0}})
	if err == nil || !strings.Contains(err.Error(), msgSumSteps) {
		t.Errorf("SUMSTEPS=0: %v, want %q", err, msgSumSteps)
	}
}
