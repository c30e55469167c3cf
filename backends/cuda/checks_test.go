package cuda

import (
	"strings"
	"testing"
)

// TestChecksFacts checks the device code's checks (Note [Checks] in
// package abi): each access and divisor of checks.kir's kernels is
// checked, each fault has its positioned format in the table, and
// NoChecks leaves them all out.
func TestChecksFacts(t *testing.T) {
	on, _ := emit(t, "testdata/checks.kir")
	for _, f := range []fact{
		{`data\[gpuc_idx(_go)?\(\(long long\)gpuc_add\(i, 1\), \(long long\)N, \d+\)\] = i;`, 1},
		{`gpuc_divisor(_go)?\((gpuc_sub|z)`, 2},
		{`"testdata/checks\.kir:\d+:\d+: error: index %lld out of range for buffer data of length %lld"`, -1},
		{`"testdata/checks\.kir:50:17: error: index %llu out of range for buffer data of length %lld"`, 1},
		{`"testdata/checks\.kir:34:20: error: integer division by zero"`, 1},
		{`harr\.at\(N, "testdata/checks\.kir:65:7"\) = 1;`, 1},
		{`gpuc_nonzero_at\(ZERO, "testdata/checks\.kir:71:24"\)`, 1},
		{`if \(!gpuc_checks_on\) gpuc_device_checks_off\(\);`, 1},
	} {
		checkFact(t, on, f)
	}
	off, _ := emitUnchecked(t, "testdata/checks.kir")
	for _, f := range []fact{
		{`gpuc_idx|gpuc_divisor|gpuc_device_fault|gpuc_checks`, 0},
		// Host code checks whatever --checks says.
		{`gpuc_nonzero_at\(ZERO, "testdata/checks\.kir:71:24"\)`, 1},
	} {
		checkFact(t, off, f)
	}
	if strings.Contains(off, "error: index %lld") {
		t.Errorf("NoChecks: the table still holds the faults' formats")
	}
}

// TestCoopFaultFacts checks the failing path of a check in a cooperative
// kernel (coop/fault.kir, whose cases gpu-check runs to their faults): the
// fault records and goes on, and the whole kernel stops with a trap after
// the next grid barrier, since the other threads would wait at the one
// after (Note [Going on after a fault] in package abi); a check that
// stops traps too (Note [Stopping in PTX]).
func TestCoopFaultFacts(t *testing.T) {
	on, _ := emit(t, "testdata/coop/fault.kir")
	for _, f := range []fact{
		{`int x = a\[gpuc_idx_go\(\(long long\)j, \(long long\)gpuc_mul\(G, B\), \d+\)\];`, 1},
		{`gpuc_grid_sync\(\);\n\s*gpuc_fault_halt\(\);`, 2},
		{`gpuc_fault_halt\(\);\n}`, 1}, // where the kernel ends
		{`\[\[noreturn\]\] __device__ __attribute__\(\(noinline\)\) void gpuc_device_fault`, 1},
		{`__trap\(\);`, 2},
		{`asm volatile\("exit;"\);`, 0},
	} {
		checkFact(t, on, f)
	}
}

// TestCheckPlacementFacts checks Note [Check placement] (package abi) in
// the CUDA program of hoist.kir: the kernel's counts, a guarded access
// without its check, and each hoisted loop emitted twice, the checked
// copy keeping gpuc_idx. TestHostTarget runs every case of it.
func TestCheckPlacementFacts(t *testing.T) {
	on, _ := emit(t, "testdata/hoist.kir")
	for _, f := range []fact{
		{`// fill: checks: 0 kept \(0 in loops\), 1 hoisted, 0 elided`, 1},
		{`// run: checks: 1 kept \(0 in loops\), 15 hoisted, 2 elided`, 1},
		{`data\[q\] = gpuc_add\(s, 1\);`, 1},
		{`out\[i\] = s;`, 1},
		{`s = gpuc_add\(s, data\[gpuc_add\(gpuc_add\(gpuc_mul\(i, N\), k\), 1\)\]\);`, 1},
		{`s = gpuc_add\(s, data\[gpuc_idx\(\(long long\)gpuc_add\(gpuc_add\(gpuc_mul\(i, N\), k\), 1\), \(long long\)gpuc_mul\(N, N\), \d+\)\]\);`, 1},
		{`gpuc_divisor\(gpuc_sub\(gpuc_add\(ZERO, c\), 4\), \d+\)`, 1},
	} {
		checkFact(t, on, f)
	}
}

// TestGoOnFacts checks the checks that go on (Note [Going on after a
// fault] in package abi) in goon.kir's program: gpuc_idx_go where every
// loop ends, gpuc_idx where a loop chases a loaded value or a function
// calls itself.
func TestGoOnFacts(t *testing.T) {
	on, _ := emit(t, "testdata/goon.kir")
	for _, f := range []fact{
		{`// (fuel|step|counted|rounds|twice): checks: [^\n]*, going on\n`, 5},
		{`// (chase|get|deep|recurse): checks: [^\n]*\d elided\n`, 4},
		{`return gpuc_rem\(a\[gpuc_idx_go\(\(long long\)i, \(long long\)N, \d+\)\], gpuc_divisor_go\(N, \d+\)\);`, 1},
		{`return a\[gpuc_idx\(\(long long\)i, \(long long\)N, \d+\)\];`, 1},
		{`__syncthreads\(\);\n\s*gpuc_fault_halt\(\);`, 2},
		{`gpuc_fault_halt\(\);`, 3}, // and where rounds ends
	} {
		checkFact(t, on, f)
	}
}
