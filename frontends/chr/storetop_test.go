package chr_test

import (
	"strings"
	"testing"

	"gpuc/frontends/chr"
	"gpuc/internal/irtest"
)

// TestStoreFull runs examples that allocate past a small store, at the SPMD
// level and lowered (many threads allocating in one step): the error is the
// allocator's "store full", never a fault of top's checked bound (Note
// [Store tops]), which the interpreter checks at every write of top.
func TestStoreFull(t *testing.T) {
	for _, c := range []struct {
		file, cap, want string
	}{
		{"fib", "CAP_fib2", "fib.chr:8:102: in next: constraint store full: more than CAP_fib2 fib/2 constraints (set CAP_fib2=N for a larger store)"},
		{"primes", "CAP_prime1", "primes.chr:9:31: in leaf: constraint store full: more than CAP_prime1 prime/1 constraints (set CAP_prime1=N for a larger store)"},
	} {
		src := irtest.ReadFile(t, "../../examples/chr/"+c.file+".chr")
		for _, lowered := range []bool{false, true} {
			m := mustParse(t, c.file+".chr", src, chr.Options{})
			if m.Buffer(strings.TrimPrefix(c.cap, "CAP_")+"_top").Bound != c.cap {
				t.Fatalf("%s: top has no bound %s", c.file, c.cap)
			}
			_, err := run(t, m, map[string]int64{c.cap: 20, "PROCS": 7}, false, lowered)
			if err == nil || err.Error() != c.want {
				t.Errorf("%s %s=20 (lowered %v): got error %v, want %q", c.file, c.cap, lowered, err, c.want)
			}
		}
	}
}
