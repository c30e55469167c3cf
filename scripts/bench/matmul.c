// Sequential N x N integer matrix multiplication, the baseline of
// scripts/bench-fork.sh: prints what examples/fork/matmul.fork prints, and
// the time on stderr. The loops run i-k-j, the cache-friendly order.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int entry(int i, int j, int k) { return (i * k + j * (k + 2)) % 7 - 3; }

int main(int argc, char **argv) {
  int n = 64;
  for (int a = 1; a < argc; a++)
    if (strncmp(argv[a], "N=", 2) == 0) n = atoi(argv[a] + 2);
  int *A = malloc(sizeof(int) * n * n), *B = malloc(sizeof(int) * n * n), *C = calloc((size_t)n * n, sizeof(int));
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i * n + j] = entry(i, j, 1);
      B[i * n + j] = entry(i, j, 2);
    }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++) {
      int a = A[i * n + k];
      for (int j = 0; j < n; j++) C[i * n + j] += a * B[k * n + j];
    }
  long checksum = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) checksum += (long)C[i * n + j] * (i + 2 * j + 1);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("C[0][0] = %d, C[%d][%d] = %d\n", C[0], n - 1, n - 1, C[(n - 1) * n + n - 1]);
  printf("checksum %ld\n", checksum);
  fprintf(stderr, "seq: %.3f ms\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
  return 0;
}
