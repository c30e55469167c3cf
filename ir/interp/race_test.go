package interp_test

import (
	"errors"
	"strings"
	"testing"

	"gpuc/ir/interp"
)

// raceRun runs src under race checking and returns its races, one line
// each, and its output.
func raceRun(t *testing.T, src string) ([]string, string) {
	t.Helper()
	out, err := run(t, "r.kir", src, interp.Config{Race: true})
	if err == nil {
		return nil, out
	}
	var re *interp.RaceError
	if !errors.As(err, &re) {
		t.Fatalf("got error %v (%T), want races or none", err, err)
	}
	return strings.Split(re.Error(), "\n"), out
}

func TestRaces(t *testing.T) {
	for _, tc := range []struct {
		name, kernel string
		want         []string // races, with @name standing for the position of name
	}{
		{"blocks conflict", "if tid() == 0 { x[0] = bid(); }",
			[]string{"@x[0] = bid: error: data race on x[0]: write by thread 0 of block 1 conflicts with write at @x[0] = bid by thread 0 of block 0"}},
		{"reads do not conflict", "var v: i32 = x[0] + x[1];", nil},
		{"own thread", "x[gid()] = x[gid()] + 1;", nil},
		{"atomics", "atomic add x[0], 1; atomic max x[1], tid();", nil},
		{"barrier orders a block", "if bid() == 0 { x[tid()] = 1; } barrier; if bid() == 0 { x[2] = x[tid()] + 1; }",
			[]string{"@x[2] = x: error: data race on x[2]: write by thread 1 of block 0 conflicts with write at @x[2] = x by thread 0 of block 0"}},
		// Threads 0 and 1 read x[3]; thread 0's later write in the same
		// interval conflicts with thread 1's read, the second one kept.
		{"second reader", "var v: i32 = x[3]; if bid() == 0 { if tid() == 0 { x[3] = v; } barrier; }",
			[]string{"@x[3] = v: error: data race on x[3]: write by thread 0 of block 0 conflicts with read at @x[3]; by thread 1 of block 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "module r;\nbuffer x: i32[64] global scratch;\nkernel k() {\n  " + tc.kernel + "\n}\nhost main() {\n  launch k() grid 2 block 4;\n  x[5] = 1;\n  launch k() grid 1 block 1;\n  printf \"end\\n\";\n}\n"
			races, out := raceRun(t, src)
			var want []string
			for _, w := range tc.want {
				for _, name := range []string{"x[0] = bid", "x[2] = x", "x[3] = v", "x[3];"} {
					if strings.Contains(w, "@"+name) {
						w = strings.ReplaceAll(w, "@"+name, position(t, "r.kir", src, name, 0))
					}
				}
				want = append(want, w)
			}
			if strings.Join(races, "\n") != strings.Join(want, "\n") {
				t.Errorf("races:\n%s\nwant:\n%s", strings.Join(races, "\n"), strings.Join(want, "\n"))
			}
			if (out == "end\n") != (want == nil) {
				t.Errorf("output %q: a racy launch must stop the run, a clean one not", out)
			}
		})
	}
}

// Launches are ordered, and so is everything the host does.
func TestNoRaceAcrossLaunches(t *testing.T) {
	src := `module r;
buffer x: i32[4] global output;
kernel w() {
  x[tid()] = tid() + 1;
}
kernel rd() {
  x[(tid() + 1) % 4] = x[tid()] * 0 + 5;
}
host main() {
  launch w() grid 1 block 4;
  x[0] = x[1] + x[2];
  launch w() grid 1 block 4;
  printf "%d\n", x[3];
}
`
	races, out := raceRun(t, src)
	if races != nil || out != "4\n1\n2\n3\n4\n" {
		t.Errorf("races %v, output %q", races, out)
	}
	// The second kernel races: thread t writes what thread t+1 reads.
	src = strings.Replace(src, "launch w() grid 1 block 4;\n  printf", "launch rd() grid 1 block 4;\n  printf", 1)
	races, _ = raceRun(t, src)
	if len(races) != 4 {
		t.Errorf("got %d races, want 4:\n%s", len(races), strings.Join(races, "\n"))
	}
}

// TestSiblingSubgroups checks that the subgroups of one split or fork,
// which run one after the other here but concurrently on a device, race
// when one writes what another reads without an atomic, even across
// barriers inside them; subgroups of splits that follow one another do
// not.
func TestSiblingSubgroups(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		race       bool
	}{
		{"split sides", "split p < 4 {\n      if p == 0 {\n        a[0] = 7;\n      }\n    } else {\n      out[p] = a[0];\n    }", true},
		{"fork groups across a barrier", "fork 2, group = p % 2, member = p / 2 {\n      if group() == 0 && pid() == 0 {\n        a[1] = 1;\n      }\n      barrier grid;\n      if group() == 1 {\n        out[p] = a[1];\n      }\n    }", true},
		{"nested split inside the sides", "split p < 4 {\n      split p == 0 {\n        a[2] = 5;\n      }\n    } else {\n      split p > 5 {\n        out[p] = a[2];\n      }\n    }", true},
		{"splits one after another", "split p < 4 {\n      if p == 0 {\n        a[0] = 7;\n      }\n    }\n    split p >= 4 {\n      out[p] = a[0];\n    }", false},
		{"one side, a barrier between", "split p < 4 {\n      if p == 0 {\n        a[3] = 2;\n      }\n      barrier grid;\n      out[p] = a[3];\n    }", false},
		{"split while iterations", "var i: i32 = 0;\n    split while i < 3 {\n      if p == 0 {\n        a[4] = i;\n      }\n      barrier grid;\n      out[p] = a[4];\n      i = i + 1;\n    }", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "module sib;\nparam P: i32 = 8;\nbuffer a: i32[P] global scratch;\nbuffer out: i32[P] global output;\nhost main() {\n  region P {\n    var p: i32 = pid();\n    " + tc.body + "\n  }\n}\n"
			races, _ := raceRun(t, src)
			if got := len(races) > 0; got != tc.race {
				t.Errorf("races: %q, want some: %v", races, tc.race)
			}
		})
	}
}
