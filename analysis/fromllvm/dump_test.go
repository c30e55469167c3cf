package fromllvm

import (
	"flag"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/llir/llvm/asm"

	"gpuc/analysis/termination"
)

var (
	dumpFile    = flag.String("dump", "", "translate this kernel and print its systems")
	dumpAnalyze = flag.Bool("analyze", false, "with -dump: also print the verdicts")
	dumpBench   = flag.Bool("bench", false, "with -dump: print one BENCH line of times instead of the systems")
	dumpTrace   = flag.Bool("trace-smt", false, "with -dump: print the solver queries slower than 50ms to standard error")
	dumpWork    = flag.Int("work", 0, "with -dump: the engine's work budget in solver queries per system (0: its default)")
	dumpCPU     = flag.Duration("cpu", 0, "with -dump: the engine's solver processor-time budget per system (0: its default; negative: none)")
)

// TestDump prints the systems of -dump FILE, and with -analyze their verdicts; with -bench it
// prints "BENCH compile_ms translate_ms analyze_ms VERDICT LOOPS QUERIES CPU_MS UNITS" (CPU_MS:
// the processor time of translation and analysis, solver included; UNITS: the solver's resource
// units, Note [Solver work in resource units] in analysis/termination) for
// scripts/bench-termination.sh.
// A debugging and benchmarking aid: skipped without -dump.
func TestDump(t *testing.T) {
	if *dumpFile == "" {
		t.Skip("no -dump FILE")
	}
	t0 := time.Now()
	text, err := CompileFile(*dumpFile, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	cpu1 := cpuTime() // clang and opt have ended: their time is in
	m, err := asm.ParseString(*dumpFile, text)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := Translate(m, *dumpFile, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t2 := time.Now()
	var eng *termination.Engine
	if *dumpAnalyze || *dumpBench {
		cfg := termination.Config{Work: *dumpWork, CPU: *dumpCPU}
		if *dumpTrace {
			cfg.Trace = os.Stderr
		}
		if eng, err = termination.NewEngine(cfg); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if eng != nil {
				eng.Close()
			}
		}()
	}
	verdict, loops := "TRUE", 0
	for _, s := range ss {
		for _, l := range s.Locs {
			if l.LoopHead {
				loops++
			}
		}
		if !*dumpBench {
			fmt.Println(s)
		}
		if eng == nil {
			continue
		}
		start := time.Now()
		r := eng.Analyze(s)
		if !*dumpBench {
			fmt.Printf("%s [%.0f ms, %d queries]\n", r.Line(), ms(time.Since(start)), eng.Queries())
		}
		switch {
		case r.Verdict == termination.False:
			verdict = "FALSE"
		case r.Verdict == termination.Unknown && verdict == "TRUE":
			verdict = "UNKNOWN"
		}
	}
	t3 := time.Now()
	if *dumpBench {
		q, units := eng.Queries(), eng.Units()
		eng.Close() // the solver's time counts once it has ended
		eng = nil
		fmt.Printf("BENCH %.1f %.1f %.1f %s %d %d %.1f %d\n", ms(t1.Sub(t0)), ms(t2.Sub(t1)), ms(t3.Sub(t2)), verdict, loops, q, ms(cpuTime()-cpu1), units)
	}
}

// cpuTime is the processor time of this process and of its children that have ended (clang,
// opt, the solver), user and system: unlike the wall clock, it hardly depends on the load.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
