package cli

import (
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"

	"gpuc/frontends/trs"
)

// TestPlotTrace checks the figure's layout: the title names the program,
// pending terms have their own panel, count axes get integer ticks only,
// and the legend's panel has headroom above the tallest bar.
func TestPlotTrace(t *testing.T) {
	rows := []traceRow{{0, 1, 2, true, false}, {1, 7, 9, false, false}, {2, 3, 1, true, false}}
	panels, err := plotTrace(rows, "mergesort: x")
	if err != nil {
		t.Fatal(err)
	}
	if len(panels) != 2 || panels[0][0].Title.Text != "mergesort: x" || panels[1][0].Y.Label.Text != "terms pending" {
		t.Fatalf("want two panels, the title and pending below; got %d", len(panels))
	}
	top := panels[0][0]
	if top.Y.Max < 7*1.3 {
		t.Errorf("no headroom for the legend: y max %g, tallest bar 7", top.Y.Max)
	}
	for _, p := range []*plot.Plot{top, panels[1][0]} {
		for _, tk := range p.Y.Tick.Marker.Ticks(0, 9.7) {
			if tk.Value != float64(int(tk.Value)) {
				t.Errorf("tick at %g", tk.Value)
			}
		}
	}
}

// TestPlotSides checks that a trace's column on reaches the figure: a
// trace whose iterations all ran on one side keeps the two series, and
// one with both sides gets four, named by side.
func TestPlotSides(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	both := write("both.csv", trs.TraceHeader+"\n0,1,2,3,block,cpu\n1,9,20,3,grid,gpu\n2,3,4,0,block,cpu\n")
	old := write("old.csv", "iteration,rewritten,rewrites,pending,mode\n0,1,2,3,block\n")
	for _, c := range []struct {
		path    string
		entries int
		cpu     []bool
	}{{both, 4, []bool{true, false, true}}, {old, 2, []bool{false}}} {
		rows, err := readTrace(c.path)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rows {
			if r.cpu != c.cpu[i] {
				t.Errorf("%s: row %d: cpu %v, want %v", c.path, i, r.cpu, c.cpu[i])
			}
		}
		if got := traceSeries(rows); len(got) != c.entries {
			t.Errorf("%s: series %v, want %d", c.path, got, c.entries)
		}
		if _, err := plotTrace(rows, "x"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := readTrace(write("short.csv", trs.TraceHeader+"\n0,1,2\n")); err == nil {
		t.Error("a row of three columns was taken")
	}
}
