// chr_fw.c: sequential Floyd-Warshall on chr_gen's complete graph,
// printing the final store of examples/chr/fw.chr (edge(I,J,D) for I != J,
// in the standard order of terms) and its own time on stderr.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long weight(long long i, long long j) { return ((i * 2654435761LL + j * 40503LL) % 4294967296LL) % 100 + 1; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 256;
  int *d = malloc(sizeof(int) * (size_t)n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) d[(size_t)i * n + j] = i == j ? 0 : (int)weight(i, j);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++) {
      int dik = d[(size_t)i * n + k];
      int *di = d + (size_t)i * n, *dk = d + (size_t)k * n;
      for (int j = 0; j < n; j++)
        if (dik + dk[j] < di[j]) di[j] = dik + dk[j];
    }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "sequential %.3f ms\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (i != j) printf("edge(%d,%d,%d)\n", i, j, d[(size_t)i * n + j]);
  return 0;
}
