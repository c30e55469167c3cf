// write_text.c: the host's side of writing a store's text, formatted on the
// device, to a file (Note [Writing from the device] in
// backends/runtime/gpuc_device.h), without a GPU: Floyd-Warshall's final
// store on N nodes, N*N lines "edge(I,J,D)\n", written REPS times to FILE
// (truncated each time), best wall time of each way:
//   array:  as before 321d2f0's parent: a calloc'd host array of
//           LINES*71 bytes (TEXT_LINES lines of the longest edge/3 line),
//           filled by a copy (the driver's staging copy of a copy into
//           pageable memory, whose pages fault in at the first touch),
//           then one fwrite;
//   chunks: now: two 2 MiB chunks (page-locked on CUDA, touched once),
//           each filled by a copy (the DMA, which costs the CPU nothing
//           on a GPU: counted here, so the figure is an upper bound) and
//           written with fwrite in turn.
//
//   gcc -O2 -o write_text scripts/bench/write_text.c
//   ./write_text N REPS FILE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: write_text N REPS FILE\n");
    return 2;
  }
  const long n = atol(argv[1]);
  const int reps = atoi(argv[2]);
  const long lines = n * n < (1L << 20) ? n * n : (1L << 20);
  char *text = malloc((size_t)n * n * 32 + 1);
  size_t len = 0;
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++) {
      unsigned long w = ((unsigned long)i * 2654435761u + (unsigned long)j * 40503u) % 4294967296u % 100 + 1;
      len += (size_t)sprintf(text + len, "edge(%ld,%ld,%lu)\n", i, j, w);
    }
  enum { chunk = 1 << 21 };
  char *stage = malloc(2 * (size_t)chunk);
  memset(stage, 0, 2 * (size_t)chunk);
  double best_array = 1e300, best_chunks = 1e300;
  for (int r = 0; r < reps; r++) {
    FILE *f = fopen(argv[3], "w");
    double t0 = now_ms();
    char *array = calloc((size_t)lines * 71, 1);
    memcpy(array, text, len);
    if (fwrite(array, 1, len, f) != len) return 1;
    fflush(f);
    double t1 = now_ms();
    fclose(f);
    free(array);
    if (t1 - t0 < best_array) best_array = t1 - t0;
    f = fopen(argv[3], "w");
    t0 = now_ms();
    for (size_t off = 0, i = 0; off < len; off += chunk, i++) {
      size_t k = len - off < chunk ? len - off : chunk;
      memcpy(stage + (i % 2) * chunk, text + off, k);
      if (fwrite(stage + (i % 2) * chunk, 1, k, f) != k) return 1;
    }
    fflush(f);
    t1 = now_ms();
    fclose(f);
    if (t1 - t0 < best_chunks) best_chunks = t1 - t0;
  }
  printf("%ld nodes, %.1f MB of text: array %.2f ms, chunks %.2f ms (best of %d)\n", n, len / 1e6, best_array,
         best_chunks, reps);
  return 0;
}
