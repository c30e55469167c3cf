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
	"gpuc/ir/interp"
)

// TestExamplesOnDevices runs every example with a .out file on a world of
// 2, 3 or 4 devices in the interpreter (Note [Devices] in ir/interp) and
// checks that it prints the same bytes as on one. To stay cheap, each
// example runs at one k, taking 2, 3 and 4 in turn, and the few that take
// more than maxSteps steps per device are skipped.
// slowOnOneDevice lists the examples that take seconds on one device,
// too long to run again on k.
var slowOnOneDevice = map[string]bool{"gcd_subtract.chr": true}

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
		t.Run(fmt.Sprintf("%s@%d", filepath.Base(f), k), func(t *testing.T) {
			var flags []string
			if in, err := os.ReadFile(base + ".input"); err == nil {
				flags = append(flags, "--input="+strings.TrimSpace(string(in)))
			}
			var args []string
			for name, v := range irtest.ArgsFile(t, base+".args") {
				args = append(args, fmt.Sprintf("%s=%d", name, v))
			}
			m, err := driver.Load(f, flags...)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = driver.Run(m, nil, args, interp.Config{Stdout: &out, Devices: k, MaxSteps: maxSteps * int64(k), DeviceMemory: 16 << 20})
			if err != nil && strings.Contains(err.Error(), "(--max-steps)") {
				t.Skipf("more than %d steps a device: too long for this test", maxSteps)
			}
			if err != nil {
				t.Fatalf("%d devices: %v", k, err)
			}
			if got := out.String(); got != string(want) {
				t.Errorf("%d devices print\n%s\nwant\n%s", k, got, want)
			}
		})
	}
	if n < 10 {
		t.Fatalf("only %d examples with .out files", n)
	}
}
