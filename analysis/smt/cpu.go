package smt

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// CPU gives the processor time (user and system) the solver's processes have used so far, as
// Linux's /proc reports it; 0 where it cannot be read. Unlike the wall clock, it hardly depends on
// the machine's load, so a budget of it gives the same verdicts on a loaded machine and an idle one.
func (s *Solver) CPU() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.cpuGone
	if s.cmd != nil && !s.dead {
		c, _ := procCPU(s.cmd.Process.Pid)
		d += c
	}
	return d
}

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// procCPU reads utime + stime of process pid from /proc; false where it cannot.
func procCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces: count fields after its closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+k) * clockTick, true
}

// Note [Processor-time limits]
// A wall-clock timeout cuts a query after the same time on an idle machine and on one whose load
// is ten times its cores, where the solver gets a tenth of the processor: the same query then
// answers on one and times out on the other, and a verdict that needs it changes with the load.
// With ByCPU, CheckWithin reads the solver process's processor time (/proc) every cpuPoll and
// kills the process once the query has used its limit; the next query starts a new one (each
// query runs in its own push/pop scope, so nothing is lost). The solver's own timeout is set to
// wallFactor times the limit, a backstop against a solver that hangs without using the
// processor. Where /proc cannot be read, the limit stays on the wall clock.

const (
	cpuPoll    = 10 * time.Millisecond
	wallFactor = 20
)

// Note [Resource units]
// Processor time does not depend on the load, but it does on the machine: the same queries take
// twice the time on a machine half as fast, and a budget of it gives different verdicts there.
// z3 counts its own work in resource units (rlimit: steps of its rewriter, SAT solver and
// theories), the same count for the same queries in the same order on any machine (a query cut
// at its limit was seen to stop one unit later in one run of two, which moves a total, not an
// answer). After each
// query CheckLimited reads the process's count (get-info :rlimit, one more round trip) and Units
// sums it over the processes that ran; a query's limit in units is set with set-option :rlimit
// (not scoped by push and pop, so it is set only where it changes), and z3 answers unknown
// when it is reached. A query killed at its processor-time limit counts its whole limit of
// units. cvc5 takes its per-query limit (rlimit-per) only on its command line and reports its
// count only in a dump of all its statistics, so HasUnits is false for it: the callers keep
// their limits on processor time there.
