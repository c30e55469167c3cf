package llvm_test

import (
	"bytes"
	"errors"
	"fmt"
	"gpuc/backends/llvm"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gpuc/frontends/kir"
	"gpuc/internal/driver"
	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// Tests build every example and every test program of the backends with
// both targets. NVPTX modules must pass opt-16's verifier and compile
// with llc-16; host-target programs must print what the interpreter
// prints, with the same exit status. Where LLVM 16 or a C++ compiler is
// missing, as in a user's clone, those tests skip and say why; CI
// installs them (.ci/run).

// program is a source file and the command lines to run it with.
type program struct {
	path string
	runs [][]string // NAME=VALUE arguments, relative files resolved
	// tpdb: a rewrite system from the TPDB, built only in the long mode
	// (Note [Short mode] in internal/irtest).
	tpdb bool
}

// sweep skips p in short mode where it is a TPDB system.
func (p program) sweep(t *testing.T) {
	t.Helper()
	if p.tpdb {
		irtest.LongOnly(t, "a TPDB system; the TRS examples written for gpuc go through the same generator")
	}
}

func (p program) name() string {
	return strings.TrimSuffix(filepath.Base(p.path), filepath.Ext(p.path))
}

// programs lists the examples (with their .args files) and the programs
// in the backends' testdata.
func programs(t *testing.T) []program {
	t.Helper()
	var out []program
	glob := func(pattern string) []string {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	for _, ext := range []string{"kir", "fork", "trs", "chr"} {
		for _, f := range glob("../../examples/*/*." + ext) {
			args := []string{}
			if b, err := os.ReadFile(strings.TrimSuffix(f, "."+ext) + ".args"); err == nil {
				args = strings.Fields(string(b))
			}
			// TPDB names hold "__" (Rubio_04__enno; examples/trs/README.md).
			tpdb := ext == "trs" && strings.Contains(filepath.Base(f), "__")
			out = append(out, program{path: f, runs: [][]string{args}, tpdb: tpdb})
		}
	}
	cudaData := "../cuda/testdata/"
	special := map[string][][]string{
		"device": {{"in=" + cudaData + "device.in", "scale=" + cudaData + "device.scale"}},
		"spmd":   nil,
		"faults": nil,
		"fit":    {{}, {"M=5", "N=2"}},
	}
	for c := range 10 {
		special["faults"] = append(special["faults"], []string{"CASE=" + string(rune('0'+c))})
	}
	// CHECKS=0|1 is the programs' own (Note [Checks] in package abi).
	special["checks"] = [][]string{{"CASE=0", "CHECKS=0"}, {"CASE=3", "CHECKS=1"}}
	for c := range 13 {
		special["checks"] = append(special["checks"], []string{"CASE=" + strconv.Itoa(c)})
	}
	// Checks hoisted out of loops or elided still fail where the
	// interpreter does (Note [Check placement] in package abi).
	for c := range 12 {
		special["hoist"] = append(special["hoist"], []string{"CASE=" + strconv.Itoa(c)})
	}
	// Ids loaded from memory, checked at their first use only (Note
	// [Range facts] in package abi).
	for c := range 6 {
		special["facts"] = append(special["facts"], []string{"CASE=" + strconv.Itoa(c)})
	}
	// Reads inside a window whose end one test bounds (Note [Offset
	// facts] in package abi).
	for c := range 3 {
		special["offsets"] = append(special["offsets"], []string{"CASE=" + strconv.Itoa(c)})
	}
	// Writes into a buffer with a below bound, checked where not proven
	// (Note [Bounded buffers] in package ir).
	for c := range 7 {
		special["below"] = append(special["below"], []string{"CASE=" + strconv.Itoa(c)})
	}
	// A fault where the CUDA program's checks go on, then fail again
	// (Note [Going on after a fault] in package abi).
	special["goon"] = [][]string{{}}
	if b, err := os.ReadFile(cudaData + "goon.cases"); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			special["goon"] = append(special["goon"], strings.Fields(l))
		}
	}
	// Input files, good and bad: the errors and their positions are the
	// interpreter's.
	in := func(args ...string) []string {
		for i, a := range args {
			name, file, _ := strings.Cut(a, "=")
			at := strings.HasPrefix(file, "@")
			file = "testdata/inputs/" + strings.TrimPrefix(file, "@")
			if at {
				file = "@" + file
			}
			args[i] = name + "=" + file
		}
		return args
	}
	out = append(out, program{path: "testdata/inputs/inputs.kir", runs: [][]string{
		in("in=ok.txt", "flags=@flags.bin"), in("in=@three.bin", "flags=flags.txt"),
		in("in=few.txt", "flags=flags.txt"), in("in=many.txt", "flags=flags.txt"),
		in("in=float.txt", "flags=flags.txt"), in("in=range.txt", "flags=flags.txt"),
		in("in=@short.bin", "flags=flags.txt"), in("in=ok.txt", "flags=@badflag.bin"),
	}})
	for _, f := range append(glob(cudaData+"*.kir"), glob("testdata/*.kir")...) {
		p := program{path: f, runs: [][]string{{}}}
		if runs, ok := special[p.name()]; ok {
			p.runs = runs
		}
		if len(p.runs) > 0 {
			out = append(out, p)
		}
	}
	if len(out) < 12 {
		t.Fatalf("found only %d programs", len(out))
	}
	return out
}

// load reads a program and lowers it to the launch level, as `gpuc
// compile` does. A frontend that is not there yet skips the program.
func load(t *testing.T, path string) *ir.Module {
	t.Helper()
	m, err := driver.Load(path)
	if err != nil && strings.Contains(err.Error(), "not available yet") {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := driver.Lower(m, []string{"default"}, &passes.Config{VerifyEach: true, GridSync: passes.GridSyncNever}); err != nil {
		t.Fatal(err)
	}
	return m
}

// tool finds the first of names on PATH or skips the test.
func tool(t *testing.T, names ...string) string {
	t.Helper()
	p := llvm.FindTool(names...)
	if p == "" {
		t.Skipf("%s not found; install llvm-16 and clang-16", strings.Join(names, " or "))
	}
	return p
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
}

// TestNVPTX checks every program's NVPTX module with LLVM's verifier and
// compiles it for sm_90.
func TestNVPTX(t *testing.T) {
	opt, llc := tool(t, "opt-16"), tool(t, "llc-16")
	dir := t.TempDir()
	for _, p := range programs(t) {
		t.Run(p.name(), func(t *testing.T) {
			t.Parallel()
			p.sweep(t)
			out, err := llvm.Emit(load(t, p.path), llvm.Options{Target: llvm.NVPTX})
			if err != nil {
				t.Fatal(err)
			}
			ll := filepath.Join(dir, p.name()+".ll")
			if err := os.WriteFile(ll, out, 0o644); err != nil {
				t.Fatal(err)
			}
			run(t, opt, "-passes=verify", "-disable-output", ll)
			run(t, llc, "-march=nvptx64", "-mcpu=sm_90", ll, "-o", filepath.Join(dir, p.name()+".ptx"))
		})
	}
}

// TestHostTarget builds every program for the CPU, runs it and compares
// its output and exit status with the interpreter's. Every launch of two
// blocks and 1024 threads or more runs on a pool of two workers (Note
// [Blocks across cores]); TestHostPool runs some programs on one, three
// and eight, small launches included.
func TestHostTarget(t *testing.T) {
	clang := tool(t, "clang-16")
	cxx := tool(t, "clang++-16", "g++")
	for _, p := range programs(t) {
		t.Run(p.name(), func(t *testing.T) {
			t.Parallel()
			p.sweep(t)
			m := load(t, p.path)
			exe := hostBuild(t, clang, cxx, p.path, m)
			for _, args := range p.runs {
				want, wantErr, wantStatus := interpretErr(t, p.path, args)
				stdout, stderr, status := runExe(t, exe, args, "GPUC_THREADS=2", "GPUC_POOL_MIN=1024")
				if stdout != want || status != wantStatus {
					t.Errorf("%v: exit %d, want %d; stderr %q\ngot:\n%s\nwant:\n%s", args, status, wantStatus, stderr, stdout, want)
				}
				// Errors read as the interpreter's (Note [Checks] in
				// package abi).
				if status != 0 && stderr != wantErr {
					t.Errorf("%v: stderr %q, want %q", args, stderr, wantErr)
				}
				if !hybrid(m) {
					continue
				}
				// The moves of hybrid points (Note [Hybrid migration] in
				// backends/cuda/cpu.h) through the host's stand-in device.
				// HYBRIDITER=1 gives TRS a point at every iteration, and
				// SMALL=2 runs both its loops.
				for _, env := range [][]string{
					{"HYBRID=cpu"}, {"HYBRID=0"}, {"HYBRID_MIGRATE=every"},
					{"HYBRID_DEVICE=copy", "HYBRID_UP=2", "HYBRID_DOWN=2"},
					// The rule by time (Note [Migration by measured time]).
					{"HYBRID_DEVICE=copy", "HYBRID_UP=2"},
				} {
					stdout, stderr, status := runExe(t, exe, append(args[:len(args):len(args)], "SMALL=2", "HYBRIDITER=1"), env...)
					if stdout != want || status != wantStatus || status != 0 && stderr != wantErr {
						t.Errorf("%v %v: exit %d, want %d; stderr %q, want %q\ngot:\n%s\nwant:\n%s", args, env, status, wantStatus, stderr, wantErr, stdout, want)
					}
				}
				if status == 0 && strings.HasSuffix(p.path, ".trs") {
					checkSides(t, exe, args)
				}
			}
		})
	}
}

// checkSides runs a TRS program's host build with TRACE=1 and --stats on
// each side (Note [Where iterations ran] in frontends/trs): the trace's
// column on and the statistics' count of iterations on each side must
// agree, every iteration on the CPU with HYBRID=cpu, on the stand-in
// device with HYBRID=0, and both where the data moves at every point
// (the first iteration on the device, the second back on the CPU).
func checkSides(t *testing.T, exe string, args []string) {
	for _, c := range []struct {
		env      string
		cpu, gpu bool // iterations on each side: none (false) or some
	}{{"HYBRID=cpu", true, false}, {"HYBRID=0", false, true}, {"HYBRID_MIGRATE=every", true, true}} {
		stdout, stderr, status := runExe(t, exe, append(args[:len(args):len(args)], "SMALL=2", "HYBRIDITER=1", "TRACE=1", "STATS=1", "TRACECAP=100000"), c.env)
		if status != 0 {
			t.Errorf("%v %s: exit %d; stderr %q", args, c.env, status, stderr)
			continue
		}
		var rows [2]int // iterations on the CPU and the GPU, from the trace
		for _, line := range strings.Split(stdout, "\n") {
			switch {
			case strings.HasSuffix(line, ",cpu"):
				rows[0]++
			case strings.HasSuffix(line, ",gpu"):
				rows[1]++
			}
		}
		var iters, cpu, gpu int
		for _, line := range strings.Split(stderr, "\n") {
			fmt.Sscanf(line, "iterations: %d", &iters)
			fmt.Sscanf(line, "iterations on the CPU: %d, on the GPU: %d", &cpu, &gpu)
		}
		if cpu != rows[0] || gpu != rows[1] || cpu+gpu != iters || (cpu > 0) != (c.cpu && (iters > 1 || !c.gpu)) || (gpu > 0) != c.gpu {
			t.Errorf("%v %s: %d iterations, %d on the CPU and %d on the GPU; the trace has %d and %d; want some on the CPU %v, on the GPU %v\nstderr:\n%s",
				args, c.env, iters, cpu, gpu, rows[0], rows[1], c.cpu, c.gpu, stderr)
		}
	}
}

// hybrid reports whether m's host program has a hybrid point.
func hybrid(m *ir.Module) bool {
	for _, f := range m.Funcs {
		if f.Kind == ir.HostFunc && ir.AnyExprIn(f.Body, func(e ir.Expr) bool {
			b, ok := e.(*ir.Builtin)
			return ok && b.Op == ir.Hybrid
		}) {
			return true
		}
	}
	return false
}

// TestHostPool runs host-target programs on worker pools of several
// sizes, and with the default's choice by measure, small launches
// included (Note [Blocks across cores]): the output and exit status must be
// the interpreter's, the first raise in block order included. The
// compiled raise_order waits longer than the interpreted one for a later
// block to raise first, which changes nothing that it prints.
func TestHostPool(t *testing.T) {
	clang := tool(t, "clang-16")
	cxx := tool(t, "clang++-16", "g++")
	for _, p := range []program{
		{path: "testdata/raise_order.kir", runs: [][]string{{}, {"FIRST=0"}, {"FIRST=200"}}},
		{path: "../cuda/testdata/shared.kir", runs: [][]string{{"N=5000"}}},
		{path: "../../examples/kir/scan.kir", runs: [][]string{{}}},
		{path: "../../examples/trs/treemergesort.trs", runs: [][]string{{}}},
	} {
		t.Run(p.name(), func(t *testing.T) {
			t.Parallel()
			exe := hostBuild(t, clang, cxx, p.path, nil)
			bad := exec.Command(exe)
			bad.Env = append(os.Environ(), "GPUC_THREADS=-1")
			if out, err := bad.Output(); err == nil || len(out) > 0 {
				t.Errorf("GPUC_THREADS=-1: %v, prints %q; want exit 1 before any output", err, out)
			}
			for _, args := range p.runs {
				want, wantErr, wantStatus := interpretErr(t, p.path, args)
				wantErr = strings.TrimSuffix(wantErr, "\n")
				// "": GPUC_THREADS unset, every core, and each launch site
				// choosing between one worker and all by measure (Note [Pool
				// by measure] in backends/cuda/cpu.h), so that launches run
				// both ways in turn.
				for _, threads := range []string{"1", "3", "8", "0", ""} {
					if p.name() == "raise_order" && threads != "1" {
						args = append(args[:len(args):len(args)], "WORK=100000000")
					}
					env := []string{"GPUC_THREADS=" + threads, "GPUC_POOL_MIN=0"}
					if threads == "" {
						if _, set := os.LookupEnv("GPUC_THREADS"); set {
							continue
						}
						env = env[1:]
					}
					stdout, stderr, status := runExe(t, exe, args, env...)
					if stdout != want || status != wantStatus || !strings.Contains(stderr, wantErr) {
						t.Errorf("%v GPUC_THREADS=%s: exit %d, want %d; stderr %q, want %q\ngot:\n%s\nwant:\n%s",
							args, threads, status, wantStatus, stderr, wantErr, stdout, want)
					}
				}
			}
		})
	}
}

// TestHybridDrivers builds hybrid programs (--emit=llvm-hybrid) against
// the stub cuda.h and runs them with no CUDA driver, with one that finds
// no device (testdata/nocuda.cpp as libcuda.so.1), and with one whose
// device is the host (testdata/fakecuda.cpp), which runs the GPU side:
// launches through cuLaunchKernel, moves through the driver's copies,
// the device's summary. They must print what the interpreter prints, say
// so where HYBRID=0 asks for a GPU that is not there, and not wait for a
// CUDA start that takes 20 seconds (Note [Hybrid migration] in
// backends/cuda/hybrid.h).
func TestHybridDrivers(t *testing.T) {
	clang, cxx, _ := tool(t, "clang-16"), tool(t, "clang++-16", "g++"), tool(t, "llc-16")
	nocuda, fake := sharedDrivers(t, cxx)
	for _, path := range []string{"../../examples/trs/treemergesort.trs"} {
		p := program{path: path}
		t.Run(p.name(), func(t *testing.T) {
			t.Parallel()
			base := hybridBuild(t, clang, cxx, path)
			want, _ := interpret(t, path, nil)
			for _, env := range [][]string{
				{}, {"HYBRID=cpu"}, {"HYBRID_MIGRATE=every"},
				{nocuda}, {nocuda, "HYBRID_MIGRATE=every"}, {nocuda, "NOCUDA_MS=20000"},
				{fake}, {fake, "HYBRID=0"}, {fake, "HYBRID_MIGRATE=every"}, {fake, "HYBRID=cpu"},
				{fake, "FAKECUDA_JIT_FAIL=1"}, {fake, "FAKECUDA_JIT_FAIL=1", "HYBRID_MIGRATE=every"},
				{fake, "HYBRID_UP=2", "HYBRID_START_MS=0"}, {fake, "HYBRID_UP=2", "HYBRID_START_MS=0", "HYBRID_RULE=time"},
				{fake, "HYBRID_UP=2", "HYBRID_START_MS=0", "FAKECUDA_LAUNCH_US=300"},
			} {
				start := time.Now()
				stdout, stderr, status := runExe(t, base, []string{"SMALL=2", "HYBRIDITER=1"}, env...)
				if stdout != want || status != 0 {
					t.Errorf("%v: exit %d; stderr %q\ngot:\n%s\nwant:\n%s", env, status, stderr, stdout, want)
				}
				// The rule by time measures the host and the stand-in
				// device; on a loaded machine it may keep the run on the
				// stand-in (38 s once, 2 s alone, 2026-11-27): bytes only.
				if d := time.Since(start); d > 10*time.Second && env[len(env)-1] != "HYBRID_RULE=time" {
					t.Errorf("%v: took %v: waited for the CUDA context", env, d)
				}
			}
			// Note [Context on demand]: no point asks for the device and
			// the run is shorter than HYBRID_START_MS, so the driver is
			// never loaded; with HYBRID=0 it is.
			logs := t.TempDir()
			for i, env := range [][]string{
				{nocuda, "HYBRID_UP=1099511627776", "HYBRID_START_MS=1000000"},
				{nocuda, "HYBRID=0"},
			} {
				log := filepath.Join(logs, fmt.Sprintf("%s-cuinit-%d", p.name(), i))
				runExe(t, base, []string{"SMALL=2", "HYBRIDITER=1"}, append(env, "NOCUDA_LOG="+log)...)
				if _, err := os.Stat(log); (err == nil) != (i == 1) {
					t.Errorf("%v: cuInit called: %v, want %v", env, err == nil, i == 1)
				}
			}
			for _, env := range [][]string{{"HYBRID=0"}, {nocuda, "HYBRID=0"}} {
				if _, stderr, status := runExe(t, base, nil, env...); status != 1 || !strings.Contains(stderr, "error: HYBRID=0: no CUDA device") {
					t.Errorf("%v: exit %d, stderr %q; want 1 and no CUDA device", env, status, stderr)
				}
			}
			// Note [A device that fails to start]: the run goes on on
			// the host (above) and --time says why, once the program
			// waited for the device (HYBRID_MIGRATE); HYBRID=0 fails
			// with the reason and the compiler's log.
			if _, stderr, status := runExe(t, base, []string{"SMALL=2", "HYBRIDITER=1", "--time"}, fake, "FAKECUDA_JIT_FAIL=1", "HYBRID_MIGRATE=every"); status != 0 || !strings.Contains(stderr, "gpuc: hybrid: the device was not used: cuModuleLoadDataEx: fakecuda: unsupported") {
				t.Errorf("a refused PTX, --time: exit %d, stderr %q", status, stderr)
			}
			if _, stderr, status := runExe(t, base, nil, fake, "FAKECUDA_JIT_FAIL=1", "HYBRID=0"); status != 1 ||
				!strings.Contains(stderr, "error: HYBRID=0: the CUDA device cannot run the program: cuModuleLoadDataEx: fakecuda: unsupported") || !strings.Contains(stderr, "fakecuda refuses the PTX") {
				t.Errorf("a refused PTX, HYBRID=0: exit %d, stderr %q", status, stderr)
			}
		})
	}
}

// TestHostFit runs a CPU program whose parameter M is fitted to a
// thousandth of the free memory (Note [Fitted parameters] in package ir):
// --time reports the value it picked, which must be about a thousandth of
// the memory that /proc/meminfo says is available.
func TestHostFit(t *testing.T) {
	clang := tool(t, "clang-16")
	cxx := tool(t, "clang++-16", "g++")
	exe := hostBuild(t, clang, cxx, "../cuda/testdata/fit.kir", nil)
	cmd := exec.Command(exe, "--time")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "N=8, M below its default: 1, last element ok: 1\n") {
		t.Errorf("prints\n%s", stdout.String())
	}
	match := regexp.MustCompile(`gpuc: M=(\d+) fitted to 0\.001 of [0-9.]+ GiB of free device memory`).FindStringSubmatch(stderr.String())
	if match == nil {
		t.Fatalf("--time does not report M:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "gpuc: N=8 fitted to 0.5 of ") {
		t.Errorf("--time does not report N:\n%s", stderr.String())
	}
	m, _ := strconv.ParseInt(match[1], 10, 64)
	if m <= 1 || m >= 1e15 {
		t.Fatalf("M=%d: not fitted", m)
	}
	meminfo, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return
	}
	avail := regexp.MustCompile(`(?m)^MemAvailable:\s+(\d+) kB$`).FindSubmatch(meminfo)
	if avail == nil {
		return
	}
	kib, _ := strconv.ParseFloat(string(avail[1]), 64)
	if want := kib * 1024 / 1000; float64(m) < want/2 || float64(m) > want*2 {
		t.Errorf("M=%d, want about %.0f, a thousandth of the available memory", m, want)
	}
}

// link writes a host-target module and its host program under base and
// builds them into the executable base, with flags before the sources and
// libs after them.
func link(t *testing.T, clang, cxx, base string, ll, cpp []byte, flags []string, libs ...string) {
	t.Helper()
	if err := os.WriteFile(base+".ll", ll, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+".cpp", cpp, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, clang, "-O2", "-Wno-override-module", "-c", base+".ll", "-o", base+".o")
	// The host program at -O0: clang's warnings do not depend on the level,
	// the kernels (the backend's code) are built at -O2 as gpuc build does,
	// and -O1 took twice the processor time on the host program.
	args := append([]string{"-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror"}, flags...)
	args = append(append(args, base+".cpp", base+".o"), libs...)
	run(t, cxx, append(args, "-o", base)...)
}

// buildHost writes m's host-target module and host program under base
// and builds them into an executable.
func buildHost(t *testing.T, clang, cxx, base string, m *ir.Module) string {
	t.Helper()
	ll, err := llvm.Emit(m, llvm.Options{Target: llvm.Host})
	if err != nil {
		t.Fatal(err)
	}
	cpp, err := llvm.HostProgram(m, llvm.Options{Target: llvm.Host}, nil)
	if err != nil {
		t.Fatal(err)
	}
	link(t, clang, cxx, base, ll, cpp, nil)
	return base
}

// interpret runs the program in the interpreter, as `gpuc run` does.
func interpret(t *testing.T, path string, args []string) (string, int) {
	t.Helper()
	out, _, status := interpretErr(t, path, args)
	return out, status
}

// interpretErr is interpret that also returns the error line that `gpuc
// run` prints, if any.
func interpretErr(t *testing.T, path string, args []string) (string, string, int) {
	t.Helper()
	m, err := driver.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	args = slices.DeleteFunc(slices.Clone(args), func(a string) bool { return strings.HasPrefix(a, "CHECKS=") })
	b, err := driver.Bind(m, args)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := interp.Run(m, interp.Config{Stdout: &out, Params: b.Params, Inputs: b.Inputs}); err != nil {
		var raise *interp.RaiseError
		if errors.As(err, &raise) {
			return out.String(), "error: " + raise.Msg + "\n", 1
		}
		return out.String(), err.Error() + "\n", 1
	}
	return out.String(), "", 0
}

// fact is a regular expression and how many times it must match a
// module (-1: at least once).
type fact struct {
	re   string
	want int
}

func checkFacts(t *testing.T, text string, facts []fact) {
	t.Helper()
	for _, f := range facts {
		n := len(regexp.MustCompile(f.re).FindAllStringIndex(text, -1))
		if f.want < 0 && n == 0 || f.want >= 0 && n != f.want {
			t.Errorf("%s: %d matches, want %d", f.re, n, f.want)
		}
	}
}

func emitFile(t *testing.T, path string, target llvm.Target) string {
	t.Helper()
	return emitFileWith(t, path, llvm.Options{Target: target, NoChecks: true})
}

// emitFileWith is emitFile with options; emitFile leaves the checks out,
// whose branches the facts of other constructs do not count.
func emitFileWith(t *testing.T, path string, opts llvm.Options) string {
	t.Helper()
	m := irtest.ParseFile(t, path)
	if err := ir.Verify(m, ir.LaunchLevel); err != nil {
		t.Fatal(err)
	}
	out, err := llvm.Emit(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestChecksFacts checks the checks of indices and divisors (Note
// [Checks] in package abi) in both targets' modules: an unsigned compare
// with the length per access, a compare with zero per divisor, the first
// fault's values stored, and the checks word read only on the way to a
// fault.
func TestChecksFacts(t *testing.T) {
	for _, tgt := range []llvm.Target{llvm.NVPTX, llvm.Host} {
		text := emitFileWith(t, "../cuda/testdata/checks.kir", llvm.Options{Target: tgt})
		checkFacts(t, text, []fact{
			{`icmp uge i64`, -1},
			{`@gpuc_error_values = `, 1},
			{`@gpuc_checks = .*i32 1`, 1},
			{`getelementptr \[2 x i64\], \[2 x i64\]( addrspace\(1\))?\* @gpuc_error_values, i64 0, i64 1`, -1},
			{`cmpxchg i32( addrspace\(1\))?\* @gpuc_error,`, -1},
		})
		if !strings.Contains(text, "fault.on") {
			t.Errorf("%s: no fault blocks", tgt)
		}
		off := emitFileWith(t, "../cuda/testdata/checks.kir", llvm.Options{Target: tgt, NoChecks: true})
		checkFacts(t, off, []fact{{`gpuc_error_values|gpuc_checks|fault\.on`, 0}})
	}
}

// TestNVPTXFacts checks the structure of NVPTX modules: entries, address
// spaces, intrinsics and atomics, and no fast-math flags anywhere.
func TestNVPTXFacts(t *testing.T) {
	tests := []struct {
		file  string
		facts []fact
	}{
		{"../../examples/kir/scan.kir", []fact{
			{`target triple = "nvptx64-nvidia-cuda"`, 1},
			{`(?m)^!nvvm.annotations = !\{!0, !1, !2, !3\}$`, 1},
			{`!\{void \(i32 addrspace\(1\)\*, i32\)\* @gpuc_kernel_init, !"kernel", i32 1\}`, 1},
			// The largest block each kernel is launched with: llc's register budget.
			{`!\{void \(i32 addrspace\(1\)\*, i32\)\* @gpuc_kernel_init, !"maxntidx", i32 256\}`, 1},
			{`@gpuc_smem = external addrspace\(3\) global \[0 x i8\], align 16`, 1},
			{`bitcast i8 addrspace\(3\)\* %\d+ to i32 addrspace\(3\)\*`, 2}, // tmp, and words to zero
			{`call void @llvm\.nvvm\.barrier0\(\)`, 4},                      // three barriers and the zeroing of shared memory
			{`@llvm\.nvvm\.read\.ptx\.sreg\.tid\.x\(\)`, -1},
		}},
		{"../../examples/kir/histogram.kir", []fact{
			{`atomicrmw add i32 addrspace\(3\)\* %\d+, i32 1 monotonic`, 1},
			{`atomicrmw add i32 addrspace\(1\)\* %\d+, i32 %\d+ monotonic`, 1},
			{`define internal i32 @gpuc_func_hash\(i32 %x\)`, 1},
		}},
		{"../cuda/testdata/device.kir", []fact{
			{`@gpuc_const_table = addrspace\(4\) global \[4 x i8\] zeroinitializer`, 1},
			{`getelementptr \[4 x i8\], \[4 x i8\] addrspace\(4\)\* @gpuc_const_table`, -1},
			{`atomicrmw fadd float addrspace\(1\)\*`, 2}, // add and sub
			{`atomicrmw (sub|min|max|umax|and|or|xor|xchg) `, 13},
			{`cmpxchg i64 addrspace\(1\)\*`, 1},
			{`cmpxchg i32 addrspace\(1\)\* %\d+, i32 %\d+, i32 %\d+ monotonic monotonic`, 1}, // atomic inc
			{`call i32 @gpuc_func_gcd\(`, 2},
		}},
		{"../cuda/testdata/raise_device.kir", []fact{
			{`cmpxchg i32 addrspace\(1\)\* @gpuc_error, i32 0, i32 1 monotonic monotonic`, 1},
			{`call void asm sideeffect "exit;", ""\(\)`, 1},
		}},
		{"testdata/scalars.kir", []fact{
			{`@llvm\.fptosi\.sat\.i32\.f64\(`, -1},
			{`@llvm\.fptoui\.sat\.i8\.f64\(`, -1},
			{`\b(fast|contract|reassoc|nnan|ninf|nsw|nuw)\b`, 0},
		}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			checkFacts(t, emitFile(t, tt.file, llvm.NVPTX), tt.facts)
		})
	}
}

// TestHostFacts checks the host target's kernels: functions that loop
// over blocks and threads, split at barriers, with no GPU intrinsics.
func TestHostFacts(t *testing.T) {
	scan := emitFile(t, "../../examples/kir/scan.kir", llvm.Host)
	checkFacts(t, scan, []fact{
		{`target triple`, 0},
		{`define i32 @gpuc_kernel_scan\(i32 %gpuc_grid, i32 %gpuc_block, i8\* %gpuc_shared, i32 %gpuc_lo, i32 %gpuc_hi, i32\* %data, i32 %N, i32 %B\)`, 1},
		{`@gpuc_(error|tid|bid|bdim|gdim) = .*thread_local\(initialexec\)`, 5},
		{`nvvm|addrspace`, 0},
		{`alloca i32, i32 %gpuc_block`, -1}, // locals live across barriers
		{`alloca i8, i32 %gpuc_block`, 1},   // the threads' statuses
		{`call void @llvm\.memset\.p0i8\.i64\(i8\* %gpuc_shared, i8 0, i64 %\d+, i1 false\)`, 1},
	})
	vecadd := emitFile(t, "../../examples/kir/vecadd.kir", llvm.Host)
	checkFacts(t, vecadd, []fact{
		{`alloca i8, i32 %gpuc_block`, 0}, // no barriers: one loop over the threads
		{`atomicrmw fadd double\* %\d+, double %\d+ monotonic`, 1},
	})
}

// TestRejects checks that Emit returns positioned errors, and does not
// panic, for modules it cannot compile.
func TestRejects(t *testing.T) {
	src, err := os.ReadFile("../cuda/testdata/spmd.kir")
	if err != nil {
		t.Fatal(err)
	}
	m, err := kir.Parse("spmd.kir", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []llvm.Target{llvm.NVPTX, llvm.Host} {
		_, err := llvm.Emit(m, llvm.Options{Target: target})
		if err == nil || !strings.Contains(err.Error(), "spmd.kir:9:3: error: llvm: region is SPMD-level") {
			t.Errorf("%s: error %v, want the region reported", target, err)
		}
	}
	if _, err := llvm.Emit(nil, llvm.Options{}); err == nil {
		t.Error("Emit(nil) succeeded")
	}
	if _, err := llvm.HostProgram(m, llvm.Options{Target: llvm.NVPTX}, nil); err == nil {
		t.Error("HostProgram without PTX succeeded")
	}
}

// runExe runs exe with args and env added to the environment, and returns
// its output and exit status.
func runExe(t *testing.T, exe string, args []string, env ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	var exit *exec.ExitError
	if err := cmd.Run(); errors.As(err, &exit) {
		status = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), status
}
