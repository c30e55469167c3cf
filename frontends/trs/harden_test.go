package trs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"gpuc/frontends/trs"
)

// TestRECIncludeBounds checks that #include is bounded (Note [REC]): a
// few includes nested deep, which would multiply the text 3^15-fold, and
// an include of a device end in a positioned error, quickly.
func TestRECIncludeBounds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 15; i++ {
		inc := fmt.Sprintf("#include \"l%d.rec\"\n", i+1)
		write(fmt.Sprintf("l%d.rec", i), strings.Repeat(inc, 3))
	}
	write("l15.rec", "% leaf\n")
	for _, c := range []struct{ src, want string }{
		{"REC-SPEC A\n#include \"l0.rec\"\nEVAL\n  d0\nEND-SPEC\n", "#include lines expanded in all"},
		{"REC-SPEC A\n#include \"../../../../../../../../dev/urandom\"\nEVAL\n  d0\nEND-SPEC\n", "a.rec:2:10: error: "},
		{"REC-SPEC A\n#include \".\"\nEVAL\n  d0\nEND-SPEC\n", "a.rec:2:10: error: " + dir + " is not a regular file"},
	} {
		start := time.Now()
		_, err := trs.Load(filepath.Join(dir, "a.rec"), []byte(c.src), trs.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s", c.src, err, c.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q: took %v", c.src, d)
		}
	}
}

// TestBOM checks that a UTF-8 byte-order mark is read as nothing, in the
// WST and REC notations.
func TestBOM(t *testing.T) {
	for _, c := range []struct{ file, src, input string }{
		{"a.trs", "\uFEFF(VAR x)\n(RULES f(x) -> x)\n", "f(f(a))"},
		{"a.rec", "\uFEFFREC-SPEC A\nSORTS\n  N\nCONS\n  d0 : -> N\nOPNS\nVARS\nRULES\nEVAL\n  d0\nEND-SPEC\n", ""},
	} {
		if _, err := trs.Load(c.file, []byte(c.src), trs.Options{Input: c.input}); err != nil {
			t.Errorf("%q: %v", c.src, err)
		}
	}
}

// TestREC2008Queries checks Note [REC-2008 queries]: `get normal form
// for:` lines after END-SPEC are the EVAL section, positioned where they
// stand; other REC-2008 commands are refused there.
func TestREC2008Queries(t *testing.T) {
	spec := "REC-SPEC A\nSORTS\n  N\nCONS\n  d0 : -> N\n  s : N -> N\nOPNS\n  plus : N N -> N\nVARS\n  X Y : N\nRULES\n  plus(d0, Y) -> Y\n  plus(s(X), Y) -> s(plus(X, Y))\nEND-SPEC\n\n"
	sys, err := trs.Load("a.rec", []byte(spec+"get normal form for:  plus(s(d0), s(d0))   % two\n"), trs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := sys.Format(sys.Input); got != "plus(s(d0), s(d0))" {
		t.Errorf("input %s", got)
	}
	_, err = trs.Load("a.rec", []byte(spec+"get normal form for: plus(d0, q)\n"), trs.Options{})
	if err == nil || !strings.Contains(err.Error(), "a.rec:16:31: error: unknown symbol q") {
		t.Errorf("got %v, want the query's position", err)
	}
	_, err = trs.Load("a.rec", []byte(spec+"get normal form for: d0\n\ncheck the confluence of: d0 -><- d0\n"), trs.Options{})
	if err == nil || err.Error() != "a.rec:18:1: error: after END-SPEC gpuc reads REC-2008's `get normal form for:` lines; \"check the confluence of: d0 -><- d0\" is not one" {
		t.Errorf("got %v", err)
	}
}

// TestRECDefects checks that REC-2008's OPS section and a missing
// END-SPEC are named where they are, as the REC-BAD benchmarks need,
// rather than as syntax errors further on.
func TestRECDefects(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"REC-SPEC A\nSORTS\n  N\nOPS\n  d0 : -> N\nRULES\nEVAL\n  d0\nEND-SPEC\n",
			"a.rec:4:1: error: OPS is REC-2008's section, which does not tell constructors from operations; REC declares them in CONS and OPNS"},
		{"REC-SPEC A\nSORTS\n  N\nCONS\n  d0 : -> N\nOPNS\nVARS\nRULES\nEVAL\n  d0\n",
			"a.rec:11:1: error: the specification ends without END-SPEC"},
	} {
		if _, err := trs.Load("a.rec", []byte(c.src), trs.Options{}); err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %s", c.src, err, c.want)
		}
	}
}

// TestRECLinear checks that loading a REC specification takes time
// linear in its size (issue 21 item 12): each symbol of a CONS or OPNS
// section used to scan the whole section again. Four times the symbols
// must take well under sixteen times as long, the quadratic ratio; each
// time is the best of three, in processor time, so that a loaded machine
// does not decide.
func TestRECLinear(t *testing.T) {
	spec := func(n int) []byte {
		var b strings.Builder
		b.WriteString("REC-SPEC Big\nSORTS\n  N\nCONS\n  d0 : -> N\n  s : N -> N\nOPNS\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "  f%d : N -> N\n", i)
		}
		b.WriteString("VARS\n  X : N\nRULES\n  f0(d0) -> d0\n  f0(s(X)) -> f0(X)\nEVAL\n  f0(s(d0))\nEND-SPEC\n")
		return []byte(b.String())
	}
	// Processor time, not the wall clock: a loaded machine stretches the
	// wall clock of one load and not another's.
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	best := func(src []byte) time.Duration {
		var d time.Duration
		for k := 0; k < 3; k++ {
			runtime.GC()
			start := cpu()
			if _, err := trs.Load("big.rec", src, trs.Options{}); err != nil {
				t.Fatal(err)
			}
			if e := cpu() - start; k == 0 || e < d {
				d = e
			}
		}
		return d
	}
	small, large := best(spec(5000)), best(spec(20000))
	if large > 8*small {
		t.Errorf("5000 symbols load in %v, 20000 in %v: more than linear", small, large)
	}
}
