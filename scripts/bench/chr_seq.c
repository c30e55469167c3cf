// chr_seq.c: sequential C programs of the same algorithms as the CHR
// benchmarks (scripts/bench-chr.sh, issue 18), timed as gpuc's whole run
// is: from the start of the process to the last byte of output, reading
// the same store files that chr_gen writes (and that the GPU programs read
// with --input), and printing the same final store in the standard order
// of terms. On stderr: "whole X ms" and, beside it, "loop Y ms", the time
// of the algorithm alone over data already in memory.
//
//   chr_seq sum DIR      sum(X), sum(Y) <=> Z is X+Y, sum(Z): the sum
//   chr_seq min DIR      min(A) \ min(B) <=> A =< B | true: the least
//   chr_seq gcd DIR      gcd(N) \ gcd(M) <=> N =< M | L is M mod N, gcd(L)
//                        and gcd(0) <=> true: Euclid by remainders
//   chr_seq fw DIR       edge(I,K,D1), edge(K,J,D2) \ edge(I,J,D3) <=>
//                        D3 > D1+D2 | ...: relax every edge through
//                        every K (Floyd-Warshall) over the store's edges
//   chr_seq primes N     examples/chr/primes.chr: every L in 2..N is a
//                        candidate and marks L*K for K in L..N/L as
//                        composite (all L, not only primes: the rules'
//                        algorithm, not a sieve); composites remove
//                        their candidates
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct timespec start;

static double ms_since(struct timespec t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (t.tv_sec - t0.tv_sec) * 1e3 + (t.tv_nsec - t0.tv_nsec) / 1e6;
}

// readall reads DIR/NAME into a new buffer of *n bytes.
static void *readall(const char *dir, const char *name, size_t *n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc(len > 0 ? (size_t)len : 1);
  if (!p || fread(p, 1, (size_t)len, f) != (size_t)len) { fprintf(stderr, "chr_seq: cannot read %s\n", path); exit(1); }
  fclose(f);
  *n = (size_t)len;
  return p;
}

// store is a store as chr_gen writes it and the GPU programs read it:
// argument arrays and the top, every slot below the top a live
// constraint (Note [Input stores] in frontends/chr/region.go; the state
// and birth files are not read).
typedef struct {
  int64_t *a[3];
  int64_t n;
} store;

static store load(const char *dir, const char *base, int nargs) {
  store s;
  char name[64];
  size_t len;
  snprintf(name, sizeof name, "%s_top.bin", base);
  int32_t *top = readall(dir, name, &len);
  s.n = top[0];
  free(top);
  for (int k = 0; k < nargs; k++) {
    snprintf(name, sizeof name, "%s_a%d.bin", base, k);
    s.a[k] = readall(dir, name, &len);
    if ((int64_t)len < 8 * s.n) { fprintf(stderr, "chr_seq: %s shorter than its top\n", name); exit(1); }
  }
  return s;
}

static void report(double loop) {
  fflush(stdout);
  fprintf(stderr, "whole %.3f ms, loop %.3f ms\n", ms_since(start), loop);
}

static int64_t gcd(int64_t n, int64_t m) {
  while (n) { int64_t t = m % n; m = n; n = t; }
  return m;
}

// fold runs sum, min and gcd: each fires its rule on the running result
// and the next live constraint, as a sequential CHR execution does.
static int fold(const char *w, const char *dir) {
  store s = load(dir, w[0] == 's' ? "sum1" : w[0] == 'm' ? "min1" : "gcd1", 1);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int64_t r = 0;
  int have = 0;
  for (int64_t i = 0; i < s.n; i++) {
    int64_t v = s.a[0][i];
    if (!have) { r = v; have = 1; continue; }
    switch (w[0]) {
    case 's': r += v; break;
    case 'm': if (v < r) r = v; break;
    default: r = gcd(r < v ? r : v, r < v ? v : r); break;
    }
  }
  double loop = ms_since(t0);
  if (have && !(w[0] == 'g' && r == 0)) printf("%s(%lld)\n", w, (long long)r);
  report(loop);
  return 0;
}

typedef struct { int64_t i, j, d; } edge;

static int edge_order(const void *x, const void *y) {
  const edge *a = x, *b = y;
  if (a->i != b->i) return a->i < b->i ? -1 : 1;
  if (a->j != b->j) return a->j < b->j ? -1 : 1;
  return a->d < b->d ? -1 : a->d > b->d;
}

// fw relaxes the store's edges through every node: edge(I,J) takes the
// least D1+D2 over edge(I,K,D1), edge(K,J,D2) of the store, which is the
// rule's fixpoint when every edge weight is positive and each pair has
// one edge.
static int fw(const char *dir) {
  store s = load(dir, "edge3", 3);
  int64_t nodes = 0;
  for (int64_t e = 0; e < s.n; e++)
    for (int k = 0; k < 2; k++)
      if (s.a[k][e] < 0) { fprintf(stderr, "chr_seq: negative node\n"); return 1; }
      else if (s.a[k][e] >= nodes) nodes = s.a[k][e] + 1;
  const int64_t inf = INT64_MAX / 4;
  int64_t *d = malloc(sizeof(int64_t) * (size_t)(nodes * nodes));
  char *has = calloc((size_t)(nodes * nodes), 1);
  for (int64_t x = 0; x < nodes * nodes; x++) d[x] = inf;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int64_t e = 0; e < s.n; e++) {
    int64_t x = s.a[0][e] * nodes + s.a[1][e];
    if (has[x]) { fprintf(stderr, "chr_seq: two edges of one pair\n"); return 1; }
    has[x] = 1;
    d[x] = s.a[2][e];
  }
  for (int64_t k = 0; k < nodes; k++)
    for (int64_t i = 0; i < nodes; i++) {
      int64_t dik = d[i * nodes + k];
      if (dik == inf) continue;
      int64_t *di = d + i * nodes, *dk = d + k * nodes;
      for (int64_t j = 0; j < nodes; j++)
        if (has[i * nodes + j] && dik + dk[j] < di[j]) di[j] = dik + dk[j];
    }
  double loop = ms_since(t0);
  edge *out = malloc(sizeof(edge) * (size_t)(s.n ? s.n : 1));
  int64_t m = 0;
  for (int64_t i = 0; i < nodes; i++)
    for (int64_t j = 0; j < nodes; j++)
      if (has[i * nodes + j]) out[m++] = (edge){i, j, d[i * nodes + j]};
  qsort(out, (size_t)m, sizeof(edge), edge_order);
  for (int64_t e = 0; e < m; e++) printf("edge(%lld,%lld,%lld)\n", (long long)out[e].i, (long long)out[e].j, (long long)out[e].d);
  report(loop);
  return 0;
}

static int primes(int64_t n) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  char *comp = calloc((size_t)n + 1, 1);
  for (int64_t l = 2; l <= n / l; l++)
    for (int64_t k = l; k <= n / l; k++) comp[l * k] = 1;
  double loop = ms_since(t0);
  for (int64_t c = 4; c <= n; c++)
    if (comp[c]) printf("composite(%lld)\n", (long long)c);
  for (int64_t p = 2; p <= n; p++)
    if (!comp[p]) printf("prime(%lld)\n", (long long)p);
  report(loop);
  return 0;
}

int main(int argc, char **argv) {
  clock_gettime(CLOCK_MONOTONIC, &start);
  static char buf[1 << 20];
  setvbuf(stdout, buf, _IOFBF, sizeof buf);
  if (argc != 3) { fprintf(stderr, "usage: chr_seq sum|min|gcd|fw DIR, or chr_seq primes N\n"); return 2; }
  const char *w = argv[1];
  if (!strcmp(w, "sum") || !strcmp(w, "min") || !strcmp(w, "gcd")) return fold(w, argv[2]);
  if (!strcmp(w, "fw")) return fw(argv[2]);
  if (!strcmp(w, "primes")) return primes(atoll(argv[2]));
  fprintf(stderr, "chr_seq: unknown workload %s\n", w);
  return 2;
}
