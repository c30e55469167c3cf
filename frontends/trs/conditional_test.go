package trs_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"gpuc/frontends/trs"
	"gpuc/frontends/trs/maude"
	"gpuc/frontends/trs/rewrite"
)

// condSpec exercises Note [Conditional rules]: -><- and ->/<-, and-if,
// the rules after one whose condition fails, conditions evaluated only
// once those before them hold, a conditional constant, and a partial
// function left applied after a failed condition, whose normal forms a
// join compares (REC-2017's left-linear form of same(N, N)).
const condSpec = `REC-SPEC Cond
SORTS
  Nat Bool
CONS
  z : -> Nat
  s : Nat -> Nat
  c : -> Nat
  true : -> Bool
  false : -> Bool
OPNS
  lt : Nat Nat -> Bool
  max : Nat Nat -> Nat
  pick : Nat -> Nat
  loop : Nat -> Nat
  guard : Nat -> Nat
  partial : Nat -> Nat
  k : -> Nat
  same : Nat Nat -> Bool
VARS
  N M : Nat
RULES
  lt(N, z) -> false
  lt(z, s(N)) -> true
  lt(s(N), s(M)) -> lt(N, M)
  max(N, M) -> M if lt(N, M) -><- true
  max(N, M) -> N if lt(N, M) ->/<- true
  pick(N) -> z if N -><- s(z)
  pick(s(N)) -> N if N ->/<- z and-if N ->/<- s(z)
  pick(N) -> c
  loop(N) -> loop(N)
  guard(N) -> z if N -><- z and-if loop(N) -><- z
  guard(N) -> N
  partial(N) -> z if N -><- z
  k -> s(z) if max(z, s(z)) -><- s(z)
  same(N, M) -> true if N -><- M
  same(N, M) -> false if N ->/<- M
EVAL
  k
END-SPEC
`

func TestConditionalRules(t *testing.T) {
	_, err := exec.LookPath("maude")
	haveMaude := err == nil
	for _, c := range []condCase{
		{"max(s(z), s(s(s(z))))", "s(s(s(z)))"},
		{"max(s(s(z)), s(z))", "s(s(z))"},
		{"max(s(z), s(z))", "s(z)"},
		{"pick(s(z))", "z"},             // the first rule
		{"pick(s(s(s(z))))", "s(s(z))"}, // the second, both its conditions
		{"pick(s(s(z)))", "c"},          // the second's second condition fails
		{"pick(z)", "c"},                // its first fails: the third
		{"guard(s(z))", "s(z)"},         // loop(N) is never evaluated
		{"partial(s(z))", "partial(s(z))"},
		{"same(partial(c), partial(c))", "true"},
		{"same(partial(c), partial(z))", "false"},
		{"k", "s(z)"},
	} {
		// Each case in parallel: most of the time is Maude's, a process.
		t.Run(c.input, func(t *testing.T) {
			t.Parallel()
			conditionalCase(t, c, haveMaude)
		})
	}
}

// condCase is an input term of condSpec and its normal form.
type condCase struct{ input, want string }

// conditionalCase is one case of TestConditionalRules.
func conditionalCase(t *testing.T, c condCase, haveMaude bool) {
	sys, err := trs.Load("cond.rec", []byte(condSpec), trs.Options{Input: c.input})
	if err != nil {
		t.Fatal(err)
	}
	r := rewrite.New(sys, 0)
	r.MaxSteps = 10000
	if err := r.Normalize(); err != nil {
		t.Fatalf("%s: %v", c.input, err)
	}
	if got := sys.FormatNode(r, r.Root()); got != c.want {
		t.Errorf("%s: the CPU rewriter: %s, want %s", c.input, got, c.want)
	}
	// The summary hashes symbols by number: a copy left in the normal
	// form would hash differently from the term written out.
	want, err := trs.Load("cond.rec", []byte(condSpec), trs.Options{Input: c.want})
	if err != nil {
		t.Fatal(err)
	}
	g := want.Graph(want.Input)
	wantSum := trs.Summarize(g, g.Root()).String()
	if got := trs.Summarize(r, r.Root()).String(); got != wantSum {
		t.Errorf("%s: the CPU rewriter: %s, want %s", c.input, got, wantSum)
	}
	m, err := trs.Lower(sys, trs.Options{Stats: true})
	if err != nil {
		t.Fatal(err)
	}
	if out := runModule(t, m, nil, 0, false); !strings.HasPrefix(out, c.want+"\n") {
		t.Errorf("%s: gpuc run prints\n%s\nwant %s", c.input, out, c.want)
	}
	m, err = trs.Lower(sys, trs.Options{Print: "summary"})
	if err != nil {
		t.Fatal(err)
	}
	if out := runModule(t, m, nil, 0, false); out != wantSum+"\n" {
		t.Errorf("%s: gpuc run --print=summary prints\n%s\nwant %s", c.input, out, wantSum)
	}
	if haveMaude {
		nf, err := maude.Run(sys, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if got := sys.Format(nf); got != c.want {
			t.Errorf("%s: maude: %s, want %s", c.input, got, c.want)
		}
	}
}
