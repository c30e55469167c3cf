package its

import (
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRoundTrip parses the engine's constructed systems, prints them and parses the print: the
// second print must equal the first.
func TestRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../termination/testdata/its/*.its")
	if len(files) == 0 {
		t.Fatal("no systems")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(string(src), f)
		if err != nil {
			t.Fatal(err)
		}
		p1 := s.String()
		s2, err := Parse(p1, f)
		if err != nil {
			t.Fatalf("%s: the print does not parse: %v\n%s", f, err, p1)
		}
		if p2 := s2.String(); p2 != p1 {
			t.Errorf("%s: print, parse, print differs:\n%s\n---\n%s", f, p1, p2)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"system s\nvar i u99\n", "x.its:2:1: bad sort"},
		{"system s\nvar i u32\nloc a [entry]\ntrans a -> b [] {}\n", "x.its:4:"},
		{"system s\nvar i u32\nloc a [entry]\ntrans a -> a [(i <u j)] {}\n", "unknown variable \"j\""},
		{"system s\nvar i u32\nloc a [entry]\ntrans a -> a [(i + 1:u32)] {}\n", "want bool"},
		{"system s\nvar i u32\nvar n i32\nloc a [entry]\ntrans a -> a [(i <u n)] {}\n", "differ"},
	} {
		_, err := Parse(c.src, "x.its")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		}
	}
}

// TestEval checks wrap-around and signedness in a few cases whose answers are known.
func TestEval(t *testing.T) {
	x := Var{"x", I32}
	u := Var{"u", U32}
	env := &Env{Vars: map[string]*big.Int{"x": big.NewInt(2147483647), "u": big.NewInt(4294967295)}}
	for _, c := range []struct {
		e    Expr
		want int64
	}{
		{B(Add, R(x), C(1, I32)), -2147483648},
		{B(Add, R(u), C(1, U32)), 0},
		{B(Slt, B(Add, R(x), C(1, I32)), R(x)), 1},
		{B(Ult, C(-1, I32), C(0, I32)), 0},
		{B(LShr, C(-8, I32), C(1, I32)), 2147483644},
		{B(AShr, C(-8, I32), C(1, I32)), -4},
		{B(SDiv, C(-7, I32), C(2, I32)), -3},
		{B(SRem, C(-7, I32), C(2, I32)), -1},
		{B(UDiv, C(7, U32), C(0, U32)), 4294967295},
		{&Cast{Op: SExt, X: C(-1, I32), To: I64}, -1},
		{&Cast{Op: ZExt, X: C(-1, I32), To: I64}, 4294967295},
		{&Cast{Op: Trunc, X: C(0x1ff, I32), To: Sort{8, true}}, -1},
	} {
		if got := Eval(c.e, env); got.Int64() != c.want {
			t.Errorf("%s = %s, want %d", c.e, got, c.want)
		}
	}
}
