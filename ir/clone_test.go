package ir_test

import (
	"reflect"
	"testing"

	"gpuc/internal/irtest"
	"gpuc/ir"
)

// TestCloneModule checks that a clone prints and compares like the
// original, and that changing it leaves the original alone.
func TestCloneModule(t *testing.T) {
	files := append(irtest.Glob(t, "../frontends/fork/testdata/*.kir"), irtest.Glob(t, "../examples/kir/*.kir")...)
	for _, file := range files {
		m := irtest.ParseFile(t, file)
		want := ir.Print(m)
		c := ir.CloneModule(m)
		if !reflect.DeepEqual(c, m) {
			t.Errorf("%s: the clone differs from the original", file)
		}
		for _, f := range c.Funcs {
			f.Name += "_x"
			ir.WalkAllExprs(f.Body, func(e ir.Expr) bool {
				if k, ok := e.(*ir.Const); ok {
					k.Bits++
				}
				return true
			})
		}
		for _, b := range c.Buffers {
			b.Name += "_x"
		}
		if got := ir.Print(m); got != want {
			t.Errorf("%s: changing the clone changed the original:\n%s", file, got)
		}
	}
}
