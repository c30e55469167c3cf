package abi_test

import (
	"os"
	"testing"

	"gpuc/backends/abi"
	"gpuc/internal/irtest"
)

// TestGoOn checks which functions of goon.kir go on after a fault (Note
// [Going on after a fault]): each rule of loops that end, and the stops
// kept for a loop on a loaded value, its callee and recursion.
func TestGoOn(t *testing.T) {
	src, err := os.ReadFile("../cuda/testdata/goon.kir")
	if err != nil {
		t.Fatal(err)
	}
	m := irtest.Parse(t, "goon.kir", src)
	c := abi.New(m, true)
	want := map[string]bool{"fuel": true, "step": true, "counted": true, "rounds": true, "twice": true,
		"chase": false, "get": false, "recurse": false, "deep": false, "main": false}
	for name, w := range want {
		if got := c.GoOn(m.Func(name)); got != w {
			t.Errorf("%s: GoOn %v, want %v", name, got, w)
		}
		if got := c.BarrierStops(m.Func(name)); got != (name == "rounds") {
			t.Errorf("%s: BarrierStops %v", name, got)
		}
	}
}
