package enum

import "testing"

type mode string

func TestSet(t *testing.T) {
	var m mode
	if err := Set(&m, "b", "a", "b", "c"); err != nil || m != "b" {
		t.Errorf("Set b: %q, %v", m, err)
	}
	err := Set(&m, "d", "a", "b", "c")
	if err == nil || err.Error() != "want a, b or c" || m != "b" {
		t.Errorf("Set d: %q, %v; want the value kept and \"want a, b or c\"", m, err)
	}
	if got := List("x", "y"); got != "x or y" {
		t.Errorf("List(x, y) = %q", got)
	}
}
