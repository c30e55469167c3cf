package smt

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestCheckAndModel(t *testing.T) {
	for _, name := range []string{"z3", "cvc5"} {
		t.Run(name, func(t *testing.T) {
			s, err := Start(name, 5*time.Second)
			if errors.Is(err, ErrNoSolver) {
				t.Skipf("%s not installed", name)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			r, m, err := s.Check("(declare-const x (_ BitVec 8))\n(assert (= (bvadd x #x01) #x00))", "x")
			if err != nil || r != Sat {
				t.Fatalf("got %v %v", r, err)
			}
			if v, ok := Value(m["x"]); !ok || v.Int64() != 255 {
				t.Errorf("model x = %q, want #xff", m["x"])
			}
			// The scope was popped: x can be declared again.
			r, _, err = s.Check("(declare-const x (_ BitVec 8))\n(assert (bvult x #x00))")
			if err != nil || r != Unsat {
				t.Fatalf("got %v %v, want unsat", r, err)
			}
			if _, _, err := s.Check("(assert (= y 1))"); err == nil {
				t.Errorf("undeclared constant: want an error")
			}
			// The solver restarts after an error.
			r, _, err = s.Check("(declare-const x Int)\n(assert (> x 2))")
			if err != nil || r != Sat {
				t.Fatalf("after error: got %v %v", r, err)
			}
		})
	}
}

// startZ3 starts z3 with the query timeout, closed when the test ends; it skips the test where
// z3 is not installed.
func startZ3(t *testing.T, timeout time.Duration) *Solver {
	t.Helper()
	s, err := Start("z3", timeout)
	if errors.Is(err, ErrNoSolver) {
		t.Skip("z3 not installed")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestCPU: the solver's processor time, read from /proc, grows with the work it does and does
// not go back when the process ends.
func TestCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	s := startZ3(t, 5*time.Second)
	before := s.CPU()
	// Products of 48-bit factors: some milliseconds of bit-blasting each.
	for i := 0; i < 50 && s.CPU() == before; i++ {
		s.Check(fmt.Sprintf("(declare-const x (_ BitVec 48))\n(declare-const y (_ BitVec 48))\n"+
			"(assert (= (bvmul x y) (_ bv%d 48)))\n(assert (bvugt x (_ bv1 48)))\n(assert (bvugt y (_ bv1 48)))", 1000003*(i+7)))
	}
	after := s.CPU()
	if after <= before {
		t.Fatalf("solver processor time stayed at %v after 50 queries", before)
	}
	s.Close()
	if gone := s.CPU(); gone < after {
		t.Errorf("processor time went back from %v to %v when the process ended", after, gone)
	}
}

// TestCPULimit: with ByCPU a query that needs more processor time than its limit answers unknown
// within about the limit of processor time, and the next query runs in a new process.
func TestCPULimit(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	s := startZ3(t, 100*time.Millisecond)
	s.ByCPU = true
	before := s.CPU()
	// A product and two divisions by constants, 64 bits: seconds of search.
	r, _, err := s.Check("(declare-const x (_ BitVec 64))\n(declare-const y (_ BitVec 64))\n" +
		"(assert (= (bvmul x y) #x00000000deadbeef))\n(assert (bvugt x #x0000000000000001))\n" +
		"(assert (bvugt y #x0000000000000001))\n(assert (= (bvsdiv x #x0000000000000003) (bvsdiv y #x0000000000000007)))")
	if err != nil || r != Unknown {
		t.Fatalf("got %v %v, want unknown", r, err)
	}
	if used := s.CPU() - before; used > 2*time.Second {
		t.Errorf("the query used %v of processor time, limit 100ms", used)
	}
	r, _, err = s.Check("(declare-const x (_ BitVec 8))\n(assert (= (bvadd x #x01) #x00))")
	if err != nil || r != Sat {
		t.Fatalf("after the cut: got %v %v, want sat", r, err)
	}
}
