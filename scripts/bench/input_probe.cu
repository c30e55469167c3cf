// input_probe.cu: four ways of getting a file's bytes into device memory
// (issue 18, min over 10^8's 800 MB store; Note [Streamed input] in
// backends/cuda/prelude.cuh), each timed on the host's wall clock from
// the first byte read to the last byte on the device, best of REPS, with
// a checksum of the device's bytes against the file's:
//   pinned    cudaHostAlloc of the file's size, read(2) into it, one copy
//             (the programs before streamed input: allocation and reading
//             before the clock, the copy inside it);
//   staged    4 threads, each pread(2)ing a run of 2 MiB chunks into two
//             page-locked slots of its own, each chunk copied while the
//             next is read (what the programs do now);
//   register  mmap(2) of the file, cudaHostRegister (read-only) of the
//             whole mapping, one copy;
//   pieces    the same, registered and copied 64 MiB at a time, the copy
//             of a piece beside the registering of the next.
//
//   nvcc -O3 -o input_probe input_probe.cu && ./input_probe FILE [REPS]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <time.h>
#include <unistd.h>

#define CHECK(x)                                                                   \
  do {                                                                             \
    cudaError_t e = (x);                                                           \
    if (e != cudaSuccess) {                                                        \
      fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));                      \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

static double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__global__ void checksum(const unsigned long long *p, size_t n, unsigned long long *out) {
  unsigned long long s = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) s += p[i] * (i | 1);
  atomicAdd(out, s);
}

static const char *path;
static size_t size;
static unsigned char *dev;
static unsigned long long *dsum;

static unsigned long long device_sum() {
  CHECK(cudaMemset(dsum, 0, sizeof *dsum));
  checksum<<<1024, 256>>>((const unsigned long long *)dev, size / 8, dsum);
  unsigned long long s;
  CHECK(cudaMemcpy(&s, dsum, sizeof s, cudaMemcpyDeviceToHost));
  return s;
}

static size_t pread_all(int fd, char *dst, size_t n, size_t at) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(fd, dst + got, n - got, (off_t)(at + got));
    if (r <= 0) break;
    got += (size_t)r;
  }
  return got;
}

static double pinned(double *alloc_ms, double *copy_ms) {
  double t0 = now_ms();
  char *h;
  CHECK(cudaHostAlloc((void **)&h, size, 0));
  double t1 = now_ms();
  int fd = open(path, O_RDONLY);
  pread_all(fd, h, size, 0);
  close(fd);
  double t2 = now_ms();
  CHECK(cudaMemcpy(dev, h, size, cudaMemcpyHostToDevice));
  double t3 = now_ms();
  CHECK(cudaFreeHost(h));
  *alloc_ms = t1 - t0;
  *copy_ms = t3 - t2;
  return t3 - t0;
}

enum { readers = 4, slots = 2 };
const size_t chunk = (size_t)2 << 20;

static double staged(cudaStream_t st) {
  double t0 = now_ms();
  char *buf[readers][slots];
  cudaEvent_t done[readers][slots];
  for (int r = 0; r < readers; r++)
    for (int i = 0; i < slots; i++) {
      CHECK(cudaHostAlloc((void **)&buf[r][i], chunk, 0));
      CHECK(cudaEventCreateWithFlags(&done[r][i], cudaEventDisableTiming));
    }
  const size_t chunks = (size + chunk - 1) / chunk, per = (chunks + readers - 1) / readers;
  std::thread th[readers];
  for (int r = 0; r < readers; r++) {
    th[r] = std::thread([&, r] {
      int fd = open(path, O_RDONLY);
      size_t end = (r + 1) * per * chunk < size ? (r + 1) * per * chunk : size;
      int i = 0;
      for (size_t at = r * per * chunk; at < end; at += chunk, i = (i + 1) % slots) {
        CHECK(cudaEventSynchronize(done[r][i]));
        size_t n = pread_all(fd, buf[r][i], end - at < chunk ? end - at : chunk, at);
        CHECK(cudaMemcpyAsync(dev + at, buf[r][i], n, cudaMemcpyHostToDevice, st));
        CHECK(cudaEventRecord(done[r][i], st));
      }
      close(fd);
    });
  }
  for (auto &t : th) t.join();
  CHECK(cudaStreamSynchronize(st));
  double t1 = now_ms();
  for (int r = 0; r < readers; r++)
    for (int i = 0; i < slots; i++) {
      CHECK(cudaFreeHost(buf[r][i]));
      CHECK(cudaEventDestroy(done[r][i]));
    }
  return t1 - t0;
}

// registered maps the file and registers it piece bytes at a time (the
// whole file when piece >= size), copying each piece once registered.
static double registered(size_t piece, cudaStream_t st, bool *ok) {
  double t0 = now_ms();
  int fd = open(path, O_RDONLY);
  void *m = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (m == MAP_FAILED) {
    perror("mmap");
    *ok = false;
    return 0;
  }
  for (size_t at = 0; at < size; at += piece) {
    size_t n = size - at < piece ? size - at : piece;
    cudaError_t e = cudaHostRegister((char *)m + at, n, cudaHostRegisterReadOnly);
    if (e != cudaSuccess) {
      fprintf(stderr, "cudaHostRegister: %s\n", cudaGetErrorString(e));
      cudaGetLastError();
      CHECK(cudaStreamSynchronize(st));
      for (size_t b = 0; b < at; b += piece) cudaHostUnregister((char *)m + b);
      munmap(m, size);
      *ok = false;
      return 0;
    }
    CHECK(cudaMemcpyAsync(dev + at, (char *)m + at, n, cudaMemcpyHostToDevice, st));
  }
  CHECK(cudaStreamSynchronize(st));
  double t1 = now_ms();
  for (size_t at = 0; at < size; at += piece) CHECK(cudaHostUnregister((char *)m + at));
  munmap(m, size);
  *ok = true;
  return t1 - t0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: input_probe FILE [REPS]\n");
    return 2;
  }
  path = argv[1];
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  struct stat sb;
  if (stat(path, &sb) != 0) {
    perror(path);
    return 1;
  }
  size = (size_t)sb.st_size & ~(size_t)7;
  // The file's checksum, as the kernel computes it.
  unsigned long long want = 0;
  {
    int fd = open(path, O_RDONLY);
    unsigned long long *h = (unsigned long long *)malloc(size);
    pread_all(fd, (char *)h, size, 0);
    close(fd);
    for (size_t i = 0; i < size / 8; i++) want += h[i] * (i | 1);
    free(h);
  }
  CHECK(cudaMalloc(&dev, size));
  CHECK(cudaMalloc(&dsum, sizeof *dsum));
  cudaStream_t st;
  CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  double best[4] = {1e30, 1e30, 1e30, 1e30}, alloc_best = 0, copy_best = 0;
  bool ok[4] = {true, true, true, true};
  const char *name[4] = {"pinned", "staged", "register", "pieces"};
  for (int r = 0; r < reps; r++) {
    for (int w = 0; w < 4; w++) {
      CHECK(cudaMemset(dev, 0, size));
      CHECK(cudaDeviceSynchronize());
      double t = 0, a = 0, c = 0;
      bool good = true;
      switch (w) {
      case 0: t = pinned(&a, &c); break;
      case 1: t = staged(st); break;
      case 2: t = registered(size, st, &good); break;
      case 3: t = registered((size_t)64 << 20, st, &good); break;
      }
      if (!good) {
        ok[w] = false;
        continue;
      }
      if (device_sum() != want) {
        fprintf(stderr, "%s: the device's bytes differ from the file's\n", name[w]);
        ok[w] = false;
        continue;
      }
      if (t < best[w]) {
        best[w] = t;
        if (w == 0) alloc_best = a, copy_best = c;
      }
    }
  }
  const double mb = (double)size / 1e6;
  printf("input_probe %s: %.1f MB, best of %d, from the first byte read to the last on the device\n", path, mb, reps);
  for (int w = 0; w < 4; w++) {
    if (!ok[w]) {
      printf("  %-8s failed\n", name[w]);
      continue;
    }
    printf("  %-8s %8.2f ms  %6.2f GB/s", name[w], best[w], mb / best[w]);
    if (w == 0) printf("  (cudaHostAlloc %.2f ms, copy %.2f ms)", alloc_best, copy_best);
    printf("\n");
  }
  return 0;
}
