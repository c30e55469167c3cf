package toolkit

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Note [gpuc bench]
//
// `gpuc bench FILES...` times users' programs as `futhark bench` does:
// per program, per backend (the interpreter, or a native toolchain) and
// per parameter set, it runs the program Warmup times untimed, then Runs
// times, each the wall time of the whole process (or, with --metric=
// device, the device time that a native program reports with --time
// --json), and reports the median,
// the minimum, the maximum and a 95% confidence interval of the median.
// The interval is distribution-free: the order statistics of ranks
// n/2 -/+ 1.96 sqrt(n)/2, rounded outwards and clamped to the sample, so
// it needs no assumption of normal times (and is the sample's range for
// fewer than 6 runs). Every run must exit 0 and print what the first
// run of that program and parameter set printed on the first backend.
// The JSON form, one array of Measurement, is documented in
// docs/TOOLKIT.md.

// Measurement is one program on one backend with one parameter set.
type Measurement struct {
	File     string    `json:"file"`
	Backend  string    `json:"backend"` // "interp", "host", "nvcc" or "hybrid"
	Args     []string  `json:"args"`
	Runs     int       `json:"runs"`
	MedianMS float64   `json:"median_ms"`
	MinMS    float64   `json:"min_ms"`
	MaxMS    float64   `json:"max_ms"`
	CI95MS   []float64 `json:"ci95_ms"` // [low, high] of the median
	TimesMS  []float64 `json:"times_ms"`
}

// BenchOptions say how gpuc bench runs.
type BenchOptions struct {
	Build    Options
	Backends []string   // "interp", "host", "nvcc", "hybrid", "native" (Auto)
	Sets     [][]string // parameter sets; one empty set by default
	Runs     int
	Warmup   int
	Gpuc     string // the gpuc executable that runs the interpreter
	// Device times native runs by the device time that the program
	// reports with --time --json instead of the process's wall time;
	// the interpreter has none, so it is refused with interp.
	Device bool
}

// Bench measures every file on every backend with every set.
func Bench(files []string, o BenchOptions) ([]Measurement, error) {
	if o.Runs < 1 {
		return nil, fmt.Errorf("--runs=%d: want at least 1", o.Runs)
	}
	sets := o.Sets
	if len(sets) == 0 {
		sets = [][]string{nil}
	}
	if o.Device && slices.Contains(o.Backends, "interp") {
		return nil, fmt.Errorf("--metric=device: the interpreter reports no device time; leave interp out")
	}
	var out []Measurement
	for _, file := range files {
		abs, err := filepath.Abs(file)
		if err != nil {
			return nil, err
		}
		dir := filepath.Dir(abs)
		want := map[int]string{} // set -> first output
		for _, be := range o.Backends {
			exe, pre := o.Gpuc, []string{"run", abs}
			if be != "interp" {
				b := o.Build
				b.Toolchain = be
				if be == "native" {
					b.Toolchain = Auto
				}
				if exe, _, err = Cached(abs, b); err != nil {
					return nil, fmt.Errorf("%s: %s build: %w", file, be, err)
				}
				pre = nil
			}
			for si, set := range sets {
				args := append(slices.Clone(pre), set...)
				if o.Device {
					args = append(args, "--time", "--json")
				}
				m := Measurement{File: file, Backend: be, Args: append([]string{}, set...), Runs: o.Runs}
				for i := 0; i < o.Warmup+o.Runs; i++ {
					t0 := time.Now()
					r, err := RunProgram(dir, exe, args)
					ms := float64(time.Since(t0).Microseconds()) / 1000
					if err != nil {
						return nil, err
					}
					if r.Status != 0 {
						return nil, fmt.Errorf("%s (%s %s): exit status %d: %s", file, be, strings.Join(set, " "), r.Status, strings.TrimSpace(r.Stderr))
					}
					if o.Device {
						if ms, err = deviceMS(r.Stderr); err != nil {
							return nil, fmt.Errorf("%s (%s %s): %v", file, be, strings.Join(set, " "), err)
						}
					}
					if w, ok := want[si]; !ok {
						want[si] = r.Stdout
					} else if w != r.Stdout {
						return nil, fmt.Errorf("%s (%s %s): the output differs from the first run's", file, be, strings.Join(set, " "))
					}
					if i >= o.Warmup {
						m.TimesMS = append(m.TimesMS, ms)
					}
				}
				m.summarize()
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// summarize computes the median, extremes and the median's interval.
func (m *Measurement) summarize() {
	s := slices.Sorted(slices.Values(m.TimesMS))
	n := len(s)
	m.MinMS, m.MaxMS = s[0], s[n-1]
	if n%2 == 1 {
		m.MedianMS = s[n/2]
	} else {
		m.MedianMS = (s[n/2-1] + s[n/2]) / 2
	}
	half := 1.96 * math.Sqrt(float64(n)) / 2
	lo := max(int(math.Floor(float64(n)/2-half)), 0)
	hi := min(int(math.Ceil(float64(n)/2+half)), n-1)
	m.CI95MS = []float64{s[lo], s[hi]}
}

// deviceMS finds the device time in a program's --time --json report.
func deviceMS(stderr string) (float64, error) {
	for _, line := range strings.Split(stderr, "\n") {
		var rec struct {
			Gpuc     string  `json:"gpuc"`
			DeviceMS float64 `json:"device_ms"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Gpuc == "time" {
			return rec.DeviceMS, nil
		}
	}
	return 0, fmt.Errorf("no device time in the program's --time --json report")
}

// WriteBench prints measurements as a table, each backend and set side
// by side with its ratio to the first row of its program.
func WriteBench(w io.Writer, ms []Measurement) {
	fmt.Fprintf(w, "%-28s %-7s %-20s %10s %10s %10s %21s %7s\n", "program", "backend", "args", "median ms", "min ms", "max ms", "95% CI of median", "ratio")
	first := map[string]float64{}
	for _, m := range ms {
		base, ok := first[m.File]
		if !ok {
			first[m.File], base = m.MedianMS, m.MedianMS
		}
		ratio := "n/a"
		if m.MedianMS > 0 {
			ratio = fmt.Sprintf("%.2fx", base/m.MedianMS)
		}
		fmt.Fprintf(w, "%-28s %-7s %-20s %10.2f %10.2f %10.2f %10.2f..%-9.2f %7s\n", filepath.Base(m.File), m.Backend,
			strings.Join(m.Args, " "), m.MedianMS, m.MinMS, m.MaxMS, m.CI95MS[0], m.CI95MS[1], ratio)
	}
}

// WriteBenchJSON prints measurements as JSON (docs/TOOLKIT.md).
func WriteBenchJSON(w io.Writer, ms []Measurement) error {
	if ms == nil {
		ms = []Measurement{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(ms)
}
