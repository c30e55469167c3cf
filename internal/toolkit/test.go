package toolkit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Note [gpuc test]
//
// `gpuc test FILES...` runs users' programs as `futhark test` does. A
// program's cases come from a comment block in it, lines of line comments
// (//, % or #) in this form:
//
//	// test: N=10 data=in.txt
//	// 55
//	// test: N=0
//	// error: integer division by zero
//
// Each "test:" line starts a case with its arguments; the comment lines
// after it, up to the next case or the first line that is not a comment,
// are its expected standard output (a bare comment marker is an empty
// line), or, as one line "error: TEXT", an expected failure: exit status
// 1 with TEXT in the error. Without such a block, FILE's stem plus .out
// is the expected output of a run with the arguments of stem.args, if it
// exists. Each case runs in the interpreter (gpuc run) and, unless that
// is off, natively (Cached), in the program's directory, and both must
// meet the expectation and agree with each other.

// Case is one test of a program.
type Case struct {
	Args   []string
	Stdout string // expected standard output
	Error  string // expected error text, "" if the run must succeed
	Line   int    // where the case starts in the program, 0 for a .out file
}

// Cases reads the cases of program file.
func Cases(file string) ([]Case, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var cases []Case
	var cur *Case
	var out []string
	flush := func() {
		if cur != nil {
			if len(out) == 1 && strings.HasPrefix(out[0], "error: ") {
				cur.Error = strings.TrimPrefix(out[0], "error: ")
			} else if len(out) > 0 {
				cur.Stdout = strings.Join(out, "\n") + "\n"
			}
			cases = append(cases, *cur)
		}
		cur, out = nil, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		body, isComment := commentBody(sc.Text())
		switch {
		case isComment && strings.HasPrefix(body, "test:"):
			flush()
			cur = &Case{Args: strings.Fields(strings.TrimPrefix(body, "test:")), Line: n}
		case isComment && cur != nil:
			out = append(out, body)
		default:
			flush()
		}
	}
	flush()
	if len(cases) > 0 {
		return cases, nil
	}
	stem := strings.TrimSuffix(file, filepath.Ext(file))
	want, err := os.ReadFile(stem + ".out")
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: no test cases: no \"test:\" comment block and no %s", file, filepath.Base(stem)+".out")
	} else if err != nil {
		return nil, err
	}
	c := Case{Stdout: string(want)}
	if b, err := os.ReadFile(stem + ".args"); err == nil {
		c.Args = strings.Fields(string(b))
	}
	return []Case{c}, nil
}

// commentBody returns a line comment's text after its marker and one
// space.
func commentBody(line string) (string, bool) {
	t := strings.TrimSpace(line)
	for _, m := range []string{"//", "%", "#"} {
		if strings.HasPrefix(t, m) {
			b := strings.TrimPrefix(t, m)
			return strings.TrimPrefix(b, " "), true
		}
	}
	return "", false
}

// Result is what one run printed.
type Result struct {
	Stdout, Stderr string
	Status         int
}

// RunProgram runs an executable in dir with args.
func RunProgram(dir, exe string, args []string) (Result, error) {
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r := Result{}
	var ee *exec.ExitError
	if err := cmd.Run(); errors.As(err, &ee) {
		r.Status = ee.ExitCode()
	} else if err != nil {
		return r, err
	}
	r.Stdout, r.Stderr = stdout.String(), stderr.String()
	return r, nil
}

// check compares a run with the case.
func (c Case) check(r Result) string {
	switch {
	case c.Error == "" && r.Status != 0:
		return fmt.Sprintf("exit status %d: %s", r.Status, strings.TrimSpace(r.Stderr))
	case c.Error != "" && r.Status != 1:
		return fmt.Sprintf("exit status %d, want 1 with error %q", r.Status, c.Error)
	case c.Error != "" && !strings.Contains(r.Stderr, c.Error):
		return fmt.Sprintf("error %q, want one with %q", strings.TrimSpace(r.Stderr), c.Error)
	case c.Error == "" && r.Stdout != c.Stdout:
		return "output differs:\n" + diffLines(c.Stdout, r.Stdout)
	}
	return ""
}

// diffLines shows the first lines where want and got differ.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 5; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "  line %d: got %q, want %q\n", i+1, gl, wl)
			shown++
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// TestOptions say how gpuc test runs.
type TestOptions struct {
	Build  Options
	Native bool   // also run natively
	Gpuc   string // the gpuc executable that runs the interpreter
}

// Test runs every case of every file and prints a line per case and a
// summary line, "N passed, N failed"; it returns the number that failed.
func Test(w io.Writer, files []string, o TestOptions) int {
	passed, failed := 0, 0
	fail := func(where, why string) {
		fmt.Fprintf(w, "FAIL %s: %s\n", where, why)
		failed++
	}
	for _, file := range files {
		cases, err := Cases(file)
		if err != nil {
			fail(file, err.Error())
			continue
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			fail(file, err.Error())
			continue
		}
		dir := filepath.Dir(abs)
		var exe string
		if o.Native {
			if exe, _, err = Cached(abs, o.Build); err != nil {
				fail(file, "native build: "+err.Error())
				continue
			}
		}
		for _, c := range cases {
			where := file
			if c.Line > 0 {
				where = fmt.Sprintf("%s:%d", file, c.Line)
			}
			if len(c.Args) > 0 {
				where += " [" + strings.Join(c.Args, " ") + "]"
			}
			ref, err := RunProgram(dir, o.Gpuc, append([]string{"run", abs}, c.Args...))
			if err != nil {
				fail(where, err.Error())
				continue
			}
			if why := c.check(ref); why != "" {
				fail(where, "gpuc run: "+why)
				continue
			}
			if exe != "" {
				nat, err := RunProgram(dir, exe, c.Args)
				switch {
				case err != nil:
					fail(where, err.Error())
					continue
				case c.check(nat) != "":
					fail(where, "native: "+c.check(nat))
					continue
				case nat.Stdout != ref.Stdout || nat.Status != ref.Status || nat.Status != 0 && nat.Stderr != ref.Stderr:
					fail(where, fmt.Sprintf("native and gpuc run differ: exit %d and %d, stderr %q and %q", nat.Status, ref.Status, nat.Stderr, ref.Stderr))
					continue
				}
			}
			fmt.Fprintf(w, "ok   %s\n", where)
			passed++
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
	return failed
}
