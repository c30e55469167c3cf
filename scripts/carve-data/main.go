// Command carve-data makes the inputs of the file-carving benchmark
// (scripts/bench-pe.sh) and of examples/fork/carve.fork with GEN=0: header
// tables and disk images with the matches expected in them. It is not part
// of gpuc; it is the benchmark's independent reference.
//
//	carve-data sigs [-tsv signatures.tsv] -o TABLE
//	    writes a header table in carve.fork's form (each header's length,
//	    then its bytes, 256 for any byte; 0 at the end), one value per
//	    line: from the tab-separated rule table of shared/corpus/carving
//	    when -tsv is given, else carve.fork's own table.
//	carve-data image -sigs TABLE -n BYTES [-gap G] [-seed S] -o IMAGE -expect OUT
//	    writes IMAGE: N random bytes with a header planted in every G bytes
//	    (header p % headers at a random offset in [p*G, (p+1)*G)), the
//	    bytes a header leaves open kept random; and OUT: every match in
//	    the image, planted or not, as carve.fork prints them ("offset id",
//	    sorted). It checks that every planted header is found.
//	carve-data scan -sigs TABLE -image IMAGE -expect OUT
//	    writes OUT: every match of TABLE's headers in an existing image.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "carve-data: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: carve-data sigs|image [flags]")
	}
	fs := flag.NewFlagSet("carve-data "+args[0], flag.ContinueOnError)
	switch args[0] {
	case "sigs":
		tsv := fs.String("tsv", "", "signatures.tsv of shared/corpus/carving (default: carve.fork's table)")
		out := fs.String("o", "", "the table to write")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return writeSigs(*tsv, *out)
	case "image":
		sigs := fs.String("sigs", "", "the header table")
		n := fs.Int64("n", 1<<32, "bytes of image")
		gap := fs.Int64("gap", 1<<20, "bytes between planted headers")
		seed := fs.Uint64("seed", 1, "seed of the random bytes")
		out := fs.String("o", "", "the image to write")
		expect := fs.String("expect", "", "the expected output to write")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return writeImage(*sigs, *n, *gap, *seed, *out, *expect)
	case "scan":
		sigs := fs.String("sigs", "", "the header table")
		image := fs.String("image", "", "the image to scan")
		expect := fs.String("expect", "", "the expected output to write")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return writeScan(*sigs, *image, *expect)
	}
	return fmt.Errorf("unknown command %q: want sigs, image or scan", args[0])
}

// writeSigs writes the header table that tsv (or carve.fork's fallback)
// gives.
func writeSigs(tsv, out string) error {
	if out == "" {
		return fmt.Errorf("sigs: -o is required")
	}
	var sigs [][]int
	var err error
	if tsv == "" {
		sigs = fallback
	} else if sigs, err = readTSV(tsv); err != nil {
		return err
	}
	return os.WriteFile(out, encodeTable(sigs), 0o644)
}

// writeImage makes the image and its expected matches.
func writeImage(sigsPath string, n, gap int64, seed uint64, out, expect string) error {
	if sigsPath == "" || out == "" || expect == "" {
		return fmt.Errorf("image: -sigs, -o and -expect are required")
	}
	sigs, err := readTable(sigsPath)
	if err != nil {
		return err
	}
	data, planted, err := makeImage(sigs, n, gap, seed)
	if err != nil {
		return err
	}
	found := scan(data, sigs)
	if err := checkPlanted(planted, found); err != nil {
		return err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	return os.WriteFile(expect, formatMatches(found), 0o644)
}

// writeScan lists the matches of a table's headers in an image.
func writeScan(sigsPath, image, expect string) error {
	if sigsPath == "" || image == "" || expect == "" {
		return fmt.Errorf("scan: -sigs, -image and -expect are required")
	}
	sigs, err := readTable(sigsPath)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(image)
	if err != nil {
		return err
	}
	return os.WriteFile(expect, formatMatches(scan(data, sigs)), 0o644)
}
