package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestForkReference runs every example of docs/FORK.md: each ```fork
// block is a program, and the block after it (```output or ```stderr)
// is what gpuc run prints on stdout, or its error with exit status 1.
func TestForkReference(t *testing.T) {
	doc, err := os.ReadFile("../../docs/FORK.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)```fork\n(.*?)```\n.*?```(output|stderr)\n(.*?)```")
	examples := re.FindAllSubmatch(doc, -1)
	if len(examples) < 8 {
		t.Fatalf("found %d examples in docs/FORK.md", len(examples))
	}
	dir := t.TempDir()
	for i, ex := range examples {
		path := filepath.Join(dir, "ex.fork")
		if err := os.WriteFile(path, ex[1], 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		status := run([]string{"run", path}, &stdout, &stderr)
		want := string(ex[3])
		switch string(ex[2]) {
		case "output":
			if status != 0 || stdout.String() != want {
				t.Errorf("example %d: exit %d, stdout %q, stderr %q; want %q", i+1, status, stdout.String(), stderr.String(), want)
			}
		case "stderr":
			if status != 1 || stderr.String() != want {
				t.Errorf("example %d: exit %d, stderr %q; want exit 1 and %q", i+1, status, stderr.String(), want)
			}
		}
	}
}
