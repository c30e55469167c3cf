// world.h: the multi-device side of a program whose module uses the world
// (Note [World on NVSHMEM] in backends/cuda/world.go), pasted after
// gpuc_device.h. Started as `./prog DEVICES=k`, the program forks one
// process per GPU; each runs the whole host program (control replication)
// on its own GPU, and NVSHMEM joins them. Only device 0 prints; an error
// on any device ends every process with the same exit status.

#ifndef GPUC_WORLD_H
#define GPUC_WORLD_H

// No device code of a world program calls NVSHMEM, and the program is
// built whole (Note [A world built whole] in backends/cuda/world.go).
#ifndef GPUC_CUDA_STUB
#include <nvshmem.h>
#include <nvshmemx.h>
#endif
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <type_traits>

// GPUC_WORLD_REGS caps the registers of a thread of the world's kernels
// (Note [A world kernel's registers] in backends/cuda/world.go): a kernel
// of blocks of n threads asks for GPUC_WORLD_MIN_BLOCKS(n) blocks an SM.
#ifndef GPUC_WORLD_REGS
#define GPUC_WORLD_REGS 128
#endif
#define GPUC_WORLD_MIN_BLOCKS(n) \
  (65536 / ((n) * GPUC_WORLD_REGS) < 1 ? 1 : 65536 / ((n) * GPUC_WORLD_REGS) > 32 ? 32 : 65536 / ((n) * GPUC_WORLD_REGS))

// GPUC_MAX_DEVICES bounds DEVICES: the peer table lives in constant memory.
#define GPUC_MAX_DEVICES 64

// Device side: this device's number, the number of devices, and each
// device's pool as this device reaches it (nvshmem_ptr, over NVLink).
__constant__ int gpuc_dev_id;
__constant__ int gpuc_num_devs;
__constant__ unsigned char *gpuc_peer_base[GPUC_MAX_DEVICES];

// gpuc_peer returns the address on device d of p, an address in this
// device's pool: every device's pool has the same layout.
template <typename T> __device__ inline T *gpuc_peer(T *p, int d) {
  return (T *)(gpuc_peer_base[d] + ((const unsigned char *)p - gpuc_peer_base[gpuc_dev_id]));
}

// gpuc_dist is element i of a distributed buffer, whose blocks hold block
// elements each and whose local block is at p: on this device or, over
// NVLink, on its owner. An element of this device's block, what placement
// by owner makes of almost every access, costs a multiply, a subtraction
// and one unsigned compare; a remote one steps block by block to its
// owner, with no division, in a function of its own (Note [World
// accesses]). gpuc_dist32 is the same for a 32-bit index, its local test
// in 32 bits, and gpuc_dist32c (with the checks, in the program) checks
// the index on the remote path only (Note [A world's hot path in 32
// bits]).
// -DGPUC_DIST_WIDE builds the paths of 2026-11-26 (a 64-bit local test at
// every access, the remote path inline), for scripts/bench-multigpu.sh's
// A/B.
template <typename T> __device__ inline T *gpuc_dist_remote(T *p, long long i, long long block) {
  int d = 0;
  for (; d + 1 < gpuc_num_devs && i >= block; d++) i -= block;
  return gpuc_peer(p, d) + i;
}
#if defined(__CUDACC__) && !defined(GPUC_CUDA_STUB)
#define GPUC_DIST_FAR_ATTR __noinline__
#else
#define GPUC_DIST_FAR_ATTR // a host compiler's check of the code
#endif
template <typename T> __device__ GPUC_DIST_FAR_ATTR T *gpuc_dist_far(T *p, long long i, long long block) {
  return gpuc_dist_remote(p, i, block);
}
template <typename T> __device__ inline T &gpuc_dist(T *p, long long i, long long block) {
  const long long off = i - (long long)gpuc_dev_id * block;
  if ((unsigned long long)off < (unsigned long long)block) return p[off];
#ifdef GPUC_DIST_WIDE
  return *gpuc_dist_remote(p, i, block);
#else
  return *gpuc_dist_far(p, i, block);
#endif
}
// gpuc_dist_near says whether element i, a 32-bit index, is one of the
// lim elements of this device's block that the buffer has, and where:
// lim is gpuc_world_local32's, 0 where the world's indices of the buffer
// pass 32 bits (every access then takes the remote path, which finds
// local elements too). An element it finds is in the buffer's range, so
// its check passes (gpuc_dist32c).
template <typename I> __device__ inline bool gpuc_dist_near(I i, unsigned lim, long long block, unsigned *off) {
  static_assert(sizeof(I) == 4, "gpuc_dist_near takes a 32-bit index");
  *off = (unsigned)i - (unsigned)gpuc_dev_id * (unsigned)block;
  if (std::is_signed<I>::value && i < 0) return false;
  return *off < lim;
}
template <typename T, typename I> __device__ inline T &gpuc_dist32(T *p, I i, unsigned lim, long long block) {
#ifdef GPUC_DIST_WIDE
  return gpuc_dist(p, (long long)i, block);
#else
  unsigned off;
  if (gpuc_dist_near(i, lim, block, &off)) return p[off];
  return *gpuc_dist_far(p, (long long)i, block);
#endif
}

// gpuc_world_sync is a world barrier inside a cooperative kernel: every
// thread of every device's grid waits for all the others. Between two
// grid barriers the first thread of each device meets the others in
// gpuc_world_meet_devices, gpuc's own barrier over the peer pointers
// (Note [The world barrier in a kernel] in backends/cuda/world.go). A
// world of one is one grid barrier (Note [A world of one]).
// -DGPUC_WORLD_WAITS has the first thread count the world barriers and
// the time it waits there for the other devices, which
// gpuc_world_profile prints by device (Note [Which device waits]).
#if defined(GPUC_WORLD_WAITS) && defined(__CUDACC__) && !defined(GPUC_CUDA_STUB)
#define GPUC_WORLD_WAITS_ON 1
__device__ unsigned long long gpuc_world_wait_ns, gpuc_world_wait_n;
__device__ inline unsigned long long gpuc_globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#endif

// The world barrier's words, in the pool after its buffers
// (gpuc_world_pool), so at one offset on every device:
// GPUC_WORLD_ARRIVED counts the arrivals at every world barrier so far
// (device 0's alone is used) and GPUC_WORLD_PASSED is the number of the
// last barrier that every device reached (each device polls its own),
// each on a 128-byte line of its own. gpuc_world_sync_words is this
// device's first word, and gpuc_world_passes this device's barriers so
// far.
#define GPUC_WORLD_SYNC_BYTES 256
#define GPUC_WORLD_ARRIVED 0
#define GPUC_WORLD_PASSED 16
__constant__ unsigned long long *gpuc_world_sync_words;
__device__ unsigned long long gpuc_world_passes;

// gpuc_world_meet_devices is run by one thread of each device, after a
// grid barrier: it makes the device's writes visible to the system,
// arrives on device 0's count, and waits until every device has arrived.
// The last to arrive tells every device, in its own memory, so that the
// others poll local memory.
__device__ inline void gpuc_world_meet_devices() {
  const unsigned long long pass = ++gpuc_world_passes;
  unsigned long long *const words = gpuc_world_sync_words;
  __threadfence_system();
  const unsigned long long before = atomicAdd_system(gpuc_peer(words, 0) + GPUC_WORLD_ARRIVED, 1ULL);
  if (before + 1 == pass * (unsigned long long)gpuc_num_devs) {
    __threadfence_system();
    for (int d = 0; d < gpuc_num_devs; d++) *(volatile unsigned long long *)(gpuc_peer(words, d) + GPUC_WORLD_PASSED) = pass;
  } else {
    while (*(volatile unsigned long long *)(words + GPUC_WORLD_PASSED) < pass) {
    }
  }
  __threadfence_system();
}

__device__ inline void gpuc_world_sync() {
  cooperative_groups::this_grid().sync();
  if (gpuc_num_devs == 1) return;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
#ifdef GPUC_WORLD_WAITS_ON
    const unsigned long long t0 = gpuc_globaltimer();
    gpuc_world_meet_devices();
    gpuc_world_wait_ns += gpuc_globaltimer() - t0;
    gpuc_world_wait_n++;
#else
    gpuc_world_meet_devices();
#endif
  }
  cooperative_groups::this_grid().sync();
}

// A world program's start and exit, marked in each process (Note [A
// world's start and exit] in backends/cuda/world.go): the parent marks
// GPUC_AT_LOADED (the dynamic loader is done, before any library's
// constructors: .preinit_array), GPUC_AT_CTORS (every library's
// constructors have run), GPUC_AT_MAIN (the command line is read) and
// GPUC_AT_FORK (before the first fork); each device's process marks
// GPUC_AT_FORK (after its fork) and what follows, GPUC_AT_EXIT when it
// reports its exit status (gpuc_world_report), and the parent
// GPUC_AT_REAPED when it takes the device's end, reported or reaped. A mark is CLOCK_BOOTTIME in ns, the clock of the
// process start times in /proc; --time prints them (gpuc_world_startup).
enum gpuc_world_at {
  GPUC_AT_LOADED, GPUC_AT_CTORS, GPUC_AT_MAIN, GPUC_AT_FORK, GPUC_AT_CUDA, GPUC_AT_CONTEXT, GPUC_AT_BOOT, GPUC_AT_SHMEM,
  GPUC_AT_POOL, GPUC_AT_CLOCK, GPUC_AT_END, GPUC_AT_FINAL, GPUC_AT_EXIT, GPUC_AT_REAPED, GPUC_AT_N
};
static const char *const gpuc_world_at_names[GPUC_AT_N] = {
    "libraries loaded", "constructors", "main", "fork", "CUDA", "context", "NVSHMEM bootstrap", "NVSHMEM",
    "pool", "clock", "host program's end", "NVSHMEM finalized", "reported", "ended"};

// gpuc_world_shared is the memory that the processes share: the host's
// barrier (a count and a phase), NVSHMEM's unique id from device 0, and
// each device's values for allreduce and its free memory for fitted
// parameters.
struct gpuc_world_shared {
  int count, phase;
  nvshmemx_uniqueid_t id;
  unsigned long long values[2][GPUC_MAX_DEVICES];
  unsigned long long free_bytes[GPUC_MAX_DEVICES];
  double kernels_ms[GPUC_MAX_DEVICES]; // gpuc_world_profile
  double waits_ms[GPUC_MAX_DEVICES];   // and with -DGPUC_WORLD_WAITS
  unsigned long long waits[GPUC_MAX_DEVICES];
  long long marks[GPUC_MAX_DEVICES][GPUC_AT_N]; // each device's process's, and its end
  int status[GPUC_MAX_DEVICES], reported[GPUC_MAX_DEVICES]; // gpuc_world_report
};

// gpuc_world is this process's place in the world.
struct gpuc_world_t {
  int rank = 0, size = 1;
  gpuc_world_shared *shared = nullptr;
  unsigned char *pool = nullptr;
  unsigned char *peers[GPUC_MAX_DEVICES] = {}; // each device's pool, as this process reaches it
  unsigned parity = 0;                          // the slots of the next allreduce
  bool finished = false;                        // gpuc_world_end has run
  double pool_ms = 0;                           // gpuc_world_pool's time
  long long barriers = 0, reads = 0;            // stream barriers and read-backs, for --time
  bool forked = false;                          // this is a device's process
  long long marks[GPUC_AT_N] = {};              // the parent's (gpuc_world_mark)
};
static gpuc_world_t gpuc_world;

// gpuc_world_boot_ns is CLOCK_BOOTTIME in ns: /proc/PID/stat's start
// times count from the same origin.
inline long long gpuc_world_boot_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_BOOTTIME, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// gpuc_world_mark marks at (the first time only) in this process's marks.
inline void gpuc_world_mark(int at) {
  long long *m = gpuc_world.forked ? gpuc_world.shared->marks[gpuc_world.rank] : gpuc_world.marks;
  if (m[at] == 0) m[at] = gpuc_world_boot_ns();
}

// The loader's and the constructors' marks: .preinit_array runs after the
// dynamic loader has mapped and relocated every library and before any
// library's constructor; the program's constructors run after every
// library's.
inline void gpuc_world_loaded(int, char **, char **) { gpuc_world_mark(GPUC_AT_LOADED); }
__attribute__((section(".preinit_array"), used)) static void (*const gpuc_world_preinit)(int, char **, char **) = gpuc_world_loaded;
__attribute__((constructor(101))) inline void gpuc_world_ctors(void) { gpuc_world_mark(GPUC_AT_CTORS); }

// gpuc_world_report is a device's process's exit hook (gpuc_exit_hook,
// which every exit of the program calls, or gpuc_world_on_exit): its
// output flushed and closed, then its exit status in the shared page,
// which the parent takes as the device's end. What follows, the
// libraries' exit and the driver's teardown in the kernel, the parent
// does not wait for (Note [A world's start and exit] in
// backends/cuda/world.go).
inline void gpuc_world_report(int status) {
  gpuc_close_output();
  gpuc_world_mark(GPUC_AT_EXIT);
  __atomic_store_n(&gpuc_world.shared->status[gpuc_world.rank], status, __ATOMIC_RELAXED);
  __atomic_store_n(&gpuc_world.shared->reported[gpuc_world.rank], 1, __ATOMIC_RELEASE);
}
inline void gpuc_world_on_exit(int status, void *) { gpuc_exit_notify(status); }

// gpuc_world_started is when this process started, in CLOCK_BOOTTIME ns,
// to a clock tick (10 ms): field 22 of /proc/self/stat; 0 if unknown.
inline long long gpuc_world_started(void) {
  FILE *f = fopen("/proc/self/stat", "r");
  if (f == nullptr) return 0;
  char buf[1024];
  const size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *p = strrchr(buf, ')'); // the command's name may hold spaces
  unsigned long long start = 0;
  if (p == nullptr || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &start) != 1) return 0;
  return (long long)(start * (1000000000.0 / (double)sysconf(_SC_CLK_TCK)));
}

// gpuc_world_startup prints, with --time, this process's marks in ms after
// its start and, in the parent of k devices' processes, each device's:
// where a world program's whole run goes before its clock starts and
// after it stops (Note [A world's start and exit]).
inline void gpuc_world_startup(int k) {
  const long long t0 = gpuc_world_started();
  auto line = [&](const char *who, const long long *m) {
    fprintf(stderr, "gpuc: %s, ms after the process started:", who);
    bool first = true;
    for (int at = 0; at < GPUC_AT_N; at++) {
      if (m[at] == 0) continue;
      fprintf(stderr, "%s %s %.1f", first ? "" : ",", gpuc_world_at_names[at], t0 > 0 ? (double)(m[at] - t0) / 1e6 : 0.0);
      first = false;
    }
    fprintf(stderr, "\n");
  };
  line("start (the parent)", gpuc_world.marks);
  for (int r = 0; r < k; r++) {
    char who[32];
    snprintf(who, sizeof who, "device %d", r);
    line(who, gpuc_world.shared->marks[r]);
  }
}

// GPUC_SHMEM checks an NVSHMEM call that returns a status.
#define GPUC_SHMEM(call) gpuc_shmem_check((call), #call)
inline void gpuc_shmem_check(int status, const char *call) {
  if (status != 0) gpuc_fail("device %d: %.*s failed (status %d)", gpuc_world.rank, (int)strcspn(call, "("), call, status);
}

// gpuc_world_env sets the environment that NVSHMEM reads at init, whatever
// the user's: NVLink multicast off (it can take a shared host's GPUs out of
// service), the unique id's bootstrap over loopback, no remote
// transport (the world is one host), and no NCCL, whose communicators
// NVSHMEM otherwise builds at init for collectives that gpuc never calls
// (Note [A world's start and exit] in backends/cuda/world.go).
inline void gpuc_world_env(void) {
  setenv("NVSHMEM_DISABLE_NVLS", "1", 1);
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  setenv("NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME", "lo", 1);
  setenv("NVSHMEM_REMOTE_TRANSPORT", "none", 1);
  setenv("NVSHMEM_DISABLE_NCCL", "1", 1);
}

// gpuc_world_now is a monotonic clock in seconds.
inline double gpuc_world_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// gpuc_world_term flushes device 0's output when the parent stops it.
inline void gpuc_world_term(int) {
  fflush(stdout);
  _exit(128 + SIGTERM);
}

// gpuc_world_supervise is the parent: it waits for the k processes and
// exits as the world ends. A device ends with the exit status that its
// process reports (gpuc_world_report), or else with the process's end;
// with time (--time) the parent prints every process's marks first
// (gpuc_world_startup). Device 0's status decides if it failed (it has
// printed its error); else the first device that failed decides, and the
// parent prints what that device wrote on standard error, which it kept
// in errs[rank]. A device that fails first, or device 0 finishing, gives
// the others a grace period (they meet the same error at the same point
// of the replicated host program), after which they are stopped.
[[noreturn]] inline void gpuc_world_supervise(const pid_t *pids, FILE *const *errs, int k, bool time) {
  int status[GPUC_MAX_DEVICES] = {};
  bool done[GPUC_MAX_DEVICES] = {}, stopped[GPUC_MAX_DEVICES] = {};
  int left = k, first = -1;
  double deadline = -1;
  bool termed = false;
  // end takes device r's end with its exit status s.
  auto end = [&](int r, int s) {
    gpuc_world.shared->marks[r][GPUC_AT_REAPED] = gpuc_world_boot_ns();
    done[r] = true;
    left--;
    status[r] = s;
    if (status[r] != 0 && !stopped[r] && first < 0) first = r;
    if (deadline < 0 && (status[r] != 0 || r == 0)) {
      // Device 0's failure decides at once; otherwise wait a while.
      deadline = gpuc_world_now() + (r == 0 && status[r] != 0 ? 0.0 : r == 0 ? 60.0 : 1.0);
    }
  };
  while (left > 0) {
    bool any = false;
    for (int r = 0; r < k; r++)
      if (!done[r] && __atomic_load_n(&gpuc_world.shared->reported[r], __ATOMIC_ACQUIRE)) {
        end(r, __atomic_load_n(&gpuc_world.shared->status[r], __ATOMIC_RELAXED));
        any = true;
      }
    if (any) continue;
    int st = 0;
    const pid_t p = waitpid(-1, &st, WNOHANG);
    if (p < 0 && errno != EINTR) break;
    if (p <= 0) {
      if (deadline >= 0 && gpuc_world_now() > deadline) {
        for (int r = 0; r < k; r++)
          if (!done[r]) {
            kill(pids[r], termed ? SIGKILL : SIGTERM);
            stopped[r] = true;
          }
        deadline = gpuc_world_now() + 1.0;
        termed = true;
      }
      usleep(1000);
      continue;
    }
    int r = 0;
    while (r < k && pids[r] != p) r++;
    if (r == k || done[r]) continue; // a device that reported, reaped
    end(r, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  }
  if (time) gpuc_world_startup(k);
  if (done[0] && status[0] != 0 && !stopped[0]) exit(status[0]);
  if (first >= 0) {
    rewind(errs[first]);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, errs[first])) > 0) fwrite(buf, 1, n, stderr);
    exit(status[first]);
  }
  for (int r = 0; r < k; r++) {
    if (!done[r] || stopped[r]) {
      fprintf(stderr, "error: device %d did not finish with device 0\n", r);
      exit(1);
    }
  }
  exit(0);
}

// gpuc_world_start forks one process per device, after the command line
// is read and before any CUDA call (a forked process cannot use its
// parent's CUDA context). It returns in each device's process; the parent
// supervises and never returns. Devices other than 0 write no output:
// their standard output and --stats=FILE go to /dev/null, their standard
// error to a file that the parent shows only if that device's error ends
// the world. time is --time, the result: every device keeps a profile,
// which device 0 sums up for all (gpuc_world_profile).
inline bool gpuc_world_start(bool time, long long devices) {
  if (devices < 1 || devices > GPUC_MAX_DEVICES)
    gpuc_fail("DEVICES=%lld: want 1 to %d devices", devices, GPUC_MAX_DEVICES);
  const int k = (int)devices;
  gpuc_world_mark(GPUC_AT_MAIN);
  void *page = mmap(nullptr, sizeof(gpuc_world_shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) gpuc_fail("DEVICES=%d: mmap: %s", k, strerror(errno));
  gpuc_world.shared = (gpuc_world_shared *)page;
  FILE *errs[GPUC_MAX_DEVICES] = {};
  for (int r = 1; r < k; r++) {
    errs[r] = tmpfile();
    if (errs[r] == nullptr) gpuc_fail("DEVICES=%d: tmpfile: %s", k, strerror(errno));
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pids[GPUC_MAX_DEVICES];
  const pid_t parent = getpid();
  gpuc_world_mark(GPUC_AT_FORK);
  for (int r = 0; r < k; r++) {
    pids[r] = fork();
    if (pids[r] < 0) {
      for (int q = 0; q < r; q++) kill(pids[q], SIGKILL);
      gpuc_fail("DEVICES=%d: fork: %s", k, strerror(errno));
    }
    if (pids[r] > 0) continue;
    // A device's process dies with the parent.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    gpuc_world.rank = r;
    gpuc_world.size = k;
    gpuc_world.forked = true;
    gpuc_world_mark(GPUC_AT_FORK);
    // Before CUDA's exit handlers, so that it runs after them.
    gpuc_exit_hook = gpuc_world_report;
    on_exit(gpuc_world_on_exit, nullptr);
    if (r == 0) {
      signal(SIGTERM, gpuc_world_term);
    } else {
      if (freopen("/dev/null", "w", stdout) == nullptr) _exit(1);
      dup2(fileno(errs[r]), 2);
      if (gpuc_stats_file != nullptr) {
        fclose(gpuc_stats_file);
        gpuc_stats_file = fopen("/dev/null", "w");
      }
    }
    gpuc_world_env();
    // GPU r alone in sight where the user's environment leaves it open
    // (gpuc_only_gpu): then it is CUDA's device 0, and a GPU that the
    // machine lacks leaves none.
    const bool alone = gpuc_only_gpu(r);
    int count = 0;
    const cudaError_t found = cudaGetDeviceCount(&count);
    if (alone && found != cudaSuccess)
      count = 0;
    else
      GPUC_CUDA(found);
    gpuc_world_mark(GPUC_AT_CUDA);
    if (alone && count < 1) gpuc_fail("DEVICES=%d: this machine has no GPU %d", k, r);
    if (!alone && count < k) gpuc_fail("DEVICES=%d: this machine has %d GPU%s", k, count, count == 1 ? "" : "s");
    GPUC_CUDA(cudaSetDevice(alone ? 0 : r));
    gpuc_world_mark(GPUC_AT_CONTEXT);
    return time;
  }
  gpuc_world_supervise(pids, errs, k, time);
}

// gpuc_world_meet waits on the host until every device's process comes:
// a sense-reversing barrier in the shared memory, which spins (a meeting
// costs about a microsecond, where a futex costs tens), yields the core
// after a while and sleeps after a longer one (a device that waits for
// another's long kernel). A process that dies leaves the others waiting;
// the parent stops them.
inline void gpuc_world_meet(void) {
  gpuc_world_shared *w = gpuc_world.shared;
  const int phase = __atomic_load_n(&w->phase, __ATOMIC_ACQUIRE);
  if (__atomic_add_fetch(&w->count, 1, __ATOMIC_ACQ_REL) == gpuc_world.size) {
    __atomic_store_n(&w->count, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&w->phase, phase + 1, __ATOMIC_RELEASE);
    return;
  }
  for (long spins = 0; __atomic_load_n(&w->phase, __ATOMIC_ACQUIRE) == phase; spins++) {
    if (spins > 1000000)
      usleep(20);
    else if (spins > 100000)
      sched_yield();
  }
}

// gpuc_world_free_memory is the free memory of the device with the least,
// less what NVSHMEM keeps for itself, so that fitted parameters (Note
// [Fitted parameters] in package ir) take the same value on every device.
#define GPUC_WORLD_RESERVE (512ULL << 20)
inline unsigned long long gpuc_world_free_memory(void) {
  const unsigned long long mine = gpuc_free_memory();
  gpuc_world.shared->free_bytes[gpuc_world.rank] = mine > GPUC_WORLD_RESERVE ? mine - GPUC_WORLD_RESERVE : 0;
  gpuc_world_meet();
  unsigned long long least = gpuc_world.shared->free_bytes[0];
  for (int r = 1; r < gpuc_world.size; r++)
    if (gpuc_world.shared->free_bytes[r] < least) least = gpuc_world.shared->free_bytes[r];
  gpuc_world_meet();
  return least;
}

// gpuc_world_atexit ends a process that exits on an error after NVSHMEM
// started, before NVSHMEM's own exit handlers, which may wait for devices
// that will never come: every error of a generated program exits with
// status 1 (gpuc_fail), after writing its message.
inline void gpuc_world_atexit(void) {
  if (gpuc_world.finished) return;
  fflush(nullptr);
  _exit(1);
}

// Note [A world of one]
//
// A world program started with DEVICES=1 runs without NVSHMEM: no
// bootstrap, its pool from cudaMalloc, no world barriers on the stream
// (a stream orders one device's work already), a world barrier inside a
// cooperative kernel one grid barrier, cooperative launches CUDA's own.
// So the world program of one device pays what today's program pays, but
// for the index arithmetic of its distributed buffers (Note [World
// accesses]), which is what scripts/bench-multigpu.sh compares: NVSHMEM's
// mapping of a heap of tens of GB and its barriers were inside the device
// time of the world of one, and are not a cost of one device. The
// NVSHMEM calls stay in the program, for DEVICES=2 and more.

// gpuc_world_init joins the devices through NVSHMEM, bootstrapped by the
// unique id that device 0 makes, with a symmetric heap that holds a pool
// of pool_bytes; a world of one only sets the device's world constants.
inline void gpuc_world_init(size_t pool_bytes) {
  if (gpuc_world.size == 1) {
    GPUC_CUDA(cudaMemcpyToSymbol(gpuc_dev_id, &gpuc_world.rank, sizeof(int)));
    GPUC_CUDA(cudaMemcpyToSymbol(gpuc_num_devs, &gpuc_world.size, sizeof(int)));
    return;
  }
  char size[32];
  snprintf(size, sizeof size, "%zu", pool_bytes + (size_t)(128 << 20));
  setenv("NVSHMEM_SYMMETRIC_SIZE", size, 1);
  gpuc_world_env();
  if (gpuc_world.rank == 0) GPUC_SHMEM(nvshmemx_get_uniqueid(&gpuc_world.shared->id));
  gpuc_world_meet();
  gpuc_world_mark(GPUC_AT_BOOT);
  nvshmemx_uniqueid_t id = gpuc_world.shared->id;
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  GPUC_SHMEM(nvshmemx_set_attr_uniqueid_args(gpuc_world.rank, gpuc_world.size, &id, &attr));
  GPUC_SHMEM(nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr));
  gpuc_world_mark(GPUC_AT_SHMEM);
  atexit(gpuc_world_atexit); // after NVSHMEM's, so that it runs first
  if (nvshmem_my_pe() != gpuc_world.rank || nvshmem_n_pes() != gpuc_world.size)
    gpuc_fail("device %d: NVSHMEM made it PE %d of %d, want %d of %d", gpuc_world.rank, nvshmem_my_pe(), nvshmem_n_pes(),
              gpuc_world.rank, gpuc_world.size);
  GPUC_CUDA(cudaMemcpyToSymbol(gpuc_dev_id, &gpuc_world.rank, sizeof(int)));
  GPUC_CUDA(cudaMemcpyToSymbol(gpuc_num_devs, &gpuc_world.size, sizeof(int)));
}

// gpuc_world_pool allocates the pool of global buffers on the symmetric
// heap (a collective call: every device asks for the same size) and
// writes the peer table: each device's pool as this one reaches it. It
// runs before the clock starts, as today's program allocates its pool
// (Note [Loading before the clock]): NVSHMEM maps the heap's memory and
// its peers' as it grows, setup that is no part of the work a world
// does, and which the world's clock held until 2026-11-26.
// gpuc_world_pool_zero zeroes the pool inside the clock, as today's
// program does; the world barrier on the stream after the buffers'
// setup orders every device's zeroing before any kernel.
inline unsigned char *gpuc_world_pool(size_t bytes) {
  const long long t0 = gpuc_now_ns();
  unsigned char *pool = nullptr;
  // The world barrier's words after the buffers (gpuc_world_sync_words),
  // zeroed here, before every device's first world barrier on the host.
  const size_t sync_at = (gpuc_alloc_size(bytes) + 255) & ~(size_t)255;
  if (gpuc_world.size == 1)
    GPUC_CUDA(cudaMalloc(&pool, gpuc_alloc_size(bytes)));
  else
    pool = (unsigned char *)nvshmem_malloc(sync_at + GPUC_WORLD_SYNC_BYTES);
  if (pool == nullptr) gpuc_fail("device %d: nvshmem_malloc of %zu bytes failed", gpuc_world.rank, bytes);
  unsigned char *peers[GPUC_MAX_DEVICES] = {};
  for (int d = 0; d < gpuc_world.size; d++) {
    peers[d] = gpuc_world.size == 1 ? pool : (unsigned char *)nvshmem_ptr(pool, d);
    if (peers[d] == nullptr) gpuc_fail("device %d cannot reach device %d's memory by loads and stores (no NVLink or P2P)", gpuc_world.rank, d);
  }
  GPUC_CUDA(cudaMemcpyToSymbol(gpuc_peer_base, peers, sizeof peers));
  if (gpuc_world.size > 1) {
    unsigned long long *words = (unsigned long long *)(pool + sync_at);
    GPUC_CUDA(cudaMemset(words, 0, GPUC_WORLD_SYNC_BYTES));
    GPUC_CUDA(cudaMemcpyToSymbol(gpuc_world_sync_words, &words, sizeof words));
  }
  GPUC_CUDA(cudaDeviceSynchronize());
  if (gpuc_world.size > 1) nvshmem_barrier_all();
  gpuc_world.pool = pool;
  gpuc_world.pool_ms = (double)(gpuc_now_ns() - t0) / 1e6;
  gpuc_world_mark(GPUC_AT_POOL);
  memcpy(gpuc_world.peers, peers, sizeof peers);
  return pool;
}

// gpuc_world_pool_zero zeroes the pool (see gpuc_world_pool). With
// --time, device 0 says how long the allocation took, before the clock,
// and the zeroing, inside it.
inline void gpuc_world_pool_zero(unsigned char *pool, size_t bytes) {
  gpuc_world_mark(GPUC_AT_CLOCK);
  const long long t0 = gpuc_now_ns();
  GPUC_CUDA(cudaMemsetAsync(pool, 0, gpuc_alloc_size(bytes), 0));
  if (gpuc_profile.on) {
    GPUC_CUDA(cudaDeviceSynchronize());
    fprintf(stderr, "gpuc: world pool of %.2f GiB a device: %s %.3f ms before the clock, zeroing %.3f ms\n",
            (double)bytes / (1024.0 * 1024 * 1024), gpuc_world.size == 1 ? "cudaMalloc" : "nvshmem_malloc", gpuc_world.pool_ms,
            (double)(gpuc_now_ns() - t0) / 1e6);
  }
}

// gpuc_world_block is the part of a buffer of len elements that each
// device holds, ir.WorldPart: ceil(len/k) rounded up to a multiple of
// GPUC_WORLD_GRAIN (ir.WorldGrain, defined before this header), or the
// whole with one device; at least 1.
inline long long gpuc_world_block(long long len) {
  if (gpuc_world.size <= 1) return len > 1 ? len : 1;
  const long long grain = (long long)gpuc_world.size * GPUC_WORLD_GRAIN, g = (len + grain - 1) / grain;
  return (g > 1 ? g : 1) * GPUC_WORLD_GRAIN;
}

// gpuc_world_local32 is lim of a distributed buffer of len elements
// whose blocks hold block elements (gpuc_dist_near): how many of this
// device's block the buffer has, where every index of the world's
// DEVICES*block elements fits 32 bits, else 0.
inline unsigned gpuc_world_local32(long long block, long long len) {
  if ((unsigned long long)block * (unsigned long long)gpuc_world.size > (1ULL << 32)) return 0;
  const long long rest = len - (long long)gpuc_world.rank * block;
  return rest <= 0 ? 0u : (unsigned)(rest < block ? rest : block);
}

// gpuc_dist_owner is the device that holds element i of a distributed
// buffer whose parts hold block elements.
inline int gpuc_dist_owner(long long i, long long block) { return (int)(i / block); }

// gpuc_world_blocks is this device's first block of a world launch of
// total blocks, in ranges of ceil(total/k); gpuc_world_grid is how many
// blocks it launches. A device whose range is empty launches none, but in
// a cooperative launch one idle block, numbered total (bid() = gdim()),
// since the launch's world barriers wait for every device: the kernels
// that the passes make of world regions guard their work by gid().
inline long long gpuc_world_blocks(long long total) {
  if (total <= 0) return 0;
  const long long c = (total + gpuc_world.size - 1) / gpuc_world.size, lo = gpuc_world.rank * c;
  return lo < total ? lo : total;
}
inline long long gpuc_world_grid(long long total, bool coop) {
  if (total <= 0) return total;
  const long long c = (total + gpuc_world.size - 1) / gpuc_world.size, lo = gpuc_world_blocks(total);
  const long long end = (gpuc_world.rank + 1) * c < total ? (gpuc_world.rank + 1) * c : total;
  return end > lo ? end - lo : coop ? 1 : 0;
}

// Distributed buffers on the host: b.ptr is this device's block of block
// elements, b.len the whole length.

// gpuc_dist_addr is the address of element i on its owner, as this
// process reaches it.
template <typename T> inline T *gpuc_dist_addr(const gpuc_dev<T> &b, long long block, long long i) {
  const int d = (int)(i / block);
  const unsigned char *local = (const unsigned char *)(b.ptr + (i - (long long)d * block));
  return (T *)(gpuc_world.peers[d] + (local - gpuc_world.pool));
}

template <typename T> inline T gpuc_dist_get(const gpuc_dev<T> &b, long long block, long long i, const char *pos) {
  b.check(i, pos);
  T v{};
  gpuc_world.reads++;
  gpuc_to_host(&v, gpuc_dist_addr(b, block, i), sizeof(T));
  gpuc_check_device_error();
  return v;
}

// gpuc_dist_set stores into element i on its owner only: every device's
// host program makes the store, and only the owner's writes (Note [World]
// in package ir).
template <typename T> inline void gpuc_dist_set(const gpuc_dev<T> &b, long long block, long long i, T v, const char *pos) {
  b.check(i, pos);
  if (gpuc_dist_owner(i, block) == gpuc_world.rank) gpuc_to_device(b.ptr + (i - gpuc_world.rank * block), &v, sizeof(T));
}

// gpuc_dist_span copies elements [off, off+n) of a buffer between device
// and host memory (to_host says which way), run by run of elements that
// one device holds; block 0 is a buffer that is not distributed. Reads
// come from every owner; writes go only to this device's elements (each
// device's host program writes its own).
template <typename T> inline void gpuc_dist_span(const gpuc_dev<T> &b, long long block, long long off, long long n, T *host, bool to_host) {
  for (long long i = off; i < off + n;) {
    long long run = off + n - i;
    T *at = b.ptr + i;
    bool mine = true;
    if (block > 0) {
      const long long rest = block - i % block;
      run = run < rest ? run : rest;
      at = gpuc_dist_addr(b, block, i);
      mine = gpuc_dist_owner(i, block) == gpuc_world.rank;
    }
    if (to_host)
      gpuc_to_host(host + (i - off), at, (size_t)run * sizeof(T));
    else if (mine)
      gpuc_to_device(at, host + (i - off), (size_t)run * sizeof(T));
    i += run;
  }
}

// gpuc_dist_copy is the IR's copy where a buffer is distributed (its
// block, else 0), through host memory.
template <typename T>
inline void gpuc_dist_copy(gpuc_dev<T> &dst, long long dblock, long long doff, gpuc_dev<T> &src, long long sblock, long long soff, long long n, const char *pos) {
  gpuc_copy_count(n, pos);
  gpuc_copy_range("buffer", dst.name, dst.len, doff, n, pos);
  gpuc_copy_range("buffer", src.name, src.len, soff, n, pos);
  if (n == 0) return;
  T *tmp = (T *)malloc((size_t)n * sizeof(T));
  if (tmp == nullptr) gpuc_fail("copy: out of host memory (%lld elements)", n);
  gpuc_dist_span(src, sblock, soff, n, tmp, true);
  gpuc_dist_span(dst, dblock, doff, n, tmp, false);
  free(tmp);
  gpuc_check_device_error();
}
template <typename T>
inline void gpuc_dist_copy(gpuc_array<T> &dst, long long, long long doff, gpuc_dev<T> &src, long long sblock, long long soff, long long n, const char *pos) {
  gpuc_copy_count(n, pos);
  gpuc_copy_range("array", dst.name, dst.len, doff, n, pos);
  gpuc_copy_range("buffer", src.name, src.len, soff, n, pos);
  if (n == 0) return;
  gpuc_dist_span(src, sblock, soff, n, dst.ptr + doff, true);
  gpuc_check_device_error();
}
template <typename T>
inline void gpuc_dist_copy(gpuc_dev<T> &dst, long long dblock, long long doff, gpuc_array<T> &src, long long, long long soff, long long n, const char *pos) {
  gpuc_copy_count(n, pos);
  gpuc_copy_range("buffer", dst.name, dst.len, doff, n, pos);
  gpuc_copy_range("array", src.name, src.len, soff, n, pos);
  if (n == 0) return;
  gpuc_dist_span(dst, dblock, doff, n, src.ptr + soff, false);
}

// gpuc_dist_write is the IR's write of a distributed buffer (its block,
// else 0): every device's host program gathers the bytes; only device 0's
// standard output is the program's.
template <typename T> inline void gpuc_dist_write(gpuc_dev<T> &src, long long block, long long n, const char *pos) {
  static_assert(sizeof(T) == 1, "write takes a buffer of bytes");
  if (block == 0) {
    gpuc_write(src, n, pos);
    return;
  }
  if (n < 0) gpuc_fail_line(pos, ": error: write of a negative count %lld", n);
  gpuc_copy_range("buffer", src.name, src.len, 0, n, pos);
  if (n == 0) return;
  T *tmp = (T *)malloc((size_t)n);
  if (tmp == nullptr) gpuc_fail("write: out of host memory (%lld bytes)", n);
  gpuc_dist_span(src, block, 0, n, tmp, true);
  if (fwrite(tmp, 1, (size_t)n, stdout) != (size_t)n) gpuc_fail_line(pos, ": error: write of %lld bytes failed", n);
  free(tmp);
}

// gpuc_dist_fetch copies a whole distributed buffer into a calloc'd host
// array, block by block from each device.
template <typename T> inline T *gpuc_dist_fetch(const gpuc_dev<T> &b, long long block) {
  T *host = (T *)calloc(gpuc_alloc_size(b.bytes()), 1);
  if (host == nullptr) gpuc_fail("buffer %s: out of host memory (%lld elements)", b.name, b.len);
  gpuc_dist_span(b, block, 0, b.len, host, true);
  return host;
}

// gpuc_dist_fill fills this device's block of a distributed buffer from
// the whole contents, vals (an input file or static contents).
template <typename T> inline void gpuc_dist_fill(const gpuc_dev<T> &b, long long block, const void *vals) {
  const long long lo = gpuc_world.rank * block;
  if (lo >= b.len) return;
  const long long n = b.len - lo < block ? b.len - lo : block;
  gpuc_to_device(b.ptr, (const T *)vals + lo, (size_t)n * sizeof(T));
}

// gpuc_world_barrier is the host's world barrier between launches: on the
// stream, after the work before it, without waiting on the host; nothing
// in a world of one, whose stream orders its work.
inline void gpuc_world_barrier(void) {
  if (gpuc_world.size > 1) {
    nvshmemx_barrier_all_on_stream(0);
    gpuc_world.barriers++;
  }
}

// gpuc_profile_busy is the time the launches' kernels ran so far, in ms
// (as gpuc_profile_report sums it, which a one-device program keeps alone).
inline double gpuc_profile_busy(void) {
  double busy = 0;
  for (long long i = 0; i + 1 < gpuc_profile.used; i += 2) {
    float ms = 0;
    GPUC_CUDA(cudaEventElapsedTime(&ms, gpuc_profile.events[i], gpuc_profile.events[i + 1]));
    busy += ms;
  }
  return busy;
}

// gpuc_world_profile has device 0 say, with --time, each device's kernel
// time and how many stream barriers and read-backs each device's host
// made: a device whose kernels took less than the slowest one's spent
// the difference between kernels, waiting at the barriers (Note [Where a
// world's gaps go]). Every device calls it, before gpuc_profile_report.
inline void gpuc_world_profile(void) {
  if (gpuc_world.size == 1) return;
  gpuc_world.shared->kernels_ms[gpuc_world.rank] = gpuc_profile_busy();
  gpuc_world_meet();
  if (gpuc_world.rank == 0) {
    fprintf(stderr, "gpuc: world: kernels by device");
    for (int d = 0; d < gpuc_world.size; d++) fprintf(stderr, "%s %.3f ms", d ? "," : "", gpuc_world.shared->kernels_ms[d]);
    fprintf(stderr, "; a device's host: %lld stream barriers, %lld read-backs\n", gpuc_world.barriers, gpuc_world.reads);
  }
#ifdef GPUC_WORLD_WAITS_ON
  unsigned long long ns = 0, n = 0;
  GPUC_CUDA(cudaMemcpyFromSymbol(&ns, gpuc_world_wait_ns, sizeof ns));
  GPUC_CUDA(cudaMemcpyFromSymbol(&n, gpuc_world_wait_n, sizeof n));
  gpuc_world.shared->waits_ms[gpuc_world.rank] = (double)ns / 1e6;
  gpuc_world.shared->waits[gpuc_world.rank] = n;
  gpuc_world_meet();
  if (gpuc_world.rank == 0) {
    fprintf(stderr, "gpuc: world: waits in kernels' world barriers by device");
    for (int d = 0; d < gpuc_world.size; d++)
      fprintf(stderr, "%s %.3f ms in %llu", d ? "," : "", gpuc_world.shared->waits_ms[d], gpuc_world.shared->waits[d]);
    fprintf(stderr, "\n");
  }
#endif
  gpuc_world_meet();
}

// gpuc_world_allgather gives every device's instance of symmetric buffer
// b the block that each device owns: device d's elements [d*B, (d+1)*B),
// B = ceil(len/k), come from device d. A world barrier comes before (the
// blocks are written) and after (no device writes a block that another is
// still reading).
template <typename T> inline void gpuc_world_allgather(gpuc_dev<T> &b) {
  gpuc_world_barrier();
  const long long block = gpuc_world_block(b.len);
  for (int d = 0; d < gpuc_world.size; d++) {
    const long long lo = d * block, n = b.len - lo < block ? b.len - lo : block;
    if (d == gpuc_world.rank || n <= 0) continue;
    nvshmemx_getmem_on_stream(b.ptr + lo, b.ptr + lo, (size_t)n * sizeof(T), d, 0);
  }
  gpuc_world_barrier();
}

// gpuc_world_op is an operation of the IR's allreduce.
enum gpuc_world_op { GPUC_WORLD_ADD, GPUC_WORLD_MIN, GPUC_WORLD_MAX, GPUC_WORLD_AND, GPUC_WORLD_OR, GPUC_WORLD_XOR };

// gpuc_world_combine applies op with the IR's semantics: integers wrap,
// floats add as IEEE does and take min and max as the IR's min and max.
template <typename T> inline T gpuc_world_combine(gpuc_world_op op, T a, T b) {
  if constexpr (std::is_same<T, bool>::value) {
    switch (op) {
    case GPUC_WORLD_AND: case GPUC_WORLD_MIN: return a && b;
    case GPUC_WORLD_XOR: return a != b;
    default: return a || b;
    }
  } else if constexpr (std::is_floating_point<T>::value) {
    switch (op) {
    case GPUC_WORLD_ADD: return a + b;
    case GPUC_WORLD_MIN: return gpuc_min(a, b);
    default: return gpuc_max(a, b);
    }
  } else {
    typedef typename std::make_unsigned<T>::type U;
    switch (op) {
    case GPUC_WORLD_ADD: return (T)((U)a + (U)b);
    case GPUC_WORLD_MIN: return a < b ? a : b;
    case GPUC_WORLD_MAX: return a < b ? b : a;
    case GPUC_WORLD_AND: return (T)(a & b);
    case GPUC_WORLD_OR: return (T)(a | b);
    default: return (T)(a ^ b);
    }
  }
}

// gpuc_world_allreduce is the IR's allreduce: it waits for this device's
// work, meets the other devices' host programs (a world barrier), and
// combines every device's v in device order, so that each gets the same
// bits. It runs on the host through the shared page: a reduction on the
// stream with its read-back cost 46 us a step in ../shared/MULTIGPU.md's
// probe, against a read-back and a meeting here.
// drained says that v was just read back from the device, which drained
// the stream: the wait is left out (Note [A reduction after a read-back]
// in backends/cuda/world.go).
template <typename T> inline T gpuc_world_allreduce(gpuc_world_op op, T v, bool drained = false) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "allreduce of a wide type");
  if (!drained) GPUC_CUDA(cudaDeviceSynchronize());
  // The slots alternate, so that one meeting a reduction is enough: a
  // device cannot reuse a slot before every other has read it, since it
  // would first have to meet them at the next reduction.
  unsigned long long(*slots)[GPUC_MAX_DEVICES] = &gpuc_world.shared->values[gpuc_world.parity];
  gpuc_world.parity ^= 1;
  memcpy(&(*slots)[gpuc_world.rank], &v, sizeof v);
  gpuc_world_meet();
  T acc;
  memcpy(&acc, &(*slots)[0], sizeof acc);
  for (int d = 1; d < gpuc_world.size; d++) {
    T x;
    memcpy(&x, &(*slots)[d], sizeof x);
    acc = gpuc_world_combine(op, acc, x);
  }
  return acc;
}

// gpuc_world_end releases the pool and leaves NVSHMEM, which waits for
// every device.
inline void gpuc_world_end(void) {
  gpuc_world_mark(GPUC_AT_END);
  GPUC_CUDA(cudaDeviceSynchronize());
  if (gpuc_world.size == 1) {
    if (gpuc_world.pool != nullptr) GPUC_CUDA(cudaFree(gpuc_world.pool));
  } else {
    if (gpuc_world.pool != nullptr) nvshmem_free(gpuc_world.pool);
    nvshmem_finalize();
  }
  gpuc_world.pool = nullptr;
  gpuc_world.finished = true;
  gpuc_world_mark(GPUC_AT_FINAL);
}

// gpuc_world_of_one tells whether a world program that carries the
// one-device program runs it (Note [A world of one runs the one-device
// program] in backends/cuda): DEVICES is 1, on the command line or by
// default (devices), there is no --help, and GPUC_WORLD_OF_ONE is not
// "world". If so it takes DEVICES=... out of argv, which the one-device
// program does not take, and the world's own parameters, "NAME=" in
// world_only (nullptr-terminated, or nullptr), which it has no use for.
// A DEVICES value that is not a plain number goes to the world program,
// whose command line reports it.
inline bool gpuc_world_of_one(int *argc, char **argv, long long devices, const char *const *world_only = nullptr) {
  bool help = false;
  for (int i = 1; i < *argc; i++) {
    if (strncmp(argv[i], "DEVICES=", 8) == 0) {
      char *end = nullptr;
      errno = 0;
      const long long v = strtoll(argv[i] + 8, &end, 10);
      devices = errno != 0 || end == argv[i] + 8 || *end != '\0' ? -1 : v;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      help = true;
    }
  }
  const char *env = getenv("GPUC_WORLD_OF_ONE");
  if (devices != 1 || help || (env != nullptr && strcmp(env, "world") == 0)) return false;
  int n = 1;
  for (int i = 1; i < *argc; i++) {
    bool drop = strncmp(argv[i], "DEVICES=", 8) == 0;
    for (int j = 0; world_only != nullptr && world_only[j] != nullptr && !drop; j++)
      drop = strncmp(argv[i], world_only[j], strlen(world_only[j])) == 0;
    if (!drop) argv[n++] = argv[i];
  }
  argv[n] = nullptr;
  *argc = n;
  return true;
}

#endif // GPUC_WORLD_H
