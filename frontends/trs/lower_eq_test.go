package trs

import (
	"bytes"
	"strings"
	"testing"

	"gpuc/ir/interp"
)

// trs_eq compares terms (equal only after C() becomes A(), so that the
// store does not share them) nested eqDepth deep in first arguments (each
// level leaves one pair pending) and raises msgEq one level deeper; equal
// and unequal terms of every arity give the recursion's answers (Note [A
// comparison without recursion]).
func TestEqStack(t *testing.T) {
	nest := func(d int, leaf string) string {
		s := leaf
		for i := 0; i < d; i++ {
			s = "F(" + s + ", B())"
		}
		return s
	}
	for _, tc := range []struct {
		x, y, want string
	}{
		{nest(eqDepth, "A()"), nest(eqDepth, "C()"), "Yes()\n"},
		{nest(eqDepth, "A()"), nest(eqDepth, "B()"), "Eq(" + nest(eqDepth, "A()") + ", " + nest(eqDepth, "B()") + ")\n"},
		{nest(eqDepth+1, "A()"), nest(eqDepth+1, "C()"), msgEq},
		{"G(F(A(), B()), G(A(), B(), A()), F(B(), A()))", "G(F(A(), B()), G(A(), B(), C()), F(B(), A()))", "Yes()\n"},
		{"G(F(A(), B()), G(A(), B(), A()), F(B(), A()))", "G(F(A(), B()), G(A(), B(), B()), F(B(), A()))", ""},
		{"G(A(), A(), F(A(), B()))", "G(A(), A(), F(A(), A()))", ""},
	} {
		src := `sort T = struct A() | B() | C() | F(T, T) | G(T, T, T) | Eq(T, T) | Yes();
var X : T;
eqn Eq(X, X) = Yes();
    C() = A();
input Eq(` + tc.x + `, ` + tc.y + `);`
		var out bytes.Buffer
		err := interp.Run(lowerSource(t, src, Options{Capacity: 256}), interp.Config{Stdout: &out})
		switch {
		case tc.want == msgEq:
			if err == nil || !strings.Contains(err.Error(), msgEq) {
				t.Errorf("%s: error %v, want %q", tc.x, err, msgEq)
			}
		case err != nil:
			t.Errorf("%s = %s: %v", tc.x, tc.y, err)
		case tc.want == "" && strings.HasPrefix(out.String(), "Yes"), tc.want != "" && out.String() != tc.want:
			t.Errorf("%s = %s: prints %q, want %q", tc.x, tc.y, out.String(), tc.want)
		}
	}
}
