package smt

import (
	"errors"
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
