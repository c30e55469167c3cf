package interp_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/ir/interp"
)

const inputModule = `module in;
param N: i32 = 5;
buffer xs: i32[N] global input;
buffer fs: f64[3] global input;
buffer bs: bool[2] global input;
buffer us: u8[4] global input;
buffer out: i64[1] global output;
host main() {
  var s: i32 = 0;
  for var i: i32 = 0; i < N; i = i + 1 {
    s = s + xs[i];
  }
  printf "%d %.2f %.2f %.2f %d %d %d %d\n", s, fs[0], fs[1], fs[2], bs[0], bs[1], us[0], us[3];
}
`

// inputFiles writes the test's input files and returns their paths.
func inputFiles(t *testing.T, files map[string][]byte) map[string]string {
	dir := t.TempDir()
	paths := map[string]string{}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return paths
}

func rawF64(vals ...float64) []byte {
	var b []byte
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

func TestInputs(t *testing.T) {
	p := inputFiles(t, map[string][]byte{
		"xs.txt":   []byte("1 -2\n0x10\t 7\n\n  -0X1\n"),
		"fs.bin":   rawF64(1.5, 2, -3.25),
		"fs.txt":   []byte("1.5 2e0 -3.25"),
		"bs.txt":   []byte("true false"),
		"us.bin":   {1, 2, 3, 255},
		"few.txt":  []byte("1 2 3\n4\n"),
		"many.txt": []byte("1 2 3\n4 5\n6\n"),
		"bad.txt":  []byte("1\n2 abc 4 5"),
		"big.txt":  []byte("1 2 3 256"),
		"neg.txt":  []byte("1 2 -3 4"),
		"fs.short": rawF64(1, 2)[:15],
		"bs.bin":   {1, 7},
	})
	inputs := func(over map[string]string) map[string]string {
		in := map[string]string{"xs": p["xs.txt"], "fs": "@" + p["fs.bin"], "bs": p["bs.txt"], "us": "@" + p["us.bin"]}
		for k, v := range over {
			if v == "" {
				delete(in, k)
			} else {
				in[k] = v
			}
		}
		return in
	}
	want := "21 1.50 2.00 -3.25 1 0 1 255\n0\n"
	for _, in := range []map[string]string{inputs(nil), inputs(map[string]string{"fs": p["fs.txt"]})} {
		if got := mustRun(t, "in.kir", inputModule, interp.Config{Inputs: in}); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	for _, tc := range []struct {
		over map[string]string
		want string
	}{
		{map[string]string{"fs": ""}, "in.kir:4:1: error: no input file given for input buffer fs"},
		{map[string]string{"xs": p["few.txt"]}, p["few.txt"] + ": error: 4 values for buffer xs of length 5"},
		{map[string]string{"xs": p["many.txt"]}, p["many.txt"] + ":3:1: error: more than 5 values for buffer xs of length 5"},
		{map[string]string{"xs": p["bad.txt"]}, p["bad.txt"] + `:2:3: error: bad i32 value "abc" in input for buffer xs`},
		{map[string]string{"us": p["big.txt"]}, p["big.txt"] + ":1:7: error: value 256 out of range for u8 in input for buffer us"},
		{map[string]string{"us": p["neg.txt"]}, p["neg.txt"] + ":1:5: error: value -3 out of range for u8 in input for buffer us"},
		{map[string]string{"fs": "@" + p["fs.short"]}, p["fs.short"] + ": error: 15 bytes for buffer fs of 3 f64 values (24 bytes)"},
		{map[string]string{"bs": "@" + p["bs.bin"]}, p["bs.bin"] + ": error: byte 1: bool value 7 is not 0 or 1"},
		{map[string]string{"out": p["xs.txt"]}, "an input file is given for out, which is not an input buffer"},
		{map[string]string{"xs": p["xs.txt"] + ".missing"}, "input buffer xs: open " + p["xs.txt"] + ".missing: no such file or directory"},
	} {
		out, err := run(t, "in.kir", inputModule, interp.Config{Inputs: inputs(tc.over)})
		if err == nil || err.Error() != tc.want {
			t.Errorf("inputs %v: got error\n\t%v\nwant\n\t%s", tc.over, err, tc.want)
		}
		if out != "" {
			t.Errorf("inputs %v: output %q before the program started", tc.over, out)
		}
	}
}

func TestInputValueRanges(t *testing.T) {
	src := `module r;
buffer a: i8[4] global input;
buffer b: u64[2] global input;
buffer c: i64[2] global input;
buffer d: f32[2] global input;
host main() {
  printf "%d %d %d %d|%lu %lu|%ld %ld|%e %e\n", a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], f64(d[0]), f64(d[1]);
}
`
	p := inputFiles(t, map[string][]byte{
		"a": []byte("-128 127 -0x80 0x7f"),
		"b": []byte("18446744073709551615 0xffffffffffffffff"),
		"c": []byte("-9223372036854775808 9223372036854775807"),
		"d": []byte("3.4028234e38 -1.5e-45"),
	})
	got := mustRun(t, "r.kir", src, interp.Config{Inputs: map[string]string{"a": p["a"], "b": p["b"], "c": p["c"], "d": p["d"]}})
	want := "-128 127 -128 127|18446744073709551615 18446744073709551615|-9223372036854775808 9223372036854775807|3.402823e+38 -1.401298e-45\n"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	for _, bad := range []string{"128 0 0 0", "-129 0 0 0", "0x80 0 0 0", "1.0 0 0 0", "true 0 0 0", "- 0 0 0"} {
		q := inputFiles(t, map[string][]byte{"a": []byte(bad)})
		_, err := run(t, "r.kir", src, interp.Config{Inputs: map[string]string{"a": q["a"], "b": p["b"], "c": p["c"], "d": p["d"]}})
		if err == nil || !strings.Contains(err.Error(), ":1:1: error: ") {
			t.Errorf("i8 input %q: got %v, want an error at 1:1", bad, err)
		}
	}
}
