package interp_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"gpuc/ir/interp"
)

// The examples run with their default parameters and with others, and
// their output is computed here independently, in Go.

func TestVecAdd(t *testing.T) {
	src := readFile(t, "../../examples/kir/vecadd.kir")
	for _, cfg := range []interp.Config{
		{},
		{Workers: 1},
		{Params: map[string]int64{"N": 12345, "B": 100}, Workers: 3},
		{Params: map[string]int64{"N": 100000}, Race: true},
	} {
		n := int64(1000000)
		if v, ok := cfg.Params["N"]; ok {
			n = v
		}
		got := mustRun(t, "vecadd.kir", src, cfg)
		if want := vecAddOutput(n); got != want {
			t.Errorf("vecadd %v:\ngot\n%s\nwant\n%s", cfg.Params, got, want)
		}
	}
}

func vecAddOutput(n int64) string {
	c := func(i int64) float32 { return float32(i%1000)*0.5 + float32(i%7) }
	var sum float64
	for i := range n {
		sum += float64(c(i))
	}
	return fmt.Sprintf("c[0] = %.1f\nc[%d] = %.1f\nsum = %.1f\n", c(0), n-1, c(n-1), sum)
}

// N stays a multiple of B: the example's i < N ? data[i] : 0 reads
// data[i] in every thread, as a select evaluates both sides.
func TestScan(t *testing.T) {
	src := readFile(t, "../../examples/kir/scan.kir")
	for _, p := range []map[string]int64{nil, {"N": 1024, "B": 64}, {"N": 5120, "B": 1024}} {
		n, b := int64(4096), int64(256)
		if p != nil {
			n, b = p["N"], p["B"]
		}
		want := scanOutput(n, b)
		for _, race := range []bool{false, true} {
			got := mustRun(t, "scan.kir", src, interp.Config{Params: p, Race: race})
			if got != want {
				t.Errorf("scan %v race=%v:\ngot\n%s\nwant\n%s", p, race, got, want)
			}
		}
	}
}

func scanOutput(n, b int64) string {
	data := make([]int64, n)
	for i := range data {
		data[i] = int64(i%7 + 1)
		if i%int(b) > 0 {
			data[i] += data[i-1]
		}
	}
	var out strings.Builder
	var check int64
	for k := b - 1; k < n; k += b {
		fmt.Fprintf(&out, "block %4d ends at %6d\n", k/b, data[k])
		check += data[k]
	}
	fmt.Fprintf(&out, "checksum %d\n", check)
	return out.String()
}

func TestHistogram(t *testing.T) {
	src := readFile(t, "../../examples/kir/histogram.kir")
	for _, cfg := range []interp.Config{
		{},
		{Params: map[string]int64{"N": 54321, "K": 7, "B": 64}, Workers: 4},
		{Params: map[string]int64{"N": 20000, "K": 300, "B": 128}, Race: true},
	} {
		n, k := int64(1000000), int64(16)
		if cfg.Params != nil {
			n, k = cfg.Params["N"], cfg.Params["K"]
		}
		got := mustRun(t, "histogram.kir", src, cfg)
		if want := histogramOutput(n, k); got != want {
			t.Errorf("histogram %v:\ngot\n%s\nwant\n%s", cfg.Params, got, want)
		}
	}
}

func histogramOutput(n, k int64) string {
	hash := func(x uint32) uint32 {
		h := x * 2654435761
		h ^= h >> 16
		h *= 2246822519
		return h ^ h>>13
	}
	counts := make([]uint32, k)
	for i := range n {
		counts[hash(uint32(i))%uint32(k)]++
	}
	var out strings.Builder
	for _, c := range counts {
		fmt.Fprintf(&out, "%d\n", c)
	}
	return out.String()
}

// Dropping the barrier between reading tmp[t - off] and writing tmp[t]
// makes the scan racy: thread 1 reads tmp[0] in the interval in which
// thread 0 writes it.
func TestScanRace(t *testing.T) {
	src := readFile(t, "../../examples/kir/scan.kir")
	racy := strings.Replace(src, "    }\n    barrier;\n    tmp[t] = tmp[t] + x;", "    }\n    tmp[t] = tmp[t] + x;", 1)
	if racy == src {
		t.Fatal("scan.kir changed; cannot make the racy variant")
	}
	_, err := run(t, "racy.kir", racy, interp.Config{Race: true})
	var re *interp.RaceError
	if !errors.As(err, &re) {
		t.Fatalf("racy scan: got error %v, want a *RaceError", err)
	}
	if len(re.Races) != 10 {
		t.Errorf("racy scan: %d races reported, want the limit of 10:\n%v", len(re.Races), err)
	}
	read := position(t, "racy.kir", racy, "tmp[t - off]", 0)
	write := position(t, "racy.kir", racy, "tmp[t] = tmp[t] + x", 0)
	want := read + ": error: data race on tmp[0]: read by thread 1 of block 0 conflicts with write at " + write + " by thread 0 of block 0"
	if first := strings.Split(err.Error(), "\n")[0]; first != want {
		t.Errorf("racy scan: first race\n\t%s\nwant\n\t%s", first, want)
	}
	// Without race checking the racy scan runs, to some answer.
	if _, err := run(t, "racy.kir", racy, interp.Config{}); err != nil {
		t.Errorf("racy scan without --race: %v", err)
	}
}
