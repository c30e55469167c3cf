package driver_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/internal/driver"
	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// slowOnOneDevice lists the examples that take seconds on one device,
// too long to run again on k.
var slowOnOneDevice = map[string]bool{"gcd_subtract.chr": true}

// worldSample picks the term rewrite examples that run as world programs:
// the workloads of the several-GPU targets (issue 19), and one in three
// of the others, in turn.
func worldSample(name string, n int) bool {
	return name == "treemergesort.trs" || name == "transtree.trs" || n%3 == 0
}

// TestExamplesOnDevices runs every example with a .out file on a world of
// 2, 3 or 4 devices in the interpreter (Note [Devices] in ir/interp) and
// checks that it prints the same bytes as on one, twice: as it is, each
// device running the whole program on its own memory, and as a world
// program: Fork's --world and the distribute-world pass for CHR and
// .kir (ir.DistributeWorld), their processors split across the devices
// and their memory one for the world; TRS's --world, each device owning
// and rewriting its part of the store (Note [TRS on several devices] in
// frontends/trs). A term rewrite's trace and statistics are those of one
// device too, line by line, but for the trace's mode column: a world
// program runs no one-block iterations. Fork programs run race-checked.
//
// To stay cheap, each example runs at one k, taking 2, 3 and 4 in turn,
// with a small model of device memory (which fitted stores take), and
// the few that take more than maxSteps steps per device are skipped. A
// term rewrite runs as a world program only where worldSample picks it,
// since each of its iterations is a region of at least WorldGrain
// processors a device.
func TestExamplesOnDevices(t *testing.T) {
	const maxSteps = 250000
	var files []string
	for _, ext := range []string{"kir", "fork", "chr", "trs", "rec"} {
		files = append(files, irtest.Glob(t, "../../examples/*/*."+ext)...)
	}
	n := 0
	for _, f := range files {
		base := strings.TrimSuffix(f, filepath.Ext(f))
		want, err := os.ReadFile(base + ".out")
		if err != nil || slowOnOneDevice[filepath.Base(f)] {
			continue
		}
		k := 2 + n%3
		n++
		sample := worldSample(filepath.Base(f), n)
		t.Run(fmt.Sprintf("%s@%d", filepath.Base(f), k), func(t *testing.T) {
			// In-process and independent: the two cores share them.
			t.Parallel()
			var flags []string
			if in, err := os.ReadFile(base + ".input"); err == nil {
				flags = append(flags, "--input="+strings.TrimSpace(string(in)))
			}
			var args []string
			for name, v := range irtest.ArgsFile(t, base+".args") {
				args = append(args, fmt.Sprintf("%s=%d", name, v))
			}
			ext := filepath.Ext(f)
			rewrite := ext == ".trs" || ext == ".rec"
			if rewrite {
				args = append(args, "TRACE=1", "STATS=1")
			}
			run := func(m *ir.Module, devices int, race bool) string {
				t.Helper()
				var out bytes.Buffer
				memory := int64(16 << 20)
				if m.Param(ir.DevicesParam) != nil && rewrite {
					// A TRS world program's store, lists and host copies
					// are DEVICES times a device's: a fifth as much memory
					// a device still holds every example's store.
					memory /= 5
				}
				cfg := interp.Config{Stdout: &out, Stderr: &out, Devices: devices, MaxSteps: maxSteps * int64(devices), DeviceMemory: memory, Race: race}
				err := driver.Run(m, nil, args, cfg)
				if err != nil && strings.Contains(err.Error(), "(--max-steps)") {
					t.Skipf("more than %d steps a device: too long for this test", maxSteps)
				}
				if err != nil {
					t.Fatalf("%d devices: %v", devices, err)
				}
				return out.String()
			}
			load := func(flags ...string) *ir.Module {
				t.Helper()
				m, err := driver.Load(f, flags...)
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
			one := run(load(flags...), 1, false)
			if !rewrite && one != string(want) {
				t.Fatalf("one device prints\n%s\nwant\n%s", one, want)
			}
			if got := run(load(flags...), k, false); got != one {
				t.Errorf("%d devices print\n%s\none prints\n%s", k, got, one)
			}
			if rewrite && !sample {
				return
			}
			var world *ir.Module
			if ext == ".fork" || rewrite {
				world = load(append(flags, "--world")...)
			} else {
				world = load(flags...)
				ps, err := passes.Expand([]string{"distribute-world"})
				if err != nil {
					t.Fatal(err)
				}
				if err := passes.Run(world, ps, &passes.Config{VerifyEach: true}); err != nil {
					t.Fatal(err)
				}
			}
			want := one
			if rewrite {
				want = strings.ReplaceAll(one, ",block,", ",grid,")
			}
			if got := run(world, k, ext == ".fork"); got != want {
				t.Errorf("as a world program on %d devices, it prints\n%s\none prints\n%s", k, got, one)
			}
		})
	}
	if n < 10 {
		t.Fatalf("only %d examples with .out files", n)
	}
}
