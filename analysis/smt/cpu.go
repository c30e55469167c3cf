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
		d += procCPU(s.cmd.Process.Pid)
	}
	return d
}

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// procCPU reads utime + stime of process pid from /proc; 0 where it cannot.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count fields after its closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(u+k) * clockTick
}
