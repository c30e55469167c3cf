package fork_test

import (
	"errors"
	"strings"
	"testing"

	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
)

// raiseSrc calls error in every kind of code; each parameter makes one
// call fire.
const raiseSrc = `
const int N = 8;
const int P = -1; // in start
const int F = -1; // in farm
const int S = 0;  // in seq
const int D = -1; // in a function called from parallel code
const int K = -1; // in an inlined sync function
const int G = -1; // in a fork body
const int R = -1; // in a recursive sync function
const int H = -1; // in a function called from sequential code
sh int a[N];
int dev(int x) { if (x == D) error("dev"); return x; }
int host(int x) { if (x == H) error("host"); return x; }
sync void add(sh int v) { if ($ == K) error("sync"); a[$] = a[$] + v; }
sync void rec(sh int n) {
  if (n == 0) return;
  if ($ == R) error("rec");
  fork(2; @ = $ < groupsize() / 2 ? 0 : 1; $ = $ < groupsize() / 2 ? $ : $ - groupsize() / 2)
    rec(n - 1);
}
void main() {
  int i;
  printf("before\n");
  start(N) {
    a[$] = dev($);
    if ($ == P) error("start");
    farm if (a[$] == F) error("farm");
    seq if (S) error("seq");
    add(1);
    fork(2; @ = $ % 2; $ = $ / 2)
      if (@ == 1 && $ == G) error("fork");
    rec(2);
  }
  for (i = 0; i < N; i++) printf("%d ", host(a[i]));
  printf("\n");
}`

// error("message") lowers to the IR's raise wherever a statement may
// stand. A raise that fires stops the run with its message, keeping what
// was printed before, at the SPMD level and lowered by the default
// pipeline; where none fires, the program runs as without them.
func TestError(t *testing.T) {
	spmd := mustParse(t, "t.fork", raiseSrc, defaultOpts)
	raised := map[string]int{} // the raise statements by message
	for _, f := range spmd.Funcs {
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if r, ok := s.(*ir.Raise); ok {
				raised[r.Msg]++
			}
			return true
		})
	}
	lowered := mustParse(t, "t.fork", raiseSrc, defaultOpts)
	irtest.RunPasses(t, lowered, nil, "default")
	for _, tc := range []struct {
		param string
		value int64
		msg   string // "" if none fires
		out   string // what was printed before
	}{
		{"", 0, "", "before\n1 2 3 4 5 6 7 8 \n"},
		{"P", 3, "start", "before\n"},
		{"F", 5, "farm", "before\n"},
		{"S", 1, "seq", "before\n"},
		{"D", 6, "dev", "before\n"},
		{"K", 2, "sync", "before\n"},
		{"G", 1, "fork", "before\n"},
		{"R", 4, "rec", "before\n"},
		{"H", 3, "host", "before\n1 2 "},
	} {
		if tc.msg != "" && raised[tc.msg] != 1 {
			t.Errorf("%d raise statements %q, want 1:\n%s", raised[tc.msg], tc.msg, ir.Print(spmd))
		}
		params := map[string]int64{}
		if tc.param != "" {
			params[tc.param] = tc.value
		}
		for _, m := range []*ir.Module{spmd, lowered} {
			var out strings.Builder
			err := interp.Run(m, interp.Config{Stdout: &out, Params: params, Race: true})
			var r *interp.RaiseError
			switch {
			case tc.msg == "" && err != nil:
				t.Errorf("%v: %v", params, err)
			case tc.msg != "" && (!errors.As(err, &r) || r.Msg != tc.msg):
				t.Errorf("%v: got %v, want raise %q", params, err, tc.msg)
			case out.String() != tc.out:
				t.Errorf("%v: output %q, want %q", params, out.String(), tc.out)
			}
		}
	}
}

// seq error(...) touches no shared memory: no barrier before the seq.
func TestErrorInSeqNeedsNoBarrier(t *testing.T) {
	m := mustParse(t, "t.fork", `
void main() {
  start(4) seq error("stop");
}`, defaultOpts)
	barriers := count(m, func(s ir.Stmt) bool { b, ok := s.(*ir.Barrier); return ok && b.Grid })
	if barriers != 1 {
		t.Errorf("%d grid barriers, want 1 (after the seq):\n%s", barriers, ir.Print(m))
	}
}
