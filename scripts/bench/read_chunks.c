// read_chunks: the host side of reading a binary input file (issue 18,
// min over 10^8's 800 MB store), three ways, best of R runs each:
//   whole    one read(2) into a fresh malloc'd block of the file's size
//            (the page faults of a block met for the first time; a
//            page-locked block pays them in cudaHostAlloc instead);
//   chunks   read(2) of CHUNK bytes at a time into one of SLOTS reused
//            buffers (Note [Streamed input]: what the CUDA program does,
//            less the copies, which the copy engine makes);
//   threads  the same with T threads, each pread(2)ing its own run of
//            chunks through a descriptor of its own;
//   mmap     mmap(2) of the file and a touch of each page: the faults that
//            cudaHostRegister of a mapped file would take before pinning;
//   mlock    a block of the file's size locked with mlock(2), then one read
//            into it: the host's side of cudaHostAlloc's block (without
//            the device's mapping of it), as the programs read before.
//
//   gcc -O2 -pthread -o read_chunks scripts/bench/read_chunks.c
//   ./read_chunks FILE [CHUNK_MIB=4] [R=5] [T=4]
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *path;
static size_t size, chunk;
static int nthreads;
static volatile unsigned long long sink;

static size_t read_all(int fd, char *dst, size_t want, off_t at) {
  size_t got = 0;
  while (got < want) {
    ssize_t r = pread(fd, dst + got, want - got, at + (off_t)got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  return got;
}

static void *worker(void *arg) {
  long id = (long)arg;
  int fd = open(path, O_RDONLY);
  char *buf = malloc(chunk);
  memset(buf, 0, chunk);
  unsigned long long s = 0;
  const size_t chunks = (size + chunk - 1) / chunk, per = (chunks + (size_t)nthreads - 1) / (size_t)nthreads;
  const size_t end = ((size_t)id + 1) * per * chunk < size ? ((size_t)id + 1) * per * chunk : size;
  for (size_t at = (size_t)id * per * chunk; at < end; at += chunk) {
    size_t n = read_all(fd, buf, end - at < chunk ? end - at : chunk, (off_t)at);
    s += (unsigned char)buf[n - 1];
  }
  sink += s;
  free(buf);
  close(fd);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: read_chunks FILE [CHUNK_MIB] [R] [T]\n");
    return 2;
  }
  path = argv[1];
  chunk = (size_t)(argc > 2 ? atoi(argv[2]) : 4) << 20;
  int runs = argc > 3 ? atoi(argv[3]) : 5;
  nthreads = argc > 4 ? atoi(argv[4]) : 4;
  struct stat st;
  if (stat(path, &st) != 0) {
    perror(path);
    return 1;
  }
  size = (size_t)st.st_size;
  double best[5] = {1e30, 1e30, 1e30, 1e30, 1e30}, lock_best = 0;
  for (int r = 0; r < runs; r++) {
    int fd = open(path, O_RDONLY);
    double t = now_ms();
    char *block = malloc(size);
    size_t n = read_all(fd, block, size, 0);
    t = now_ms() - t;
    sink += (unsigned char)block[n - 1];
    free(block);
    close(fd);
    if (t < best[0]) best[0] = t;

    fd = open(path, O_RDONLY);
    enum { slots = 4 };
    char *buf[slots];
    for (int i = 0; i < slots; i++) {
      buf[i] = malloc(chunk);
      memset(buf[i], 0, chunk);
    }
    t = now_ms();
    size_t at = 0;
    for (int i = 0; at < size; i = (i + 1) % slots) {
      n = read_all(fd, buf[i], size - at < chunk ? size - at : chunk, (off_t)at);
      sink += (unsigned char)buf[i][n - 1];
      at += n;
    }
    t = now_ms() - t;
    for (int i = 0; i < slots; i++) free(buf[i]);
    close(fd);
    if (t < best[1]) best[1] = t;

    pthread_t th[64];
    t = now_ms();
    for (long i = 0; i < nthreads; i++) pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
    t = now_ms() - t;
    if (t < best[2]) best[2] = t;

    fd = open(path, O_RDONLY);
    t = now_ms();
    const unsigned char *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
      perror("mmap");
      return 1;
    }
    unsigned long long s = 0;
    for (size_t at = 0; at < size; at += 4096) s += m[at];
    t = now_ms() - t;
    sink += s;
    munmap((void *)m, size);
    close(fd);
    if (t < best[3]) best[3] = t;

    fd = open(path, O_RDONLY);
    t = now_ms();
    char *locked = malloc(size);
    if (mlock(locked, size) != 0) {
      perror("mlock");
      return 1;
    }
    double tl = now_ms() - t;
    n = read_all(fd, locked, size, 0);
    t = now_ms() - t;
    sink += (unsigned char)locked[n - 1];
    munlock(locked, size);
    free(locked);
    close(fd);
    if (t < best[4]) best[4] = t, lock_best = tl;
  }
  const double mb = (double)size / 1e6;
  printf("%s: %.1f MB, best of %d\n", path, mb, runs);
  printf("whole block (fresh malloc)  %8.2f ms  %6.2f GB/s\n", best[0], mb / best[0]);
  printf("chunks of %zu MiB, 4 slots  %8.2f ms  %6.2f GB/s\n", chunk >> 20, best[1], mb / best[1]);
  printf("%d threads, chunks          %8.2f ms  %6.2f GB/s\n", nthreads, best[2], mb / best[2]);
  printf("mmap, a touch a page        %8.2f ms  %6.2f GB/s\n", best[3], mb / best[3]);
  printf("mlock'd block, one read     %8.2f ms  %6.2f GB/s  (mlock %.2f ms)\n", best[4], mb / best[4], lock_best);
  return 0;
}
