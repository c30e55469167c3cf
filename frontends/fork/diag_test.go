package fork_test

import (
	"strings"
	"testing"

	"gpuc/frontends/fork"
)

// Bad programs get every error, positioned, one line each, and never a
// panic. The sources mark nothing: the positions are written out.
func TestDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"undeclared names", `
void main() {
  x = 1;
  g(2);
}`, []string{
			"t.fork:3:3: error: undeclared name x",
			"t.fork:4:3: error: call of undeclared function g",
		}},
		{"$ and @ outside start", `
void main() {
  int p = $;
  int q = @ + groupsize();
  start(4) { }
}`, []string{
			"t.fork:3:11: error: $ used outside start",
			"t.fork:4:11: error: @ used outside start",
			"t.fork:4:15: error: groupsize() used outside start",
		}},
		{"$ in a function called sequentially", `
int me(void) { return $; }
void main() {
  start(4) { me(); }
  me();
}`, []string{
			"t.fork:2:23: error: $ used outside start (function me is called from sequential code)",
		}},
		{"type errors", `
sh int a[4];
void v(void) { }
void main() {
  int x = 1.5 % 2;
  x = ~2.0;
  x = v();
  x = a;
  x = x[1];
  x = a[1.0];
  x = "text";
  a[0][1] = 2;
}`, []string{
			"t.fork:5:15: error: invalid operands to %: double and int, want integers",
			"t.fork:6:7: error: operator ~ needs an integer operand, not double",
			"t.fork:7:7: error: void value used in an expression",
			"t.fork:8:7: error: array a used as a value",
			"t.fork:9:7: error: x is not an array",
			"t.fork:10:9: error: array subscript has type double, want an integer",
			"t.fork:11:7: error: string literal outside printf and error",
			"t.fork:12:3: error: too many subscripts for a, which has 1 dimension(s)",
		}},
		{"assignments", `
const int N = 4;
const int t[2] = {1, 2};
sh int a[N];
void main() {
  N = 3;
  a = 0;
  t[0] = 1;
  3 = 4;
}`, []string{
			"t.fork:6:3: error: cannot assign to constant N",
			"t.fork:7:3: error: cannot assign to array a",
			"t.fork:8:3: error: cannot assign to an element of const array t",
			"t.fork:9:3: error: expression is not assignable",
		}},
		{"wrong argument counts", `
sh int s;
int f(int x, int y) { return x + y; }
void main() {
  start(2) {
    f(1);
    mpadd(&s);
    pr int n = groupsize(1);
  }
  printf();
}`, []string{
			"t.fork:6:5: error: f takes 2 arguments, not 1",
			"t.fork:7:5: error: mpadd takes 2 arguments, not 1",
			"t.fork:8:16: error: groupsize takes 0 arguments, not 1",
			"t.fork:10:3: error: printf needs a format string",
		}},
		{"printf", `
void main() {
  int x = 1;
  printf("%d %d\n", x);
  printf("%s %f\n", x, x);
  printf("%q\n", x);
  start(2) printf("%d\n", $);
}`, []string{
			`t.fork:4:3: error: printf format has 2 conversion(s) but 1 argument(s)`,
			`t.fork:5:21: error: printf argument 1 for %s has type int`,
			`t.fork:5:24: error: printf argument 2 for %f has type int`,
			`t.fork:6:10: error: format "%q\n": unsupported conversion %q`,
		}},
		{"error", `
int x;
void main() {
  error();
  error(x);
  error("x is %d", x);
  x = error("stop");
  printf("%s\n", error("stop"));
}
void error(int code) { }`, []string{
			"t.fork:4:3: error: error needs a message, a string literal",
			"t.fork:5:9: error: the message of error must be a string literal",
			"t.fork:6:20: error: error takes only a message, a string literal, and formats no values; print them with printf before it",
			"t.fork:7:7: error: void value used in an expression",
			"t.fork:8:18: error: void value used in an expression",
			"t.fork:10:6: error: error is a builtin function of Fork and cannot be redefined",
		}},
		{"printf in parallel code", `
void main() {
  start(2) printf("%d\n", $);
}`, []string{
			"t.fork:3:12: error: printf in parallel code; wrap it in seq",
		}},
		{"host locals in start", `
void main() {
  int h = 1;
  start(2) {
    h = 2;
    h++;
  }
}`, []string{
			"t.fork:5:5: error: cannot assign h inside start: it is a local of the sequential code, which start only reads; declare it sh at global scope",
			"t.fork:6:5: error: cannot assign h inside start: it is a local of the sequential code, which start only reads; declare it sh at global scope",
		}},
		{"unsupported sh instances", `
void main() {
  int p = 4;
  start(p) {
    fork(2; @ = $ % 2; $ = $ / 2) {
      fork(groupsize(); @ = $; $ = 0) {
        sh int mine;
      }
    }
    pr int row[3];
  }
}`, []string{
			"t.fork:7:16: error: sh variable mine needs one instance per subgroup, but the fork at line 6 divides the group into a number of subgroups known only at run time, and start's processor count, which would bound them, is not a constant or parameter expression either",
			"t.fork:10:12: error: private arrays are not supported yet; declare row sh and index it by $",
		}},
		{"shapes of recursion", `
sync void ping(sh int n) { if (n > 0) pong(n - 1); }
sync void pong(sh int n) { ping(n); }
sync int depth(int n) {
  if (n == 0) return 0;
  return depth(n - 1) + 1;
}
sync void late(sh int n) {
  late(n - 1);
  fork(2; @ = $ % 2) { late(n - 1); n; }
}
sync void loop(sh int n) {
  fork(2; @ = $ % 2) if (n > 0) loop(n - 1); else while (n > 0) loop(n - 1);
}
void main() { }`, []string{
			"t.fork:2:39: error: sync functions ping and pong call each other: mutual recursion is not supported, only a sync function that calls itself at the end of a fork",
			"t.fork:3:28: error: sync functions pong and ping call each other: mutual recursion is not supported, only a sync function that calls itself at the end of a fork",
			"t.fork:4:10: error: recursive sync function depth returns int: a sync function that calls itself must return void",
			"t.fork:9:3: error: recursive call of late is not supported here: a sync function may call itself only at the end of the body of a fork that is its last statement",
			"t.fork:10:24: error: recursive call of late must end its path through the body of the fork: only blocks and ifs may lead to it, and nothing may follow it",
			"t.fork:13:65: error: recursive call of loop must end its path through the body of the fork: only blocks and ifs may lead to it, and nothing may follow it",
		}},
		{"recursion needs whole groups", `
sh int s, arr[4];
sync void rec(sh int lo, int a[]) {
  sh int mine[2];
  pr int x;
  if (lo < 0) return;
  if ($ > 2) return;
  if ($ > 1) x = groupsize();
  x = mpadd(&s, 1);
  syncadd(&s, 1);
  farm x = mpadd(&s, 1);
  fork(2; @ = $ % 2; $ = $ / 2) {
    x = groupsize();
    fork(1; @ = 0) x = groupsize();
    show(mine);
    seq printf("%d\n", lo);
    rec(lo - 1, arr);
  }
}
void show(int a[]) { }
void main() {
  int n = 4;
  start(8) {
    if ($ < 4) rec(1, arr);
    fork(2; @ = $ % 2; $ = $ / 2) rec(2, arr);
    rec(3, arr);
  }
  start(n) rec(4, arr);
}`, []string{
			"t.fork:7:14: error: return in recursive sync function rec where the processors of its group may disagree is not supported: return from the whole group",
			"t.fork:8:18: error: groupsize() in recursive sync function rec under a condition that differs between the processors of its group, or in a fork body, is not supported",
			"t.fork:9:7: error: mpadd with a result in the synchronous code of recursive sync function rec is not supported: the groups would need one multiprefix scan each; use it in farm, where it is an atomic fetch-and-add",
			"t.fork:14:24: error: groupsize() in recursive sync function rec under a condition that differs between the processors of its group, or in a fork body, is not supported",
			"t.fork:15:5: error: array mine, which each group of recursive sync function rec has its own instance of, cannot be passed to function show",
			"t.fork:16:9: error: printf in recursive sync function rec is not supported: the groups of a level run together on the device, which does not print; record the values in arrays and print them after start",
			"t.fork:17:17: error: recursive call of rec must pass its array parameter a unchanged",
			"t.fork:24:16: error: recursive sync function rec must be called by a whole group: not under a condition that differs between its processors, nor in a fork body",
			"t.fork:25:35: error: recursive sync function rec must be called by a whole group: not under a condition that differs between its processors, nor in a fork body",
			"t.fork:28:12: error: recursive sync function rec needs the processor count of start to be a constant or parameter expression: its groups keep their variables in buffers with one element per processor",
		}},
		{"sh parameters", `
void plain(sh int x) { }
sync void set(sh int x, sh int a[]) { x = 2; x++; mpadd(&x, 1); a[0] = x; }
void main() { }`, []string{
			"t.fork:2:12: error: sh parameter x of function plain, which is not sync: only a sync function's group shares its parameters",
			"t.fork:3:39: error: cannot assign to sh parameter x: each processor of the group holds a copy; copy it into a local",
			"t.fork:3:46: error: cannot assign to sh parameter x: each processor of the group holds a copy; copy it into a local",
			"t.fork:3:58: error: cannot assign to sh parameter x: each processor of the group holds a copy; copy it into a local",
		}},
		{"constructs out of place", `
sh int s;
sync void g(void) { barrier; }
void main() {
  int p;
  barrier;
  seq p = 1;
  farm p = 1;
  fork(2; @ = 0) p = 1;
  g();
  mpadd(&s, 1);
  start(2) {
    farm { barrier; }
    start(2) { }
    pr int q;
    mpadd(&q, 1);
  }
}`, []string{
			"t.fork:6:3: error: barrier outside start",
			"t.fork:7:3: error: seq outside start",
			"t.fork:8:3: error: farm outside start",
			"t.fork:9:3: error: fork outside start",
			"t.fork:10:3: error: sync function g called outside start; it runs on a group of processors",
			"t.fork:11:3: error: mpadd used outside start",
			"t.fork:13:12: error: barrier in asynchronous code: gpuc runs a farm or an asynchronous function as independent threads, which cannot wait for one another; end the farm before the barrier",
			"t.fork:14:5: error: start inside parallel code is not supported",
			"t.fork:16:11: error: mpadd needs a shared variable, but q is private",
		}},
		{"jumps and returns", `
int f(void) { return; }
void g(void) { return 1; }
void main() {
  break;
  start(2) {
    while (1) { seq break; }
    return;
  }
}`, []string{
			"t.fork:2:15: error: return without a value in function f, which returns int",
			"t.fork:3:16: error: return with a value in function g, which returns void",
			"t.fork:5:3: error: break outside a loop",
			"t.fork:7:21: error: break may not leave the body of seq",
			"t.fork:8:5: error: return may not leave the body of start",
		}},
		{"declarations", `
const int N = M;
const int K = 1 / 0;
sh int a[N][0];
sh int b[];
int a;
pr int mine;
void main(int argc) {
  int x;
  int x;
}`, []string{
			"t.fork:2:15: error: undeclared name M",
			"t.fork:3:17: error: value of constant K divides by zero",
			"t.fork:4:13: error: second dimension of array a must be positive, not 0",
			"t.fork:5:8: error: size of array b is missing",
			"t.fork:6:5: error: a redeclared (previous declaration at t.fork:4:8)",
			"t.fork:7:8: error: private global variables are not supported; declare mine sh, or pr inside start",
			"t.fork:8:6: error: main must take no parameters",
			"t.fork:10:7: error: x redeclared in this scope (previous declaration at t.fork:9:7)",
		}},
		{"no main", `int f(void) { return 1; }`, []string{
			"t.fork:1:1: error: program has no function main",
		}},
		{"syntax", `
void main() {
  int x = ;
}`, []string{
			"t.fork:3:11: error: syntax error: mismatched input ';', expected an expression",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fork.Parse("t.fork", []byte(tc.src), defaultOpts)
			if err == nil {
				t.Fatalf("no error, want\n%s", strings.Join(tc.want, "\n"))
			}
			if got := err.Error(); got != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", got, strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestBadOptions(t *testing.T) {
	src := "void main() { start { } }"
	_, err := fork.Parse("t.fork", []byte(src), fork.Options{CRCW: "common"})
	if want := `t.fork: error: unknown concurrent-write rule "common" (want priority or arbitrary)`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	_, err = fork.Parse("t.fork", []byte(src), fork.Options{Procs: -2})
	if want := "t.fork:1:15: error: start without a processor count runs on --procs processors, which is -2"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
