package cuda

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ruleDriver runs hybrid_rule.h on a script of points, a line each:
//
//	p NOW WORK LIVE SIDE   a point at NOW ms on SIDE (h or d), printing 1 where it asks to move;
//	m MS                   a move that took MS ms;
//	size, downsize         HYBRID_RULE=size, HYBRID_DOWN set;
//	margin                 prints MARGIN.
//
// HYBRID_UP is 4096 and HYBRID_DOWN 16.
const ruleDriver = `#include <cstdio>
#include <cstring>
@RULE@
int main(void) {
  gpuc_hybrid_meter m;
  char op[16];
  while (scanf("%15s", op) == 1) {
    if (strcmp(op, "p") == 0) {
      double now;
      long long work, live;
      char side[2];
      if (scanf("%lf %lld %lld %1s", &now, &work, &live, side) != 4) return 2;
      printf("%d\n", gpuc_hybrid_vote(m, now, work, live, side[0] == 'd', 4096, 16) ? 1 : 0);
    } else if (strcmp(op, "m") == 0) {
      double ms;
      if (scanf("%lf", &ms) != 1) return 2;
      gpuc_hybrid_moved(m, ms, m.t + ms);
    } else if (strcmp(op, "size") == 0) {
      m.by_size = true;
    } else if (strcmp(op, "downsize") == 0) {
      m.down_by_size = true;
    } else if (strcmp(op, "margin") == 0) {
      printf("margin %g\n", m.margin);
    } else {
      return 2;
    }
  }
  return 0;
}
`

// TestHybridRule checks the rule of Note [Migration by measured time] on
// made-up figures: the host rewrites at 100 ns a slot (10000 slots in
// 1 ms), the device at 5 ns a slot on wide intervals.
func TestHybridRule(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "rule.cpp")
	code := strings.Replace(ruleDriver, "@RULE@", hybridRule, 1)
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "rule")
	if out, err := exec.Command(gxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", src, "-o", bin).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	// start measures the host (100 ns a slot) and moves up by size at
	// 2 ms, the move taking 1 ms; the device's first interval, wide,
	// measures it at 5 ns a slot and asks nothing.
	const start = "p 0 100 0 h\np 1 1000 10000 h\np 2 5000 20000 h\nm 1\np 8 6000 1020000 d\n"
	for _, c := range []struct {
		name, script, want string
	}{
		{"up by size, then a wide interval", start, "0 0 1 0"},
		// fib32: a list of 10 whose interval handed out a million
		// slots in 5 ms, 100 ms on the host: stay, where the rule by
		// size went down.
		{"small list, wide interval", start + "p 13 10 2020000 d\n", "0 0 1 0 0"},
		{"small list, wide interval, by size", "size\n" + start + "p 13 10 2020000 d\n", "0 0 1 0 1"},
		// A sequential tail: 300 slots in 5 ms, 0.03 on the host.
		{"sequential tail", start + "p 13 3 1020300 d\n", "0 0 1 0 1"},
		// The same, the list growing: never down.
		{"growing list", start + "p 13 7000 1020300 d\n", "0 0 1 0 0"},
		// Too few slots to measure: the rule by size.
		{"few slots", start + "p 13 3 1020100 d\np 14 30 1020200 d\n", "0 0 1 0 1 0"},
		// HYBRID_DOWN set: by size alone, growing or not.
		{"down by size", "downsize\n" + start + "p 13 10 2020000 d\n", "0 0 1 0 1"},
		// Up by time, after a move down: a host interval of a million
		// slots in 100 ms from a list of 3000, against 5 ms on the device
		// from 5000, 8.3 from 3000; not while the list shrinks, nor from
		// the list of 3, a chain that the device runs at its latency.
		{"up by time", start + "p 13 3 1020300 d\nm 1\np 24 3000 1120300 h\np 124 3000 2120300 h\n", "0 0 1 0 1 0 1"},
		{"not up while shrinking", start + "p 13 3 1020300 d\nm 1\np 24 3000 1120300 h\np 124 2000 2120300 h\n", "0 0 1 0 1 0 0"},
		{"a chain stays on the host", start + "p 13 3 1020300 d\nm 1\np 114 3 2020300 h\n", "0 0 1 0 1 0"},
		// Nothing of the device measured: the rule by size.
		{"device not measured", "p 0 100 0 h\np 1 1000 10000 h\np 101 1000 1010000 h\n", "0 0 0"},
		// A move up that the next interval proves wrong (the device took
		// 100 ms for what the host does in 1) doubles MARGIN.
		// The same, the list growing: the move is undone all the same.
		{"a wrong move undone", "p 0 100 0 h\np 1 1000 10000 h\np 2 5000 20000 h\nm 1\np 103 6000 30000 d\n", "0 0 1 1"},
		// After a wrong move up, the rule by size asks for a list
		// MARGIN / 2 times HYBRID_UP.
		{"size raised with the margin", "p 0 100 0 h\np 1 1000 10000 h\np 2 5000 20000 h\nm 1\np 103 5000 30000 d\nm 1\np 105 5000 30300 h\np 106 9000 30600 h\n", "0 0 1 1 0 1"},
		{"margin doubles", "p 0 100 0 h\np 1 1000 10000 h\np 2 5000 20000 h\nm 1\np 103 5000 30000 d\nmargin\n", "0 0 1 1 margin 4"},
		// A host interval of few slots for its time (the one-block
		// loop's reuse of garbage) does not raise the host's figure.
		{"the host's least", "p 0 100 0 h\np 1 1000 10000 h\np 101 1000 10300 h\np 102 5000 20300 h\nm 1\np 113 4000 30300 d\nmargin\n", "0 0 0 1 1 margin 4"},
		{"margin stays", start + "p 13 3 1020300 d\nm 1\np 14.5 3 1020600 h\nmargin\n", "0 0 1 0 1 0 margin 2"},
	} {
		cmd := exec.Command(bin)
		cmd.Stdin = strings.NewReader(c.script)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := strings.Join(strings.Fields(string(out)), " "); got != c.want {
			t.Errorf("%s: votes %q, want %q", c.name, got, c.want)
		}
	}
}
