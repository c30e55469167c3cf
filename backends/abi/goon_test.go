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

// TestGoOnStrided checks the strided cooperative kernels' loop (Note
// [Strided cooperative kernels] in package passes): stepped by
// max(min(T, B - v), 1) it ends whatever the loads return; stepped by
// max(min(T, B - v), 0), or toward another bound, it may not.
func TestGoOnStrided(t *testing.T) {
	src := []byte(`module strided;
param P: i32 = 100;
buffer a: i32[P] global output;
kernel good() {
  for var v: i32 = gid(); v < P; v = v + max(min(gdim() * bdim(), P - v), 1) {
    a[v] = a[a[v]];
  }
}
kernel zero() {
  for var v: i32 = gid(); v < P; v = v + max(min(gdim() * bdim(), P - v), 0) {
    a[v] = a[a[v]];
  }
}
kernel other() {
  for var v: i32 = gid(); v < P; v = v + max(min(gdim() * bdim(), P + 1 - v), 1) {
    a[v] = a[a[v]];
  }
}
kernel moved() {
  for var v: i32 = gid(); v < P; v = v + max(min(gdim() * bdim(), P - v), 1) {
    a[v] = a[a[v]];
    v = a[0];
  }
}
host main() {
  launch good() grid 1 block 4;
  launch zero() grid 1 block 4;
  launch other() grid 1 block 4;
  launch moved() grid 1 block 4;
}
`)
	m := irtest.Parse(t, "strided.kir", src)
	c := abi.New(m, true)
	for name, w := range map[string]bool{"good": true, "zero": false, "other": false, "moved": false} {
		if got := c.GoOn(m.Func(name)); got != w {
			t.Errorf("%s: GoOn %v, want %v", name, got, w)
		}
	}
}
