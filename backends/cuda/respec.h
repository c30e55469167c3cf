// respec.h: run-time specialization, pasted last into the head of a
// program that `gpuc compile --pe-runtime` wrote (Note [Run-time
// specialization] in backends/cuda/respec.go). Given --static NAME=FILE,
// the program has gpuc specialize its kernels that read static data on
// the file's values, compiles them with NVRTC, caches the cubin on disk
// and launches it through the CUDA driver API. POSIX only.
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <thread>

extern char **environ;

// GPUC_CU checks a CUDA driver call, GPUC_NVRTC an NVRTC call; a failure
// is "error: CALL: WHY".
#define GPUC_CU(call) gpuc_cu_check((call), #call)
#define GPUC_NVRTC(call) gpuc_nvrtc_check((call), #call)

inline void gpuc_cu_check(CUresult err, const char *call) {
  if (err == CUDA_SUCCESS) return;
  const char *why = nullptr;
  if (cuGetErrorString(err, &why) != CUDA_SUCCESS || why == nullptr) why = "unknown CUDA error";
  gpuc_fail("%.*s: %s", (int)strcspn(call, "("), call, why);
}

inline void gpuc_nvrtc_check(nvrtcResult err, const char *call) {
  if (err != NVRTC_SUCCESS) gpuc_fail("%.*s: %s", (int)strcspn(call, "("), call, nvrtcGetErrorString(err));
}

// The --static arguments, NAME=FILE each, as given.
static const char *gpuc_rt_given[64];
static int gpuc_rt_ngiven;

// gpuc_rt_take_args removes --static NAME=FILE (or --static=NAME=FILE)
// from the command line, checking NAME against the static buffers.
inline void gpuc_rt_take_args(int *argc, char **argv, const char *const *statics, int nstatics, const char *module) {
  int out = 1;
  for (int i = 1; i < *argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--static") == 0) {
      if (i + 1 == *argc) gpuc_fail("--static needs NAME=FILE");
      a = argv[++i];
    } else if (strncmp(a, "--static=", 9) == 0) {
      a += 9;
    } else {
      argv[out++] = argv[i];
      continue;
    }
    const char *eq = strchr(a, '=');
    if (eq == nullptr || eq == a || eq[1] == '\0') gpuc_fail("--static %s: want NAME=FILE or NAME=@FILE", a);
    bool known = false;
    for (int j = 0; j < nstatics; j++)
      known = known || (strlen(statics[j]) == (size_t)(eq - a) && strncmp(statics[j], a, (size_t)(eq - a)) == 0);
    if (!known) gpuc_fail("--static %s: %.*s is not a static buffer of %s", a, (int)(eq - a), a, module);
    if (gpuc_rt_ngiven == 64) gpuc_fail("more than 64 --static arguments");
    gpuc_rt_given[gpuc_rt_ngiven++] = a;
  }
  *argc = out;
  argv[out] = nullptr;
}

inline double gpuc_rt_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

// gpuc_rt_hash is FNV-1a over n bytes, continuing from h.
inline unsigned long long gpuc_rt_hash(unsigned long long h, const void *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
  return h;
}

// gpuc_rt_cache_dir makes and returns the cache directory: $GPUC_CACHE,
// else $XDG_CACHE_HOME/gpuc, else $HOME/.cache/gpuc, else /tmp/gpuc-cache.
inline void gpuc_rt_cache_dir(char *dir, size_t n) {
  const char *env;
  if ((env = getenv("GPUC_CACHE")) != nullptr && *env) {
    snprintf(dir, n, "%s", env);
  } else if ((env = getenv("XDG_CACHE_HOME")) != nullptr && *env) {
    snprintf(dir, n, "%s/gpuc", env);
  } else if ((env = getenv("HOME")) != nullptr && *env) {
    snprintf(dir, n, "%s/.cache/gpuc", env);
  } else {
    snprintf(dir, n, "/tmp/gpuc-cache");
  }
  for (char *p = dir + 1;; p++) {
    char c = *p;
    if (c != '/' && c != '\0') continue;
    *p = '\0';
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) gpuc_fail("run-time specialization: mkdir %s: %s", dir, strerror(errno));
    *p = c;
    if (c == '\0') break;
  }
}

// gpuc_rt_write writes n bytes to path, through a temporary file, so that
// a cached file is whole or absent.
inline void gpuc_rt_write(const char *path, const void *data, size_t n) {
  char tmp[4400]; // room for the longest path (4300) and the suffix
  snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
  FILE *f = fopen(tmp, "wb");
  if (f == nullptr || fwrite(data, 1, n, f) != n || fclose(f) != 0 || rename(tmp, path) != 0)
    gpuc_fail("run-time specialization: write %s: %s", path, strerror(errno));
}

// gpuc_rt_gpuc finds the gpuc binary: $GPUC, else gpuc beside the
// program, else gpuc on PATH.
inline const char *gpuc_rt_gpuc(char *buf, size_t n) {
  const char *env = getenv("GPUC");
  if (env != nullptr && *env) return env;
  ssize_t len = readlink("/proc/self/exe", buf, n - 8);
  if (len > 0) {
    buf[len] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash != nullptr) {
      strcpy(slash + 1, "gpuc");
      if (access(buf, X_OK) == 0) return buf;
    }
  }
  return "gpuc";
}

// gpuc_rt_start_gpuc starts gpuc writing the specialized kernels of the
// module in kir to cu, and returns its process; gpuc_rt_wait_gpuc waits
// for it.
inline pid_t gpuc_rt_start_gpuc(const char *kir, const char *cu, const char *const *args, int nargs) {
  char path[4096];
  const char *gpuc = gpuc_rt_gpuc(path, sizeof path);
  const char *argv[256];
  int n = 0;
  argv[n++] = gpuc;
  argv[n++] = "compile";
  argv[n++] = kir;
  argv[n++] = "--emit=nvrtc";
  for (int i = 0; i < nargs && n < 240; i++) argv[n++] = args[i];
  for (int i = 0; i < gpuc_rt_ngiven && n < 250; i++) {
    argv[n++] = "--static";
    argv[n++] = gpuc_rt_given[i];
  }
  argv[n++] = "-o";
  argv[n++] = cu;
  argv[n] = nullptr;
  pid_t pid;
  int err = posix_spawnp(&pid, gpuc, nullptr, nullptr, (char *const *)argv, environ);
  if (err != 0) gpuc_fail("run-time specialization: cannot run %s: %s (set GPUC to the gpuc binary)", gpuc, strerror(err));
  return pid;
}

inline void gpuc_rt_wait_gpuc(pid_t pid, const char *kir) {
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    gpuc_fail("run-time specialization: gpuc compile %s failed", kir);
}

// gpuc_rt_nvrtc compiles the CUDA C in cu for the device's architecture
// and returns the cubin, malloc'd. Most of NVRTC's time is its NVVM
// optimizer's, so it asks for NVRTC's fast compile mode, middle setting
// (CUDA 12.8 and later; an NVRTC without it compiles as usual): on an
// H100 host that took the compilation of carve.fork's specialized
// kernels from 440-580 to 380-425 ms (docs/BENCHMARKS.md).
inline char *gpuc_rt_nvrtc(const char *cu, const char *arch, size_t *size) {
  size_t len;
  char *src = gpuc_read_file("run-time specialization", cu, &len);
  nvrtcProgram prog;
  GPUC_NVRTC(nvrtcCreateProgram(&prog, src, cu, 0, nullptr, nullptr));
  const char *opts[] = {arch, "-std=c++17", "--Ofast-compile=mid"};
  nvrtcResult res = nvrtcCompileProgram(prog, 3, opts);
  if (res == NVRTC_ERROR_INVALID_OPTION) {
    GPUC_NVRTC(nvrtcDestroyProgram(&prog));
    GPUC_NVRTC(nvrtcCreateProgram(&prog, src, cu, 0, nullptr, nullptr));
    res = nvrtcCompileProgram(prog, 2, opts);
  }
  if (res != NVRTC_SUCCESS) {
    size_t n = 0;
    GPUC_NVRTC(nvrtcGetProgramLogSize(prog, &n));
    char *log = (char *)malloc(n + 1);
    if (log != nullptr && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS) fprintf(stderr, "%s\n", log);
    GPUC_NVRTC(res);
  }
  GPUC_NVRTC(nvrtcGetCUBINSize(prog, size));
  char *cubin = (char *)malloc(*size);
  if (cubin == nullptr) gpuc_fail("run-time specialization: out of host memory");
  GPUC_NVRTC(nvrtcGetCUBIN(prog, cubin));
  GPUC_NVRTC(nvrtcDestroyProgram(&prog));
  free(src);
  return cubin;
}

// gpuc_rt_arch_guess is the architecture that nvcc built this program
// for (the last of __CUDA_ARCH_LIST__: 90 for sm_90), or 0 if unknown.
// NVRTC can start on it while the CUDA driver is still starting up.
inline int gpuc_rt_arch_guess(void) {
#ifdef __CUDA_ARCH_LIST__
  static const int list[] = {__CUDA_ARCH_LIST__};
  return list[sizeof list / sizeof list[0] - 1] / 10;
#else
  return 0;
#endif
}

// gpuc_rt_device_arch is the current device's architecture: 90 for an
// sm_90 device. The driver must be initialized.
inline int gpuc_rt_device_arch(void) {
  int dev = 0, major = 0, minor = 0;
  GPUC_CUDA(cudaGetDevice(&dev));
  CUdevice cudev;
  GPUC_CU(cuDeviceGet(&cudev, dev));
  GPUC_CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cudev));
  GPUC_CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cudev));
  return major * 10 + minor;
}

// gpuc_rt_key is a growing byte string: the full key of a cache entry.
struct gpuc_rt_key {
  char *p = nullptr;
  size_t n = 0, cap = 0;
  void add(const void *data, size_t len) {
    if (n + len > cap) {
      cap = (n + len) * 2 + 256;
      p = (char *)realloc(p, cap);
      if (p == nullptr) gpuc_fail("run-time specialization: out of host memory for the cache key");
    }
    memcpy(p + n, data, len);
    n += len;
  }
  void add(const char *s) { add(s, strlen(s) + 1); }
};

#ifndef GPUC_VERSION
#define GPUC_VERSION "unknown"
#endif

// gpuc_rt_cubin returns the cubin, malloc'd, of the module's kernels
// specialized on the --static data for architecture arch: from the cache,
// or made by gpuc and NVRTC and cached. path receives the cache file (4300
// bytes); *gpuc_ms and *nvrtc_ms what gpuc and NVRTC took, 0 on a hit.
// The full key (the module, the options, the data, and the versions of
// gpuc that wrote the program and of NVRTC) is stored beside the cubin
// as BASE.key, and a hit must match it byte for byte: the file name holds
// only its 64-bit hash.
inline char *gpuc_rt_cubin(const char *module, const char *ir, const char *const *args, int nargs, int arch,
                           size_t *size, char *path, double *gpuc_ms, double *nvrtc_ms) {
  char opt[64];
  snprintf(opt, sizeof opt, "-arch=sm_%d", arch); // NVRTC makes a cubin for that SM
  int nv_major = 0, nv_minor = 0;
  GPUC_NVRTC(nvrtcVersion(&nv_major, &nv_minor));
  char versions[256];
  snprintf(versions, sizeof versions, "gpuc %s, NVRTC %d.%d", GPUC_VERSION, nv_major, nv_minor);
  gpuc_rt_key key;
  key.add(versions);
  key.add(ir);
  key.add(opt);
  for (int i = 0; i < nargs; i++) key.add(args[i]);
  for (int i = 0; i < gpuc_rt_ngiven; i++) {
    const char *eq = strchr(gpuc_rt_given[i], '=');
    size_t len;
    char *data = gpuc_read_file(gpuc_rt_given[i], eq[1] == '@' ? eq + 2 : eq + 1, &len);
    const bool raw = eq[1] == '@';
    key.add(gpuc_rt_given[i], (size_t)(eq - gpuc_rt_given[i]) + 1); // NAME=
    key.add(&raw, 1);
    char n[32];
    snprintf(n, sizeof n, "%zu", len);
    key.add(n);
    key.add(data, len);
    free(data);
  }
  const unsigned long long h = gpuc_rt_hash(14695981039346656037ull, key.p, key.n);
  char dir[4096], base[4200];
  gpuc_rt_cache_dir(dir, sizeof dir);
  snprintf(base, sizeof base, "%s/%s-%016llx", dir, module, h);
  snprintf(path, 4300, "%s.cubin", base);
  *gpuc_ms = *nvrtc_ms = 0;
  char keyfile[4300];
  snprintf(keyfile, sizeof keyfile, "%s.key", base);
  if (access(path, R_OK) == 0 && access(keyfile, R_OK) == 0) {
    size_t stored_n = 0;
    char *stored = gpuc_read_file("run-time specialization", keyfile, &stored_n);
    const bool same = stored_n == key.n && memcmp(stored, key.p, key.n) == 0;
    free(stored);
    if (same) {
      free(key.p);
      return gpuc_read_file("run-time specialization", path, size);
    }
  }
  char kir[4300], cu[4300];
  snprintf(kir, sizeof kir, "%s.kir", base);
  snprintf(cu, sizeof cu, "%s.cu", base);
  const double t0 = gpuc_rt_now();
  gpuc_rt_write(kir, ir, strlen(ir));
  gpuc_rt_wait_gpuc(gpuc_rt_start_gpuc(kir, cu, args, nargs), kir);
  const double t1 = gpuc_rt_now();
  char *cubin = gpuc_rt_nvrtc(cu, opt, size);
  gpuc_rt_write(path, cubin, *size);
  gpuc_rt_write(keyfile, key.p, key.n);
  free(key.p);
  *gpuc_ms = t1 - t0;
  *nvrtc_ms = gpuc_rt_now() - t1;
  return cubin;
}

// The thread that starts the CUDA driver while gpuc_rt_specialize makes
// the kernels, and the fail hook it replaces meanwhile: an error on the
// main thread waits for that thread first (gpuc_rt_join_driver), so that
// the process does not exit under the driver's start-up. The thread's own
// errors wait for the main thread, which reports them once it has joined
// it.
static std::thread *gpuc_rt_driver;
static void (*gpuc_rt_prev_hook)(void);

inline void gpuc_rt_join_driver(void) {
  if (gpuc_rt_driver != nullptr && gpuc_rt_driver->joinable() && gpuc_rt_driver->get_id() != std::this_thread::get_id())
    gpuc_rt_driver->join();
  if (gpuc_rt_prev_hook != nullptr) gpuc_rt_prev_hook();
}

// gpuc_rt_specialize specializes the module again on the --static data,
// if any was given: it loads the cubin of the kernels from the cache, or
// makes it with gpuc and NVRTC, and finds the kernels. error_word is the
// program's, if its device code raises, and error_values its fault values,
// if its device code checks (Note [Checks] in backends/abi). It reports the
// time on stderr.
//
// Starting the CUDA driver and its context takes 250-350 ms on an H100
// host, about as long as NVRTC, so a thread of its own does it meanwhile,
// and NVRTC compiles for the architecture the program was built for. If
// the device turns out to be another one, the kernels are made again for
// it. (Starting NVRTC up early, with an empty kernel or with the prelude
// of the kernels gpuc writes, did not make its first real compilation in
// the process any faster.)
inline void gpuc_rt_specialize(const char *module, const char *ir, const char *const *args, int nargs,
                               const char *const *names, CUfunction *kernels, int nkernels, void *error_word,
                               void *error_values) {
  if (gpuc_rt_ngiven == 0) return;
  const double t0 = gpuc_rt_now();
  double ctx = 0; // ms after t0 when the context was ready
  // The thread keeps its errors for the main thread to report, so that
  // the process never exits from under NVRTC.
  CUresult init = CUDA_SUCCESS;
  cudaError_t start = cudaSuccess;
  std::thread driver([&ctx, &init, &start, t0] {
    init = cuInit(0);
    if (init == CUDA_SUCCESS) start = cudaFree(nullptr);
    ctx = gpuc_rt_now() - t0;
  });
  const auto driver_started = [&init, &start] {
    gpuc_cu_check(init, "cuInit(0)");
    gpuc_cuda_check(start, "cudaFree(nullptr)");
  };
  gpuc_rt_driver = &driver;
  gpuc_rt_prev_hook = gpuc_fail_hook;
  gpuc_fail_hook = gpuc_rt_join_driver;
  int arch = gpuc_rt_arch_guess();
  if (arch == 0) {
    driver.join();
    driver_started();
    arch = gpuc_rt_device_arch();
  }
  size_t size = 0;
  char path[4300];
  double gpuc_ms, nvrtc_ms;
  char *cubin = gpuc_rt_cubin(module, ir, args, nargs, arch, &size, path, &gpuc_ms, &nvrtc_ms);
  if (driver.joinable()) driver.join();
  gpuc_fail_hook = gpuc_rt_prev_hook;
  gpuc_rt_driver = nullptr;
  driver_started();
  GPUC_CUDA(cudaFree(nullptr)); // the context, current on this thread too
  const double made = gpuc_rt_now() - t0;
  if (const int device = gpuc_rt_device_arch(); device != arch) {
    fprintf(stderr, "gpuc: run-time specialization: the program was built for sm_%d, the device is sm_%d: specializing for it\n",
            arch, device);
    free(cubin);
    arch = device;
    cubin = gpuc_rt_cubin(module, ir, args, nargs, arch, &size, path, &gpuc_ms, &nvrtc_ms);
  }
  CUmodule mod;
  GPUC_CU(cuModuleLoadData(&mod, cubin));
  free(cubin);
  for (int i = 0; i < nkernels; i++) GPUC_CU(cuModuleGetFunction(&kernels[i], mod, names[i]));
  if (error_word != nullptr) {
    CUdeviceptr at = 0;
    size_t n = 0;
    GPUC_CU(cuModuleGetGlobal(&at, &n, mod, "gpuc_error_at"));
    GPUC_CU(cuMemcpyHtoD(at, &error_word, sizeof error_word));
  }
  if (error_values != nullptr) {
    CUdeviceptr at = 0;
    size_t n = 0;
    GPUC_CU(cuModuleGetGlobal(&at, &n, mod, "gpuc_error_values_at"));
    GPUC_CU(cuMemcpyHtoD(at, &error_values, sizeof error_values));
    const int checks = gpuc_checks_on ? 1 : 0;
    GPUC_CU(cuModuleGetGlobal(&at, &n, mod, "gpuc_checks"));
    GPUC_CU(cuMemcpyHtoD(at, &checks, sizeof checks));
  }
  const double t1 = gpuc_rt_now();
  if (nvrtc_ms > 0)
    fprintf(stderr,
            "gpuc: run-time specialization: %.1f ms (gpuc %.1f ms and NVRTC %.1f ms, done after %.1f ms, beside the "
            "CUDA context, ready after %.1f ms; load %.1f ms), cached as %s\n",
            t1 - t0, gpuc_ms, nvrtc_ms, made, ctx, t1 - t0 - made, path);
  else
    fprintf(stderr, "gpuc: run-time specialization: %.1f ms (from the cache: %s; the CUDA context ready after %.1f ms)\n",
            t1 - t0, path, ctx);
}

// gpuc_rt_launch launches a run-time kernel with args and checks it.
inline void gpuc_rt_launch(CUfunction k, long long grid, long long block, size_t smem, void **args) {
  if (smem > 48 * 1024) GPUC_CU(cuFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem));
  GPUC_CU(cuLaunchKernel(k, (unsigned)grid, 1, 1, (unsigned)block, 1, 1, (unsigned)smem, nullptr, args, nullptr));
}
