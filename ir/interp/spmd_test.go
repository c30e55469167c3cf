package interp_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"gpuc/ir/interp"
)

func TestRegionPrefixSums(t *testing.T) {
	src := readFile(t, "testdata/prefix.kir")
	for _, tc := range []struct {
		n    int
		race bool
	}{{100000, false}, {3000, true}} {
		var want strings.Builder
		var sum int64
		for i := range tc.n {
			sum += int64(i%10+1) * 3
			fmt.Fprintf(&want, "%d\n", sum)
		}
		got := mustRun(t, "prefix.kir", src, interp.Config{Params: map[string]int64{"N": int64(tc.n)}, Race: tc.race})
		if got != want.String() {
			t.Errorf("N=%d race=%v: wrong sums; first lines:\n%s", tc.n, tc.race, firstLines(got, 5))
		}
	}
	racy := strings.Replace(src, "      barrier grid;\n      data[i] = data[i] + x;", "      data[i] = data[i] + x;", 1)
	_, err := run(t, "racy.kir", racy, interp.Config{Params: map[string]int64{"N": 100}, Race: true})
	var re *interp.RaceError
	if !errors.As(err, &re) {
		t.Fatalf("prefix without its middle barrier: %v, want a *RaceError", err)
	}
	want := position(t, "racy.kir", racy, "data[i - off]", 0) + ": error: data race on data[0]: read by processor 1 conflicts with write at " +
		position(t, "racy.kir", racy, "data[i] = data[i] + x", 0) + " by processor 0"
	if re.Races[0].Error() != want {
		t.Errorf("first race:\n\t%v\nwant\n\t%s", re.Races[0], want)
	}
}

func TestSplit(t *testing.T) {
	src := `module splits;
buffer out: i32[10] global output;
buffer sizes: i32[10] global output;
buffer ring: i32[10] global scratch;
host main() {
  region 10 {
    var p: i32 = pid();
    split p % 3 == 0 {
      ring[p] = p;
      barrier grid;
      split p < 5 {
        out[p] = groupsize() * 1000 + ring[(p + 3) % 12] * 10 + group();
      } else {
        out[p] = groupsize() * 1000 + ring[(p + 3) % 12] * 10 + 1;
      }
    } else {
      out[p] = groupsize() * 1000 + pid();
    }
    sizes[p] = groupsize();
  }
}
`
	// Subgroup {0,3,6,9} reads ring[(p+3) % 12], written by its members
	// before its barrier; {0,3} and {6,9} split it further.
	want := "2030\n6001\n6002\n2060\n6004\n6005\n2091\n6007\n6008\n2001\n" + strings.Repeat("10\n", 10)
	wantBothRaces(t, "split.kir", src, want)
}

func TestFork(t *testing.T) {
	src := `module forks;
buffer out: i32[12] global output;
buffer rank: i32[12] global output;
buffer after: i32[12] global output;
buffer cnt: i32[3] global scratch;
host main() {
  region 12 {
    var p: i32 = pid();
    fork 3, group = p % 3, member = 3 - p / 3 {
      out[gid()] = group() * 1000 + pid() * 10 + groupsize();
      var r: i32 = 0;
      r = atomic mpadd cnt[group()], 1;
      barrier grid;
      rank[gid()] = r;
    }
    after[gid()] = pid() * 100 + group() * 10 + groupsize();
  }
}
`
	var want strings.Builder
	for p := range 12 {
		fmt.Fprintf(&want, "%d\n", p%3*1000+(3-p/3)*10+4)
	}
	// Members run in increasing member order, so mpadd ranks them so.
	for p := range 12 {
		fmt.Fprintf(&want, "%d\n", 3-p/3)
	}
	for p := range 12 {
		fmt.Fprintf(&want, "%d\n", p*100+12)
	}
	wantBothRaces(t, "fork.kir", src, want.String())
}

func TestMultiprefix(t *testing.T) {
	src := `module mp;
param P: i32 = 1000;
buffer sum: i64[1] global output;
buffer hi: i32[1] global output;
buffer lo: u32[1] global output;
buffer ors: u32[1] global output;
buffer ands: u32[1] global output;
buffer pre: i64[P] global scratch;
buffer pmax: i32[P] global scratch;
buffer pmin: u32[P] global scratch;
buffer por: u32[P] global scratch;
buffer pand: u32[P] global scratch;
host main() {
  lo[0] = 4000000000u;
  ands[0] = 4294967295u;
  region P {
    var p: i32 = pid();
    var a: i64 = 0l;
    a = atomic mpadd sum[0], i64(p);
    pre[p] = a;
    var b: i32 = 0;
    b = atomic mpmax hi[0], (p * 37) % 101;
    pmax[p] = b;
    var c: u32 = 0u;
    c = atomic mpmin lo[0], u32((p * 53) % 997);
    pmin[p] = c;
    c = atomic mpor ors[0], 1u << u32(p % 32);
    por[p] = c;
    c = atomic mpand ands[0], ~(1u << u32(p % 32));
    pand[p] = c;
  }
  var bad: i32 = 0;
  for var p: i32 = 0; p < P; p = p + 1 {
    if pre[p] != i64(p) * i64(p - 1) / 2l {
      bad = bad + 1;
    }
  }
  printf "bad prefixes: %d\n", bad;
  printf "%d %d %d %u %u %u %u %u\n", pmax[0], pmax[1], pmax[50], pmin[0], pmin[1], pmin[2], por[3], pand[3];
}
`
	hi, lo := int32(0), uint32(4000000000)
	or, and := uint32(0), ^uint32(0)
	var pmax [51]int32
	var pmin [3]uint32
	var por3, pand3 uint32
	for p := range 1000 {
		if p < len(pmax) {
			pmax[p] = hi
		}
		if p < len(pmin) {
			pmin[p] = lo
		}
		if p == 3 {
			por3, pand3 = or, and
		}
		hi = max(hi, int32(p*37%101))
		lo = min(lo, uint32(p*53%997))
		or |= 1 << (p % 32)
		and &^= 1 << (p % 32)
	}
	want := fmt.Sprintf("bad prefixes: 0\n%d %d %d %d %d %d %d %d\n%d\n%d\n%d\n%d\n%d\n",
		pmax[0], pmax[1], pmax[50], pmin[0], pmin[1], pmin[2], por3, pand3, 999*1000/2, hi, lo, or, and)
	if got := mustRun(t, "mp.kir", src, interp.Config{Race: true}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestPriorityStore(t *testing.T) {
	src := `module prios;
buffer w: i32[10] global output;
buffer z: i32[2] global output;
host main() {
  region 100 {
    var p: i32 = pid();
    prio w[p % 10] = 1000 - p;
    if p >= 5 {
      prio z[0] = p;
    }
    if nprocs() > 0 {
      if p < 5 {
        prio z[0] = p + 100;
      }
      barrier grid;
    }
    prio z[1] = p;
    barrier grid;
    if p == 99 {
      prio z[1] = 7;
    }
  }
}
`
	// The lowest pid wins within an interval, even against a store that
	// ran first in an earlier segment; after a barrier a new store wins.
	want := "1000\n999\n998\n997\n996\n995\n994\n993\n992\n991\n100\n7\n"
	wantBothRaces(t, "prio.kir", src, want)
}

func TestRegionErrors(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"divergent barrier", "if pid() < 5 {\n    barrier grid;\n  }",
			"r.kir:5:3: error: barrier divergence: the condition of this if is true for processor 0 but false for processor 5"},
		{"fork group", "fork 3, group = pid() % 4, member = 0 {\n    barrier grid;\n  }",
			"r.kir:5:3: error: fork group 3 of processor 3 is out of range for a fork of 3 groups"},
		{"fork count", "fork 2 + pid() % 2, group = 0, member = 0 {\n  }",
			"r.kir:5:3: error: barrier divergence: the count of this fork is 2 for processor 0 but 3 for processor 1"},
		{"barrier in split", "split pid() < 3 {\n    barrier grid;\n  }\n  if pid() == 1 {\n    o[0] = 1 / (pid() - 1);\n  }",
			"r.kir:9:14: error: integer division by zero"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "module r;\nbuffer o: i32[1] global scratch;\nhost main() {\n  region 10 {\n  " + tc.body + "\n  }\n}\n"
			mustFail(t, "r.kir", src, interp.Config{}, tc.want)
		})
	}
	mustFail(t, "r.kir", "module r;\nhost main() {\n  region 0 - 1 {\n  }\n}\n", interp.Config{}, "r.kir:3:3: error: negative region size -1")
}

// TestSplitWhile runs Fork's private-condition loop: processor p iterates
// p times, each iteration with the processors still in the loop, whose
// number groupsize() reports; the grid barrier keeps every iteration's
// reads of the previous iteration's writes exact.
func TestSplitWhile(t *testing.T) {
	src := `module sw;
param P: i32 = 6;
buffer acc: i32[P] global output;
buffer seen: i32[P] global scratch;
host main() {
  region P {
    var p: i32 = pid();
    var i: i32 = 0;
    split while i < p {
      seen[p] = groupsize();
      barrier grid;
      acc[p] = acc[p] * 10 + seen[P - 1];
      i = i + 1;
    }
    printf "%d done after %d with group of %d\n", p, i, groupsize();
  }
}
`
	// In iteration k (1-based) the processors p >= k remain: P-k of them.
	// Processor p records the sizes of its iterations 1..p, as digits.
	var want strings.Builder
	for p := 0; p < 6; p++ {
		fmt.Fprintf(&want, "%d done after %d with group of 6\n", p, p)
	}
	for p := 0; p < 6; p++ {
		v := 0
		for k := 1; k <= p; k++ {
			v = v*10 + (6 - k)
		}
		fmt.Fprintf(&want, "%d\n", v)
	}
	wantBothRaces(t, "sw.kir", src, want.String())
}

// TestSplitSyncsFirst checks that a split's condition, and each test of a
// split while's, sees what the other processors wrote before it: the group
// synchronises first, as the lowering passes do (group-split's entry and
// end-of-iteration barriers). Without that, the race checker would report
// the reads of a.
func TestSplitSyncsFirst(t *testing.T) {
	src := `module ss;
param P: i32 = 8;
buffer a: i32[P] global scratch;
buffer out: i32[P] global output;
host main() {
  region P {
    var p: i32 = pid();
    a[p] = p;
    split a[P - 1 - p] < P / 2 {
      out[p] = 1;
    } else {
      out[p] = 2;
    }
    var n: i32 = 0;
    split while a[0] < 5 {
      if p == 0 {
        a[0] = a[0] + 1;
      }
      n = n + 1;
    }
    out[p] = out[p] * 100 + n;
  }
}
`
	// The split: a[P-1-p] is below 4 exactly when p >= 4. The loop: every
	// processor tests a[0], which processor 0 raises in each iteration, so
	// all of them run 5 iterations.
	want := mustRun(t, "ss.kir", src, interp.Config{})
	if got := mustRun(t, "ss.kir", src, interp.Config{Race: true}); got != want {
		t.Errorf("race checking changed the output:\n%s\nwant\n%s", got, want)
	}
	if want != "205\n205\n205\n205\n105\n105\n105\n105\n" {
		t.Errorf("unexpected output:\n%s", want)
	}
}
