package interp_test

import (
	"fmt"
	"strings"
	"testing"

	"gpuc/ir"
	"gpuc/ir/interp"
)

// worldSrc uses every world construct; what it prints depends on k only
// where it asks for k (Note [Devices]).
const worldSrc = `module w;

param DEVICES: i32 = 1;
param N: i32 = 10;

buffer cells: i32[N] distributed output;
buffer part: i32[N] symmetric scratch;
buffer table: i32[2] replicated scratch;
buffer other: i32[N] distributed scratch;

host main() {
  table[1] = 10;
  region N world {
    cells[pid()] = device_id();
    part[pid()] = pid() * table[1];
  }
  allgather part;
  var s: i32 = 0;
  for var i: i32 = 0; i < N; i = i + 1 {
    s = s + part[i];
  }
  var t: i32 = 0;
  t = allreduce(add, s);
  var d: i32 = 0;
  d = allreduce(max, device_id());
  world_barrier;
  region N world {
    other[pid()] = pid();
  }
  cells[3] = 7;
  swap cells, other;
  swap cells, other;
  printf "%d %d %d\n", t, d, num_devices();
}
`

func TestWorld(t *testing.T) {
	m := parse(t, "w.kir", worldSrc)
	if err := ir.Verify(m, ir.SPMDLevel); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 4; k++ {
		per := int(ir.WorldPart(10, int64(k)))
		var want strings.Builder
		fmt.Fprintf(&want, "%d %d %d\n", 450*k, k-1, k)
		for p := range 10 {
			if p == 3 {
				fmt.Fprintf(&want, "7\n") // written by the host of its owner
				continue
			}
			fmt.Fprintf(&want, "%d\n", p/per)
		}
		for _, race := range []bool{false, true} {
			got := mustRun(t, "w.kir", worldSrc, interp.Config{Devices: k, Race: race})
			if got != want.String() {
				t.Errorf("%d devices, race %v: got\n%s\nwant\n%s", k, race, got, want.String())
			}
		}
		// DEVICES=k is --devices k.
		got := mustRun(t, "w.kir", worldSrc, interp.Config{Params: map[string]int64{"DEVICES": int64(k)}})
		if got != want.String() {
			t.Errorf("DEVICES=%d: got\n%s\nwant\n%s", k, got, want.String())
		}
	}
	if _, err := run(t, "w.kir", worldSrc, interp.Config{Devices: 2, Params: map[string]int64{"DEVICES": 3}}); err == nil || !strings.Contains(err.Error(), "contradicts") {
		t.Errorf("DEVICES=3 with --devices 2: %v", err)
	}
}

// TestWorldDiverges checks the run-time rule that the devices' host
// programs take the same branches and meet at the same collectives, on
// modules that the verifier would reject.
func TestWorldDiverges(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"if device_id() == 0 {\n    world_barrier;\n  }", "w.kir:5:5: error: device 1 reached the end of the program while device 0 reached world_barrier at w.kir:5:5"},
		{"if device_id() == 1 {\n    raise \"boom\";\n  }\n  world_barrier;", "boom"},
		{"if device_id() == 1 {\n    printf \"x\";\n  }\n  world_barrier;", "w.kir:7:3: error: the host programs of devices 0 and 1 took different branches before world_barrier at w.kir:7:3"},
	} {
		src := "module w;\n\nhost main() {\n  " + c.body + "\n}\n"
		_, err := run(t, "w.kir", src, interp.Config{Devices: 2})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\ngot %v\nwant %s", c.body, err, c.want)
		}
		if _, err := run(t, "w.kir", src, interp.Config{Devices: 1}); err != nil {
			t.Errorf("one device: %v", err)
		}
	}
}

// TestWorldRace checks that the race checker sees each device's instance
// apart, and processors of a world region on different devices like
// processors of one region.
func TestWorldRace(t *testing.T) {
	const src = `module w;

buffer g: i32[512] global scratch;
buffer c: i32[512] distributed scratch;

host main() {
  region 512 {
    g[pid()] = pid();
  }
  region 512 world {
    c[pid() %% 256] = %s;
  }
}
`
	if _, err := run(t, "w.kir", fmt.Sprintf(src, "1"), interp.Config{Devices: 2, Race: true}); err == nil || !strings.Contains(err.Error(), "race") {
		t.Errorf("processors 0 and 256, on devices 0 and 1, both write c[0]: got %v, want a race", err)
	}
	if _, err := run(t, "w.kir", strings.Replace(fmt.Sprintf(src, "1"), "pid() % 256", "pid()", 1), interp.Config{Devices: 2, Race: true}); err != nil {
		t.Errorf("no race: %v", err)
	}
	// A region that is not world runs on every device: its writes to a
	// distributed buffer conflict across devices, as two blocks' would.
	replicas := strings.Replace(fmt.Sprintf(src, "pid()"), "region 512 world {\n    c[pid() % 256]", "region 512 {\n    c[pid()]", 1)
	want := "w.kir:11:5: error: data race on c[0]: write on device 1 conflicts with write at w.kir:11:5 on device 0, with no collective between"
	if _, err := run(t, "w.kir", replicas, interp.Config{Devices: 2, Race: true}); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("replicas writing c: got %v, want %s", err, want)
	}
	if _, err := run(t, "w.kir", replicas, interp.Config{Devices: 1, Race: true}); err != nil {
		t.Errorf("one device: %v", err)
	}
}

// TestWorldCounters checks the local and remote access counts of a
// distributed buffer.
func TestWorldCounters(t *testing.T) {
	const src = `module w;

buffer c: i32[1024] distributed scratch;
buffer d: i32[1024] distributed scratch;

host main() {
  region 1024 world {
    d[pid()] = c[(pid() + 1) % 1024];
  }
}
`
	var st interp.Stats
	mustRun(t, "w.kir", src, interp.Config{Devices: 2, Stats: &st})
	got := fmt.Sprint(st.Counters)
	// Processors 511 and 1023 read the first element of the other device.
	if want := "[{local accesses 2046} {remote accesses 2} {host reads 0}]"; got != want {
		t.Errorf("counters %s, want %s", got, want)
	}
}

// TestWorldFit checks that a fitted parameter counts, of a distributed
// buffer, the part that one device holds (Note [Fitted parameters]).
func TestWorldFit(t *testing.T) {
	const src = `module f;

param DEVICES: i32 = 1;
param CAP: i32 = 1073741824 fit 0.5;

buffer s: i64[CAP] distributed scratch;

host main() {
  printf "%d\n", CAP;
}
`
	for k, want := range map[int]string{1: "65536\n", 4: "262144\n"} {
		if got := mustRun(t, "f.kir", src, interp.Config{Devices: k, DeviceMemory: 1 << 20}); got != want {
			t.Errorf("%d devices: CAP %q, want %q", k, got, want)
		}
	}
}
