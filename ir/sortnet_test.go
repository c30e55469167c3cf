package ir_test

import (
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gpuc/frontends/kir"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// sortSrc fills idx with 0..N-1 padded with -1 up to SIZE and prints the
// keys in idx's order; TestSortNetwork puts the network between the two.
const sortSrc = `module sortnet;
param N: i32 = 0;
param SIZE: i32 = 1;
param PROCS: i32 = 3;
buffer key: i64[N] global input;
buffer key2: i64[N] global input;
buffer idx: i32[SIZE] global scratch;
host main() {
  region PROCS {
    for var i: i32 = pid(); i < SIZE; i = i + nprocs() {
      if i < N {
        idx[i] = i;
      } else {
        idx[i] = -1;
      }
    }
    barrier grid;
  }
  for var j: i32 = 0; j < N; j = j + 1 {
    printf "%ld %ld\n", key[idx[j]], key2[idx[j]];
  }
}
`

// TestSortNetwork sorts random two-key records of every size up to 40
// with few processors, race-checked, at the SPMD level and lowered, and
// compares with Go's sort.
func TestSortNetwork(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for n := 0; n <= 40; n++ {
		size := 1
		for size < n {
			size *= 2
		}
		var k1, k2, want []string
		type rec struct{ a, b int64 }
		var recs []rec
		for i := 0; i < n; i++ {
			r := rec{rng.Int63n(7) - 3, rng.Int63n(5)}
			recs = append(recs, r)
			k1 = append(k1, strconv.FormatInt(r.a, 10))
			k2 = append(k2, strconv.FormatInt(r.b, 10))
		}
		slices.SortFunc(recs, func(x, y rec) int {
			if x.a != y.a {
				return int(x.a - y.a)
			}
			return int(x.b - y.b)
		})
		for _, r := range recs {
			want = append(want, fmt.Sprintf("%d %d\n", r.a, r.b))
		}
		dir := t.TempDir()
		write := func(name string, vals []string) string {
			path := dir + "/" + name
			if err := os.WriteFile(path, []byte(strings.Join(vals, " ")), 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		}
		inputs := map[string]string{"key": write("key", k1), "key2": write("key2", k2)}
		for _, lowered := range []bool{false, true} {
			m, err := kir.Parse("sortnet.kir", []byte(sortSrc))
			if err != nil {
				t.Fatal(err)
			}
			region := m.Func("main").Body[0].(*ir.Region)
			used := map[string]bool{}
			fresh := func(base string) string {
				for i := 0; ; i++ {
					name := base + strconv.Itoa(i)
					if !used[name] {
						used[name] = true
						return name
					}
				}
			}
			ld := func(buf string, i ir.Expr) ir.Expr { return &ir.Load{Buf: buf, Index: i, T: ir.I64} }
			less := func(x, y ir.Expr) ir.Expr {
				return &ir.Binary{Op: ir.LogOr, X: &ir.Binary{Op: ir.Lt, X: ld("key", x), Y: ld("key", y)},
					Y: &ir.Binary{Op: ir.LogAnd, X: &ir.Binary{Op: ir.Eq, X: ld("key", x), Y: ld("key", y)},
						Y: &ir.Binary{Op: ir.Lt, X: ld("key2", x), Y: ld("key2", y)}}}
			}
			region.Body = append(region.Body, ir.SortNetwork(region.Pos, "idx", &ir.ParamRef{Name: "SIZE", T: ir.I32}, less, fresh)...)
			if err := ir.Verify(m, ir.SPMDLevel); err != nil {
				t.Fatalf("n=%d: %v\n%s", n, err, ir.Print(m))
			}
			if lowered {
				ps, err := passes.Expand([]string{"default"})
				if err != nil {
					t.Fatal(err)
				}
				if err := passes.Run(m, ps, &passes.Config{VerifyEach: true}); err != nil {
					t.Fatalf("n=%d: lowering: %v", n, err)
				}
			}
			var out strings.Builder
			params := map[string]int64{"N": int64(n), "SIZE": int64(size)}
			if err := interp.Run(m, interp.Config{Stdout: &out, Params: params, Inputs: inputs, Race: true}); err != nil {
				t.Fatalf("n=%d lowered=%v: %v", n, lowered, err)
			}
			if got := out.String(); got != strings.Join(want, "") {
				t.Fatalf("n=%d lowered=%v: got\n%s\nwant\n%s", n, lowered, got, strings.Join(want, ""))
			}
		}
	}
}
