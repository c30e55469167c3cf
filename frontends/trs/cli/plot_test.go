package cli

import (
	"testing"

	"gonum.org/v1/plot"
)

// TestPlotTrace checks the figure's layout: the title names the program,
// pending terms have their own panel, count axes get integer ticks only,
// and the legend's panel has headroom above the tallest bar.
func TestPlotTrace(t *testing.T) {
	rows := []traceRow{{0, 1, 2, true}, {1, 7, 9, false}, {2, 3, 1, true}}
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
