package fromllvm

import (
	"flag"
	"fmt"
	"testing"
)

var dumpFile = flag.String("dump", "", "translate this kernel and print its systems")

// TestDump prints the systems of -dump FILE (a debugging aid; skipped without the flag).
func TestDump(t *testing.T) {
	if *dumpFile == "" {
		t.Skip("no -dump FILE")
	}
	ss, err := TranslateFile(*dumpFile, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		fmt.Println(s)
	}
}
