package toolkit

import (
	"reflect"
	"testing"

	"gpuc/internal/irtest"
)

// TestCases reads cases from comment blocks of each comment style and
// from a .out file with its .args.
func TestCases(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return irtest.WriteFile(t, dir, name, text) }
	got, err := Cases(write("a.fork", "// test: N=3\n// 1\n//\n// 2\n// test:\n// error: boom\nvoid main() {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Case{{Args: []string{"N=3"}, Stdout: "1\n\n2\n", Line: 1}, {Args: []string{}, Error: "boom", Line: 5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("comment block: got %+v, want %+v", got, want)
	}
	got, err = Cases(write("b.chr", "% test: X=1\n% yes\ngcd(0) <=> true.\n"))
	if err != nil || len(got) != 1 || got[0].Stdout != "yes\n" {
		t.Errorf("%% comments: got %+v, %v", got, err)
	}
	write("c.out", "42\n")
	write("c.args", "N=7 M=1\n")
	got, err = Cases(write("c.kir", "module c;\n"))
	if err != nil || len(got) != 1 || got[0].Stdout != "42\n" || !reflect.DeepEqual(got[0].Args, []string{"N=7", "M=1"}) {
		t.Errorf(".out file: got %+v, %v", got, err)
	}
	if _, err := Cases(write("d.kir", "module d;\n")); err == nil {
		t.Errorf("no cases: want an error")
	}
}

// TestSummarize checks the median, extremes and the distribution-free
// interval of the median.
func TestSummarize(t *testing.T) {
	m := Measurement{TimesMS: []float64{5, 1, 4, 2, 3}}
	m.summarize()
	if m.MedianMS != 3 || m.MinMS != 1 || m.MaxMS != 5 || !reflect.DeepEqual(m.CI95MS, []float64{1, 5}) {
		t.Errorf("5 runs: %+v", m)
	}
	var ts []float64
	for i := 100; i >= 1; i-- {
		ts = append(ts, float64(i))
	}
	m = Measurement{TimesMS: ts}
	m.summarize()
	// Ranks 50 -/+ 9.8, rounded outwards: 0-based 40 and 60, the 41st and
	// 61st smallest.
	if m.MedianMS != 50.5 || m.CI95MS[0] != 41 || m.CI95MS[1] != 61 {
		t.Errorf("100 runs: median %g, interval %v", m.MedianMS, m.CI95MS)
	}
}
