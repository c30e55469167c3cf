package termination

import (
	"testing"

	"gpuc/analysis/its"
)

// TestStepsCannotWrap: Note [Steps that cannot wrap] accepts a unit step only with a guard on the
// side it moves toward, in the variable's signedness, on the variable itself.
func TestStepsCannotWrap(t *testing.T) {
	v := its.Var{Name: "v", Sort: its.I32}
	u := its.Var{Name: "u", Sort: its.U32}
	x := its.Var{Name: "x", Sort: its.I32}
	w := its.Var{Name: "w", Sort: its.I64}
	one := func(s its.Sort) its.Expr { return its.C(1, s) }
	dec := its.B(its.Sub, its.R(v), one(its.I32))
	inc := its.B(its.Add, its.R(v), one(its.I32))
	cases := []struct {
		name  string
		guard its.Expr
		upd   its.Expr
		on    its.Var
		want  bool
	}{
		{"down under x < v", its.B(its.Slt, its.R(x), its.R(v)), dec, v, true},
		{"down under v > 0", its.B(its.Sgt, its.R(v), its.C(0, its.I32)), dec, v, true},
		{"up under v < x", its.B(its.Slt, its.R(v), its.R(x)), inc, v, true},
		{"up under x > v", its.B(its.Sgt, its.R(x), its.R(v)), inc, v, true},
		{"down under v < x", its.B(its.Slt, its.R(v), its.R(x)), dec, v, false},
		{"up under x < v", its.B(its.Slt, its.R(x), its.R(v)), inc, v, false},
		{"down under v != 0", its.B(its.Ne, its.R(v), its.C(0, its.I32)), dec, v, false},
		{"signed v, unsigned guard", its.B(its.Ult, its.R(x), its.R(v)), dec, v, false},
		{"unsigned u, signed guard", its.B(its.Slt, its.C(0, its.U32), its.R(u)), its.B(its.Sub, its.R(u), one(its.U32)), u, false},
		{"unsigned u, unsigned guard", its.B(its.Ult, its.C(0, its.U32), its.R(u)), its.B(its.Sub, its.R(u), one(its.U32)), u, true},
		{"step of 2", its.B(its.Slt, its.R(x), its.R(v)), its.B(its.Sub, its.R(v), its.C(2, its.I32)), v, false},
		{"guard on a cast", its.B(its.Slt, its.R(w), &its.Cast{Op: its.SExt, X: its.R(v), To: its.I64}), dec, v, false},
		{"another variable's step", its.B(its.Slt, its.R(x), its.R(v)), its.B(its.Sub, its.R(x), one(its.I32)), v, false},
	}
	for _, c := range cases {
		tr := its.Transition{Guard: []its.Expr{c.guard}, Update: map[string]its.Expr{c.on.Name: c.upd}}
		fn := lin(its.R(c.on))
		if got := stepsCannotWrap(tr, fn); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
