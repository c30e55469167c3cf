package trs

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

const peano = `sort Nat = struct Zero() | S(Nat) | Plus(Nat, Nat);
var X : Nat; Y : Nat;
eqn Plus(Zero(), Y) = Y;
    Plus(S(X), Y) = S(Plus(X, Y));
input Plus(S(S(Zero())), S(Zero()));`

func lowerSource(t *testing.T, src string, opts Options) *ir.Module {
	t.Helper()
	m, err := Parse("t.trs", []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Verify(m, ir.SPMDLevel); err != nil {
		t.Fatalf("%v\n%s", err, ir.Print(m))
	}
	return m
}

// The fixpoint loop is an SPMD loop with two grid barriers, in the
// region of main; the one-block kernel has the same phases with block
// barriers (Note [Rewriting on the device]). The summary is a region of
// trs_output with six (Note [Summary on the device]).
func TestFixpointLoopShape(t *testing.T) {
	m := lowerSource(t, peano, Options{})
	regions := map[string]int{}
	grid := map[string]int{}
	var block int
	for _, f := range m.Funcs {
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			switch s := s.(type) {
			case *ir.Region:
				regions[f.Name]++
			case *ir.Barrier:
				if s.Grid {
					grid[f.Name]++
				} else if f.Name == "trs_small" {
					block++
				}
			}
			return true
		})
	}
	if len(regions) != 2 || regions["main"] != 1 || regions["trs_output"] != 1 {
		t.Errorf("regions by function: %v; want one in main and one in trs_output", regions)
	}
	if len(grid) != 2 || grid["main"] != 2 || grid["trs_output"] != 6 || block != 2 {
		t.Errorf("grid barriers by function: %v, and %d block barriers in trs_small; want 2 in main, 6 in trs_output, 2", grid, block)
	}
}

// No device code raises: a full store stops the loop, and the host
// raises (Note [Rewriting on the device]).
func TestNoDeviceRaise(t *testing.T) {
	m := lowerSource(t, peano, Options{})
	raises := 0
	for _, f := range m.Funcs {
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if _, ok := s.(*ir.Raise); ok {
				raises++
				if f.Kind != ir.HostFunc {
					t.Errorf("%s %s raises", f.Kind, f.Name)
				}
			}
			return true
		})
	}
	if raises == 0 {
		t.Error("nothing raises: a full store must be an error")
	}
}

// The passes make the region a cooperative kernel with relaunches as its
// fallback, Listing 3's host loop.
func TestLoweredByPasses(t *testing.T) {
	m := lowerSource(t, peano, Options{})
	cfg := &passes.Config{Report: &passes.Report{}}
	irtest.RunPasses(t, m, cfg, "default")
	var report bytes.Buffer
	cfg.Report.Write(&report)
	for _, want := range []string{"cooperative kernel", "loop runs on the host"} {
		if !strings.Contains(report.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, report.String())
		}
	}
	if m.Level() != ir.LaunchLevel {
		t.Error("still at the SPMD level")
	}
}

// Options become the program's parameter defaults.
func TestOptionsSetDefaults(t *testing.T) {
	m := lowerSource(t, peano, Options{Capacity: 77, Print: "summary", Stats: true, Trace: true})
	for name, want := range map[string]int64{pCapacity: 77, pPrint: 1, pStats: 1, pTrace: 1} {
		if p := m.Param(name); p == nil || p.Default != want {
			t.Errorf("param %s: %+v, want default %d", name, p, want)
		}
	}
	if p := m.Param(pCapacity); p.Fit != 0 {
		t.Errorf("--capacity=77 leaves CAPACITY fitted: %+v", p)
	}
	if _, err := Parse("t.trs", []byte(peano), Options{Print: "tree"}); err == nil {
		t.Error("--print=tree accepted")
	}
}

// Without --capacity the store is fitted to the device: MaxCapacity is
// the upper bound, and the interpreter's device memory decides. Too
// little memory, or too small a CAPACITY set, is a clean error.
func TestCapacityFitted(t *testing.T) {
	m := lowerSource(t, peano, Options{Stats: true})
	if p := m.Param(pCapacity); p.Default != MaxCapacity || p.Fit != CapacityFit {
		t.Fatalf("CAPACITY %+v, want default %d fit %g", p, int64(MaxCapacity), CapacityFit)
	}
	for _, tc := range []struct {
		memory int64
		params map[string]int64
		err    string
	}{
		{0, nil, ""},                                   // interp.DefaultDeviceMemory: millions of slots
		{4 << 20, nil, ""},                             // thousands of slots besides the 2 MiB trace
		{2 << 20, nil, "term store full"},              // even the trace does not fit: one slot
		{2 << 20, map[string]int64{pCapacity: 64}, ""}, // set, not fitted
		{0, map[string]int64{pCapacity: 3}, "term store full"},
	} {
		var out bytes.Buffer
		err := interp.Run(m, interp.Config{Stdout: &out, Params: tc.params, DeviceMemory: tc.memory})
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("device memory %d, %v: %v", tc.memory, tc.params, err)
		case tc.err == "" && !strings.HasPrefix(out.String(), "S(S(S(Zero())))\n"):
			t.Errorf("device memory %d, %v: prints\n%s", tc.memory, tc.params, out.String())
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("device memory %d, %v: error %v, want %q", tc.memory, tc.params, err, tc.err)
		}
	}
}

// A walk that runs out of fuel stops, and the host raises msgWalk after
// the iteration (Note [Checked walk bounds]): trs_step's walk given one
// turn, where peano's first rewrite leaves S(Plus(...)) to walk into.
func TestWalkOutOfFuel(t *testing.T) {
	for _, fuel := range []int64{1, -1} {
		m := lowerSource(t, peano, Options{Capacity: 64})
		set := 0
		for _, f := range m.Funcs {
			if f.Name != "trs_step" {
				continue
			}
			ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
				if d, ok := s.(*ir.Decl); ok && d.Name == "fuel" {
					if fuel > 0 {
						d.Init = ir.IntConst(ir.I64, fuel)
					}
					set++
				}
				return true
			})
		}
		if set != 1 {
			t.Fatalf("%d fuel counters in trs_step, want 1", set)
		}
		var out bytes.Buffer
		err := interp.Run(m, interp.Config{Stdout: &out})
		switch {
		case fuel > 0 && (err == nil || !strings.Contains(err.Error(), msgWalk)):
			t.Errorf("fuel %d: error %v, want %q", fuel, err, msgWalk)
		case fuel < 0 && (err != nil || out.String() != "S(S(S(Zero())))\n"):
			t.Errorf("the store's fuel: %v, prints %q", err, out.String())
		}
	}
}

// A world whose slots may pass 2^31-1 has u32 slot ids, in its store and
// in registers, and caps its slots so that every id and up's two marks
// fit one (Note [Slot words]); a --capacity that eight devices' slots
// fit gives i32 ids, and one device's programs keep i32.
func TestWorldSlotWords(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		id   ir.Type
	}{
		{Options{}, ir.I32},
		{Options{World: true}, ir.U32},
		{Options{World: true, Capacity: 1 << 20}, ir.I32},
		{Options{World: true, Capacity: 1 << 29}, ir.U32},
	} {
		m := lowerSource(t, peano, tc.opts)
		for _, name := range []string{"arg0", "arg1", "up"} {
			if b := m.Buffer(name); b.Elem != tc.id {
				t.Errorf("%+v: buffer %s holds %s, want %s", tc.opts, name, b.Elem, tc.id)
			}
		}
		if a := m.Array("h_arg0"); a.Elem != tc.id {
			t.Errorf("%+v: h_arg0 holds %s, want %s", tc.opts, a.Elem, tc.id)
		}
		if f := m.Func("trs_release"); f.Params[0].Type != tc.id {
			t.Errorf("%+v: trs_release takes a %s slot id, want %s", tc.opts, f.Params[0].Type, tc.id)
		}
		var out bytes.Buffer
		cfg := interp.Config{Stdout: &out, Params: map[string]int64{pCapacity: 4096}, Devices: 2}
		if !tc.opts.World {
			cfg.Devices = 1
		}
		if err := interp.Run(m, cfg); err != nil || !strings.HasPrefix(out.String(), "S(S(S(Zero())))\n") {
			t.Errorf("%+v on %d devices: %v, prints\n%s", tc.opts, cfg.Devices, err, out.String())
		}
	}
	// The world's slots: DEVICES*per, per = CAPACITY rounded down to
	// WorldGrain and at most maxWorldSlots/2^ceil(log2 DEVICES).
	m := lowerSource(t, peano, Options{World: true})
	for _, tc := range []struct{ devices, capacity, want int64 }{
		{1, 1000, 768},
		{2, math.MaxInt32, 2 * (1<<31 - ir.WorldGrain)},
		{3, math.MaxInt32, 3 * (1<<30 - ir.WorldGrain)},
		{4, 1 << 30, 4 * (1<<30 - ir.WorldGrain)},
		{5, 1 << 29, 5 * (1<<29 - ir.WorldGrain)},
		{64, math.MaxInt32, 64 * (1<<26 - ir.WorldGrain)},
	} {
		n := ir.RewriteExpr(ir.CloneExpr(m.Buffer("hd").Len), func(e ir.Expr) ir.Expr {
			switch p, _ := e.(*ir.ParamRef); {
			case p != nil && p.Name == ir.DevicesParam:
				return ir.IntConst(p.T, tc.devices)
			case p != nil && p.Name == pCapacity:
				return ir.IntConst(p.T, tc.capacity)
			}
			return e
		})
		got, why := ir.EvalConst(n)
		if why != "" || int64(got) != tc.want || int64(got) > maxWorldSlots {
			t.Errorf("DEVICES=%d CAPACITY=%d: %d slots (%s), want %d", tc.devices, tc.capacity, int64(got), why, tc.want)
		}
	}
}
