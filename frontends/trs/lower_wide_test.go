package trs

import (
	"slices"
	"testing"

	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/passes"
)

// The wide kernels' step carries none of the one-processor paths, and
// trs_small picks the one-processor step only where its block is one
// thread (Note [Wide and one-processor steps]); a world has neither.
func TestWideStep(t *testing.T) {
	m := lowerSource(t, peano, Options{})
	irtest.RunPasses(t, m, &passes.Config{}, "default")
	// uses: the functions that each function calls, and the parameters
	// it reads.
	calls := map[string][]string{}
	params := map[string][]string{}
	for _, f := range m.Funcs {
		ir.WalkAllExprs(f.Body, func(e ir.Expr) bool {
			switch e := e.(type) {
			case *ir.Call:
				calls[f.Name] = append(calls[f.Name], e.Func)
			case *ir.ParamRef:
				params[f.Name] = append(params[f.Name], e.Name)
			}
			return true
		})
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if cs, ok := s.(*ir.CallStmt); ok {
				calls[f.Name] = append(calls[f.Name], cs.Call.Func)
			}
			return true
		})
	}
	for _, name := range []string{"trs_step", "trs_step1", "trs_derive", "trs_derive1"} {
		f := m.Func(name)
		if f == nil {
			t.Fatalf("no %s", name)
		}
		for _, p := range f.Params {
			if p.Name == "one" {
				t.Errorf("%s keeps the parameter one", name)
			}
		}
	}
	// Nor the locals of Note [Descending at once] and Note [Reuse in place].
	ir.WalkStmts(m.Func("trs_step").Body, func(s ir.Stmt) bool {
		if d, ok := s.(*ir.Decl); ok && (d.Name == "next" || d.Name == lInPlace) {
			t.Errorf("the wide trs_step declares %s", d.Name)
		}
		return true
	})
	if slices.Contains(calls["trs_step"], "trs_reuse") || slices.Contains(params["trs_step"], pLocal1) {
		t.Errorf("the wide trs_step takes garbage or reads LOCAL1: calls %v, parameters %v", calls["trs_step"], params["trs_step"])
	}
	if !slices.Contains(calls["trs_step1"], "trs_reuse") || !slices.Contains(params["trs_step1"], pLocal1) {
		t.Errorf("trs_step1 lacks the one-processor paths: calls %v, parameters %v", calls["trs_step1"], params["trs_step1"])
	}
	for caller, want := range map[string][]string{"trs_derive": {"trs_step"}, "trs_derive1": {"trs_step1"}, "trs_small": {"trs_derive", "trs_derive1"}} {
		for _, callee := range []string{"trs_step", "trs_step1", "trs_derive", "trs_derive1"} {
			if got := slices.Contains(calls[caller], callee); got != slices.Contains(want, callee) {
				t.Errorf("%s calls %v; want %v among trs_step(1) and trs_derive(1)", caller, calls[caller], want)
			}
		}
	}
	for f, cs := range calls {
		if f != "trs_small" && f != "trs_derive1" && (slices.Contains(cs, "trs_derive1") || slices.Contains(cs, "trs_step1")) {
			t.Errorf("%s calls the one-processor step: %v", f, cs)
		}
	}

	w := lowerSource(t, peano, Options{World: true})
	for _, name := range []string{"trs_step1", "trs_derive1"} {
		if w.Func(name) != nil {
			t.Errorf("a world has %s", name)
		}
	}
}
