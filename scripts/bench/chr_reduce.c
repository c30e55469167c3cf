// chr_reduce.c: sequential min and gcd over chr_gen's values, printing
// the final store of examples/chr/min.chr or gcd.chr and the time of the
// reduction on stderr.
//
//   chr_reduce min N
//   chr_reduce gcd N
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long value(long long i) { return (i * 2654435761LL + 12345) % 4294967296LL; }
static long long gcd(long long a, long long b) { while (b) { long long t = a % b; a = b; b = t; } return a; }

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: chr_reduce min|gcd N\n"); return 2; }
  int isgcd = strcmp(argv[1], "gcd") == 0;
  long long n = atoll(argv[2]);
  long long *v = malloc(sizeof(long long) * (size_t)n);
  for (long long i = 0; i < n; i++) v[i] = isgcd ? 6 * (value(i) % 1000000 + 1) : value(i);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long long r = v[0];
  for (long long i = 1; i < n; i++) r = isgcd ? gcd(r, v[i]) : (v[i] < r ? v[i] : r);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "sequential %.3f ms\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
  printf("%s(%lld)\n", argv[1], r);
  return 0;
}
