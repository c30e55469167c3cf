// cpu.h: the device side of a host program that runs the LLVM backend's
// --target=host kernels on the CPU, pasted after gpuc_runtime.h and before
// gpuc_device.h. Device memory is host memory, and a launch runs the
// kernel's function, which runs a range of blocks and their threads in
// turn, on a pool of worker threads, one per core (Note [Blocks across
// cores] in backends/llvm/kernel.go), where the launch site measures a
// gain (Note [Pool by measure], below).
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
inline void gpuc_big_copy(void *dst, const void *src, size_t n);
inline void gpuc_to_host(void *dst, const void *src, size_t n) { gpuc_big_copy(dst, src, n); }
inline void gpuc_to_device(void *dst, const void *src, size_t n) { gpuc_big_copy(dst, src, n); }
inline void gpuc_on_device(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
// Device memory is host memory: text is written as it is (Note [Writing
// from the device] in gpuc_device.h).
#define GPUC_WRITE_DEVICE 1
inline void gpuc_write_device(const unsigned char *src, size_t n, const char *pos) {
  if (fwrite(src, 1, n, stdout) != n) gpuc_fail_line(pos, ": error: write of %zu bytes failed", n);
}
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

// gpuc_now_ms is a monotonic clock in ms, for the pool's measures and
// --time.
inline double gpuc_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

// The worker pool. A launch's blocks go out in chunks, taken in turn by
// the calling thread and the helpers; a kernel's function returns the
// block it stopped at, and a raise in an earlier block than any seen so
// far gives the launch's message, so that the first raise in block
// order wins, as when the blocks run one after another.
typedef int (*gpuc_blocks_fn)(void *ctx, unsigned char *shared, int lo, int hi);
// A world launch's function also takes the device whose blocks they are
// (Note [World on threads] in backends/abi).
typedef int (*gpuc_world_fn)(void *ctx, unsigned char *shared, int lo, int hi, int dev);

// Note [Pool by measure]
//
// The pool pays where a launch's blocks work on their own data (Fork's
// matmul: 1.8 times as fast on two cores), and loses where they write
// cache lines that other blocks use: tree merge sort's rewriting shares
// the store's counters and slots between the workers, and on the 2-core
// CI machine two workers took 2.4 times as long as one, with 4.5 times
// the CPU time (docs/BENCHMARKS.md, the host build on every core). No
// property of the code tells the two apart, so by default (GPUC_THREADS
// unset) each launch site measures. Its first shared launch runs alone,
// to warm the caches and map the pages; then its launches run alone and
// on every worker in turn, and it keeps the way with the least time per
// thread, the pool only if it saves a fifth: at once where one way takes
// 1.5 times the other, else after PROBES (2) of each. It measures again
// after 64 launches, and after twice as many each time the measures
// confirm the choice (4096 at most). Alone goes first, so a kernel
// launched once runs as before the pool; and in a measured launch on the
// pool the helpers stop taking blocks once it has taken 1.5 times the
// site's time alone, so a pool that loses costs little. Tree merge
// sort's sites chose one worker after one launch each way. A site is the
// lambda of one gpuc_cpu_launch; launches of fewer than GPUC_POOL_MIN
// threads never count, and sites beyond the table's 64 run alone. The
// choice changes no output (Note [Blocks across cores] in
// backends/llvm/kernel.go). GPUC_THREADS=N fixes N workers for every
// shared launch (0: every core), as for a benchmark of the pool itself.
// A world launch's site measures otherwise (Note [Pool by measure on a
// world]).
struct gpuc_pool_site {
  uintptr_t fn = 0;             // the site's function, its key
  int runs[2] = {0, 0};         // measured launches: [0] alone, [1] on the pool
  double ms[2] = {0, 0};        // their time
  double threads[2] = {0, 0};   // and threads
  double cpu = 0;               // world launches on the pool: CPU time in the devices' parts (Note [Pool by measure on a world])
  int choice = -1;              // 0 alone, 1 the pool, -1 measuring
  int since = 0;                // launches since the choice
  int recheck = 64;             // launches from a choice to the next measures
  int last = -1;                // the choice before
  bool warm = false;            // the site has run its first launch
};
const int gpuc_pool_sites = 64, gpuc_pool_probes = 2;

struct gpuc_pool {
  int workers = 1;          // the calling thread and its helpers
  bool measure = false;     // launch sites choose (Note [Pool by measure])
  long long least = 16384;  // the fewest threads of a launch that the helpers share
  bool started = false;     // the helpers are running
  gpuc_pool_site sites[gpuc_pool_sites];
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t start = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
  unsigned long launches = 0;  // launches handed to the helpers
  int busy = 0;                // helpers still on the current one
  int ids = 0;                 // helpers numbered so far (gpuc_worker_id)
  // The current launch; a world launch's function is wfn, with devs
  // devices of part blocks each, claimed[d] set once a worker takes d's.
  gpuc_blocks_fn fn = nullptr;
  gpuc_world_fn wfn = nullptr;
  int devs = 0, part = 0;
  int *claimed = nullptr;
  int claimed_cap = 0;
  void *ctx = nullptr;
  int grid = 0, chunk = 1;
  size_t shared = 0;
  double deadline = 0;  // helpers take no chunk after this clock (ms); 0: none
  int next = 0;       // the first block not taken (atomic)
  long long cpu_ns = 0;  // a world launch's: CPU time in the devices' parts, all workers (atomic)
  int raised_at = 0;  // the first block that raised, or grid (atomic)
  int raised = 0;     // its message's number, under mu
  long long values[2] = {0, 0};  // its fault's values, under mu
};
// Note [No C++ library at run time]
// A hybrid program that ends on the host spends most of its fixed cost
// before main, and loading libstdc++ (with libm and libgcc_s) for the
// dynamic linker's symbol lookups was a third of it: bubblesort10 took
// 1.6 ms of CPU with it and 1.0 without (2-core machine, 2026-11-27,
// docs/BENCHMARKS.md). The pool's operator new was the only reference
// to the library, so the pool is a static object, and a program linked
// with -Wl,--as-needed (the banner's command) needs glibc's alone. Keep
// the hybrid's and the host build's runtime free of the C++ library's
// symbols (operator new, std::thread, exceptions): `nm -D
// --undefined-only` shows none today.
static gpuc_pool gpuc_pool_one;
static gpuc_pool *gpuc_the_pool;
static __thread int gpuc_worker_id;  // 0: the calling thread; helpers 1..workers-1
static int gpuc_cpu_raised;  // the last launch's raise, for gpuc_check_device_error
static long long gpuc_cpu_values[2];  // and its fault's values

// gpuc_pool_raised records that a chunk stopped at block at, for the
// launch's message if no earlier block raised.
inline void gpuc_pool_raised(gpuc_pool *p, int at) {
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
}

// gpuc_thread_ns is the calling thread's CPU time in ns.
inline long long gpuc_thread_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// gpuc_pool_world_parts runs the devices' parts of the current world
// launch that are the calling worker's, d = worker, worker + workers, ...,
// so that each device's data stays with one core (Note [World on
// threads]); the calling thread then runs any part that no helper took,
// as when a helper stopped at the deadline.
inline void gpuc_pool_world_parts(gpuc_pool *p, bool helper, unsigned char *area) {
  const int me = helper ? gpuc_worker_id : 0;
  for (int turn = 0; turn < (helper ? 1 : 2); turn++) {
    for (int d = turn == 0 ? me : 0; d < p->devs; d += turn == 0 ? p->workers : 1) {
      if (helper && p->deadline > 0 && gpuc_now_ms() > p->deadline) return;
      const int lo = d * p->part;
      if (lo >= p->grid || lo >= __atomic_load_n(&p->raised_at, __ATOMIC_RELAXED)) break;
      if (__atomic_exchange_n(&p->claimed[d], 1, __ATOMIC_ACQ_REL)) continue;
      const int hi = lo + p->part < p->grid ? lo + p->part : p->grid;
      const int at = p->wfn(p->ctx, area, lo, hi, d);
      if (at < hi) {
        gpuc_pool_raised(p, at);
        return;
      }
    }
  }
}

// gpuc_pool_world_work is gpuc_pool_world_parts, adding the worker's CPU
// time in it to the launch's (Note [Pool by measure on a world]).
inline void gpuc_pool_world_work(gpuc_pool *p, bool helper, unsigned char *area) {
  const long long c0 = gpuc_thread_ns();
  gpuc_pool_world_parts(p, helper, area);
  __atomic_fetch_add(&p->cpu_ns, gpuc_thread_ns() - c0, __ATOMIC_RELAXED);
}

// gpuc_pool_work runs chunks of the current launch until none is left or
// the rest follow a block that raised; a helper also stops at the
// launch's deadline, leaving the rest to the calling thread. A world
// launch goes by device (gpuc_pool_world_work).
inline void gpuc_pool_work(gpuc_pool *p, bool helper) {
  unsigned char *area = gpuc_shared_area(p->shared);
  if (p->wfn != nullptr) {
    gpuc_pool_world_work(p, helper, area);
    return;
  }
  for (;;) {
    if (helper && p->deadline > 0 && gpuc_now_ms() > p->deadline) return;
    int lo = __atomic_fetch_add(&p->next, p->chunk, __ATOMIC_RELAXED);
    if (lo >= p->grid || lo >= __atomic_load_n(&p->raised_at, __ATOMIC_RELAXED)) return;
    int hi = lo + p->chunk < p->grid ? lo + p->chunk : p->grid;
    int at = p->fn(p->ctx, area, lo, hi);
    if (at < hi) {
      gpuc_pool_raised(p, at);
      return;
    }
  }
}

inline void *gpuc_pool_helper(void *arg) {
  gpuc_pool *p = (gpuc_pool *)arg;
  gpuc_worker_id = __atomic_add_fetch(&p->ids, 1, __ATOMIC_RELAXED);
  unsigned long seen = 0;
  for (;;) {
    pthread_mutex_lock(&p->mu);
    while (p->launches == seen) pthread_cond_wait(&p->start, &p->mu);
    seen = p->launches;
    pthread_mutex_unlock(&p->mu);
    gpuc_pool_work(p, true);
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

// gpuc_cpu_workers is the number of workers: GPUC_THREADS if set and not
// 0, else one per core this process may use; *measure says whether
// launch sites choose between one and all (GPUC_THREADS unset, Note
// [Pool by measure]).
inline int gpuc_cpu_workers(bool *measure) {
  long long n = gpuc_env_count("GPUC_THREADS", 0, 4096);
  *measure = n < 0;
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
    gpuc_the_pool = &gpuc_pool_one;
    gpuc_the_pool->workers = gpuc_cpu_workers(&gpuc_the_pool->measure);
    if (gpuc_the_pool->workers == 1) gpuc_the_pool->measure = false;
    long long least = gpuc_env_count("GPUC_POOL_MIN", 0, 1LL << 40);
    if (least >= 0) gpuc_the_pool->least = least;
  }
  return gpuc_the_pool;
}

// gpuc_pool_site_of is the measures of the launch site whose function is
// fn, or null where the table is full (such a site runs alone).
inline gpuc_pool_site *gpuc_pool_site_of(gpuc_pool *p, uintptr_t fn) {
  size_t h = ((size_t)fn >> 4) % gpuc_pool_sites;
  for (int i = 0; i < gpuc_pool_sites; i++) {
    gpuc_pool_site *s = &p->sites[(h + i) % gpuc_pool_sites];
    if (s->fn == fn) return s;
    if (s->fn == 0) {
      s->fn = fn;
      return s;
    }
  }
  return nullptr;
}

// gpuc_pool_way says whether site s runs its next launch on the pool (1)
// or alone (0), measuring in turns until it has chosen (Note [Pool by
// measure]); world says that s runs world launches (gpuc_pool_world_way).
inline int gpuc_pool_world_way(gpuc_pool_site *s);
inline int gpuc_pool_way(gpuc_pool_site *s, bool *measure, bool world) {
  *measure = false;
  if (!s->warm) {
    s->warm = true;
    return 0;
  }
  if (s->choice >= 0 && ++s->since > s->recheck) {
    gpuc_pool_site next;
    next.fn = s->fn;
    next.recheck = s->recheck;
    next.last = s->choice;
    next.warm = true;
    *s = next;
  }
  if (s->choice >= 0) return s->choice;
  *measure = true;
  if (world && gpuc_pool_world_way(s) >= 0) {
    s->since = 0;
    s->recheck = s->choice == s->last ? (s->recheck < 4096 ? 2 * s->recheck : 4096) : 64;
    *measure = false;
    return s->choice;
  }
  if (!world && s->runs[0] == s->runs[1] && s->runs[1] > 0) {
    const double alone = s->ms[0] / s->threads[0], pool = s->ms[1] / s->threads[1];
    if (pool * 1.5 < alone || pool > 1.5 * alone || s->runs[1] >= gpuc_pool_probes) {
      s->choice = pool < 0.8 * alone ? 1 : 0;
      s->since = 0;
      s->recheck = s->choice == s->last ? (s->recheck < 4096 ? 2 * s->recheck : 4096) : 64;
      *measure = false;
      return s->choice;
    }
  }
  if (world) return 1;  // Note [Pool by measure on a world]
  return s->runs[0] > s->runs[1] ? 1 : 0;
}

// Note [Pool by measure on a world]
//
// A world launch's site (Note [World on threads] in backends/abi) judges
// the pool by its own launches alone: their CPU time in the devices'
// parts, all workers, over their wall time is how far the parts ran side
// by side, which the launches' sizes do not sway. After its first launch
// alone, the site runs on the pool and keeps it where this overlap saves
// a fifth (1.25), at once where it passes 1.5 or stays under 1.1, else
// after PROBES (2) launches. A second core busy with other work shows as
// a small overlap. Turns alone and on the pool, as above, fail on tree
// merge sort: its iterations differ tenfold in work per thread, and its
// commit phase alternates between heavy and light iterations, so that
// plain turns kept its world launches alone (0.9 s where two workers
// take 0.6 s at depth 16), and turns alone, pool, pool, alone judged its
// derive phase 1.7 times as costly per thread on the pool at depth 16
// and 0.35 times at depth 18 (docs/BENCHMARKS.md). What the overlap
// cannot see is cores that write the same lines, which cost the pool CPU
// time (Note [Pool by measure]: 2.3 to 4.4 times): the rule trusts a
// world's owner placement, under which two workers cost 1.05 times one's
// CPU time on tree merge sort. GPUC_THREADS=1 runs a world program alone.
inline int gpuc_pool_world_way(gpuc_pool_site *s) {
  if (s->runs[1] == 0) return -1;
  const double overlap = s->cpu / s->ms[1];
  if (overlap > 1.5 || overlap < 1.1 || s->runs[1] >= gpuc_pool_probes) {
    s->choice = overlap > 1.25 ? 1 : 0;
    return s->choice;
  }
  return -1;
}

// gpuc_pool_share runs a launch's blocks on every worker, the helpers
// until the clock passes deadline (0: no deadline): fn's in chunks, or
// wfn's (when set) by device, devs of them, part blocks each.
inline void gpuc_pool_share(gpuc_pool *p, int grid, size_t shared, gpuc_blocks_fn fn, gpuc_world_fn wfn, int devs, int part, void *ctx, double deadline) {
  if (!p->started) {
    for (int i = 1; i < p->workers; i++) {
      pthread_t t;
      if (pthread_create(&t, nullptr, gpuc_pool_helper, p) != 0) gpuc_fail("cannot start worker thread %d of %d", i, p->workers);
      pthread_detach(t);
    }
    p->started = true;
  }
  p->fn = fn;
  p->wfn = wfn;
  p->devs = devs;
  p->part = part;
  if (wfn != nullptr) {
    if (devs > p->claimed_cap) {
      free(p->claimed);
      p->claimed = (int *)malloc(sizeof(int) * (size_t)devs);
      if (p->claimed == nullptr) gpuc_fail("out of memory for the pool's %d devices", devs);
      p->claimed_cap = devs;
    }
    memset(p->claimed, 0, sizeof(int) * (size_t)devs);
  }
  p->ctx = ctx;
  p->grid = grid;
  p->shared = shared;
  p->deadline = deadline;
  // Chunks of about an eighth of a worker's share balance blocks of
  // uneven work against the cost of taking a chunk.
  int chunk = grid / (p->workers * 8);
  p->chunk = chunk > 0 ? chunk : 1;
  __atomic_store_n(&p->next, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&p->cpu_ns, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&p->raised_at, grid, __ATOMIC_RELAXED);
  p->raised = 0;
  pthread_mutex_lock(&p->mu);
  p->busy = p->workers - 1;
  p->launches++;
  pthread_cond_broadcast(&p->start);
  pthread_mutex_unlock(&p->mu);
  gpuc_pool_work(p, false);
  pthread_mutex_lock(&p->mu);
  while (p->busy > 0) pthread_cond_wait(&p->done, &p->mu);
  gpuc_cpu_raised = p->raised;
  gpuc_cpu_values[0] = p->values[0];
  gpuc_cpu_values[1] = p->values[1];
  pthread_mutex_unlock(&p->mu);
}

// gpuc_pool_run runs blocks 0 up to grid of a launch, each worker with
// shared bytes of its own, and sets gpuc_cpu_raised to the message of
// the first block that raised, or 0. A launch of one block, or of fewer
// threads than GPUC_POOL_MIN (16384), runs on the calling thread alone:
// waking the helpers costs more than such a launch's work. Otherwise the
// launch site may choose to run alone (Note [Pool by measure]).
// A world launch (wfn set, devs devices) runs alone device after device,
// and on the pool each device's blocks on its worker (Note [World on
// threads] in backends/abi).
inline void gpuc_pool_run(int grid, int block, size_t shared, gpuc_blocks_fn fn, void *ctx, gpuc_world_fn wfn = nullptr, int devs = 1) {
  gpuc_pool *p = gpuc_pool_get();
  gpuc_cpu_raised = 0;
  const int part = (int)(((long long)grid + devs - 1) / devs);
  const bool small = p->workers == 1 || grid < 2 || (long long)grid * block < p->least || (wfn != nullptr && devs < 2);
  gpuc_pool_site *site = !small && p->measure ? gpuc_pool_site_of(p, wfn != nullptr ? reinterpret_cast<uintptr_t>(wfn) : reinterpret_cast<uintptr_t>(fn)) : nullptr;
  bool measuring = false;
  const int way = site != nullptr ? gpuc_pool_way(site, &measuring, wfn != nullptr) : !small && !p->measure;
  const double t0 = measuring ? gpuc_now_ms() : 0;
  if (way == 0 && wfn != nullptr) {
    unsigned char *area = gpuc_shared_area(shared);
    for (int d = 0, lo = 0; d < devs && lo < grid; d++, lo += part) {
      const int hi = lo + part < grid ? lo + part : grid;
      if (wfn(ctx, area, lo, hi, d) < hi) {
        gpuc_cpu_raised = gpuc_take_error(gpuc_cpu_values);
        break;
      }
    }
  } else if (way == 0) {
    if (fn(ctx, gpuc_shared_area(shared), 0, grid) < grid) gpuc_cpu_raised = gpuc_take_error(gpuc_cpu_values);
  } else {
    // A measured launch on the pool that takes half as long again as
    // the site's launches alone would goes on alone.
    double deadline = 0;
    if (measuring && site->runs[0] > 0) deadline = t0 + 1.5 * site->ms[0] / site->threads[0] * ((double)grid * block);
    gpuc_pool_share(p, grid, shared, fn, wfn, devs, part, ctx, deadline);
  }
  if (measuring) {
    site->runs[way]++;
    site->ms[way] += gpuc_now_ms() - t0;
    site->threads[way] += (double)grid * block;
    if (way == 1 && wfn != nullptr) site->cpu += (double)__atomic_load_n(&p->cpu_ns, __ATOMIC_RELAXED) / 1e6;
  }
}

// gpuc_cpu_launch runs f(shared, lo, hi), a kernel's function over a
// range of blocks, for blocks 0 up to grid of block threads each.
template <class F>
inline void gpuc_cpu_launch(int grid, int block, size_t shared, F &f) {
  gpuc_pool_run(grid, block, shared, [](void *c, unsigned char *sh, int lo, int hi) { return (*(F *)c)(sh, lo, hi); }, &f);
}

// gpuc_cpu_world_launch runs f(shared, lo, hi, dev), a world launch's
// function over a range of one device's blocks, for blocks 0 up to grid
// of a world of devs devices (Note [World on threads] in backends/abi).
template <class F>
inline void gpuc_cpu_world_launch(int grid, int block, size_t shared, int devs, F &f) {
  gpuc_pool_run(grid, block, shared, nullptr, &f, [](void *c, unsigned char *sh, int lo, int hi, int d) { return (*(F *)c)(sh, lo, hi, d); }, devs);
}

// gpuc_big_copy copies n bytes; a copy of GPUC_BIG_COPY (8 MiB) or more
// goes out on every worker in pieces of 1 MiB, since most of its time is
// the kernel's first touch of the destination's pages, which the cores do
// side by side (docs/BENCHMARKS.md, the world on threads): a TRS host
// build copies its store so to the host for the summary.
const size_t gpuc_big_copy_min = 8u << 20, gpuc_big_copy_piece = 1u << 20;
inline void gpuc_big_copy(void *dst, const void *src, size_t n) {
  if (n < gpuc_big_copy_min || gpuc_pool_get()->workers == 1) {
    memcpy(dst, src, n);
    return;
  }
  struct piece {
    unsigned char *dst;
    const unsigned char *src;
    size_t n;
  } c = {(unsigned char *)dst, (const unsigned char *)src, n};
  const int pieces = (int)((n + gpuc_big_copy_piece - 1) / gpuc_big_copy_piece);
  gpuc_pool_share(gpuc_pool_get(), pieces, 0, [](void *ctx, unsigned char *, int lo, int hi) {
    const piece *c = (const piece *)ctx;
    const size_t a = (size_t)lo * gpuc_big_copy_piece, b = (size_t)hi * gpuc_big_copy_piece < c->n ? (size_t)hi * gpuc_big_copy_piece : c->n;
    memcpy(c->dst + a, c->src + a, b - a);
    return hi;
  }, nullptr, 0, 0, &c, 0);
}

// The clock measures wall time, as the device's work runs on this
// process's threads (gpuc_now_ms, above the pool).
static double gpuc_clock_t0;
inline void gpuc_clock_start(void) { gpuc_clock_t0 = gpuc_now_ms(); }
inline double gpuc_clock_stop(void) { return gpuc_now_ms() - gpuc_clock_t0; }


// The hooks of hybrid.h for the host build, whose stand-in device is a
// second host copy (Note [Hybrid migration] in hybrid.h).
#ifndef GPUC_HYBRID
inline bool gpuc_hy_wait(void) { return true; }
inline bool gpuc_hy_ready(bool) { return getenv("HYBRID_DEVICE") != nullptr; }
inline void gpuc_hy_enter(void) {}
inline void *gpuc_hy_alloc(size_t n) { return calloc(n > 0 ? n : 1, 1); }
inline void gpuc_hy_free(void *p) { free(p); }
inline void gpuc_hy_up(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
inline void gpuc_hy_down(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
inline void *gpuc_hy_global(const char *, size_t n) { return gpuc_hy_alloc(n); }
inline void gpuc_hy_exit(void) {}
inline const char *gpuc_hy_unused(void) { return nullptr; }
[[noreturn]] inline void gpuc_hy_no_device(const char *what) { gpuc_fail("%s: no CUDA device", what); }
#endif
