package fork_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
)

// split3Src divides groups in three until they have at most two
// processors, and records at the leaves what each processor saw: $, @,
// groupsize(), private and sh parameters, the parent group's sh locals
// and a fetch-and-add count.
const split3Src = `
const int P = 11;
sh int depth[P], member[P], size[P], seen[P], from[P];
sync void split3(sh int base, int d, sh int width) {
  sh int mark, count;
  pr int third, mine;
  seq { mark = base * 100 + groupsize(); count = 0; }
  farm mine = mpadd(&count, 1);
  if (groupsize() <= 2) {
    depth[base + $] = d;
    member[base + $] = $;
    size[base + $] = groupsize();
    seen[base + $] = count;
    from[base + $] = width;
    return;
  }
  third = groupsize() / 3;
  fork(3; @ = $ < third ? 0 : ($ < 2 * third ? 1 : 2);
          $ = $ < third ? $ : ($ < 2 * third ? $ - third : $ - 2 * third)) {
    if (@ == 0) split3(base, d + 1, mark % 100);
    else if (@ == 1) split3(base + third, d + 1, groupsize());
    else split3(base + 2 * third, d + 2, mark / 100);
  }
}
void main() {
  int i;
  start(P) split3(0, 0, 0);
  for (i = 0; i < P; i++)
    printf("%d/%d/%d/%d/%d ", depth[i], member[i], size[i], seen[i], from[i]);
  printf("\n");
}`

// split3Want computes split3Src's output.
func split3Want(p int) string {
	type leaf struct{ depth, member, size, width int }
	leaves := make([]leaf, p)
	var rec func(base, d, width, n int)
	rec = func(base, d, width, n int) {
		if n <= 2 {
			for m := range n {
				leaves[base+m] = leaf{d, m, n, width}
			}
			return
		}
		third := n / 3
		rec(base, d+1, n%100, third)
		rec(base+third, d+1, third, third)
		rec(base+2*third, d+2, base, n-2*third)
	}
	rec(0, 0, 0, p)
	var b strings.Builder
	for _, l := range leaves {
		fmt.Fprintf(&b, "%d/%d/%d/%d/%d ", l.depth, l.member, l.size, l.size, l.width)
	}
	b.WriteString("\n")
	return b.String()
}

// downSrc recurses the same way on every processor, with one group left
// empty and no $ clause.
const downSrc = `
const int P = 4;
sh int hits, levels;
sync void down(sh int n) {
  seq levels = levels + 1;
  if (n == 0) {
    seq hits = hits + 1;
    return;
  }
  fork(2; @ = 1) if (@ == 0) down(n - 100); else down(n - 1);
}
void main() {
  start(P) down(5);
  printf("%d %d\n", hits, levels);
}`

func downWant(int) string { return "1 6\n" }

// nestedSrc calls a group-recursive function at each level of another:
// visits[p] counts the groups of halves that held processor p.
const nestedSrc = `
const int P = 13;
sh int visits[P];
sync void tick(sh int base) {
  pr int h;
  if (groupsize() == 1) {
    visits[base] += 1;
    return;
  }
  h = groupsize() / 2;
  fork(2; @ = $ < h ? 0 : 1; $ = $ < h ? $ : $ - h)
    if (@ == 0) tick(base); else tick(base + h);
}
sync void halves(sh int base) {
  pr int h;
  tick(base);
  if (groupsize() == 1) return;
  h = (groupsize() + 1) / 2;
  fork(2; @ = $ < h ? 0 : 1; $ = $ < h ? $ : $ - h)
    if (@ == 0) halves(base); else halves(base + h);
}
void main() {
  int i;
  start(P) halves(0);
  for (i = 0; i < P; i++) printf("%d ", visits[i]);
  printf("\n");
}`

func nestedWant(p int) string {
	visits := make([]int, p)
	var rec func(base, n int)
	rec = func(base, n int) {
		for i := base; i < base+n; i++ {
			visits[i]++
		}
		if n > 1 {
			h := (n + 1) / 2
			rec(base, h)
			rec(base+h, n-h)
		}
	}
	rec(0, p)
	var b strings.Builder
	for _, v := range visits {
		fmt.Fprintf(&b, "%d ", v)
	}
	b.WriteString("\n")
	return b.String()
}

// Group recursion runs as Fork's groups would, at the SPMD level and
// lowered by the default pipeline, with cooperative launches and with
// their relaunch fallbacks, race-free.
func TestGroupRecursion(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      func(int) string
	}{
		{"split3", split3Src, split3Want},
		{"nested", nestedSrc, nestedWant},
		{"down", downSrc, downWant},
	} {
		m := mustParse(t, tc.name+".fork", tc.src, defaultOpts)
		if n := count(m, func(s ir.Stmt) bool { _, ok := s.(*ir.Fork); return ok }); n != 0 {
			t.Errorf("%s: %d IR forks, want none: every level of the recursion is one split while", tc.name, n)
		}
		lowered := mustParse(t, tc.name+".fork", tc.src, defaultOpts)
		irtest.RunPasses(t, lowered, nil, "default")
		for _, p := range []int64{1, 2, 5, 11, 40} {
			params := map[string]int64{"P": p}
			want := tc.want(int(p))
			if got := mustRun(t, m, params, true); got != want {
				t.Errorf("%s P=%d:\n%s\nwant\n%s", tc.name, p, got, want)
			}
			for _, coop := range []int64{0, 1} {
				var out strings.Builder
				cfg := interp.Config{Stdout: &out, Params: params, Race: true, CoopThreads: coop}
				if err := interp.Run(lowered, cfg); err != nil || out.String() != want {
					t.Errorf("%s P=%d lowered, coop threads %d: %v\n%s\nwant\n%s", tc.name, p, coop, err, out.String(), want)
				}
			}
		}
	}
}

// A tail fork whose subgroups are not contiguous runs of $ stops the
// program with an error.
func TestContiguityRule(t *testing.T) {
	for _, tc := range []struct{ fork, want string }{
		{"fork(2; @ = $ % 2; $ = $ / 2)", "must be contiguous runs of $"},
		{"fork(2; @ = $ < 2 ? 0 : 1; $ = $ < 2 ? 1 - $ : $ - 2)", "must be contiguous runs of $"},
		{"fork(2; @ = $ < 2 ? 1 : 0; $ = $ < 2 ? $ : $ - 2)", "must be contiguous runs of $"},
		{"fork(2; @ = $ < 2 ? 0 : 2; $ = $ < 2 ? $ : $ - 2)", "group index is out of range"},
	} {
		src := `
sync void r(sh int n) {
  if (n == 0) return;
  ` + tc.fork + ` r(n - 1);
}
void main() { start(6) r(3); }`
		m := mustParse(t, "t.fork", src, defaultOpts)
		err := interp.Run(m, interp.Config{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error saying %q", tc.fork, err, tc.want)
		}
	}
}

// Multiprefix operations in farm are fetch-and-adds; sh parameters of
// sync functions hold the group's argument.
func TestFarmMultiprefixAndShParams(t *testing.T) {
	src := `
sh int n, slot[8];
sync int shifted(sh int by) { return $ + by; }
void main() {
  int i;
  start(8) {
    pr int k;
    farm k = mpadd(&n, 2);
    slot[k / 2] = shifted(10);
  }
  for (i = 0; i < 8; i++) printf("%d ", slot[i] >= 10 && slot[i] < 18);
  printf("%d\n", n);
}`
	m := mustParse(t, "t.fork", src, defaultOpts)
	if got, want := mustRun(t, m, nil, true), "1 1 1 1 1 1 1 1 16\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	multi := count(m, func(s ir.Stmt) bool { a, ok := s.(*ir.Atomic); return ok && a.Op.IsMultiprefix() })
	if multi != 0 {
		t.Errorf("%d multiprefix atomics in farm code, want plain atomics:\n%s", multi, ir.Print(m))
	}
}

// TestGroupFactsChecked checks that the group facts (Note [Checked facts]
// in package ir) are checked where they stand: the correct ones hold in
// every level of split3 (TestGroupRecursion runs it), and a deliberately
// wrong one, groupsize() < P where the first level has all P processors,
// stops the program with a positioned error, at the SPMD level and
// lowered, rather than reaching the termination analysis as a fact.
func TestGroupFactsChecked(t *testing.T) {
	for _, lowered := range []bool{false, true} {
		m := mustParse(t, "split3.fork", split3Src, defaultOpts)
		facts := 0
		for _, f := range m.Funcs {
			ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
				c, ok := s.(*ir.If)
				if !ok || len(c.Then) != 1 {
					return true
				}
				if r, ok := c.Then[0].(*ir.Raise); !ok || !strings.Contains(r.Msg, ": internal error: a group of recursive sync function split3") {
					return true
				}
				facts++
				ir.WalkAllExprs([]ir.Stmt{c}, func(e ir.Expr) bool {
					if b, ok := e.(*ir.Binary); ok && b.Op == ir.Le {
						if v, ok := b.X.(*ir.Var); ok && strings.HasPrefix(v.Name, "fr_size") {
							if _, ok := b.Y.(*ir.ParamRef); ok {
								b.Op = ir.Lt // fr_size < P: wrong
							}
						}
					}
					return true
				})
				return true
			})
		}
		if facts == 0 {
			t.Fatal("split3 has no group facts")
		}
		if lowered {
			irtest.RunPasses(t, m, nil, "default")
		}
		err := interp.Run(m, interp.Config{Params: map[string]int64{"P": 11}})
		want := regexp.MustCompile(`^split3\.fork:\d+:\d+: internal error: a group of recursive sync function split3 has a size outside \[1, processors of start\]`)
		if err == nil || !want.MatchString(err.Error()) {
			t.Errorf("lowered %v: got %v, want the wrong fact's positioned error", lowered, err)
		}
	}
}
