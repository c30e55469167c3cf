package driver

import (
	"strconv"
	"strings"
	"testing"

	"gpuc/internal/irtest"
	"gpuc/ir"
)

// TestStaticPlacement checks Note [Static data before placement]: a
// constant buffer that --static fills past constant memory loads in
// global memory, one that fits stays constant, and contents written in
// the source past constant memory are the verifier's error.
func TestStaticPlacement(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return irtest.WriteFile(t, dir, name, text) }
	values := func(n int) string { return strings.Repeat("7\n", n) }
	words := ir.MaxConstantMemory / 4
	src := write("tab.kir", `module tab;
buffer tab: i32[4] constant static = {1, 2, 3, 4};
buffer out: i32[1] global output;
kernel k() { out[0] = tab[0]; }
host main() { launch k() grid 1 block 1; }
`)
	for _, tt := range []struct {
		n    int
		want ir.Space
	}{{words, ir.Constant}, {words + 1, ir.Global}} {
		vals := write("vals", values(tt.n))
		m, err := Load(src, "--static=tab="+vals)
		if err != nil {
			t.Fatalf("--static with %d values: %v", tt.n, err)
		}
		if got := m.Buffer("tab").Space; got != tt.want {
			t.Errorf("--static with %d values: tab in %s memory, want %s", tt.n, got, tt.want)
		}
	}
	big := write("big.kir", `module big;
buffer tab: i32[`+strconv.Itoa(words+1)+`] constant static = {`+strings.TrimSuffix(strings.Repeat("7, ", words+1), ", ")+`};
buffer out: i32[1] global output;
kernel k() { out[0] = tab[0]; }
host main() { launch k() grid 1 block 1; }
`)
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "more than the 64 KiB of constant memory") {
		t.Errorf("constant contents past 64 KiB in the source: error %v, want the verifier's", err)
	}
}
