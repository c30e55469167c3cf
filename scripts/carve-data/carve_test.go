package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"gpuc/internal/driver"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

const carveFork = "../../examples/fork/carve.fork"

// corpusTSV is the shared corpus's rule table, where the checkout has it.
const corpusTSV = "../../../shared/corpus/carving/signatures.tsv"

// TestFallbackIsCarveTable checks that the fallback table is carve.fork's
// own.
func TestFallbackIsCarveTable(t *testing.T) {
	m, err := driver.Load(carveFork)
	if err != nil {
		t.Fatal(err)
	}
	var want []ir.Bits
	for _, v := range bytes.Fields(encodeTable(fallback)) {
		n, err := strconv.Atoi(string(v))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, ir.Bits(n))
	}
	if got := m.Buffer("sigs").Init; !slices.Equal(got, want) {
		t.Errorf("carve.fork's table differs from the fallback:\n%v\nwant\n%v", got, want)
	}
}

// TestCorpusHeaders checks what readTSV takes from the corpus.
func TestCorpusHeaders(t *testing.T) {
	if _, err := os.Stat(corpusTSV); err != nil {
		t.Skipf("no shared corpus at %s: %v", corpusTSV, err)
	}
	sigs, err := readTSV(corpusTSV)
	if err != nil {
		t.Fatal(err)
	}
	if len(sigs) != 67 {
		t.Errorf("%d headers, want 67", len(sigs))
	}
	for _, want := range [][]int{
		{0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10},
		{0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a},
		{'R', 'I', 'F', 'F', anyByte, anyByte, anyByte, anyByte, 'A', 'V', 'I'},
		{'E', 'N', 'I', 'G', 'M', 'A', ' ', 'B', 'I', 'N', 'A', 'R', 'Y', ' ', 'F', 'I', 'L', 'E'},
	} {
		if !slices.ContainsFunc(sigs, func(s []int) bool { return slices.Equal(s, want) }) {
			t.Errorf("header %v is missing", want)
		}
	}
	for _, s := range sigs {
		if fixed(s) < minFixed {
			t.Errorf("header %v fixes fewer than %d bytes", s, minFixed)
		}
	}
}

// TestCarveFindsExpected runs carve.fork on an image from makeImage, read
// from a file (--input data, GEN=0), specialized on a table given with
// --static and with the table in global and in constant memory, and checks
// that it prints exactly the matches that scan finds.
func TestCarveFindsExpected(t *testing.T) {
	tables := map[string][][]int{"fallback": fallback}
	if _, err := os.Stat(corpusTSV); err == nil {
		sigs, err := readTSV(corpusTSV)
		if err != nil {
			t.Fatal(err)
		}
		tables["corpus"] = sigs
	} else {
		t.Logf("no shared corpus at %s; the corpus table is left out", corpusTSV)
	}
	const n, gap = 30000, 701
	for name, sigs := range tables {
		dir := t.TempDir()
		table, image := filepath.Join(dir, "sigs"), filepath.Join(dir, "image")
		data, planted, err := makeImage(sigs, n, gap, 7)
		if err != nil {
			t.Fatal(err)
		}
		want := scan(data, sigs)
		if err := checkPlanted(planted, want); err != nil {
			t.Fatal(err)
		}
		if len(want) <= len(planted)/2 || len(planted) < 40 {
			t.Fatalf("%s: %d planted, %d found: the image is too small to test", name, len(planted), len(want))
		}
		write(t, table, encodeTable(sigs))
		write(t, image, data)
		for _, placement := range []passes.Placement{passes.PlaceAuto, passes.PlaceGlobal, passes.PlaceConstant} {
			got := runCarve(t, table, image, n, placement)
			if got != string(formatMatches(want)) {
				t.Errorf("%s table, --pe-placement=%s: carve.fork prints\n%s\nwant\n%s", name, placement, got, formatMatches(want))
			}
		}
	}
}

// runCarve compiles carve.fork as gpuc compile would, with the table
// static and the image an input, and runs it in the interpreter.
func runCarve(t *testing.T, table, image string, n int64, placement passes.Placement) string {
	t.Helper()
	m, err := driver.Load(carveFork, "--static", "sigs="+table, "--input", "data")
	if err != nil {
		t.Fatal(err)
	}
	if err := driver.Lower(m, []string{"default"}, &passes.Config{VerifyEach: true, PEPlacement: placement}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = interp.Run(m, interp.Config{Stdout: &out, Params: map[string]int64{"N": n, "GEN": 0, "PROCS": 96},
		Inputs: map[string]string{"data": "@" + image}})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return out.String()
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
