package trs_test

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gpuc/frontends/kir"
	"gpuc/frontends/trs"
	"gpuc/frontends/trs/maude"
	"gpuc/frontends/trs/rewrite"
	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
)

// The examples in examples/trs are checked against three oracles that
// share no code with the device rewriter: the CPU rewriter, Maude, and
// each other. Each example's .out file is what `gpuc run` prints with
// the arguments of its .args file and the input term of its .input file;
// the CPU rewriter and Maude must print it too, and so must the lowered
// program in the interpreter on both of its paths (the grid-wide loop and
// the one-block loop) and without the worklist.

// example is one .trs file of examples/trs with its side files.
type example struct {
	name  string
	file  string // its path
	src   []byte
	input string
	args  map[string]int64
	out   string
}

func loadExamples(t *testing.T) []example {
	files := append(irtest.Glob(t, "../../examples/trs/*.trs"), irtest.Glob(t, "../../examples/trs/*.rec")...)
	var out []example
	for _, f := range files {
		base := strings.TrimSuffix(f, filepath.Ext(f))
		ex := example{name: filepath.Base(base), file: f, src: readFile(t, f), out: string(readFile(t, base+".out"))}
		if in, err := os.ReadFile(base + ".input"); err == nil {
			ex.input = strings.TrimSpace(string(in))
		}
		ex.args = irtest.ArgsFile(t, base+".args")
		out = append(out, ex)
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func (ex example) summary() bool { return ex.args["PRINT"] == 1 }

func (ex example) load(t *testing.T) *trs.System {
	t.Helper()
	sys, err := trs.Load(ex.file, ex.src, trs.Options{Input: ex.input})
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// TestExamplesCPU checks every .out file against the CPU rewriter.
func TestExamplesCPU(t *testing.T) {
	for _, ex := range loadExamples(t) {
		t.Run(ex.name, func(t *testing.T) {
			if got := cpuOutput(t, ex, ex.load(t)); got != ex.out {
				t.Errorf("the CPU rewriter prints\n%s\nwant (%s.out)\n%s", got, ex.name, ex.out)
			}
		})
	}
}

func cpuOutput(t *testing.T, ex example, sys *trs.System) string {
	r := rewrite.New(sys, 0)
	if err := r.Normalize(); err != nil {
		t.Fatal(err)
	}
	if ex.summary() {
		return trs.Summarize(r, r.Root()).String() + "\n"
	}
	return sys.FormatNode(r, r.Root()) + "\n"
}

// TestExamplesMaude checks every .out file against Maude, which .ci/run
// installs. Without maude on PATH the test fails, unless GPUC_NO_MAUDE is
// set.
func TestExamplesMaude(t *testing.T) {
	if _, err := exec.LookPath("maude"); err != nil {
		if os.Getenv("GPUC_NO_MAUDE") != "" {
			t.Skip("maude is not installed and GPUC_NO_MAUDE is set")
		}
		t.Fatal("maude is not installed (apt-get install maude, as .ci/run does; or set GPUC_NO_MAUDE)")
	}
	for _, ex := range loadExamples(t) {
		t.Run(ex.name, func(t *testing.T) {
			t.Parallel() // Maude's time, in a process of its own
			sys := ex.load(t)
			nf, err := maude.Run(sys, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			got := sys.Format(nf) + "\n"
			if ex.summary() {
				g := sys.Graph(nf)
				got = trs.Summarize(g, g.Root()).String() + "\n"
			}
			if got != ex.out {
				t.Errorf("maude prints\n%s\nwant (%s.out)\n%s", got, ex.name, ex.out)
			}
		})
	}
}

// TestExamplesDevice runs every example's generated program in the
// interpreter: at the SPMD level, as gpuc run does, and lowered by the
// default pipeline, on each path the program can take. All print the
// .out file, and all report the same statistics, on standard error, with
// the CPU rewriter's counts of rewrites and of live terms.
func TestExamplesDevice(t *testing.T) {
	for _, ex := range loadExamples(t) {
		t.Run(ex.name, func(t *testing.T) {
			t.Parallel()
			sys := ex.load(t)
			m, err := trs.Lower(sys, trs.Options{Input: ex.input, Stats: true})
			if err != nil {
				t.Fatal(err)
			}
			checkModule(t, m)
			cpu := rewrite.New(sys, 0)
			if err := cpu.Normalize(); err != nil {
				t.Fatal(err)
			}
			params := withDefaults(ex.args, map[string]int64{"CAPACITY": 1 << 16})
			out, errOut := runStreams(t, m, params, 0, false)
			if out != ex.out || errOut == "" {
				t.Fatalf("gpuc run --stats prints on stdout\n%s\nand on stderr\n%s\nwant the .out file alone on stdout, the statistics on stderr", out, errOut)
			}
			want := ex.out + stats(t, out+errOut, ex.out)
			counts := fmt.Sprintf("rewrites: %d\nlive terms: %d\n", cpu.Steps, cpu.Live())
			if !strings.Contains(want, counts) {
				t.Errorf("gpuc run prints\n%s\nbut the CPU rewriter counts\n%s", want, counts)
			}
			lowered := lower(t, m)
			for _, v := range variants {
				got := runModule(t, lowered, withDefaults(v.params, params), v.coop, false)
				if v.schedule {
					got, want = invariant(got), invariant(want)
				}
				if got != want {
					t.Errorf("lowered, with %v and %d cooperative threads, prints\n%s\nwant\n%s", v.params, v.coop, got, want)
				}
			}
		})
	}
}

// variants are the ways to run a lowered program: the grid-wide loop as
// one cooperative kernel and as relaunches (when the device holds fewer
// threads than the region has processors), the one-block loop alone,
// scanning every slot, small blocks, the summary left to the host
// (Note [Summary on the device]), a hybrid point at every iteration
// (HYBRIDITER=1, Note [Hybrid points] in ir/expr.go), other bounds on the walks of
// Note [Local normalisation], walks that do not fork (Note [Forks]),
// freed slots taken before fresh ones (Note [Fresh slots first]),
// waiting slots listed rather than settled (Note [Settling]), and the
// one-block loop on one thread (Notes [One processor's walks] and [One
// processor's garbage]). Only the last eleven change the schedule or the
// slots taken, and with them
// the iterations, the peak parallelism and the store's high-water mark.
var variants = []struct {
	params   map[string]int64
	coop     int64
	schedule bool
}{
	{map[string]int64{"SMALL": 0, "PROCS": 64}, 0, false},
	{map[string]int64{"SMALL": 0, "PROCS": 64}, 32, false},
	{map[string]int64{"SMALL": 1 << 20}, 0, false},
	{map[string]int64{"WORKLIST": 0, "SMALL": 0, "PROCS": 37}, 16, false},
	{map[string]int64{"SMALLB": 32}, 0, false},
	{map[string]int64{"SUMROUNDS": 3}, 0, false},
	{map[string]int64{"HYBRIDITER": 1, "SMALL": 2, "PROCS": 64}, 0, false},
	{map[string]int64{"LOCAL": 1 << 20}, 0, true},
	{map[string]int64{"LOCAL": 1}, 0, true},
	{map[string]int64{"LOCAL": 5, "SMALL": 0, "PROCS": 20}, 0, true},
	{map[string]int64{"FORK": 0}, 0, true},
	{map[string]int64{"FORK": 0, "LOCAL": 3, "WORKLIST": 0, "SMALL": 0, "PROCS": 20}, 0, true},
	{map[string]int64{"FRESH": 0}, 0, true},
	{map[string]int64{"SETTLE": 0}, 0, true},
	{map[string]int64{"SETTLE": 1 << 30, "LOCAL": 2, "SMALL": 0, "PROCS": 20}, 0, true},
	{map[string]int64{"SETTLE": 1 << 30, "LOCAL": 3, "SMALL": 0, "PROCS": 64}, 32, true},
	{map[string]int64{"SMALLB": 1, "LOCAL1": 3}, 0, true},
	{map[string]int64{"SMALLB": 1, "FRESH": 0, "SETTLE": 0}, 0, true},
}

// invariant keeps the lines of a program's output that no schedule
// changes: all but the iterations (and where they ran), the peak parallelism and the slots
// used.
func invariant(out string) string {
	var keep []string
	for _, line := range strings.SplitAfter(out, "\n") {
		if !strings.HasPrefix(line, "iterations") && !strings.HasPrefix(line, "peak parallelism: ") && !strings.HasPrefix(line, "store slots used: ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "")
}

// TestFreshThenFreed runs examples in a store just large enough for the
// paper's order of allocation, freed slots first (FRESH=0), where the
// default order must run out of fresh slots and go on with freed ones:
// the output must be the same, and every slot used.
func TestFreshThenFreed(t *testing.T) {
	for _, ex := range loadExamples(t) {
		if ex.name != "treemergesort" && ex.name != "mergesort" && ex.name != "fib" {
			continue
		}
		t.Run(ex.name, func(t *testing.T) {
			t.Parallel()
			m, err := trs.Lower(ex.load(t), trs.Options{Input: ex.input, Stats: true})
			if err != nil {
				t.Fatal(err)
			}
			lowered := lower(t, m)
			params := withDefaults(ex.args, map[string]int64{"CAPACITY": 1 << 16, "FRESH": 0})
			freedFirst := runModule(t, lowered, params, 0, false)
			var used int64
			for _, line := range strings.Split(freedFirst, "\n") {
				fmt.Sscanf(line, "store slots used: %d", &used)
			}
			if used == 0 || used == 1<<16 {
				t.Fatalf("FRESH=0 used %d slots of %d:\n%s", used, 1<<16, freedFirst)
			}
			for _, v := range variants[:2] {
				got := runModule(t, lowered, withDefaults(v.params, withDefaults(map[string]int64{"CAPACITY": used, "FRESH": 1}, params)), v.coop, false)
				if invariant(got) != invariant(freedFirst) || !strings.Contains(got, fmt.Sprintf("store slots used: %d\n", used)) {
					t.Errorf("with CAPACITY=%d and %v, FRESH=1 prints\n%s\nFRESH=0 prints\n%s", used, v.params, got, freedFirst)
				}
			}
		})
	}
}

// TestExamplesRace runs the small examples under the race checker, on
// both paths: the phases of an iteration must be free of data races
// (Note [Phases]).
func TestExamplesRace(t *testing.T) {
	for _, ex := range loadExamples(t) {
		if len(ex.out) > 400 || ex.name == "mergesort" || ex.name == "fib" || ex.name == "treemergesort" {
			continue
		}
		t.Run(ex.name, func(t *testing.T) {
			t.Parallel()
			m, err := trs.Lower(ex.load(t), trs.Options{Input: ex.input})
			if err != nil {
				t.Fatal(err)
			}
			lowered := lower(t, m)
			for _, v := range variants {
				params := withDefaults(v.params, withDefaults(ex.args, map[string]int64{"CAPACITY": 4096}))
				if got := runModule(t, m, params, 0, true); got != ex.out {
					t.Errorf("with %v prints\n%s\nwant\n%s", v.params, got, ex.out)
				}
				if got := runModule(t, lowered, params, v.coop, true); got != ex.out {
					t.Errorf("lowered, with %v and %d cooperative threads, prints\n%s\nwant\n%s", v.params, v.coop, got, ex.out)
				}
			}
		})
	}
}

// checkModule checks that a module verifies at the SPMD level and prints
// and parses back unchanged.
func checkModule(t *testing.T, m *ir.Module) {
	t.Helper()
	text := ir.Print(m)
	if err := ir.Verify(m, ir.SPMDLevel); err != nil {
		t.Fatalf("the module does not verify:\n%v", err)
	}
	back, err := kir.Parse(m.Name+".kir", []byte(text))
	if err != nil {
		t.Fatalf("the printed module does not parse: %v", err)
	}
	if again := ir.Print(back); again != text {
		t.Fatalf("the printed module does not print back the same")
	}
}

// lower returns a copy of m lowered by the default pipeline, verified
// after every pass.
func lower(t *testing.T, m *ir.Module) *ir.Module {
	t.Helper()
	c := ir.CloneModule(m)
	irtest.RunPasses(t, c, nil, "default")
	if c.Level() != ir.LaunchLevel {
		t.Fatal("the default pipeline left the module at the SPMD level")
	}
	return c
}

// runModule returns what the program prints on standard output followed
// by what it prints on standard error (the statistics).
func runModule(t *testing.T, m *ir.Module, params map[string]int64, coop int64, race bool) string {
	t.Helper()
	out, errOut := runStreams(t, m, params, coop, race)
	return out + errOut
}

// testDeviceMemory is the device memory that runStreams fits a store
// to where CAPACITY is not set: hundreds of thousands of slots, which
// every test term fits. The default, 256 MiB, fits 4.6 million slots,
// 35 MB a buffer in the interpreter, made and zeroed for each run.
const testDeviceMemory = 16 << 20

// runStreams returns the program's standard output and standard error.
func runStreams(t *testing.T, m *ir.Module, params map[string]int64, coop int64, race bool) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := interp.Run(m, interp.Config{Stdout: &out, Stderr: &errOut, Params: params, CoopThreads: coop, Race: race, Workers: 1, DeviceMemory: testDeviceMemory}); err != nil {
		t.Fatalf("run %v (race %v): %v\noutput:\n%s", params, race, err, out.String())
	}
	return out.String(), errOut.String()
}

// stats returns the statistics lines that follow the normal form.
func stats(t *testing.T, got, nf string) string {
	t.Helper()
	if !strings.HasPrefix(got, nf) {
		t.Fatalf("gpuc run prints\n%s\nwant first\n%s", got, nf)
	}
	return got[len(nf):]
}

func withDefaults(p, defaults map[string]int64) map[string]int64 {
	out := map[string]int64{}
	maps.Copy(out, defaults)
	maps.Copy(out, p)
	return out
}

// A walk that runs out of fuel deep in a chain of constructors leaves
// them waiting; the walk that finishes below settles them at once (Note
// [Settling]) rather than one per iteration. Plus over a number of 200
// with walks of 16 steps takes about 201/16 iterations, not 201.
func TestSettling(t *testing.T) {
	input := "plus(" + strings.Repeat("s(", 200) + "0" + strings.Repeat(")", 200) + ", 0)"
	sys, err := trs.Load("plus.trs", []byte("(VAR x y)\n(RULES\n  plus(0, y) -> y\n  plus(s(x), y) -> s(plus(x, y))\n)"), trs.Options{Input: input})
	if err != nil {
		t.Fatal(err)
	}
	m, err := trs.Lower(sys, trs.Options{Print: "summary", Stats: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		params map[string]int64
		race   bool
	}{
		{map[string]int64{"LOCAL": 16}, false},
		{map[string]int64{"LOCAL": 16}, true},
		{map[string]int64{"LOCAL": 16, "SMALL": 0, "PROCS": 8}, true},
	} {
		race := c.race
		out := runModule(t, m, c.params, 0, race)
		var iters int
		for _, line := range strings.Split(out, "\n") {
			fmt.Sscanf(line, "iterations: %d", &iters)
		}
		if !strings.Contains(out, "rewrites: 201\n") || iters == 0 || iters > 201/16+3 {
			t.Errorf("%v, race %v: %d iterations, want at most %d:\n%s", c.params, race, iters, 201/16+3, out)
		}
	}
}
