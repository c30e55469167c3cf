package trs

import (
	"strings"
	"testing"
)

// REC-BAD's soundness-1 and soundness-2 are refused for the REC-2017 rule
// each breaks (Note [REC discipline]), and a specification that keeps the
// rules loads.
func TestRECDiscipline(t *testing.T) {
	const head = "REC-SPEC T\nSORTS\n  %s\nCONS\n  d0 : -> %[1]s\n  s : %[1]s -> %[1]s\n  g : %[1]s -> %[1]s\nOPNS\n  f : %[1]s -> %[1]s\n  h : %[1]s -> %[1]s\nVARS\n  X : %[1]s\nRULES\n"
	for _, c := range []struct{ sort, rules, want string }{
		{"S", "  f(g(X)) -> X\n", "t.rec:6:3: error: constructor s and sort S (declared at t.rec:3:3) differ only in case, which REC-2017 forbids"},
		{"N", "  f(h(X)) -> X\n", "t.rec:14:5: error: the left-hand side of a rule of f applies operation h below its head; REC-2017's patterns are constructor terms"},
		{"N", "  g(X) -> X\n", "t.rec:14:3: error: the left-hand side of a rule is headed by constructor g; REC-2017's rules define operations (OPNS)"},
		{"N", "  f(g(s(X))) -> h(X)\n  h(X) -> X\n", ""},
	} {
		src := strings.ReplaceAll(head, "%[1]s", c.sort)
		src = strings.Replace(src, "%s", c.sort, 1) + c.rules + "EVAL\n  f(g(d0))\nEND-SPEC\n"
		_, err := Load("t.rec", []byte(src), Options{})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.rules, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %s", c.rules, err, c.want)
		}
	}
}

// REC-BAD's overloading and syntax-2 name their defects: a symbol
// declared twice (REC-2017 has no overloading), and variables used with no
// VARS section.
func TestRECDefectsNamed(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"REC-SPEC T\nSORTS\n  N P\nCONS\n  z : -> N\n  g : N -> N\n  g : P -> N\nOPNS\nVARS\nRULES\nEVAL\n  z\nEND-SPEC\n",
			"t.rec:7:3: error: symbol g is declared twice (first at t.rec:6:3): REC-2017 has no overloading"},
		{"REC-SPEC T\nSORTS\n  N\nCONS\n  z : -> N\nOPNS\n  f : N -> N\nRULES\n  f(P) -> P\nEVAL\n  f(z)\nEND-SPEC\n",
			"t.rec:9:5: error: unknown symbol P: the specification declares no variables (REC-2017 declares them in a VARS section)"},
	} {
		_, err := Load("t.rec", []byte(c.src), Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}
