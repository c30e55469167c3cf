// chr_gen.c: writes the initial constraint stores of the CHR benchmarks
// (scripts/bench-chr.sh) as raw little-endian files that the programs
// gpuc compiled with --input read as input buffers: one file per
// argument array (i64), the state and birth-step arrays (i32, all 1) and
// the top (i32[1]). bench-chr.sh's programs read the argument arrays and
// the top only (Note [Input stores] in frontends/chr/region.go); the
// state and birth files are for programs compiled with them as inputs.
// It prints the number of constraints, which is the store's capacity
// parameter. The formulas are chr_swi.pl's.
//
//   chr_gen fw N DIR    edge(I,J,W) for I != J in 0..N-1, row by row
//   chr_gen min N DIR   min(V) for N values
//   chr_gen gcd N DIR   gcd(G) for N multiples of 6
//   chr_gen sum N DIR   sum(V) for N values
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t weight(int64_t i, int64_t j) { return ((i * 2654435761LL + j * 40503LL) % 4294967296LL) % 100 + 1; }
static int64_t value(int64_t i) { return (i * 2654435761LL + 12345) % 4294967296LL; }

static FILE *open_out(const char *dir, const char *base, const char *suffix) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s%s", dir, base, suffix);
  FILE *f = fopen(path, "wb");
  if (!f) { perror(path); exit(1); }
  return f;
}

static void put64(FILE *f, int64_t v) { fwrite(&v, 8, 1, f); }
static void put32(FILE *f, int32_t v) { fwrite(&v, 4, 1, f); }

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: chr_gen fw|min|gcd|sum N DIR\n"); return 2; }
  const char *w = argv[1], *dir = argv[3];
  int64_t n = atoll(argv[2]);
  int fw = strcmp(w, "fw") == 0;
  const char *base = fw ? "edge3" : strcmp(w, "min") == 0 ? "min1" : strcmp(w, "gcd") == 0 ? "gcd1" : strcmp(w, "sum") == 0 ? "sum1" : NULL;
  if (!base) { fprintf(stderr, "chr_gen: unknown workload %s\n", w); return 2; }
  int nargs = fw ? 3 : 1;
  FILE *a[3];
  for (int k = 0; k < nargs; k++) {
    char s[16];
    snprintf(s, sizeof s, "_a%d.bin", k);
    a[k] = open_out(dir, base, s);
  }
  FILE *st = open_out(dir, base, "_st.bin"), *born = open_out(dir, base, "_born.bin");
  int64_t count = 0;
  if (fw) {
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++)
        if (i != j) { put64(a[0], i); put64(a[1], j); put64(a[2], weight(i, j)); count++; }
  } else {
    for (int64_t i = 0; i < n; i++) {
      int64_t v = value(i);
      put64(a[0], w[0] == 'g' ? 6 * (v % 1000000 + 1) : v);
      count++;
    }
  }
  for (int64_t i = 0; i < count; i++) { put32(st, 1); put32(born, 1); }
  FILE *top = open_out(dir, base, "_top.bin");
  put32(top, (int32_t)count);
  for (int k = 0; k < nargs; k++) fclose(a[k]);
  fclose(st); fclose(born); fclose(top);
  printf("%lld\n", (long long)count);
  return 0;
}
