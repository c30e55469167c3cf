package llvm_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gpuc/backends/llvm"
	"gpuc/ir"
)

// fakeDrivers builds the stand-in CUDA drivers under dir and returns the
// environment settings that load them as libcuda.so.1: testdata/nocuda.cpp,
// which finds no device, and testdata/fakecuda.cpp, whose device is the
// host.
func fakeDrivers(t *testing.T, cxx, dir string) (nocuda, fake string) {
	t.Helper()
	lib := func(name string) string {
		d := filepath.Join(dir, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		run(t, cxx, "-shared", "-fPIC", "-O1", "testdata/"+name+".cpp", "-o", filepath.Join(d, "libcuda.so.1"))
		return "LD_LIBRARY_PATH=" + d
	}
	return lib("nocuda"), lib("fakecuda")
}

// buildHybrid builds m's hybrid program (--emit=llvm-hybrid) under base
// against the stub cuda.h.
func buildHybrid(t *testing.T, clang, cxx, base string, m *ir.Module) string {
	t.Helper()
	stub, err := filepath.Abs("../cuda/testdata/driver")
	if err != nil {
		t.Fatal(err)
	}
	ll, err := llvm.Emit(m, llvm.Options{Target: llvm.Host})
	if err != nil {
		t.Fatal(err)
	}
	nv, err := llvm.Emit(m, llvm.Options{Target: llvm.NVPTX})
	if err != nil {
		t.Fatal(err)
	}
	ptx, err := llvm.PTX(nv)
	if err != nil {
		t.Fatal(err)
	}
	cpp, err := llvm.HybridProgram(m, llvm.Options{}, ptx)
	if err != nil {
		t.Fatal(err)
	}
	link(t, clang, cxx, base, ll, cpp, []string{"-rdynamic", "-I", stub}, "-lpthread", "-ldl")
	return base
}

// TestDetachedExit runs hybrid programs, which run in a child of the
// process that the caller sees (Note [Detached exit] in
// backends/cuda/detach.h), with and without GPUC_DETACH=0: the output,
// the errors and the exit status must be the same, and the interpreter's,
// for a normal end, --help, bad parameters, raises on the host and on the
// device, on no device and on the stand-in one, an input read from
// stdin. A driver whose teardown at exit takes 2 s must not hold up the
// detached program. SIGPIPE,
// SIGTERM to the visible process alone and SIGINT to the process group
// must end it as they end the attached one, the child included.
func TestDetachedExit(t *testing.T) {
	clang, cxx, _ := tool(t, "clang-16"), tool(t, "clang++-16", "g++"), tool(t, "llc-16")
	nocuda, fake := sharedDrivers(t, cxx)
	// Each run's check besides the attached run's: the interpreter's
	// output, --help's, or one error line.
	type check int
	const (
		interp check = iota
		help
		bad
	)
	for _, p := range []struct {
		path string
		runs map[string]check // the arguments, space-separated
	}{
		{"../../examples/trs/treemergesort.trs", map[string]check{"SMALL=2 HYBRIDITER=1": interp, "--help": help, "SMALL=x": bad, "NOPE=1": bad}},
		{"../cuda/testdata/raise_host.kir", map[string]check{"": interp, "LIMIT=100": interp}},
		{"../cuda/testdata/raise_device.kir", map[string]check{"": interp, "CAP=1000": interp}},
	} {
		name := strings.TrimSuffix(filepath.Base(p.path), filepath.Ext(p.path))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			exe := hybridBuild(t, clang, cxx, p.path)
			for line, c := range p.runs {
				args := strings.Fields(line)
				var want, wantErr string
				var wantStatus int
				if c == interp {
					want, wantErr, wantStatus = interpretErr(t, p.path, args)
				}
				for _, env := range [][]string{{nocuda}, {fake}, {fake, "HYBRID=0"}} {
					stdout, stderr, status := runExe(t, exe, args, env...)
					stdout0, stderr0, status0 := runExe(t, exe, args, append(env, "GPUC_DETACH=0")...)
					if stdout != stdout0 || stderr != stderr0 || status != status0 {
						t.Errorf("%v %v: detached exit %d, stderr %q; attached exit %d, stderr %q\ndetached:\n%s\nattached:\n%s",
							args, env, status, stderr, status0, stderr0, stdout, stdout0)
					}
					switch c {
					case interp:
						if stdout != want || status != wantStatus || status != 0 && stderr != wantErr {
							t.Errorf("%v %v: exit %d, want %d; stderr %q, want %q\ngot:\n%s\nwant:\n%s", args, env, status, wantStatus, stderr, wantErr, stdout, want)
						}
					case help:
						if status != 0 || !strings.Contains(stdout, "SMALL") {
							t.Errorf("--help: exit %d, prints %q", status, stdout)
						}
					case bad:
						if status != 1 || !strings.HasPrefix(stderr, "error: ") || strings.Count(stderr, "\n") != 1 {
							t.Errorf("%v: exit %d, stderr %q; want 1 and one error line", args, status, stderr)
						}
					}
				}
			}
			if name == "treemergesort" {
				checkTeardown(t, exe, fake)
			}
		})
	}
	t.Run("stdin", func(t *testing.T) {
		t.Parallel()
		// The child reads the caller's stdin: an input file given as
		// /dev/stdin.
		const data = "../cuda/testdata/"
		exe := hybridBuild(t, clang, cxx, data+"device.kir")
		want, _ := interpret(t, data+"device.kir", []string{"in=" + data + "device.in", "scale=" + data + "device.scale"})
		for _, detach := range []string{"1", "0"} {
			in, err := os.Open(data + "device.in")
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "in=/dev/stdin", "scale="+data+"device.scale")
			cmd.Env = append(os.Environ(), nocuda, "GPUC_DETACH="+detach)
			cmd.Stdin = in
			out, err := cmd.Output()
			in.Close()
			if err != nil || string(out) != want {
				t.Errorf("GPUC_DETACH=%s, in=/dev/stdin: %v\ngot:\n%s\nwant:\n%s", detach, err, out, want)
			}
		}
	})
	t.Run("signals", func(t *testing.T) {
		t.Parallel()
		// Far more output than a pipe holds.
		exe := hybridBuild(t, clang, cxx, "../../examples/kir/scan.kir")
		for _, detach := range []string{"1", "0"} {
			for _, sig := range []syscall.Signal{syscall.SIGPIPE, syscall.SIGTERM, syscall.SIGINT} {
				if got := signalled(t, []string{exe}, sig, nocuda, "GPUC_DETACH="+detach); got != sig {
					t.Errorf("GPUC_DETACH=%s, %v: the program ends with %v", detach, sig, got)
				}
			}
			// A caller that ignores SIGCHLD, which the program inherits.
			ignoring := []string{"bash", "-c", `trap "" CHLD; exec "$0" "$@"`, exe}
			if got := signalled(t, ignoring, syscall.SIGTERM, nocuda, "GPUC_DETACH="+detach); got != syscall.SIGTERM {
				t.Errorf("GPUC_DETACH=%s, SIGCHLD ignored, SIGTERM: the program ends with %v", detach, got)
			}
		}
	})
}

// signalled runs command (scan.kir's program, or a shell that becomes
// it) with N=4000000 and its output into a pipe, reads a byte of it, and
// then closes the pipe (SIGPIPE), sends sig to the process alone
// (SIGTERM) or to its process group (SIGINT), as a terminal's ^C does.
// It returns the signal that ended the process, or -1, and checks that
// every writer of the pipe, the detached child too, has ended.
func signalled(t *testing.T, command []string, sig syscall.Signal, env ...string) syscall.Signal {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(command[0], append(command[1:], "N=4000000")...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := io.ReadFull(r, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	switch sig {
	case syscall.SIGPIPE:
		r.Close()
	case syscall.SIGINT:
		syscall.Kill(-cmd.Process.Pid, sig)
	default:
		cmd.Process.Signal(sig)
	}
	drained := make(chan error, 1)
	if sig != syscall.SIGPIPE {
		go func() {
			_, err := io.Copy(io.Discard, r)
			drained <- err
		}()
	}
	cmd.Wait()
	if sig != syscall.SIGPIPE {
		select {
		case <-drained:
		case <-time.After(10 * time.Second):
			t.Errorf("%v: the output's pipe is still open 10 s after the program ended", sig)
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() {
		t.Logf("%v: exit %d, stderr %q", sig, ws.ExitStatus(), stderr.String())
		return -1
	}
	return ws.Signal()
}

// checkTeardown runs treemergesort's hybrid program exe on the stand-in
// device, whose teardown at exit takes 2 s: the detached run must not
// wait for it, the attached one does.
func checkTeardown(t *testing.T, exe, fake string) {
	want, _ := interpret(t, "../../examples/trs/treemergesort.trs", []string{"SMALL=2"})
	for _, detach := range []string{"1", "0"} {
		start := time.Now()
		stdout, stderr, status := runExe(t, exe, []string{"SMALL=2"}, fake, "HYBRID=0", "FAKECUDA_EXIT_MS=2000", "GPUC_DETACH="+detach)
		d := time.Since(start)
		if stdout != want || status != 0 {
			t.Errorf("GPUC_DETACH=%s: exit %d, stderr %q\ngot:\n%s\nwant:\n%s", detach, status, stderr, stdout, want)
		}
		if detach == "1" && d > 1500*time.Millisecond || detach == "0" && d < 2*time.Second {
			t.Errorf("GPUC_DETACH=%s: took %v with a teardown of 2 s", detach, d)
		}
	}
	if _, stderr, status := runExe(t, exe, nil, "GPUC_DETACH=2"); status != 1 || stderr != "error: GPUC_DETACH=2: want 0 or 1\n" {
		t.Errorf("GPUC_DETACH=2: exit %d, stderr %q", status, stderr)
	}
}
