package smt

import (
	"testing"
	"time"
)

// hardQuery is a product and two divisions by constants, 64 bits: seconds of search.
const hardQuery = "(declare-const x (_ BitVec 64))\n(declare-const y (_ BitVec 64))\n" +
	"(assert (= (bvmul x y) #x00000000deadbeef))\n(assert (bvugt x #x0000000000000001))\n" +
	"(assert (bvugt y #x0000000000000001))\n(assert (= (bvsdiv x #x0000000000000003) (bvsdiv y #x0000000000000007)))"

// TestUnits: z3's resource count (Note [Resource units]) is the same for the same queries in two
// processes, and a query's limit in units cuts it (Cut, about its limit counted).
func TestUnits(t *testing.T) {
	run := func() (int64, int64) {
		s := startZ3(t, 20*time.Second)
		if !s.HasUnits() {
			t.Fatal("z3 counts resource units")
		}
		r, _, err := s.Check("(declare-const x (_ BitVec 32))\n(declare-const y (_ BitVec 32))\n" +
			"(assert (= (bvmul x y) #x00001235))\n(assert (bvult x #x00010000))")
		if err != nil || r != Sat || s.Cut {
			t.Fatalf("got %v %v cut=%v, want sat", r, err, s.Cut)
		}
		first := s.Units()
		if first <= 0 {
			t.Fatalf("no units counted: %d", first)
		}
		const limit = 200000
		r, _, err = s.CheckLimited(0, limit, hardQuery)
		if err != nil || r != Unknown || !s.Cut {
			t.Fatalf("with a limit of %d units: got %v %v cut=%v, want unknown, cut", limit, r, err, s.Cut)
		}
		if used := s.Units() - first; used < limit || used > 2*limit {
			t.Errorf("the cut query counted %d units, limit %d", used, limit)
		}
		// The solver goes on after the cut.
		r, _, err = s.Check("(declare-const x (_ BitVec 8))\n(assert (= (bvadd x #x01) #x00))")
		if err != nil || r != Sat || s.Cut {
			t.Fatalf("after the cut: got %v %v cut=%v, want sat", r, err, s.Cut)
		}
		return first, s.Units()
	}
	a1, b1 := run()
	a2, b2 := run()
	// A cut query may stop a unit later (Note [Resource units]): the totals after it agree
	// within a hundredth.
	if a1 != a2 || 100*(b1-b2) > b1 || 100*(b2-b1) > b1 {
		t.Errorf("the same queries counted %d, %d units in one process and %d, %d in another", a1, b1, a2, b2)
	}
}
