package interp

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"gpuc/ir"
)

// check refuses configuration values that have no meaning, rather than
// reading them as their defaults: a negative count is a mistake.
func (c Config) check() error {
	switch {
	case c.Workers < 0:
		return fmt.Errorf("--workers=%d: want a number of goroutines, 0 for one a core", c.Workers)
	case c.CoopThreads < 0:
		return fmt.Errorf("--coop-threads=%d: want a number of threads, 0 for the default", c.CoopThreads)
	case c.MaxSteps < 0:
		return fmt.Errorf("--max-steps=%d: want a number of loop iterations, 0 for no limit", c.MaxSteps)
	case c.DeviceMemory < 0:
		return fmt.Errorf("--device-memory=%d: want a number of bytes, 0 for the default", c.DeviceMemory)
	}
	return nil
}

// Note [Step limit]
//
// Config.MaxSteps bounds the work of a run, so that a test harness or a
// fuzzer can bound every run, including one of a program whose loop never
// ends. It counts what can repeat straight-line code without bound: loop
// iterations, calls, and the threads and processors that launches and
// regions start. Each thread counts its iterations itself and
// adds them to the machine's atomic total a batch at a time, so that the
// threads do not contend for the total at every iteration; a team
// (processors that run a loop in step) adds its iterations at once. The
// run stops at the first batch that takes the total past MaxSteps, so a
// run may take up to a batch a thread more: the limit is for runs that
// never end, not an exact count. With MaxSteps 0 nothing is counted.

// stepBatch is the most iterations a thread counts before it adds them to
// the total; small limits count every iteration.
func (x *machine) stepBatch() int64 {
	if x.cfg.MaxSteps < 1<<20 {
		return 1
	}
	return 1024
}

// counted wraps a loop body so that each iteration counts (Note [Step
// limit]).
func (x *machine) counted(pos ir.Pos, body stmtFn) stmtFn {
	batch := x.stepBatch()
	return func(f *frame) ctl {
		if f.th.steps++; f.th.steps >= batch {
			f.th.steps = 0
			x.addSteps(pos, batch)
		}
		return body(f)
	}
}

// countedWide wraps the body of a team's loop so that each iteration
// counts once (Note [Step limit]).
func (x *machine) countedWide(pos ir.Pos, body wideFn) wideFn {
	return func(tm *team) {
		x.addSteps(pos, 1)
		body(tm)
	}
}

func (x *machine) addSteps(pos ir.Pos, n int64) {
	if x.steps.Add(n) > x.cfg.MaxSteps {
		fault(pos, "the run takes more than %d steps: loop iterations, calls and threads (--max-steps); it may not terminate", x.cfg.MaxSteps)
	}
}

// maxTeamBytes bounds the memory of the processors of a team, which a
// region with grid barriers or a cooperative launch allocates at once:
// Go cannot recover from running out of memory.
const maxTeamBytes = 4 << 30

// checkTeamMemory refuses a team of n processors with nslots registers
// each whose state would take more than maxTeamBytes, before allocation.
func checkTeamMemory(pos ir.Pos, what string, n int64, nslots int) {
	per := int64(unsafe.Sizeof(thread{})+unsafe.Sizeof(frame{})+unsafe.Sizeof(&frame{})+unsafe.Sizeof(status(0))) + 8*int64(nslots)
	if n > maxTeamBytes/per {
		fault(pos, "%s of %d processors needs %d MiB for their state, more than the interpreter's limit of %d MiB", what, n, n*per>>20, maxTeamBytes>>20)
	}
}

// Note [Bounded runs]
//
// A run can be bounded and watched (gpuc run --max-steps, --timeout, and
// progress on a terminal). A step is one launch, one iteration of a host
// loop, or one iteration of a loop that a region's whole group runs
// together (the fixpoint loops of TRS and CHR programs, Fork's loops with
// barriers): the coarse units of progress, counted on the host's side.
// They are what the progress line counts. Config.Timeout stops the run
// when the time is up: then every loop, in kernels and threads too,
// checks the stop flag at each iteration, so that a thread that never
// ends is stopped as well, with a positioned error at the loop or launch
// that found it. Config.MaxSteps counts finer units (Note [Step limit]). Config.Progress receives a
// status line (steps, the program's progress counters, elapsed time)
// every half second, each overwriting the last, and a blank one at the
// end; Config.Stats receives the same figures once the run ends.

// limits is what a machine keeps for Note [Bounded runs].
type limits struct {
	steps    atomic.Int64
	stopped  atomic.Bool
	start    time.Time
	counters []*counter
}

// counter is one of the program's progress counters (Note [Progress
// counters] in package ir) as of the last step.
type counter struct {
	name  string
	mem   *memory
	value atomic.Int64
}

// step counts a step at pos and stops the run if its time is up. Steps
// run on the host's side between the threads' work, so the counters are
// read here.
func (x *machine) step(pos ir.Pos) {
	x.lim.steps.Add(1)
	x.sample()
	x.checkStop(pos)
}

// sample reads the progress counters.
func (x *machine) sample() {
	for _, c := range x.lim.counters {
		if len(c.mem.data) > 0 {
			c.value.Store(int64(c.mem.data[0]))
		}
	}
}

// Stats are a run's statistics: its steps (Note [Bounded runs]), its time
// and the program's progress counters at the end, in declaration order.
type Stats struct {
	Steps    int64
	Elapsed  time.Duration
	Counters []Counter
}

// Counter is a progress counter's value.
type Counter struct {
	Name  string
	Value int64
}

// JSON is the statistics as one JSON object on a line, the "run" record
// of docs/TOOLKIT.md: {"gpuc": "run", "steps": N, "elapsed_ms": X,
// "counters": {"NAME": N, ...}}.
func (s Stats) JSON() string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"gpuc": "run", "steps": %d, "elapsed_ms": %.3f, "counters": {`, s.Steps, float64(s.Elapsed.Microseconds())/1e3)
	for i, c := range s.Counters {
		if i > 0 {
			b.WriteString(", ")
		}
		name, _ := json.Marshal(c.Name)
		fmt.Fprintf(&b, "%s: %d", name, c.Value)
	}
	b.WriteString("}}\n")
	return b.String()
}

func (x *machine) stats() Stats {
	x.sample()
	st := Stats{Steps: x.lim.steps.Load(), Elapsed: time.Since(x.lim.start)}
	for _, c := range x.lim.counters {
		st.Counters = append(st.Counters, Counter{c.name, c.value.Load()})
	}
	if w := x.world; w != nil {
		st.Counters = append(st.Counters, Counter{"local accesses", w.local.Load()}, Counter{"remote accesses", w.remote.Load()},
			Counter{"host reads", w.hostReads.Load()})
	}
	return st
}

// progressLine is the status line: steps, counters, elapsed time.
func (x *machine) progressLine() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gpuc run: %d steps", x.lim.steps.Load())
	for _, c := range x.lim.counters {
		fmt.Fprintf(&b, ", %d %s", c.value.Load(), c.name)
	}
	fmt.Fprintf(&b, ", %.1f s", time.Since(x.lim.start).Seconds())
	return b.String()
}

// checkStop stops the run at pos if its time is up.
func (x *machine) checkStop(pos ir.Pos) {
	if x.lim.stopped.Load() {
		fault(pos, "stopped after %s, the time limit (--timeout), at step %d", x.cfg.Timeout, x.lim.steps.Load())
	}
}

// watch starts the timer and the progress line; the returned function
// stops both.
func (x *machine) watch() func() {
	x.lim.start = time.Now()
	for _, b := range x.mod.Buffers {
		if m := x.mems[b.Name]; b.Progress != "" && m != nil {
			x.lim.counters = append(x.lim.counters, &counter{name: b.Progress, mem: m})
		}
	}
	var stops []func()
	if x.cfg.Timeout > 0 {
		t := time.AfterFunc(x.cfg.Timeout, func() { x.lim.stopped.Store(true) })
		stops = append(stops, func() { t.Stop() })
	}
	if w := x.cfg.Progress; w != nil {
		tick := time.NewTicker(500 * time.Millisecond)
		done := make(chan struct{})
		finished := make(chan struct{})
		shown := false
		go func() {
			defer close(finished)
			for {
				select {
				case <-tick.C:
					shown = true
					fmt.Fprintf(w, "\r%s\033[K", x.progressLine())
				case <-done:
					return
				}
			}
		}()
		stops = append(stops, func() {
			tick.Stop()
			close(done)
			<-finished
			if shown {
				fmt.Fprint(w, "\r\033[K")
			}
		})
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
