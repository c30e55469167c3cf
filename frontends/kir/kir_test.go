package kir_test

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/frontends/kir"
	"gpuc/internal/irtest"
	"gpuc/ir"
)

// kirFiles lists every .kir file in the repository's examples and test
// data, the round-trip corpus.
func kirFiles(t *testing.T) []string {
	var files []string
	for _, pattern := range []string{
		"../../examples/*/*.kir",
		"testdata/*.kir",
		"../../ir/interp/testdata/*.kir",
		"../../backends/cuda/testdata/*.kir",
	} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("round-trip corpus has only %d files", len(files))
	}
	return files
}

// TestRoundTrip checks print(parse(print(parse(src)))) == print(parse(src))
// on every .kir file, in the manner of llir/llvm's asm_test.
func TestRoundTrip(t *testing.T) {
	for _, file := range kirFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			m, err := kir.Parse(file, src)
			if err != nil {
				t.Fatal(err)
			}
			once := ir.Print(m)
			m2, err := kir.Parse("printed", []byte(once))
			if err != nil {
				t.Fatalf("printed form does not parse: %v\n%s", err, once)
			}
			if twice := ir.Print(m2); twice != once {
				t.Errorf("print(parse(print)) differs:\n--- first\n%s--- second\n%s", once, twice)
			}
		})
	}
}

// TestPrintCanonical pins how constants and operator precedence print:
// the printed form of testdata/print.kir is testdata/print.golden.
func TestPrintCanonical(t *testing.T) {
	src, err := os.ReadFile("testdata/print.kir")
	if err != nil {
		t.Fatal(err)
	}
	m, err := kir.Parse("print.kir", src)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/print.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got := ir.Print(m); got != string(want) {
		t.Errorf("printed form differs from testdata/print.golden:\n%s", got)
	}
}

// TestParseErrors checks that bad text gets positioned diagnostics, all of
// them, and no panic.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"module m; param N: i32 = ;", "x.kir:1:26: error: syntax error"},
		{"module m; param N: f32 = 1;", "x.kir:1:20: error: parameter N must have an integer type, not f32"},
		{"module m; param N: i8 = 300;", "x.kir:1:25: error: integer 300 out of range for i8"},
		{"module m; buffer b: i32[4] global banana;", "x.kir:1:35: error: unknown buffer role banana"},
		{"module m; buffer b: i33[4] global scratch;", "x.kir:1:21: error: unknown type i33"},
		{"module m; host main() { var x: i32 = 2147483648; }", "x.kir:1:38: error: integer literal 2147483648 overflows i32"},
		{"module m; host main() { x = 1; y = 2; }", "x.kir:1:25: error: undeclared variable x\nx.kir:1:32: error: undeclared variable y"},
		{"module m; host main() { printf \"\\q\"; }", "x.kir:1:32: error: unknown escape \\q"},
		{"module m; host main() { printf stdin \"x\"; }", "x.kir:1:32: error: printf to stdin: want stdout or stderr"},
		{"module m; buffer b: i32[1] global scratch counts \"x\";", "x.kir:1:43: error: unexpected counts after the buffer's role (want progress \"NAME\", bound \"PARAM\" or below \"PARAM\")"},
		{"module m; host main() { launch k() grid 1 block 1; }", "x.kir:1:32: error: undeclared kernel k"},
		{"module m; kernel k() { } host main() { launch k() grid 1 block 1 stride; }", "x.kir:1:66: error: launch: stride must come once, after coop and before world"},
		{"module m; host main() { barrier blocks; }", "x.kir:1:33: error: unknown barrier scope blocks"},
		{"module m; host main() { i32(3); }", "x.kir:1:25: error: i32(...) is not a function call"},
		{"module m; buffer b: i32[4] global scratch; host main() { var x: i32 = b; }", "x.kir:1:71: error: b is a memory; index it to read an element"},
		{"module m; param N: i32 = 4 fot 0.5;", "x.kir:1:28: error: unexpected fot after the parameter's default (want fit FRACTION)"},
		{"module m; param N: i32 = 4 fit 0.5f;", "x.kir:1:32: error: fit wants a decimal fraction, not 0.5f"},
		{"module m; param N: i32 = 4 fit nan;", "x.kir:1:32: error: fit wants a decimal fraction, not nan"},
		{"module m; param N: i32 = 4 fit;", "x.kir:1:31: error: syntax error"},
	} {
		_, err := kir.Parse("x.kir", []byte(tc.src))
		if err == nil {
			t.Errorf("%s: parsed without error, want %q", tc.src, tc.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s:\ngot  %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

// FuzzParse feeds arbitrary text to the parser: it must never panic, and
// whatever parses must print and parse back to the same text.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"../../examples/*/*.kir", "testdata/*.kir"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			src, _ := os.ReadFile(file)
			f.Add(string(src))
		}
	}
	f.Add("module m; host main() { var x: i32 = -(-5); printf \"%d\\n\", x; }")
	f.Add("module m; buffer c: i64[1] global scratch progress \"steps\"; host main() { printf stderr \"%d\\n\", 1; }")
	f.Fuzz(func(t *testing.T, src string) {
		m, err := kir.Parse("fuzz.kir", []byte(src))
		if err != nil {
			return
		}
		_ = ir.Verify(m, m.Level())
		once := ir.Print(m)
		m2, err := kir.Parse("printed", []byte(once))
		if err != nil {
			t.Fatalf("printed form does not parse: %v\n%s", err, once)
		}
		if twice := ir.Print(m2); twice != once {
			t.Fatalf("round trip differs:\n%s\n---\n%s", once, twice)
		}
	})
}

// TestParseMutations feeds the parser and verifier a few thousand random
// mutations of the examples, deterministically: no input may panic, and
// whatever parses must survive verification and printing.
func TestParseMutations(t *testing.T) {
	files := irtest.Glob(t, "../../examples/*/*.kir")
	r := rand.New(rand.NewSource(1))
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 500; i++ {
			b := mutate(r, src)
			m, err := kir.Parse("mutant.kir", b)
			if err != nil {
				if strings.Contains(err.Error(), "internal error") {
					t.Fatalf("parser failed internally on:\n%s\n%v", b, err)
				}
				continue
			}
			_ = ir.Verify(m, m.Level())
			_ = ir.Print(m)
		}
	}
}

// mutate deletes, replaces or duplicates a few bytes of src.
func mutate(r *rand.Rand, src []byte) []byte {
	b := append([]byte(nil), src...)
	for k := 0; k < 3; k++ {
		p := r.Intn(len(b))
		switch r.Intn(3) {
		case 0:
			b = append(b[:p], b[p+1:]...)
		case 1:
			b[p] = byte(' ' + r.Intn(95))
		default:
			b = append(b[:p], append([]byte{b[r.Intn(len(b))]}, b[p:]...)...)
		}
	}
	return b
}
