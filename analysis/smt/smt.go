// Package smt drives an SMT solver (z3 or cvc5) over an SMT-LIB2 pipe: one incremental process per
// run, each query inside push/pop, answers cached by query text. It is not an SMT-LIB library:
// callers write the formulas as text; this package only sends them and reads sat, unsat, unknown
// and models. No cgo.
package smt

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Result is a solver's answer to check-sat.
type Result int

// Answers.
const (
	Unknown Result = iota
	Sat
	Unsat
)

func (r Result) String() string { return [...]string{"unknown", "sat", "unsat"}[r] }

// Solver is one running solver process.
type Solver struct {
	Name    string // "z3" or "cvc5"
	Timeout time.Duration
	mu      sync.Mutex
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	lines   chan string
	cache   map[string]cacheEntry
	// canon caches answers by canonical form (Note [Queries equal up to names]).
	canon   map[string]Result
	Queries int // queries sent (cache misses)
	dead    bool
	cpuGone time.Duration // processor time of the processes that ended
	// ByCPU makes a query's time limit count the solver's processor time rather than the wall
	// clock (Note [Processor-time limits]).
	ByCPU bool
	// units is the resource count of the running process after its last query, unitsGone that
	// of the processes that ended; unitsSet is the per-query limit in force (Note [Resource
	// units]).
	units, unitsGone, unitsSet int64
	// Cut says whether the last query that reached the solver was cut off by a limit (its
	// resource units, its time) rather than answered unknown by the solver.
	Cut bool
}

type cacheEntry struct {
	res   Result
	model map[string]string
}

// ErrNoSolver says the solver binary is missing.
var ErrNoSolver = errors.New("solver not found")

// Start runs the named solver ("z3" or "cvc5") as one incremental process.
func Start(name string, timeout time.Duration) (*Solver, error) {
	s := &Solver{Name: name, Timeout: timeout, cache: map[string]cacheEntry{}, canon: map[string]Result{}}
	if err := s.spawn(); err != nil {
		return nil, err
	}
	return s, nil
}

// Note [z3's equality axioms]
// Two of z3's defaults cost the analysis's queries more than they give. Its incremental solver
// adds equality axioms between bitvector terms as it bit-blasts them (smt.bv.eq_axioms), and
// it tracks which atoms are relevant to the assignment (smt.relevancy, made for quantifiers).
// Without the axioms the heaviest queries of polybench nussinov take 0.57 and 0.44 million
// resource units instead of 1.11 and 2.04, and whole kernels need fewer: nussinov kernel2 6.37
// million instead of 9.67, cholesky kernel4 7.02 instead of 9.05, AMD SimpleConvolution 3.57
// instead of 3.92, seidel-2d 2.63 instead of 3.00. Without relevancy as well the units hardly
// move (6.20, 7.08, 3.55, 2.63) but each takes less time: nussinov 2.6 s instead of 3.7 to 3.9,
// cholesky 3.2 to 3.4 instead of 4.9 to 5.2, run after run on one machine. Every corpus verdict
// and every CHR example's line is unchanged (docs/TERMINATION.md, 2026-11-27). Both change how
// z3 searches, not what it answers: an unsat answer is a proof either way.

func (s *Solver) spawn() error {
	var args []string
	switch s.Name {
	case "z3":
		args = []string{"-in", "-smt2"}
	case "cvc5":
		args = []string{"--lang=smt2", "--incremental", "--produce-models"}
	default:
		return fmt.Errorf("unknown solver %q (want z3 or cvc5)", s.Name)
	}
	path, err := exec.LookPath(s.Name)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrNoSolver, s.Name)
	}
	cmd := exec.Command(path, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd, s.in, s.out, s.dead = cmd, in, bufio.NewReader(out), false
	s.units, s.unitsSet = 0, 0
	s.lines = make(chan string, 64)
	go func(r *bufio.Reader, ch chan string) {
		for {
			l, err := r.ReadString('\n')
			if l != "" {
				ch <- strings.TrimSpace(l)
			}
			if err != nil {
				close(ch)
				return
			}
		}
	}(s.out, s.lines)
	head := "(set-option :print-success false)\n(set-option :produce-models true)\n"
	if s.Name == "cvc5" {
		head = "(set-option :print-success false)\n"
	}
	head += "(set-logic ALL)\n"
	if s.Name == "z3" {
		head += "(set-option :smt.bv.eq_axioms false)\n(set-option :smt.relevancy 0)\n" // Note [z3's equality axioms]
	}
	_, err = io.WriteString(s.in, head)
	return err
}

// Close ends the process.
func (s *Solver) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kill()
}

func (s *Solver) kill() {
	if s.cmd != nil && !s.dead {
		c, _ := procCPU(s.cmd.Process.Pid)
		s.cpuGone += c
		s.unitsGone += s.units
		s.units = 0
		s.in.Close()
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
	s.dead = true
}

// Check runs script (declarations and assertions) in a fresh scope and answers check-sat. Where
// vals is not empty and the answer is sat, it also returns the model's value of each term in vals,
// as the solver prints it.
func (s *Solver) Check(script string, vals ...string) (Result, map[string]string, error) {
	return s.CheckWithin(s.Timeout, script, vals...)
}

// CheckWithin is Check with a time limit for this query (at most the solver's Timeout); an
// answer cut short is Unknown and is not cached.
func (s *Solver) CheckWithin(limit time.Duration, script string, vals ...string) (Result, map[string]string, error) {
	return s.CheckLimited(limit, 0, script, vals...)
}

// CheckLimited is CheckWithin with, where units > 0 and the solver counts them (HasUnits), a
// limit of units resource units on this query too (Note [Resource units]).
func (s *Solver) CheckLimited(limit time.Duration, units int64, script string, vals ...string) (Result, map[string]string, error) {
	if limit <= 0 || limit > s.Timeout {
		limit = s.Timeout
	}
	key := script + "\x00" + strings.Join(vals, "\x00")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Cut = false
	if c, ok := s.cache[key]; ok {
		return c.res, c.model, nil
	}
	form, canon := canonical(script)
	if canon {
		if r, ok := s.canon[form]; ok && (r == Unsat || len(vals) == 0) {
			s.cache[key] = cacheEntry{res: r}
			return r, nil, nil
		}
	}
	if s.dead {
		if err := s.spawn(); err != nil {
			return Unknown, nil, err
		}
	}
	s.Queries++
	if !s.HasUnits() {
		units = 0
	}
	// Note [Processor-time limits]: with ByCPU, the limit is on the process's processor time,
	// watched here; the solver's own wall-clock timeout is only a backstop.
	wall := limit
	var over func() bool
	if s.ByCPU && limit > 0 {
		pid := s.cmd.Process.Pid
		if start, ok := procCPU(pid); ok {
			wall = limit * wallFactor
			over = func() bool { c, _ := procCPU(pid); return c-start >= limit }
		}
	}
	var b strings.Builder
	if units != s.unitsSet {
		// Not scoped by push and pop: set before each query whose limit differs.
		fmt.Fprintf(&b, "(set-option :rlimit %d)\n", units)
		s.unitsSet = units
	}
	b.WriteString("(push 1)\n")
	if wall > 0 {
		ms := max(wall.Milliseconds(), 1)
		if s.Name == "z3" {
			fmt.Fprintf(&b, "(set-option :timeout %d)\n", ms)
		}
	}
	b.WriteString(script)
	b.WriteString("\n(check-sat)\n")
	if _, err := io.WriteString(s.in, b.String()); err != nil {
		s.kill()
		return Unknown, nil, err
	}
	deadline := time.After(wall + 2*time.Second)
	res, err := s.readAnswer(deadline, over)
	if err == errOverCPU {
		// Cut off: the process goes, and the next query starts a new one; the query counts
		// its whole limit of units.
		s.unitsGone += units
		s.kill()
		s.Cut = true
		return Unknown, nil, nil
	}
	if err != nil {
		s.kill()
		return Unknown, nil, err
	}
	var model map[string]string
	if res == Sat && len(vals) > 0 {
		fmt.Fprintf(s.in, "(get-value (%s))\n", strings.Join(vals, " "))
		text, err := s.readSexp(deadline)
		if err != nil {
			s.kill()
			return Unknown, nil, err
		}
		// The solver prints the terms its own way (cvc5 drops |quotes|): pair by position.
		pairs := parseValues(text)
		model = map[string]string{}
		for i, v := range vals {
			if i < len(pairs) {
				model[v] = pairs[i]
			}
		}
	}
	if _, err := io.WriteString(s.in, "(pop 1)\n"); err != nil {
		s.kill()
	}
	if s.HasUnits() && !s.dead {
		before := s.units
		if err := s.readUnits(deadline); err != nil {
			s.kill()
			return Unknown, nil, err
		}
		s.Cut = res == Unknown && units > 0 && s.units-before >= units
	}
	if res != Unknown || limit == s.Timeout && units == 0 {
		s.cache[key] = cacheEntry{res, model}
	}
	if canon && res != Unknown {
		s.canon[form] = res
	}
	return res, model, nil
}

// HasUnits says whether the solver counts resource units (Note [Resource units]): z3 does.
func (s *Solver) HasUnits() bool { return s.Name == "z3" }

// Units gives the resource units the solver's processes have used so far (Note [Resource
// units]); 0 for a solver that does not count them.
func (s *Solver) Units() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unitsGone + s.units
}

// readUnits reads the running process's resource count (z3's get-info :rlimit).
func (s *Solver) readUnits(deadline <-chan time.Time) error {
	if _, err := io.WriteString(s.in, "(get-info :rlimit)\n"); err != nil {
		return err
	}
	text, err := s.readSexp(deadline)
	if err != nil {
		return err
	}
	f := strings.Fields(strings.Trim(strings.TrimSpace(text), "()"))
	if len(f) != 2 || f[0] != ":rlimit" {
		return fmt.Errorf("%s: cannot read the resource count %q", s.Name, text)
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return fmt.Errorf("%s: cannot read the resource count %q", s.Name, text)
	}
	s.units = n
	return nil
}

// errOverCPU says a query ran past its processor-time limit.
var errOverCPU = errors.New("over the processor-time limit")

// readAnswer waits for check-sat's answer until deadline, or, where over is not nil, until over
// reports the query past its processor-time limit (errOverCPU).
func (s *Solver) readAnswer(deadline <-chan time.Time, over func() bool) (Result, error) {
	var tick <-chan time.Time
	if over != nil {
		t := time.NewTicker(cpuPoll)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-tick:
			if over() {
				return Unknown, errOverCPU
			}
		case l, ok := <-s.lines:
			if !ok {
				return Unknown, fmt.Errorf("%s exited", s.Name)
			}
			switch l {
			case "sat":
				return Sat, nil
			case "unsat":
				return Unsat, nil
			case "unknown", "timeout":
				return Unknown, nil
			case "", "success":
				continue
			}
			if strings.HasPrefix(l, "(error") {
				return Unknown, fmt.Errorf("%s: %s", s.Name, l)
			}
		case <-deadline:
			return Unknown, fmt.Errorf("%s: no answer in time", s.Name)
		}
	}
}

func (s *Solver) readSexp(deadline <-chan time.Time) (string, error) {
	var b strings.Builder
	depth := 0
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				return "", fmt.Errorf("%s exited", s.Name)
			}
			if strings.HasPrefix(l, "(error") {
				return "", fmt.Errorf("%s: %s", s.Name, l)
			}
			b.WriteString(l)
			b.WriteByte(' ')
			depth += strings.Count(l, "(") - strings.Count(l, ")")
			if depth <= 0 && b.Len() > 1 {
				return b.String(), nil
			}
		case <-deadline:
			return "", fmt.Errorf("%s: no model in time", s.Name)
		}
	}
}

// parseValues reads ((t1 v1) (t2 v2) ...) into the value texts, in order.
func parseValues(text string) []string {
	toks := tokenize(text)
	var m []string
	// Walk the list of pairs.
	i := 0
	next := func() string {
		// read one s-expression starting at toks[i]
		if i >= len(toks) {
			return ""
		}
		if toks[i] != "(" {
			i++
			return toks[i-1]
		}
		depth := 0
		var parts []string
		for i < len(toks) {
			t := toks[i]
			i++
			parts = append(parts, t)
			if t == "(" {
				depth++
			} else if t == ")" {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		return strings.ReplaceAll(strings.ReplaceAll(strings.Join(parts, " "), "( ", "("), " )", ")")
	}
	if i < len(toks) && toks[i] == "(" {
		i++
	}
	for i < len(toks) && toks[i] == "(" {
		i++
		next()
		m = append(m, next())
		if i < len(toks) && toks[i] == ")" {
			i++
		}
	}
	return m
}

func tokenize(s string) []string {
	var toks []string
	cur := strings.Builder{}
	flush := func() {
		if cur.Len() > 0 {
			toks = append(toks, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch r {
		case '(', ')':
			flush()
			toks = append(toks, string(r))
		case ' ', '\n', '\t', '\r':
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return toks
}

// Run runs a whole standalone script (with its own check-sat commands) in a fresh process and
// returns its answers in order; used to re-check certificates with the solver alone.
func Run(name, script string, timeout time.Duration) ([]Result, error) {
	var args []string
	switch name {
	case "z3":
		args = []string{"-in", "-smt2"}
	case "cvc5":
		args = []string{"--lang=smt2", "--incremental"}
	default:
		return nil, fmt.Errorf("unknown solver %q", name)
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrNoSolver, name)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin = strings.NewReader("(set-logic ALL)\n" + script + "\n(exit)\n")
	done := make(chan struct{})
	var out []byte
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		cmd.Process.Kill()
		<-done
		return nil, fmt.Errorf("%s: no answer in %s", name, timeout)
	}
	var rs []Result
	for _, l := range strings.Split(string(out), "\n") {
		switch strings.TrimSpace(l) {
		case "sat":
			rs = append(rs, Sat)
		case "unsat":
			rs = append(rs, Unsat)
		case "unknown":
			rs = append(rs, Unknown)
		default:
			if strings.HasPrefix(strings.TrimSpace(l), "(error") {
				return rs, fmt.Errorf("%s: %s", name, strings.TrimSpace(l))
			}
		}
	}
	return rs, nil
}

// Value reads a model value as an unsigned integer: #x.., #b.., (_ bvN W), N, (- N), true, false.
func Value(text string) (*big.Int, bool) {
	t := strings.TrimSpace(text)
	switch {
	case t == "true":
		return big.NewInt(1), true
	case t == "false":
		return new(big.Int), true
	case strings.HasPrefix(t, "#x"):
		return new(big.Int).SetString(t[2:], 16)
	case strings.HasPrefix(t, "#b"):
		return new(big.Int).SetString(t[2:], 2)
	case strings.HasPrefix(t, "(_ bv"):
		f := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(t, "(_ bv"), ")"))
		if len(f) == 2 {
			return new(big.Int).SetString(f[0], 10)
		}
	case strings.HasPrefix(t, "(- "):
		v, ok := new(big.Int).SetString(strings.TrimSpace(strings.TrimSuffix(t[3:], ")")), 10)
		if ok {
			v.Neg(v)
		}
		return v, ok
	}
	return new(big.Int).SetString(t, 10)
}
