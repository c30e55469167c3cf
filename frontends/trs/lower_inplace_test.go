package trs_test

import (
	"fmt"
	"strings"
	"testing"

	"gpuc/frontends/trs"
	"gpuc/frontends/trs/rewrite"
	"gpuc/ir"
)

// inPlaceRules reuse a dropped argument's cell (Note [Reuse in place]):
// dup's argument used twice, drop's nested pattern whose pair is
// released, eq's repeated variable bound at another argument (its cell's
// argument is another slot, released), and both's argument that the root
// shares with its other argument (count 2: not reused).
const inPlaceRules = `(VAR x y t)
(RULES
  gen(0) -> nil
  gen(s(x)) -> l(s(x), gen(x))
  dup(nil) -> nil
  dup(l(x, t)) -> l(pair(x, x), dup(t))
  drop(nil) -> nil
  drop(l(pair(x, y), t)) -> l(y, drop(t))
  drop(l(x, t)) -> drop(t)
  eq(x, nil) -> nil
  eq(x, l(x, t)) -> l(0, eq(x, t))
  eq(x, l(y, t)) -> l(s(0), eq(x, t))
  two(x) -> both(x, x)
  both(l(x, t), y) -> l(s(x), len(y))
  both(nil, y) -> nil
  len(nil) -> 0
  len(l(x, t)) -> s(len(t))
)`

// On one processor (SMALLB=1) the programs print what they print on
// many, with the CPU rewriter's counts: the same normal form, rewrites
// and live terms (only the slots used may differ).
func TestReuseInPlace(t *testing.T) {
	for _, input := range []string{
		"drop(dup(gen(s(s(s(s(0)))))))",
		"eq(s(s(0)), gen(s(s(s(s(0))))))",
		"two(gen(s(s(s(0)))))",
		"l(drop(dup(gen(s(s(0))))), two(dup(gen(s(0)))))",
	} {
		t.Run(input, func(t *testing.T) {
			t.Parallel()
			sys, err := trs.Load("inplace.trs", []byte(inPlaceRules), trs.Options{Input: input})
			if err != nil {
				t.Fatal(err)
			}
			m, err := trs.Lower(sys, trs.Options{Input: input, Stats: true})
			if err != nil {
				t.Fatal(err)
			}
			cpu := rewrite.New(sys, 0)
			if err := cpu.Normalize(); err != nil {
				t.Fatal(err)
			}
			lowered := lower(t, m)
			reused := 0
			ir.WalkStmts(lowered.Func("trs_step1").Body, func(s ir.Stmt) bool {
				if a, ok := s.(*ir.Assign); ok && a.Name == "ip" {
					reused++
				}
				return true
			})
			if reused != 6 {
				t.Errorf("trs_step1 decides to reuse in place at %d rules; want 6 (dup, drop's first, eq's two, both, len)", reused)
			}
			params := map[string]int64{"CAPACITY": 1 << 12}
			want := invariant(runModule(t, lowered, params, 0, false))
			if counts := fmt.Sprintf("rewrites: %d\nlive terms: %d\n", cpu.Steps, cpu.Live()); !strings.Contains(want, counts) {
				t.Fatalf("the program prints\n%s\nbut the CPU rewriter counts\n%s", want, counts)
			}
			for _, p := range []map[string]int64{
				{"SMALLB": 1},
				{"SMALLB": 1, "LOCAL1": 3},
				{"SMALLB": 1, "FRESH": 0, "SETTLE": 0},
			} {
				if got := invariant(runModule(t, lowered, withDefaults(p, params), 0, true)); got != want {
					t.Errorf("with %v the program prints\n%s\nwant\n%s", p, got, want)
				}
			}
		})
	}
}

// A reused cell's references move rather than being added and dropped:
// one too many on its argument y would keep each inner k(...) that
// k(k(y)) -> y drops, a slot every other turn of cyc. 3000 turns in a
// store of 4096 slots, 3004 of them the input's, fit only if none is
// kept. (Only the first argument that a rule drops is tried, and the
// input's s(...) are not counted: cyc's list comes first.)
func TestReuseInPlaceFrees(t *testing.T) {
	const src = `(VAR x y t)
(RULES
  cyc(t, 0) -> t
  cyc(l(y, t), s(x)) -> cyc(l(k(y), t), x)
  k(k(y)) -> y
)`
	input := "cyc(l(k(a), nil), " + strings.Repeat("s(", 3000) + "0" + strings.Repeat(")", 3000) + ")"
	sys, err := trs.Load("cyc.trs", []byte(src), trs.Options{Input: input})
	if err != nil {
		t.Fatal(err)
	}
	m, err := trs.Lower(sys, trs.Options{Input: input, Stats: true})
	if err != nil {
		t.Fatal(err)
	}
	lowered := lower(t, m)
	got := runModule(t, lowered, map[string]int64{"CAPACITY": 4096, "SMALLB": 1}, 0, false)
	if want := "l(k(a), nil)\n"; !strings.HasPrefix(got, want) {
		t.Errorf("the program prints\n%s\nwant first\n%s", got, want)
	}
}
