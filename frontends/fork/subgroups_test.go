package fork_test

import (
	"io"
	"strings"
	"testing"

	"gpuc/internal/irtest"
	"gpuc/ir/interp"
)

// TestSubgroupInstances runs sh variables declared in subgroups (Note
// [Subgroup instances]) under the race checker, which reports sibling
// subgroups sharing an instance, and again after the default pipeline,
// which runs the subgroups one after another.
func TestSubgroupInstances(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"nested forks", `
sh int out[6];
void main() {
  start(13) {
    fork(2; @ = $ % 2; $ = $ / 2) {
      pr int outer = @;
      fork(3; @ = $ % 3; $ = $ / 3) {
        sh int n = 0;
        syncadd(&n, 1 + outer);
        seq out[outer * 3 + @] = n * 10 + outer;
      }
    }
  }
  for (int i = 0; i < 6; i++) printf("%d ", out[i]);
  printf("\n");
}`, "30 20 20 41 41 41 \n"},
		{"fork in a loop", `
sh int res[4];
void main() {
  start(8) {
    pr int r;
    for (r = 0; r < 2; r++) {
      fork(2; @ = $ % 2; $ = $ / 2) {
        sh int s = r * 100;
        syncadd(&s, ($ + 1) * (@ + 1));
        seq res[r * 2 + @] = s;
      }
    }
  }
  printf("%d %d %d %d\n", res[0], res[1], res[2], res[3]);
}`, "10 20 110 120\n"},
		{"if inside fork", `
sh int res[4];
void main() {
  start(16) {
    fork(2; @ = $ / 8; $ = $ % 8) {
      pr int g = @;
      if ($ < 3) {
        sh int c[2] = {0, 0};
        syncadd(&c[$ % 2], 1);
        farm if ($ == 0) res[g * 2] = c[0] * 10 + c[1];
      } else {
        sh int c[2] = {0, 0};
        syncadd(&c[$ % 2], 1 + g);
        farm if ($ == 3) res[g * 2 + 1] = c[0] * 10 + c[1];
      }
    }
  }
  printf("%d %d %d %d\n", res[0], res[1], res[2], res[3]);
}`, "21 23 21 46\n"},
		{"seq in the subgroups of an if", `
sh int res[2];
void main() {
  start(10) {
    if ($ % 3 == 0) {
      sh int s;
      seq s = 0;
      syncadd(&s, $);
      seq res[0] = s;
    } else {
      sh int s;
      seq s = 100;
      syncadd(&s, $);
      seq res[1] = s;
    }
    if ($ > 6) seq res[0] += 1000;
  }
  printf("%d %d\n", res[0], res[1]);
}`, "1018 127\n"},
		{"if with seq in a recursive function", `
const int P = 8;
sh long total;
sh int leaves;
sync void rec(sh int lo, sh int hi) {
  if (hi - lo <= 2 || groupsize() == 1) {
    if ($ % 2 == 1) {
      sh long s;
      seq s = 0;
      syncadd(&s, (long)(lo * 100 + $));
      seq syncadd(&total, s);
    }
    seq syncadd(&leaves, 1);
    return;
  }
  fork(2; @ = $ < groupsize() / 2 ? 0 : 1; $ = $ < groupsize() / 2 ? $ : $ - groupsize() / 2) {
    sh int m;
    m = lo + (hi - lo) / 2;
    if (@ == 0) rec(lo, m); else rec(m, hi);
  }
}
void main() {
  start(P) rec(0, 8);
  printf("%ld %d\n", total, leaves);
}`, "1204 4\n"},
		{"a fork with a count known at run time", `
sh int res[8];
void main() {
  start(8) {
    fork(groupsize() / 2; @ = $ / 2; $ = $ % 2) {
      sh int s = 0;
      syncadd(&s, $ + 1 + @ * 10);
      seq res[@] = s;
    }
  }
  printf("%d %d %d %d\n", res[0], res[1], res[2], res[3]);
}`, "3 23 43 63\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := mustParse(t, "test.fork", tt.src, defaultOpts)
			if got := mustRun(t, m, nil, true); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			irtest.RunPasses(t, m, nil, "default")
			if got := irtest.Run(t, m, nil); got != tt.want {
				t.Errorf("after the default pipeline: got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSubgroupBeyondProcs checks the bound of a fork whose count is known
// only at run time: a subgroup numbered past start's processor count,
// which sizes the instances, raises an error.
func TestSubgroupBeyondProcs(t *testing.T) {
	m := mustParse(t, "test.fork", `
sh int res[16];
void main() {
  start(4) {
    fork(groupsize() * 4; @ = $ * 4; $ = 0) {
      sh int s = 1;
      seq res[@] = s;
    }
  }
  printf("%d\n", res[0]);
}`, defaultOpts)
	err := interp.Run(m, interp.Config{Stdout: io.Discard})
	if err == nil || !strings.HasPrefix(err.Error(), "fork: a subgroup that declares sh variables is numbered beyond start's processor count") {
		t.Errorf("got %v", err)
	}
}
