// Sequential sieve of Eratosthenes, the baseline of scripts/bench-fork.sh:
// prints what examples/fork/sieve.fork prints, and the time of the sieve
// itself on stderr.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
  long n = 100000;
  for (int a = 1; a < argc; a++)
    if (strncmp(argv[a], "N=", 2) == 0) n = atol(argv[a] + 2);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  char *composite = calloc(n, 1);
  for (long p = 2; p * p < n; p++)
    if (!composite[p])
      for (long i = p * p; i < n; i += p) composite[i] = 1;
  int count = 0;
  long sum = 0;
  for (long i = 2; i < n; i++)
    if (!composite[i]) {
      count++;
      sum += i;
    }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("primes below %ld: %d\n", n, count);
  printf("checksum (their sum): %ld\n", sum);
  fprintf(stderr, "seq: %.3f ms\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
  free(composite);
  return 0;
}
