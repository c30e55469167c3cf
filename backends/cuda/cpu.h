// cpu.h: the device side of a host program that runs the LLVM backend's
// --target=host kernels on the CPU, pasted after gpuc_runtime.h and before
// gpuc_device.h. Device memory is host memory, and a launch runs the
// kernel's function, which runs a range of blocks and their threads in
// turn, on a pool of worker threads, one per core (Note [Blocks across
// cores] in backends/llvm/kernel.go).
// The pool is POSIX threads and the compiler's __atomic builtins: C++'s
// thread headers would add a third of a second to every build.
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

// Device memory primitives, for gpuc_device.h; a hybrid program has its
// own (hybrid.h), which reach whichever side holds the data.
#ifndef GPUC_HYBRID
inline void *gpuc_device_alloc(size_t n) {
  void *p = calloc(n, 1);
  if (p == nullptr) gpuc_fail("out of memory for %zu bytes of device memory", n);
  return p;
}
inline void gpuc_device_free(void *p) { free(p); }
inline void gpuc_device_zero(void *p, size_t n) { memset(p, 0, n); }
inline void gpuc_to_host(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
inline void gpuc_to_device(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
inline void gpuc_on_device(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
#endif

// gpuc_host_free_memory is the physical memory available for device
// buffers: MemAvailable of /proc/meminfo, which counts the page cache
// that the kernel would give up, or where there is none the free pages.
inline unsigned long long gpuc_host_free_memory(void) {
  if (FILE *f = fopen("/proc/meminfo", "r")) {
    char line[256];
    unsigned long long kib = 0;
    bool found = false;
    while (!found && fgets(line, sizeof line, f) != nullptr) found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    fclose(f);
    if (found) return kib * 1024;
  }
  long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (unsigned long long)pages * (unsigned long long)size : 0;
}
#ifndef GPUC_HYBRID
inline unsigned long long gpuc_free_memory(void) { return gpuc_host_free_memory(); }
#endif

// gpuc_shared_area returns n bytes for the shared buffers of the blocks
// that the calling worker runs, which the kernel zeroes for each block;
// malloc aligns them to 16 bytes, as package abi wants.
inline unsigned char *gpuc_shared_area(size_t n) {
  static thread_local unsigned char *area = nullptr;
  static thread_local size_t cap = 0;
  if (n > cap || area == nullptr) {
    free(area);
    area = (unsigned char *)malloc(n > 0 ? n : 1);
    if (area == nullptr) gpuc_fail("out of memory for %zu bytes of shared memory", n);
    cap = n;
  }
  return area;
}

// gpuc_take_error reads the calling worker's error word, the kernels'
// thread-local one, and clears it, and puts the worker's fault values
// (Note [Checks] in backends/abi) in vals; the program defines it.
static int gpuc_take_error(long long *vals);

// The worker pool. A launch's blocks go out in chunks, taken in turn by
// the calling thread and the helpers; a kernel's function returns the
// block it stopped at, and a raise in an earlier block than any seen so
// far gives the launch's message, so that the first raise in block
// order wins, as when the blocks run one after another.
typedef int (*gpuc_blocks_fn)(void *ctx, unsigned char *shared, int lo, int hi);

struct gpuc_pool {
  int workers = 1;          // the calling thread and its helpers
  long long least = 16384;  // the fewest threads of a launch that the helpers share
  bool started = false;     // the helpers are running
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t start = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
  unsigned long launches = 0;  // launches handed to the helpers
  int busy = 0;                // helpers still on the current one
  // The current launch.
  gpuc_blocks_fn fn = nullptr;
  void *ctx = nullptr;
  int grid = 0, chunk = 1;
  size_t shared = 0;
  int next = 0;       // the first block not taken (atomic)
  int raised_at = 0;  // the first block that raised, or grid (atomic)
  int raised = 0;     // its message's number, under mu
  long long values[2] = {0, 0};  // its fault's values, under mu
};
static gpuc_pool *gpuc_the_pool;
static int gpuc_cpu_raised;  // the last launch's raise, for gpuc_check_device_error
static long long gpuc_cpu_values[2];  // and its fault's values

// gpuc_pool_work runs chunks of the current launch until none is left or
// the rest follow a block that raised.
inline void gpuc_pool_work(gpuc_pool *p) {
  unsigned char *area = gpuc_shared_area(p->shared);
  for (;;) {
    int lo = __atomic_fetch_add(&p->next, p->chunk, __ATOMIC_RELAXED);
    if (lo >= p->grid || lo >= __atomic_load_n(&p->raised_at, __ATOMIC_RELAXED)) return;
    int hi = lo + p->chunk < p->grid ? lo + p->chunk : p->grid;
    int at = p->fn(p->ctx, area, lo, hi);
    if (at < hi) {
      long long vals[2] = {0, 0};
      int id = gpuc_take_error(vals);
      pthread_mutex_lock(&p->mu);
      if (at < __atomic_load_n(&p->raised_at, __ATOMIC_RELAXED)) {
        __atomic_store_n(&p->raised_at, at, __ATOMIC_RELAXED);
        p->raised = id;
        p->values[0] = vals[0];
        p->values[1] = vals[1];
      }
      pthread_mutex_unlock(&p->mu);
      return;
    }
  }
}

inline void *gpuc_pool_helper(void *arg) {
  gpuc_pool *p = (gpuc_pool *)arg;
  unsigned long seen = 0;
  for (;;) {
    pthread_mutex_lock(&p->mu);
    while (p->launches == seen) pthread_cond_wait(&p->start, &p->mu);
    seen = p->launches;
    pthread_mutex_unlock(&p->mu);
    gpuc_pool_work(p);
    pthread_mutex_lock(&p->mu);
    if (--p->busy == 0) pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->mu);
  }
  return nullptr;
}

// gpuc_env_count reads environment variable name as a count from lo to
// hi, or returns -1 where it is not set.
inline long long gpuc_env_count(const char *name, long long lo, long long hi) {
  const char *s = getenv(name);
  if (s == nullptr) return -1;
  char *end;
  long long n = strtoll(s, &end, 10);
  if (*s == 0 || *end != 0 || n < lo || n > hi) gpuc_fail("%s=%s: want a number from %lld to %lld", name, s, lo, hi);
  return n;
}

// gpuc_cpu_workers is the number of workers: GPUC_THREADS if set, else
// one. Measured on 2026-11-26 (docs/BENCHMARKS.md, the host build on
// every core), two workers ran tree merge sort slower than one, so the
// pool is opt-in until it pays: GPUC_THREADS=0 asks for every core.
inline int gpuc_cpu_workers(void) {
  long long n = gpuc_env_count("GPUC_THREADS", 0, 4096);
  if (n < 0) return 1;
  if (n > 0) return (int)n;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 ? (int)cores : 1;
}

// gpuc_pool_get makes the pool on first use; its helpers start with the
// first launch they share. They are detached and never stop: the pool
// lives until the process exits.
inline gpuc_pool *gpuc_pool_get(void) {
  if (gpuc_the_pool == nullptr) {
    gpuc_the_pool = new gpuc_pool;
    gpuc_the_pool->workers = gpuc_cpu_workers();
    long long least = gpuc_env_count("GPUC_POOL_MIN", 0, 1LL << 40);
    if (least >= 0) gpuc_the_pool->least = least;
  }
  return gpuc_the_pool;
}

// gpuc_pool_run runs blocks 0 up to grid of a launch, each worker with
// shared bytes of its own, and sets gpuc_cpu_raised to the message of
// the first block that raised, or 0. A launch of one block, or of fewer
// threads than GPUC_POOL_MIN (16384), runs on the calling thread alone:
// waking the helpers costs more than such a launch's work.
inline void gpuc_pool_run(int grid, int block, size_t shared, gpuc_blocks_fn fn, void *ctx) {
  gpuc_pool *p = gpuc_pool_get();
  gpuc_cpu_raised = 0;
  if (p->workers == 1 || grid < 2 || (long long)grid * block < p->least) {
    if (fn(ctx, gpuc_shared_area(shared), 0, grid) < grid) gpuc_cpu_raised = gpuc_take_error(gpuc_cpu_values);
    return;
  }
  if (!p->started) {
    for (int i = 1; i < p->workers; i++) {
      pthread_t t;
      if (pthread_create(&t, nullptr, gpuc_pool_helper, p) != 0) gpuc_fail("cannot start worker thread %d of %d", i, p->workers);
      pthread_detach(t);
    }
    p->started = true;
  }
  p->fn = fn;
  p->ctx = ctx;
  p->grid = grid;
  p->shared = shared;
  // Chunks of about an eighth of a worker's share balance blocks of
  // uneven work against the cost of taking a chunk.
  int chunk = grid / (p->workers * 8);
  p->chunk = chunk > 0 ? chunk : 1;
  __atomic_store_n(&p->next, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&p->raised_at, grid, __ATOMIC_RELAXED);
  p->raised = 0;
  pthread_mutex_lock(&p->mu);
  p->busy = p->workers - 1;
  p->launches++;
  pthread_cond_broadcast(&p->start);
  pthread_mutex_unlock(&p->mu);
  gpuc_pool_work(p);
  pthread_mutex_lock(&p->mu);
  while (p->busy > 0) pthread_cond_wait(&p->done, &p->mu);
  gpuc_cpu_raised = p->raised;
  gpuc_cpu_values[0] = p->values[0];
  gpuc_cpu_values[1] = p->values[1];
  pthread_mutex_unlock(&p->mu);
}

// gpuc_cpu_launch runs f(shared, lo, hi), a kernel's function over a
// range of blocks, for blocks 0 up to grid of block threads each.
template <class F>
inline void gpuc_cpu_launch(int grid, int block, size_t shared, F &f) {
  gpuc_pool_run(grid, block, shared, [](void *c, unsigned char *sh, int lo, int hi) { return (*(F *)c)(sh, lo, hi); }, &f);
}

// The clock measures wall time, as the device's work runs on this
// process's threads.
static double gpuc_clock_t0;
inline double gpuc_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
inline void gpuc_clock_start(void) { gpuc_clock_t0 = gpuc_now_ms(); }
inline double gpuc_clock_stop(void) { return gpuc_now_ms() - gpuc_clock_t0; }


// The hooks of hybrid.h for the host build, whose stand-in device is a
// second host copy (Note [Hybrid migration] in hybrid.h).
#ifndef GPUC_HYBRID
inline bool gpuc_hy_wait(void) { return true; }
inline bool gpuc_hy_ready(void) { return getenv("HYBRID_DEVICE") != nullptr; }
inline void gpuc_hy_enter(void) {}
inline void *gpuc_hy_alloc(size_t n) { return calloc(n > 0 ? n : 1, 1); }
inline void gpuc_hy_free(void *p) { free(p); }
inline void gpuc_hy_up(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
inline void gpuc_hy_down(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
inline void *gpuc_hy_global(const char *, size_t n) { return gpuc_hy_alloc(n); }
inline void gpuc_hy_exit(void) {}
#endif
