package llvm_test

import (
	"path/filepath"
	"strings"
	"testing"

	"gpuc/internal/driver"
	"gpuc/ir"
	"gpuc/passes"
)

// TestHostWorld builds TRS world programs (--world, Note [TRS on several
// devices] in frontends/trs) for the CPU, whose devices are the worker
// threads (Note [World on threads] in backends/abi), and runs them on 1,
// 2 and 3 workers, DEVICES following the workers, on 3 workers with
// DEVICES=2 and 5, and with the default's choice by measure: each must
// print what the one-device program prints in the interpreter, and the
// trace and statistics must be the same for every k. GPUC_POOL_MIN=0 has
// every launch go out on the pool. --capacity gives 32-bit slot ids to
// one and leaves the other with 64-bit ones (wideIDs in frontends/trs).
func TestHostWorld(t *testing.T) {
	clang := tool(t, "clang-16")
	cxx := tool(t, "clang++-16", "g++")
	dir := t.TempDir()
	for _, c := range []struct {
		path  string
		flags []string
	}{
		{"../../examples/trs/treemergesort.trs", []string{"--world", "--capacity=100000"}},
		{"../../examples/trs/transtree.trs", []string{"--world"}},
	} {
		p := program{path: c.path}
		t.Run(p.name(), func(t *testing.T) {
			t.Parallel()
			m, err := driver.Load(c.path, c.flags...)
			if err != nil {
				t.Fatal(err)
			}
			if m.Param(ir.DevicesParam) == nil {
				t.Fatalf("%v: no %s parameter: not a world program", c.flags, ir.DevicesParam)
			}
			if err := driver.Lower(m, []string{"default"}, &passes.Config{VerifyEach: true, GridSync: passes.GridSyncNever}); err != nil {
				t.Fatal(err)
			}
			exe := buildHost(t, clang, cxx, filepath.Join(dir, p.name()), m)
			want, _ := interpret(t, c.path, nil)
			args := []string{"CAPACITY=100000"}
			var first string
			for _, env := range [][]string{
				{"GPUC_THREADS=1"}, {"GPUC_THREADS=2"}, {"GPUC_THREADS=3"},
				{"GPUC_THREADS=3", "DEVICES=2"}, {"GPUC_THREADS=3", "DEVICES=5"}, {"GPUC_THREADS=1", "DEVICES=3"}, {},
			} {
				run, vars := []string{}, []string{"GPUC_POOL_MIN=0"}
				for _, e := range env {
					if strings.HasPrefix(e, "DEVICES=") {
						run = append(run, e)
					} else {
						vars = append(vars, e)
					}
				}
				stdout, stderr, status := runExe(t, exe, append(args[:len(args):len(args)], run...), vars...)
				if stdout != want || status != 0 {
					t.Errorf("%v: exit %d; stderr %q\ngot:\n%s\nwant:\n%s", env, status, stderr, stdout, want)
				}
				traced, stats, status := runExe(t, exe, append(append(args[:len(args):len(args)], run...), "TRACE=1", "STATS=1"), vars...)
				got := traced + stats
				if status != 0 || !strings.Contains(stats, "rewrites: ") {
					t.Errorf("%v TRACE=1 STATS=1: exit %d; stderr %q", env, status, stats)
				}
				if first == "" {
					first = got
				} else if got != first {
					t.Errorf("%v: trace and statistics\n%s\non one worker\n%s", env, got, first)
				}
			}
			if _, stderr, status := runExe(t, exe, append(args[:len(args):len(args)], "DEVICES=0")); status != 1 || !strings.Contains(stderr, "DEVICES=0: want at least 1") {
				t.Errorf("DEVICES=0: exit %d, stderr %q; want 1 and a message", status, stderr)
			}
		})
	}
}
