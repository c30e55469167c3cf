package ir_test

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"gpuc/frontends/kir"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// textSrc formats N values of val, one a line, on the device: the
// test puts lengths, the scan and the writes into its region
// (Note [Device formatting]), and the host writes the text.
const textSrc = `module textnet;
param N: i32 = 0;
param PROCS: i32 = 3;
buffer val: i64[N] global input;
buffer ends: i64[N] global scratch;
buffer tmp: i64[N] global scratch;
buffer text: u8[i64(N) * 21l] global scratch;
array h: u8[i64(N) * 21l];
host main() {
  region PROCS {
  }
  var n: i64 = 0l;
  if N > 0 {
    n = ends[N - 1];
  }
  copy h[0], text[0], n;
  write h, n;
}
`

// TestDeviceText formats integers at the edges of every digit count and
// sign, race-checked, at the SPMD level and lowered, and compares with
// Go's formatting (printf's %ld).
func TestDeviceText(t *testing.T) {
	vals := []int64{0, -1, 1, 9, 10, -10, 99, 100, 12345, -987654321, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 1e18, -1e18, 999999999999999999}
	var in, want []string
	for _, v := range vals {
		in = append(in, strconv.FormatInt(v, 10))
		want = append(want, strconv.FormatInt(v, 10)+"\n")
	}
	dir := t.TempDir()
	for _, n := range []int{0, 1, 2, 5, len(vals)} {
		path := dir + "/val" + strconv.Itoa(n)
		if err := os.WriteFile(path, []byte(strings.Join(in[:n], " ")), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, lowered := range []bool{false, true} {
			m, err := kir.Parse("textnet.kir", []byte(textSrc))
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
			pos := region.Pos
			nref := &ir.ParamRef{Name: "N", T: ir.I32}
			loop := func(body func(i ir.Expr) []ir.Stmt) ir.Stmt {
				i := fresh("i")
				v := &ir.Var{Name: i, T: ir.I32}
				return &ir.For{Pos: pos, Init: &ir.Decl{Pos: pos, Name: i, T: ir.I32, Init: &ir.Builtin{Op: ir.ProcID}},
					Cond: &ir.Binary{Op: ir.Lt, X: v, Y: nref},
					Post: &ir.Assign{Pos: pos, Name: i, Value: &ir.Binary{Op: ir.Add, X: v, Y: &ir.Builtin{Op: ir.NumProcs}}},
					Body: body(v)}
			}
			val := func(i ir.Expr) ir.Expr { return &ir.Load{Buf: "val", Index: i, T: ir.I64} }
			region.Body = append(region.Body, loop(func(i ir.Expr) []ir.Stmt {
				return []ir.Stmt{&ir.Store{Pos: pos, Buf: "ends", Index: i, Value: &ir.Binary{Op: ir.Add, X: ir.DecimalLen(pos, val(i)), Y: ir.IntConst(ir.I64, 1)}}}
			}), &ir.Barrier{Pos: pos, Grid: true})
			region.Body = append(region.Body, ir.ScanNetwork(pos, "ends", "tmp", ir.I64, nref, fresh)...)
			region.Body = append(region.Body, loop(func(i ir.Expr) []ir.Stmt {
				at := fresh("at")
				start := &ir.Select{Cond: &ir.Binary{Op: ir.Gt, X: i, Y: ir.IntConst(ir.I32, 0)},
					X: &ir.Load{Buf: "ends", Index: &ir.Binary{Op: ir.Sub, X: i, Y: ir.IntConst(ir.I32, 1)}, T: ir.I64}, Y: ir.IntConst(ir.I64, 0)}
				out := []ir.Stmt{&ir.Decl{Pos: pos, Name: at, T: ir.I64, Init: start}}
				out = append(out, ir.PutDecimal(pos, "text", at, val(i), fresh)...)
				return append(out, ir.PutText(pos, "text", at, "\n")...)
			}))
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
			err = interp.Run(m, interp.Config{Stdout: &out, Params: map[string]int64{"N": int64(n)}, Inputs: map[string]string{"val": path}, Race: true})
			if err != nil {
				t.Fatalf("n=%d lowered=%v: %v", n, lowered, err)
			}
			if got := out.String(); got != strings.Join(want[:n], "") {
				t.Errorf("n=%d lowered=%v: got\n%q\nwant\n%q", n, lowered, got, strings.Join(want[:n], ""))
			}
		}
	}
}
