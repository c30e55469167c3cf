package fork_test

import (
	"strings"
	"testing"

	"gpuc/ir"
)

// TestShadowedCounters checks Note [Shadowed loop counters]: a synchronous for loop over a sh
// counter that nothing else writes tests a local copy, and its body reads the copy too (and
// prints the same output); one whose body writes the counter, or takes its address, keeps
// reading memory.
func TestShadowedCounters(t *testing.T) {
	const tmpl = `
const int N = 12;
sh int r;
sh int hits;
void main() {
  start(8) {
    for (r = 0; r < N; r += 2) {
      if ($ == r % 8) syncadd(&hits, 1);
      BODY
    }
    seq printf("%d %d\n", r, hits);
  }
}
`
	for _, c := range []struct {
		name, body, out string
		shadow          bool
	}{
		{"counter", "", "12 6\n", true},
		{"body writes", "r = r + 1;", "12 4\n", false},
		{"address taken", "syncadd(&r, 0);", "12 6\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(tmpl, "BODY", c.body, 1)
			m := mustParse(t, "shadow.fork", src, defaultOpts)
			n := count(m, func(s ir.Stmt) bool {
				d, ok := s.(*ir.Decl)
				return ok && strings.HasPrefix(d.Name, "r_count")
			})
			if got := n > 0; got != c.shadow {
				t.Errorf("shadow copy declared: %v, want %v", got, c.shadow)
			}
			// The body's `r % 8` reads the copy where there is one, memory otherwise.
			text := ir.Print(m)
			if got := strings.Contains(text, "r_count % 8"); got != c.shadow {
				t.Errorf("body reads the copy: %v, want %v:\n%s", got, c.shadow, text)
			}
			if got := strings.Contains(text, "r[0] % 8"); got == c.shadow {
				t.Errorf("body reads memory: %v, want %v:\n%s", got, !c.shadow, text)
			}
			if out := mustRun(t, m, nil, true); out != c.out {
				t.Errorf("output %q, want %q", out, c.out)
			}
		})
	}
}
