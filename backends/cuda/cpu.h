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

// Device memory primitives, for gpuc_device.h.
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

// gpuc_free_memory is the physical memory available for device buffers:
// MemAvailable of /proc/meminfo, which counts the page cache that the
// kernel would give up, or where there is none the free pages.
inline unsigned long long gpuc_free_memory(void) {
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

// Note [Hybrid migration]
//
// A hybrid point (Note [Hybrid points] in ir/expr.go) is where the
// program may move every global buffer's data to the other side: the
// host's memory, where the kernels' host versions run, or the device's.
// Each global buffer registers the address of its handle's pointer; a
// move copies the buffer into its spare on the other side, only the
// prefix below the most live that any point gave where the buffer's
// length is a parameter alone, and exchanges the two, so that launches, reads and copies after it reach the side
// that holds the data, and a swap of two handles stays a swap. The host
// build has no device: its stand-in, used only where asked, is a second
// host copy, so that CI runs the moves and the same bytes must come out.
//
// Settings, read at the first point:
//   HYBRID=cpu       never move (the host build's default behaves so too:
//                    it has no device unless HYBRID_DEVICE=copy);
//   HYBRID=0         move at the first point and stay (GPU only);
//   HYBRID_MIGRATE=every  move at every point (a test of the moves);
//   HYBRID_DEVICE=copy    the stand-in device is ready from the start, so
//                    that the rule below decides.
// The rule, at each point, with work the point's value:
//   up, when on the host, the device is ready and work was at least
//   HYBRID_UP (default 4096 per worker) at HYBRID_K (1) points in a row;
//   down, when on the device and work was below HYBRID_DOWN (default
//   HYBRID_UP / 8) at HYBRID_K points in a row.
// HYBRID_UP is where a CPU core's 50 ns or so per rewrite, times the work
// over the workers, passes a GPU iteration's fixed cost of about 20 us
// (launches and the host's read of the list's size) by tenfold; these
// are estimates from docs/BENCHMARKS.md's figures, to be measured on the
// GPU machine. HYBRID_K is 1 because TRS's points are coarse: one at
// each change between its one-block loop and a region, each of which runs
// many iterations.
struct gpuc_hybrid_buf {
  void **ptr;    // the handle's pointer: the side that holds the data
  void *spare;   // the other side's copy, allocated at the first move
  size_t bytes;
  size_t elem;   // the element's size where live bounds the part in use, else 0
};
struct gpuc_hybrid_state {
  bool read = false;         // the settings are read
  int mode = 0;              // 0 auto, 1 cpu only, 2 device only, 3 move at every point
  bool ready = false;        // the device is ready
  bool on_device = false;    // the data is on the device's side
  long long up = 0, down = 0, k = 1;
  long long run = 0;         // points in a row that asked to move
  long long points[2] = {0, 0};  // points passed on each side
  long long moves = 0;
  long long live = 0;        // the most live that a point gave
  int nbufs = 0, cap = 0;
  gpuc_hybrid_buf *bufs = nullptr;
};
static gpuc_hybrid_state gpuc_hy;

// gpuc_hybrid_register records a global buffer's handle.
inline void gpuc_hybrid_register(void **ptr, size_t bytes, size_t elem) {
  gpuc_hybrid_state &h = gpuc_hy;
  if (h.nbufs == h.cap) {
    h.cap = h.cap > 0 ? 2 * h.cap : 16;
    h.bufs = (gpuc_hybrid_buf *)realloc(h.bufs, (size_t)h.cap * sizeof *h.bufs);
    if (h.bufs == nullptr) gpuc_fail("out of memory for the hybrid buffers' list");
  }
  h.bufs[h.nbufs++] = gpuc_hybrid_buf{ptr, nullptr, bytes, elem};
}

// gpuc_hybrid_settings reads the settings of Note [Hybrid migration].
inline void gpuc_hybrid_settings(void) {
  gpuc_hybrid_state &h = gpuc_hy;
  h.read = true;
  const char *mode = getenv("HYBRID"), *move = getenv("HYBRID_MIGRATE"), *dev = getenv("HYBRID_DEVICE");
  if (mode != nullptr && strcmp(mode, "cpu") == 0)
    h.mode = 1;
  else if (mode != nullptr && strcmp(mode, "0") == 0)
    h.mode = 2;
  else if (mode != nullptr && strcmp(mode, "1") != 0)
    gpuc_fail("HYBRID=%s: want 0 (GPU only), cpu (CPU only) or 1 (both, the default)", mode);
  if (move != nullptr && strcmp(move, "every") != 0) gpuc_fail("HYBRID_MIGRATE=%s: want every", move);
  if (move != nullptr) h.mode = 3;
  if (dev != nullptr && strcmp(dev, "copy") != 0) gpuc_fail("HYBRID_DEVICE=%s: want copy", dev);
  h.ready = dev != nullptr;
  long long up = gpuc_env_count("HYBRID_UP", 1, 1LL << 40), down = gpuc_env_count("HYBRID_DOWN", 0, 1LL << 40);
  long long k = gpuc_env_count("HYBRID_K", 1, 1 << 20);
  h.up = up > 0 ? up : 4096LL * gpuc_pool_get()->workers;
  h.down = down >= 0 ? down : h.up / 8;
  if (k > 0) h.k = k;
}

// gpuc_hybrid_move moves every global buffer's data to the other side.
inline void gpuc_hybrid_move(void) {
  gpuc_hybrid_state &h = gpuc_hy;
  for (int i = 0; i < h.nbufs; i++) {
    gpuc_hybrid_buf &b = h.bufs[i];
    if (b.spare == nullptr) b.spare = gpuc_device_alloc(b.bytes > 0 ? b.bytes : 1);
    size_t n = b.bytes;
    if (b.elem > 0 && (unsigned long long)h.live < n / b.elem) n = (size_t)h.live * b.elem;
    memcpy(b.spare, *b.ptr, n);
    void *p = *b.ptr;
    *b.ptr = b.spare;
    b.spare = p;
  }
  h.on_device = !h.on_device;
  h.moves++;
}

// gpuc_hybrid is a hybrid point: it decides where the iteration that
// follows runs, moves the data there, and returns work. Elements past
// live, never written, are zero on both sides: calloc made them so.
inline long long gpuc_hybrid(long long work, long long live) {
  gpuc_hybrid_state &h = gpuc_hy;
  if (!h.read) gpuc_hybrid_settings();
  if (live > h.live) h.live = live;
  bool move = false;
  switch (h.mode) {
  case 0:
    if (!h.ready) break;
    h.run = (h.on_device ? work < h.down : work >= h.up) ? h.run + 1 : 0;
    move = h.run >= h.k;
    break;
  case 2:
    move = !h.on_device;
    break;
  case 3:
    move = true;
    break;
  }
  if (move) {
    gpuc_hybrid_move();
    h.run = 0;
  }
  h.points[h.on_device]++;
  return work;
}

// gpuc_hybrid_report prints, for --time, where the points ran.
inline void gpuc_hybrid_report(void) {
  const gpuc_hybrid_state &h = gpuc_hy;
  if (h.points[0] + h.points[1] == 0) return;
  if (gpuc_json)
    fprintf(stderr, "{\"gpuc\": \"hybrid\", \"host\": %lld, \"device\": %lld, \"moves\": %lld}\n", h.points[0], h.points[1], h.moves);
  else
    fprintf(stderr, "gpuc: hybrid points %lld on the host, %lld on the device, %lld moves\n", h.points[0], h.points[1], h.moves);
}

// gpuc_hybrid_release frees the spares.
inline void gpuc_hybrid_release(void) {
  for (int i = 0; i < gpuc_hy.nbufs; i++) gpuc_device_free(gpuc_hy.bufs[i].spare);
  free(gpuc_hy.bufs);
  gpuc_hy.nbufs = 0;
}
