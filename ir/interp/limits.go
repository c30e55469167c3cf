package interp

import (
	"fmt"
	"sync/atomic"
	"time"

	"gpuc/ir"
)

// Note [Bounded runs]
//
// A run can be bounded and watched (gpuc run --max-steps, --timeout, and
// progress on a terminal). A step is one launch, one iteration of a host
// loop, or one iteration of a loop that a region's whole group runs
// together (the fixpoint loops of TRS and CHR programs, Fork's loops with
// barriers): the coarse units of progress, counted on the host's side.
// Config.MaxSteps stops the run at the step after the last allowed one,
// Config.Timeout when the time is up: then every loop, in kernels and
// threads too, checks the stop flag at each iteration, so that a thread
// that never ends is stopped as well. Both stop with a positioned error
// at the loop or launch that found it. Config.Progress receives a
// status line (steps, elapsed time) every half second, each overwriting
// the last, and a blank one at the end.

// limits is what a machine keeps for Note [Bounded runs].
type limits struct {
	steps   atomic.Int64
	stopped atomic.Bool
	start   time.Time
}

// step counts a step at pos and stops the run past a limit.
func (x *machine) step(pos ir.Pos) {
	n := x.lim.steps.Add(1)
	if x.cfg.MaxSteps > 0 && n > x.cfg.MaxSteps {
		fault(pos, "stopped after %d steps (--max-steps)", x.cfg.MaxSteps)
	}
	x.checkStop(pos)
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
					fmt.Fprintf(w, "\rgpuc run: %d steps, %.1f s\033[K", x.lim.steps.Load(), time.Since(x.lim.start).Seconds())
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
