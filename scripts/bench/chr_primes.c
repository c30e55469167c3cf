// chr_primes.c: the sieve of Eratosthenes up to N, printing the final
// store of examples/chr/primes.chr (composite/1 for every composite,
// then prime/1 for every prime, each in increasing order) and the time
// of the sieve on stderr.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  char *comp = calloc((size_t)n + 1, 1);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long p = 2; p * p <= n; p++)
    if (!comp[p])
      for (long m = p * p; m <= n; m += p) comp[m] = 1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "sequential %.3f ms\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
  for (long c = 4; c <= n; c++)
    if (comp[c]) printf("composite(%ld)\n", c);
  for (long p = 2; p <= n; p++)
    if (!comp[p]) printf("prime(%ld)\n", p);
  return 0;
}
