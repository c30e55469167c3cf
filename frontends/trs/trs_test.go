package trs

import (
	"strings"
	"testing"
)

func mustLoad(t *testing.T, src, input string) *System {
	t.Helper()
	sys, err := Load("t.trs", []byte(src), Options{Input: input})
	if err != nil {
		t.Fatalf("%v", err)
	}
	return sys
}

// Keywords are case-insensitive and not reserved: Listing 7 names a
// symbol Sort, and the paper writes both input and Input.
func TestKeywordsAreNotReserved(t *testing.T) {
	sys := mustLoad(t, `
SORT List = STRUCT Nil() | Sort(List) | Input(List) | Var(List);
Var L : List;
EQN Sort(L) = Input(L); Input(Nil()) = Nil();
Input Sort(Var(Nil));`, "")
	if got := sys.Format(sys.Input); got != "Sort(Var(Nil()))" {
		t.Errorf("input %s", got)
	}
	if s := sys.Lookup("Sort"); s == nil || len(s.Rules) != 1 {
		t.Errorf("Sort should have one rule: %+v", s)
	}
}

// WST symbols may be runs of operator characters, and = is one too.
func TestWSTSymbols(t *testing.T) {
	sys := mustLoad(t, `(VAR x y)
(COMMENT any (nested) text, with "quotes")
(RULES
  +(x, 0) -> x
  <=(0, y) -> true
  =(x, x) -> true
  .(x, y) -> y
)`, "<=(+(0, 0), .(a, b))")
	for _, name := range []string{"+", "<=", "=", ".", "0", "a"} {
		if sys.Lookup(name) == nil {
			t.Errorf("no symbol %q", name)
		}
	}
	if got := sys.Format(sys.Input); got != "<=(+(0, 0), .(a, b))" {
		t.Errorf("input %s", got)
	}
}

// Symbols are numbered by arity (Note [Symbol numbers]).
func TestSymbolNumbers(t *testing.T) {
	sys := mustLoad(t, `sort N = struct F(N, N) | S(N) | Z();
eqn S(Z()) = Z();
input F(S(Z()), Z());`, "")
	var names []string
	for i, s := range sys.Syms {
		if s.Index != i {
			t.Errorf("%s has index %d at %d", s.Name, s.Index, i)
		}
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "Z S F" {
		t.Errorf("symbols %s", got)
	}
	for a, want := range []int{0, 1, 2, 3} {
		if got := sys.ArityStart(a); got != want {
			t.Errorf("ArityStart(%d) = %d, want %d", a, got, want)
		}
	}
	if sys.MaxArity != 2 {
		t.Errorf("MaxArity %d", sys.MaxArity)
	}
}

// The input graph shares identical subterms (Note [Sharing]), and lists
// every node after its arguments.
func TestGraphSharesSubterms(t *testing.T) {
	sys := mustLoad(t, `sort N = struct Z() | S(N) | P(N, N);
eqn S(Z()) = Z();
input P(S(S(Z())), S(S(Z())));`, "")
	g := sys.Graph(sys.Input)
	if len(g.Head) != 4 {
		t.Fatalf("%d nodes, want 4 (Z, S(Z), S(S(Z)), P)", len(g.Head))
	}
	if args := g.Args[g.Root()]; args[0] != args[1] {
		t.Errorf("the two arguments of P are nodes %d and %d, want one", args[0], args[1])
	}
	if refs := g.Refs(); refs[g.Args[g.Root()][0]] != 2 || refs[g.Root()] != 1 {
		t.Errorf("reference counts %v", refs)
	}
	pending := sys.Pending(g)
	if !pending[1] || pending[0] || !pending[3] {
		t.Errorf("pending %v: S has a rule, Z none", pending)
	}
	if got := sys.FormatNode(g, g.Root()); got != "P(S(S(Z())), S(S(Z())))" {
		t.Errorf("FormatNode %s", got)
	}
}

// A summary depends on the term, not on its sharing.
func TestSummaryIgnoresSharing(t *testing.T) {
	sys := mustLoad(t, `sort N = struct Z() | S(N) | P(N, N);
eqn S(Z()) = Z();
input P(S(Z()), S(Z()));`, "")
	shared := sys.Graph(sys.Input)
	unshared := &Graph{
		Head: []int32{0, 1, 0, 1, 2},
		Args: [][]int32{nil, {0}, nil, {2}, {1, 3}},
	}
	a, b := Summarize(shared, shared.Root()), Summarize(unshared, unshared.Root())
	if a != b || a.Size != 5 {
		t.Errorf("shared %v, unshared %v, want equal and size 5", a, b)
	}
	other := &Graph{Head: []int32{0, 1, 0, 2}, Args: [][]int32{nil, {0}, nil, {1, 2}}}
	if c := Summarize(other, other.Root()); c.Hash == a.Hash {
		t.Errorf("P(S(Z), Z) hashes as P(S(Z), S(Z)): %v", c)
	}
}
