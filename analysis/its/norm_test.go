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

// TestEvalBinary32 checks evalBinary at 32 bits against Go's int32 and uint32 arithmetic (the
// same two's complement), for both signed and unsigned sorts, divisors and shifts nonzero and
// in range, where Go and SMT-LIB agree.
func TestEvalBinary32(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	b := func(c bool) int64 {
		if c {
			return 1
		}
		return 0
	}
	edge := []uint32{0, 1, 2, 31, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff}
	for i := 0; i < 2000; i++ {
		x, y := rng.Uint32(), rng.Uint32()
		if i < len(edge)*len(edge) {
			x, y = edge[i%len(edge)], edge[i/len(edge)]
		}
		if y == 0 || (int32(x) == -1<<31 && int32(y) == -1) {
			continue
		}
		sh := y % 32
		ref := map[Op]int64{
			Add: int64(x + y), Sub: int64(x - y), Mul: int64(x * y),
			UDiv: int64(x / y), URem: int64(x % y), SDiv: int64(uint32(int32(x) / int32(y))), SRem: int64(uint32(int32(x) % int32(y))),
			And: int64(x & y), Or: int64(x | y), Xor: int64(x ^ y),
			Eq: b(x == y), Ne: b(x != y), Ult: b(x < y), Ule: b(x <= y), Ugt: b(x > y), Uge: b(x >= y),
			Slt: b(int32(x) < int32(y)), Sle: b(int32(x) <= int32(y)), Sgt: b(int32(x) > int32(y)), Sge: b(int32(x) >= int32(y)),
		}
		shifts := map[Op]int64{Shl: int64(x << sh), LShr: int64(x >> sh), AShr: int64(uint32(int32(x) >> sh))}
		for _, s := range []Sort{U32, I32} {
			for _, xs := range []*big.Int{s.Norm(new(big.Int).SetUint64(uint64(x))), new(big.Int).SetUint64(uint64(x))} {
				check := func(op Op, yv uint32, want int64) {
					got := evalBinary(op, s, xs, s.Norm(new(big.Int).SetUint64(uint64(yv))))
					w := big.NewInt(want)
					if op < Eq {
						w = s.Norm(w)
					}
					if got.Cmp(w) != 0 {
						t.Fatalf("%s: op %d on %#x, %#x: got %s, want %s", s, op, x, yv, got, w)
					}
				}
				for op, want := range ref {
					check(op, y, want)
				}
				for op, want := range shifts {
					check(op, sh, want)
				}
			}
		}
	}
}
