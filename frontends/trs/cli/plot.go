package cli

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"gpuc/frontends/trs"
)

// traceRow is one iteration of a TRS program's trace (trs.TraceHeader).
type traceRow struct {
	iteration, rewritten, pending float64
	block, cpu                    bool // the one-block loop ran it; the CPU did
}

func plotCommand(stdout io.Writer) *cobra.Command {
	var out, title string
	var from, to int
	cmd := &cobra.Command{
		Use:   "plot TRACE.csv -o FIG.svg",
		Short: "Draw a TRS program's per-iteration parallelism",
		Long: `plot draws the trace that gpuc run --trace writes (or that a compiled TRS
program prints with TRACE=1) as the TRS paper's Figure 2 does: for each
iteration of the fixpoint loop, the number of terms rewritten in it. Red
iterations ran in the grid-wide loop, blue ones in the one-block loop,
each in a lighter shade where the CPU ran it (a hybrid program's, and a
host build's, column on); the panel below shows the number of terms still
pending. The format follows the
output's extension: .svg, .png or .pdf. --from and --to zoom in on a range
of iterations.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rows, err := readTrace(args[0])
			if err != nil {
				return err
			}
			if to > 0 && to < len(rows) {
				rows = rows[:to]
			}
			if from > 0 && from < len(rows) {
				rows = rows[from:]
			}
			if title == "" {
				title = strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0]))
			}
			panels, err := plotTrace(rows, title+": terms rewritten and pending per iteration")
			if err != nil {
				return err
			}
			if out == "" {
				return fmt.Errorf("plot: name the figure with -o FIG.svg")
			}
			return savePlots(panels, out)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the figure: .svg, .png or .pdf")
	cmd.Flags().StringVar(&title, "title", "", "the program's name in the title (default: the trace's file name without its extension)")
	cmd.Flags().IntVar(&from, "from", 0, "first iteration to draw")
	cmd.Flags().IntVar(&to, "to", 0, "iteration to stop before (default: the last)")
	cmd.SetOut(stdout)
	return cmd
}

// readTrace reads a trace CSV.
func readTrace(path string) ([]traceRow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	// Traces of before Note [Where iterations ran] lack the column on.
	if len(recs) == 0 || (strings.Join(recs[0], ",") != trs.TraceHeader && strings.Join(recs[0], ",")+",on" != trs.TraceHeader) {
		return nil, fmt.Errorf("%s: not a TRS trace: the first line should be %s", path, trs.TraceHeader)
	}
	var rows []traceRow
	for i, rec := range recs[1:] {
		var nums [4]float64
		for j := range 4 {
			v, err := strconv.ParseFloat(rec[j], 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: column %d: %v", path, i+2, j+1, err)
			}
			nums[j] = v
		}
		if len(rec) < 5 {
			return nil, fmt.Errorf("%s:%d: want %d columns, have %d", path, i+2, len(recs[0]), len(rec))
		}
		cpu := len(rec) > 5 && rec[5] == "cpu"
		rows = append(rows, traceRow{iteration: nums[0], rewritten: nums[1], pending: nums[3], block: rec[4] == "block", cpu: cpu})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: the trace has no iterations", path)
	}
	return rows, nil
}

// plotTrace draws a trace in two panels over one iteration axis: above,
// the rewritten terms of each iteration as filled steps, red for the
// grid-wide loop and blue for the one-block loop, lighter where the CPU
// ran them (named apart only where both sides did); below, the pending
// terms as a line. Axes of counts get integer ticks; the upper panel
// leaves headroom for its legend, so that it covers no data.
func plotTrace(rows []traceRow, title string) ([][]*plot.Plot, error) {
	top := plot.New()
	top.Title.Text = title
	top.Y.Label.Text = "terms rewritten"
	top.Add(plotter.NewGrid())
	most := 0.0
	for _, s := range traceSeries(rows) {
		block := s.block
		pts := make(plotter.XYs, 0, len(rows)+1)
		for _, r := range rows {
			y := r.rewritten
			if r.block != block || r.cpu != s.cpu {
				y = 0
			}
			most = max(most, y)
			pts = append(pts, plotter.XY{X: r.iteration, Y: y})
		}
		last := rows[len(rows)-1]
		pts = append(pts, plotter.XY{X: last.iteration + 1, Y: 0})
		steps, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		steps.StepStyle = plotter.PostStep
		steps.LineStyle.Width = 0
		c := color.RGBA{R: 200, G: 30, B: 30, A: 255}
		if block {
			c = color.RGBA{R: 30, G: 60, B: 200, A: 255}
		}
		if s.cpu {
			c.R, c.G, c.B = c.R/3+160, c.G/3+160, c.B/3+160
		}
		steps.FillColor = c
		top.Add(steps)
		top.Legend.Add(s.name, steps)
	}
	top.Legend.Top = true
	top.Y.Min, top.Y.Max = 0, max(most, 1)*1.4 // the legend's headroom
	bottom := plot.New()
	bottom.X.Label.Text = "iteration"
	bottom.Y.Label.Text = "terms pending"
	bottom.Add(plotter.NewGrid())
	pend := make(plotter.XYs, len(rows))
	for i, r := range rows {
		pend[i] = plotter.XY{X: r.iteration, Y: r.pending}
	}
	line, err := plotter.NewLine(pend)
	if err != nil {
		return nil, err
	}
	line.LineStyle.Color = color.Gray{Y: 60}
	line.LineStyle.Width = vg.Points(1.5)
	bottom.Add(line)
	bottom.Y.Min = 0
	lo, hi := rows[0].iteration, rows[len(rows)-1].iteration+1
	for _, p := range []*plot.Plot{top, bottom} {
		p.X.Min, p.X.Max = lo, hi
		p.X.Tick.Marker = intTicks{}
		p.Y.Tick.Marker = intTicks{}
	}
	return [][]*plot.Plot{{top}, {bottom}}, nil
}

// series is one filled series of the upper panel: the iterations of one
// loop on one side.
type series struct {
	name       string
	block, cpu bool
}

// traceSeries lists the upper panel's series: the grid-wide and the
// one-block loop on each side that ran iterations, named by side only
// where both did.
func traceSeries(rows []traceRow) []series {
	sides := map[bool]bool{}
	for _, r := range rows {
		sides[r.cpu] = true
	}
	var out []series
	for _, cpu := range []bool{false, true} {
		if !sides[cpu] {
			continue
		}
		for _, block := range []bool{false, true} {
			name := map[bool]string{false: "grid-wide loop", true: "one-block loop"}[block]
			if len(sides) == 2 {
				name += map[bool]string{false: ", GPU", true: ", CPU"}[cpu]
			}
			out = append(out, series{name, block, cpu})
		}
	}
	return out
}

// intTicks marks integer values only, labelled without decimals.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value != math.Trunc(t.Value) {
			continue
		}
		if t.Label != "" {
			t.Label = strconv.FormatFloat(t.Value, 'f', 0, 64)
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		for v := math.Ceil(lo); v <= hi; v++ {
			out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
		}
	}
	return out
}

// savePlots writes panels, one above the other, to out in the format of
// its extension.
func savePlots(panels [][]*plot.Plot, out string) error {
	format := strings.TrimPrefix(filepath.Ext(out), ".")
	c, err := draw.NewFormattedCanvas(8*vg.Inch, 5*vg.Inch, format)
	if err != nil {
		return fmt.Errorf("plot: %s: %v (want .svg, .png or .pdf)", out, err)
	}
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadY: vg.Millimeter * 2, PadTop: vg.Millimeter, PadBottom: vg.Millimeter,
		PadLeft: vg.Millimeter, PadRight: vg.Millimeter * 3}
	canvases := plot.Align(panels, tiles, draw.New(c))
	for i, row := range panels {
		row[0].Draw(canvases[i][0])
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// traceOutput is where `gpuc run --trace FILE` writes: the program's
// output up to the trace's header line goes to stdout, the trace to FILE.
// done closes the file.
func traceOutput(stdout io.Writer, file string) (w io.Writer, done func() error, err error) {
	if file == "" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, nil, err
	}
	t := &traceSplitter{out: stdout, trace: bufio.NewWriter(f)}
	return t, func() error {
		return firstErr(t.flush(), t.trace.Flush(), f.Close())
	}, nil
}

// traceSplitter sends whole lines to out until the trace header, and
// everything from it on to trace.
type traceSplitter struct {
	out     io.Writer
	trace   *bufio.Writer
	partial []byte
	inTrace bool
}

func (t *traceSplitter) Write(p []byte) (int, error) {
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := t.partial[:i+1]
		if !t.inTrace && string(line[:i]) == trs.TraceHeader {
			t.inTrace = true
		}
		if err := t.writeLine(line); err != nil {
			return 0, err
		}
		t.partial = t.partial[i+1:]
	}
}

func (t *traceSplitter) writeLine(line []byte) error {
	if t.inTrace {
		_, err := t.trace.Write(line)
		return err
	}
	_, err := t.out.Write(line)
	return err
}

// flush writes an unfinished last line.
func (t *traceSplitter) flush() error {
	if len(t.partial) == 0 {
		return nil
	}
	return t.writeLine(t.partial)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
