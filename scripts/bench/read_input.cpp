// read_input.cpp: times gpuc_read_input, the runtime's reading of an input
// buffer's file (Note [Input files] in backends/runtime/gpuc_runtime.h),
// on the host: the best CPU time of REPS reads of FILE as N values of
// TYPE (i32 or i64; @FILE for raw binary, as on a program's command line).
// Build it against the header to measure (docs/BENCHMARKS.md):
//
//   g++ -O2 -std=c++17 -Ibackends/runtime -o read_input scripts/bench/read_input.cpp
//   ./read_input FILE TYPE N REPS
#include <time.h>

#include "gpuc_runtime.h"

static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 5 || (strcmp(argv[2], "i32") != 0 && strcmp(argv[2], "i64") != 0)) {
    fprintf(stderr, "usage: read_input FILE i32|i64 N REPS\n");
    return 2;
  }
  gpuc_buffer_arg b = {"in", true, argv[1]};
  gpuc_type t = strcmp(argv[2], "i64") == 0 ? GPUC_I64 : GPUC_I32;
  long long n = atoll(argv[3]), check = 0;
  int reps = atoi(argv[4]);
  double best = 1e300;
  for (int r = 0; r < reps; r++) {
    double t0 = cpu_ms();
    void *p = gpuc_read_input(&b, t, n);
    double t1 = cpu_ms();
    if (t1 - t0 < best) best = t1 - t0;
    if (n > 0) check += t == GPUC_I64 ? ((long long *)p)[n - 1] : ((int *)p)[n - 1];
    gpuc_free_input(p);
  }
  printf("%s: %lld %s values, best of %d: %.2f ms CPU (check %lld)\n", argv[1], n, argv[2], reps, best, check);
  return 0;
}
