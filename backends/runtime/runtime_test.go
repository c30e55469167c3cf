package runtime

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// harness reads one input buffer with gpuc_read_input and prints its
// values as output buffers are printed: read TYPE N FILE.
const harness = `#include "gpuc_runtime.h"
int main(int argc, char **argv) {
  if (argc != 4) return 2;
  int t = 0;
  while (t <= GPUC_F64 && strcmp(gpuc_type_name((gpuc_type)t), argv[1]) != 0) t++;
  if (t > GPUC_F64) return 2;
  gpuc_buffer_arg b = {"xs", true, argv[3]};
  long long n = atoll(argv[2]);
  void *p = gpuc_read_input(&b, (gpuc_type)t, n);
  gpuc_print_values((gpuc_type)t, p, n);
  gpuc_free_input(p);
  return 0;
}
`

// TestReadInput builds a program over gpuc_runtime.h with the host's C++
// compiler and reads input files through it, text and binary (Note
// [Input files]): values in every form the text syntax allows, and each
// error, as the interpreter words it (ir/interp's input tests).
func TestReadInput(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not found")
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("gpuc_runtime.h", Header)
	src := write("read.cpp", harness)
	bin := filepath.Join(dir, "read")
	if out, err := exec.Command(gxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	tests := []struct {
		typ, n, text string
		binary       bool
		out, fail    string // the values printed, or the error line after FILE
	}{
		{"i32", "5", " 1\t-2\r\n3 \n\n 0x10 -0x1\n", false, "1\n-2\n3\n16\n-1\n", ""},
		{"i64", "3", "9223372036854775807 -9223372036854775808 123456789012345678", false,
			"9223372036854775807\n-9223372036854775808\n123456789012345678\n", ""},
		{"u8", "2", "255 0", false, "255\n0\n", ""},
		{"i8", "2", "-128 127", false, "-128\n127\n", ""},
		{"u64", "1", "18446744073709551615", false, "18446744073709551615\n", ""},
		{"bool", "2", "true false", false, "1\n0\n", ""},
		{"f64", "2", "1.5 -2", false, "1.500000\n-2.000000\n", ""},
		{"i32", "0", " \n", false, "", ""},
		{"i32", "3", "1 2", false, "", ": error: 2 values for buffer xs of length 3"},
		{"i32", "2", "1 2 3", false, "", ":1:5: error: more than 2 values for buffer xs of length 2"},
		{"i32", "2", "1 x2", false, "", `:1:3: error: bad i32 value "x2" in input for buffer xs`},
		{"i32", "2", "1 2x", false, "", `:1:3: error: bad i32 value "2x" in input for buffer xs`},
		{"i32", "2", "1 -", false, "", `:1:3: error: bad i32 value "-" in input for buffer xs`},
		{"i32", "1", "2147483648", false, "", ":1:1: error: value 2147483648 out of range for i32 in input for buffer xs"},
		{"u8", "1", "-1", false, "", ":1:1: error: value -1 out of range for u8 in input for buffer xs"},
		{"i64", "1", "99999999999999999999", false, "", ":1:1: error: value 99999999999999999999 out of range for i64 in input for buffer xs"},
		{"i32", "2", "1 \x00 2", false, "", ": error: a NUL byte in the input for buffer xs"},
		{"i32", "2", "\x01\x00\x00\x00\xff\xff\xff\xff", true, "1\n-1\n", ""},
		{"i32", "2", "\x01\x00\x00\x00", true, "", ": error: 4 bytes for buffer xs of 2 i32 values (8 bytes)"},
		{"i32", "1", "\x01\x00\x00\x00\x00", true, "", ": error: 5 bytes for buffer xs of 1 i32 values (4 bytes)"},
		{"bool", "1", "\x02", true, "", ": error: byte 0: bool value 2 is not 0 or 1"},
	}
	for i, tc := range tests {
		path := write(strings.ReplaceAll(t.Name(), "/", "_")+string(rune('a'+i)), tc.text)
		spec := path
		if tc.binary {
			spec = "@" + path
		}
		out, err := exec.Command(bin, tc.typ, tc.n, spec).CombinedOutput()
		want := tc.out
		if tc.fail != "" {
			want = path + tc.fail + "\n" // the interpreter's form: PATH[:LINE:COL]: error: MSG
		}
		if (err != nil) != (tc.fail != "") || string(out) != want {
			t.Errorf("case %d (%q): %v: got %q, want %q", i, tc.text, err, out, want)
		}
	}
	if out, err := exec.Command(bin, "i32", "1", filepath.Join(dir, "absent")).CombinedOutput(); err == nil ||
		!strings.Contains(string(out), "error: input buffer xs: open "+filepath.Join(dir, "absent")+": ") {
		t.Errorf("absent file: %v: %s", err, out)
	}
}
