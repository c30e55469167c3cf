package interp_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"gpuc/ir/interp"
)

func TestReverseThroughShared(t *testing.T) {
	src := readFile(t, "testdata/reverse.kir")
	var want strings.Builder
	n, b := 4096, 256
	for i := range n {
		block, k := i/b, i%b
		fmt.Fprintf(&want, "%d\n", (block*b+b-1-k)*3+1)
	}
	for _, cfg := range []interp.Config{{}, {Workers: 1}, {Race: true}} {
		if got := mustRun(t, "reverse.kir", src, cfg); got != want.String() {
			t.Errorf("reverse (race=%v): wrong output; first lines:\n%s", cfg.Race, firstLines(got, 4))
		}
	}
	// Without the barrier, threads read tmp before their partners write it.
	racy := strings.Replace(src, "  barrier;\n", "", 1)
	if got := mustRun(t, "racy.kir", racy, interp.Config{}); got == want.String() {
		t.Error("reverse without its barrier gave the right answer; the test proves nothing")
	}
	_, err := run(t, "racy.kir", racy, interp.Config{Race: true})
	var re *interp.RaceError
	if !errors.As(err, &re) {
		t.Fatalf("reverse without its barrier under race checking: %v, want a *RaceError", err)
	}
	// Thread 127 reads tmp[128] before thread 128 writes it.
	want0 := "data race on tmp[128]: write by thread 128 of block 0 conflicts with read at " +
		position(t, "racy.kir", racy, "tmp[bdim() - 1 - t]", 0) + " by thread 127 of block 0"
	if !strings.Contains(re.Races[0].Error(), position(t, "racy.kir", racy, "tmp[t] = data", 0)+": error: "+want0) {
		t.Errorf("first race: %v\nwant it to contain %s", re.Races[0], want0)
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

func TestBarriersInLoopsAndSwitch(t *testing.T) {
	src := readFile(t, "testdata/loops.kir")
	for _, rounds := range []int{5, 1, 0, 40} {
		prog := strings.Replace(src, "run(5)", fmt.Sprintf("run(%d)", rounds), 1)
		want := loopsOutput(3, 32, rounds)
		for _, cfg := range []interp.Config{{}, {Race: true}} {
			if got := mustRun(t, "loops.kir", prog, cfg); got != want {
				t.Errorf("loops rounds=%d race=%v:\ngot  %q\nwant %q", rounds, cfg.Race, firstLines(got, 3), firstLines(want, 3))
			}
		}
	}
}

// loopsOutput computes testdata/loops.kir in Go, one barrier interval at
// a time for all threads of a block.
func loopsOutput(g, b, rounds int) string {
	var out strings.Builder
	for blk := range g {
		sh, acc := make([]int32, b), make([]int32, b)
		for t := range b {
			sh[t] = int32(t + blk)
		}
		for k := 0; k < 100; k++ {
			if k == 1 {
				continue
			}
			if k == rounds {
				break
			}
			for t := range b {
				acc[t] += sh[(t+k)%b]
			}
			copy(sh, acc)
		}
		for i := 1; i <= 4; i++ {
			for j := 0; j < min(i, 10); j++ {
				for t := range b {
					switch j % 3 {
					case 0:
						acc[t] += sh[(t+1)%b]
					case 1:
						acc[t] *= 3
					}
				}
				if j%3 == 2 {
					for t := range b {
						sh[t] = acc[t] % 1000
					}
				}
			}
		}
		for _, a := range acc {
			fmt.Fprintf(&out, "%d\n", a)
		}
	}
	return out.String()
}

// The verifier rejects these kernels, whose barriers sit under
// thread-dependent control flow; the interpreter checks the same property
// at run time, for modules that did not pass through the verifier.
func TestBarrierDivergence(t *testing.T) {
	for _, tc := range []struct{ name, body, marker, want string }{
		{"if", "if tid() < 16 { barrier; }", "if",
			"barrier divergence: the condition of this if is true for thread 0 of block 1 but false for thread 16 of block 1"},
		{"return", "if tid() == 5 { return; } barrier;", "barrier",
			"barrier divergence: thread 0 of block 1 reached this barrier but thread 5 of block 1 returned before it"},
		{"loop", "for var j: i32 = 0; j < tid() % 3; j = j + 1 { barrier; }", "for",
			"barrier divergence: the condition of this loop is false for thread 0 of block 1 but true for thread 1 of block 1"},
		{"switch", "switch tid() / 8 { case 0 { barrier; } default { barrier; } }", "switch",
			"barrier divergence: the arm this switch takes is case 0 for thread 0 of block 1 but the default for thread 8 of block 1"},
		{"break", "while true { if tid() == 7 { break; } barrier; }", "barrier",
			"barrier divergence: thread 0 of block 1 reached this barrier but thread 7 of block 1 left the loop before it"},
		{"continue", "for var j: i32 = 0; j < 2; j = j + 1 { if tid() == 2 { continue; } barrier; }", "barrier",
			"barrier divergence: thread 0 of block 1 reached this barrier but thread 2 of block 1 continued the loop before it"},
		// Thread 0 leaves the outer loop; the others' inner loop must not
		// bring it back when it ends.
		{"nested", "for var i: i32 = 0; i < 2; i = i + 1 { if tid() == 0 && i == 1 { break; } for var j: i32 = 0; j < 2; j = j + 1 { barrier; } }", "barrier",
			"barrier divergence: thread 1 of block 1 reached this barrier but thread 0 of block 1 left the loop before it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Block 0 skips the code, so the failing block is block 1.
			src := fmt.Sprintf("module div;\n\nkernel k() {\n  if bid() == 0 { return; }\n  %s\n}\n\nhost main() {\n  launch k() grid 3 block 32;\n}\n", tc.body)
			want := position(t, "div.kir", src, tc.body, strings.Index(tc.body, tc.marker)) + ": error: " + tc.want
			_, err := run(t, "div.kir", src, interp.Config{Workers: 2})
			if err == nil || err.Error() != want {
				t.Errorf("got  %v\nwant %s", err, want)
			}
		})
	}
}

// Threads that return early are fine as long as no barrier is reached
// afterwards, as on a GPU (though the verifier rejects the kernel).
func TestReturnBeforeUnreachedBarrier(t *testing.T) {
	src := `module ok;
buffer out: i32[64] global output;
kernel k(n: i32) {
  var t: i32 = tid();
  if t % 2 == 1 {
    return;
  }
  for var j: i32 = 0; j < n; j = j + 1 {
    barrier;
  }
  out[t] = 1;
}
host main() {
  launch k(0) grid 1 block 64;
}
`
	want := strings.Repeat("1\n0\n", 32)
	if got := mustRun(t, "ok.kir", src, interp.Config{}); got != want {
		t.Errorf("got %q", got)
	}
}
