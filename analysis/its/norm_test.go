package its

import (
	"math/big"
	"math/rand"
	"testing"
)

// normSlow is the definition Norm's word path must agree with.
func normSlow(s Sort, v *big.Int) *big.Int {
	mod := new(big.Int).Lsh(big.NewInt(1), uint(s.Width))
	r := new(big.Int).Mod(v, mod)
	if s.Signed && r.Cmp(new(big.Int).Rsh(mod, 1)) >= 0 {
		r.Sub(r, mod)
	}
	return r
}

// TestNorm checks Norm against the definition on values around every power of two up to 2^130
// and on random ones, at each width of 1..70 and 128, both signednesses.
func TestNorm(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var vals []*big.Int
	for e := 0; e <= 130; e++ {
		p := new(big.Int).Lsh(big.NewInt(1), uint(e))
		for _, d := range []int64{-1, 0, 1} {
			x := new(big.Int).Add(p, big.NewInt(d))
			vals = append(vals, x, new(big.Int).Neg(x))
		}
	}
	for i := 0; i < 200; i++ {
		vals = append(vals, new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), 80)), big.NewInt(rng.Int63()-rng.Int63()))
	}
	widths := []int{128}
	for w := 1; w <= 70; w++ {
		widths = append(widths, w)
	}
	for _, w := range widths {
		for _, signed := range []bool{false, true} {
			s := Sort{w, signed}
			for _, v := range vals {
				orig := new(big.Int).Set(v)
				got, want := s.Norm(v), normSlow(s, v)
				if got.Cmp(want) != 0 {
					t.Fatalf("%s.Norm(%s) = %s, want %s", s, v, got, want)
				}
				if v.Cmp(orig) != 0 {
					t.Fatalf("%s.Norm changed its argument", s)
				}
			}
			if s.Min().Cmp(normSlow(s, s.Min())) != 0 || s.Max().Cmp(normSlow(s, s.Max())) != 0 {
				t.Fatalf("%s: range [%s, %s] does not wrap to itself", s, s.Min(), s.Max())
			}
		}
	}
}
