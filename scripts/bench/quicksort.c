// Sequential quicksort, the baseline of scripts/bench-fork.sh: sorts the
// numbers that examples/fork/quicksort.fork sorts (the same LCG), prints
// what it prints, and the time of the sort itself on stderr. The sort is
// the one the Fork program's processors use for their last ranges:
// quicksort around the middle element, recursing into the shorter side,
// insertion sort for short ranges.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int *a;

static void insertion_sort(long lo, long hi) {
  for (long i = lo + 1; i < hi; i++) {
    int v = a[i];
    long j = i;
    for (; j > lo && a[j - 1] > v; j--) a[j] = a[j - 1];
    a[j] = v;
  }
}

static void seq_sort(long lo, long hi) {
  while (hi - lo > 16) {
    int v = a[lo + (hi - lo) / 2];
    long i = lo, j = hi - 1;
    while (i <= j) {
      while (a[i] < v) i++;
      while (a[j] > v) j--;
      if (i <= j) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (j + 1 - lo < hi - i) {
      seq_sort(lo, j + 1);
      lo = i;
    } else {
      seq_sort(i, hi);
      hi = j + 1;
    }
  }
  insertion_sort(lo, hi);
}

int main(int argc, char **argv) {
  long n = 100000;
  for (int k = 1; k < argc; k++)
    if (strncmp(argv[k], "N=", 2) == 0) n = atol(argv[k] + 2);
  a = malloc(n * sizeof *a);
  unsigned x = 12345u;
  for (long i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    a[i] = (int)(x >> 1);
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  seq_sort(0, n);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  unsigned long check = 0;
  int unsorted = 0;
  for (long i = 0; i < n; i++) {
    check += (unsigned long)a[i] * (unsigned long)(i + 1);
    if (i > 0 && a[i - 1] > a[i]) unsorted++;
  }
  if (unsorted == 0)
    printf("sorted %ld ints\n", n);
  else
    printf("NOT SORTED: %d of %ld ints out of order\n", unsorted, n);
  printf("checksum %lu\n", check);
  printf("a[0] = %d, a[%ld] = %d, a[%ld] = %d\n", a[0], n / 2, a[n / 2], n - 1, a[n - 1]);
  fprintf(stderr, "seq: %.3f ms\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
  free(a);
  return 0;
}
