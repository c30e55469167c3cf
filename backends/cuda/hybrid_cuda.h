// hybrid_cuda.h: the device's side of a hybrid program, pasted after
// driver.h and cpu.h and before hybrid.h (Note [Hybrid migration] in
// hybrid.h): the thread that starts the CUDA context, the hooks of the
// moves, and memory primitives that reach the side holding the data.

// The program defines gpuc_hybrid_kernels, which finds the kernels'
// handles and module globals once the module is loaded, and hybrid.h
// gpuc_hybrid_on_device.
static void gpuc_hybrid_kernels(void);
inline bool gpuc_hybrid_on_device(void);

// The context thread's state: 0 starting, 1 ready, 2 no device, 3 not
// started yet (Note [Context on demand]); where a device was found but
// could not take the program, gpuc_hy_why says why (Note [A device that
// fails to start]).
static int gpuc_hy_state;
static pthread_t gpuc_hy_thread;
static CUcontext gpuc_hy_ctx;
static const char *gpuc_hy_ptx;
static double gpuc_hy_t0, gpuc_hy_start_ms;
static char gpuc_hy_why[256];

// Note [A device that fails to start]
// A hybrid program starts rewriting on the host while the context
// thread brings the device up. If the driver's compiler refuses the PTX
// (a driver older than the PTX's ISA) or the device cannot take the
// module, the run that is under way is not the device's to end: the
// context thread records why and says "no device", and the program goes
// on on the host, as on a machine with no GPU. HYBRID=0, which asks for
// the device, fails with that reason and the compiler's log, and --time
// names it. Only the module's loading is soft; a device that fails after
// the data moved up is an error as in any CUDA program.

// gpuc_hy_start runs on the context thread: a machine without a driver
// or a device leaves the program on the host.
inline void *gpuc_hy_start(void *ptx) {
  int n = 0;
  CUdevice dev;
  if (!gpuc_cuda_load() || cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0 || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
      cuDevicePrimaryCtxRetain(&gpuc_hy_ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(gpuc_hy_ctx) != CUDA_SUCCESS) {
    __atomic_store_n(&gpuc_hy_state, 2, __ATOMIC_RELEASE);
    return nullptr;
  }
  CUresult err = gpuc_device_load((const char *)ptx);
  if (err != CUDA_SUCCESS) {
    const char *why = nullptr;
    if (cuGetErrorString(err, &why) != CUDA_SUCCESS || why == nullptr) why = "unknown CUDA error";
    snprintf(gpuc_hy_why, sizeof gpuc_hy_why, "cuModuleLoadDataEx: %s", why);
    __atomic_store_n(&gpuc_hy_state, 2, __ATOMIC_RELEASE);
    return nullptr;
  }
  gpuc_hybrid_kernels();
  __atomic_store_n(&gpuc_hy_state, 1, __ATOMIC_RELEASE);
  return nullptr;
}

// gpuc_hy_unused is why a device that was found did not take the
// program, once the context thread has said so, else nullptr.
inline const char *gpuc_hy_unused(void) {
  return __atomic_load_n(&gpuc_hy_state, __ATOMIC_ACQUIRE) == 2 && gpuc_hy_why[0] != 0 ? gpuc_hy_why : nullptr;
}

// gpuc_hy_no_device fails a run that needs the device, with the reason
// the context thread recorded, if any.
[[noreturn]] inline void gpuc_hy_no_device(const char *what) {
  if (gpuc_hy_why[0] == 0) gpuc_fail("%s: no CUDA device", what);
  fprintf(stderr, "%s", gpuc_jit_log);
  gpuc_fail("%s: the CUDA device cannot run the program: %s", what, gpuc_hy_why);
}

// gpuc_hybrid_cpu_only reports HYBRID=cpu: the program never loads the
// driver, and need not detach (Note [Detached exit] in detach.h).
inline bool gpuc_hybrid_cpu_only(void) {
  const char *mode = getenv("HYBRID");
  return mode != nullptr && strcmp(mode, "cpu") == 0;
}

// Note [Context on demand]
//
// Loading the driver and starting the context on a thread of its own
// still costs a run that ends on the host: on one H100 (docs/BENCHMARKS.md,
// "The exit of a hybrid program") revnat1000 took 36.8 ms against 29.2
// with HYBRID=cpu, quicksort100 17.1 against 12.1 (the driver's dlopen,
// cuInit and the module's load beside the rewriting, on a shared memory
// map). A sequential run never moves up, so it should not pay for it.
// So the thread starts at the first hybrid point (mode auto) whose work
// is at least HYBRID_UP / 8 (parallel work is showing, at an eighth of
// what moves it up), or that comes HYBRID_START_MS (default 50)
// after the program's start: the context takes 300 to 450 ms, so a start
// that late leaves the device ready about a tenth later than a start at
// once, and a run shorter than that never loads the driver. HYBRID=0,
// HYBRID_MIGRATE and the device's memory for fitted parameters wait for
// the device anyway, and start it at once. HYBRID_START_MS=0 starts it
// at once always, as before.

// gpuc_hy_launch starts the context thread.
inline void gpuc_hy_launch(void) {
  __atomic_store_n(&gpuc_hy_state, 0, __ATOMIC_RELEASE);
  if (pthread_create(&gpuc_hy_thread, nullptr, gpuc_hy_start, (void *)gpuc_hy_ptx) != 0) gpuc_fail("cannot start the CUDA context's thread");
}

// gpuc_hybrid_begin readies the context thread, unless HYBRID=cpu: it
// starts it at once where the program waits for the device anyway, or
// where HYBRID_START_MS is 0 (Note [Context on demand]).
inline void gpuc_hybrid_begin(const char *ptx) {
  if (gpuc_hybrid_cpu_only()) {
    gpuc_hy_state = 2;
    return;
  }
  gpuc_hy_ptx = ptx;
  gpuc_hy_t0 = gpuc_now_ms();
  const long long ms = gpuc_env_count("HYBRID_START_MS", 0, 1LL << 40);
  gpuc_hy_start_ms = ms >= 0 ? (double)ms : 50;
  const char *mode = getenv("HYBRID");
  if (gpuc_hy_start_ms == 0 || (mode != nullptr && strcmp(mode, "0") == 0) || getenv("HYBRID_MIGRATE") != nullptr)
    gpuc_hy_launch();
  else
    gpuc_hy_state = 3;
}

// gpuc_hy_ready reports whether the device is ready, first starting the
// context thread where wanted (the point's work suggests the device) or
// where the run has lasted HYBRID_START_MS (Note [Context on demand]).
inline bool gpuc_hy_ready(bool wanted) {
  const int s = __atomic_load_n(&gpuc_hy_state, __ATOMIC_ACQUIRE);
  if (s == 3 && (wanted || gpuc_now_ms() - gpuc_hy_t0 >= gpuc_hy_start_ms)) gpuc_hy_launch();
  return s == 1;
}

// gpuc_hy_wait waits for the context thread, starting it if it has not
// started, and reports whether the device is ready.
inline bool gpuc_hy_wait(void) {
  if (__atomic_load_n(&gpuc_hy_state, __ATOMIC_ACQUIRE) == 3) gpuc_hy_launch();
  if (__atomic_load_n(&gpuc_hy_state, __ATOMIC_ACQUIRE) == 0) pthread_join(gpuc_hy_thread, nullptr);
  return __atomic_load_n(&gpuc_hy_state, __ATOMIC_ACQUIRE) == 1;
}

// gpuc_free_memory is the memory for fitted parameters: the host's, and
// where the program waits for the device anyway (HYBRID=0,
// HYBRID_MIGRATE) the device's too, whichever is less. Otherwise a
// device with less memory than the host may not take the data, and the
// program stays on the host: pass such parameters (CAPACITY) to a hybrid
// program that should use the device.
inline unsigned long long gpuc_free_memory(void) {
  const unsigned long long host = gpuc_host_free_memory();
  const char *mode = getenv("HYBRID");
  if (!(mode != nullptr && strcmp(mode, "0") == 0) && getenv("HYBRID_MIGRATE") == nullptr) return host;
  if (!gpuc_hy_wait()) return host;
  size_t free_bytes = 0, total = 0;
  GPUC_CU(cuCtxSetCurrent(gpuc_hy_ctx));
  GPUC_CU(cuMemGetInfo(&free_bytes, &total));
  return free_bytes < host ? free_bytes : host;
}

// gpuc_hy_enter makes the context current on the calling thread, the
// first time the data goes up.
inline void gpuc_hy_enter(void) { GPUC_CU(cuCtxSetCurrent(gpuc_hy_ctx)); }

// gpuc_hy_alloc allocates n zeroed bytes of device memory, or returns
// nullptr where the device has too little.
inline void *gpuc_hy_alloc(size_t n) {
  CUdeviceptr p = 0;
  if (cuMemAlloc(&p, n > 0 ? n : 1) != CUDA_SUCCESS) return nullptr;
  GPUC_CU(cuMemsetD8(p, 0, n > 0 ? n : 1));
  return (void *)(uintptr_t)p;
}
inline void gpuc_hy_free(void *p) { GPUC_CU(cuMemFree(gpuc_cu_ptr(p))); }
inline void gpuc_hy_up(void *dst, const void *src, size_t n) {
  if (n > 0) GPUC_CU(cuMemcpyHtoD(gpuc_cu_ptr(dst), src, n));
}
inline void gpuc_hy_down(void *dst, const void *src, size_t n) {
  if (n > 0) GPUC_CU(cuMemcpyDtoH(dst, gpuc_cu_ptr(src), n));
}
inline void *gpuc_hy_global(const char *name, size_t n) { return gpuc_device_global(name, n); }

// gpuc_hy_exit leaves at once, the output flushed and the visible
// process told, where the context thread is still inside the driver: a
// program that ended on the host does not wait for the CUDA context
// (Note [Detached exit] in detach.h: _exit alone still waits for it).
inline void gpuc_hy_exit(void) {
  if (__atomic_load_n(&gpuc_hy_state, __ATOMIC_ACQUIRE) != 0) return;
  fflush(nullptr);
  gpuc_exit_notify(0);
  _exit(0);
}

// Device memory primitives, for gpuc_device.h: the side that holds the
// data, host memory until the first move up.
inline void *gpuc_device_alloc(size_t n) {
  if (gpuc_hybrid_on_device()) {
    void *p = gpuc_hy_alloc(n);
    if (p == nullptr) gpuc_fail("out of device memory for %zu bytes", n);
    return p;
  }
  void *p = calloc(n, 1);
  if (p == nullptr) gpuc_fail("out of memory for %zu bytes of device memory", n);
  return p;
}
inline void gpuc_device_free(void *p) {
  if (gpuc_hybrid_on_device())
    gpuc_hy_free(p);
  else
    free(p);
}
inline void gpuc_device_zero(void *p, size_t n) {
  if (n == 0) return;
  if (gpuc_hybrid_on_device())
    GPUC_CU(cuMemsetD8(gpuc_cu_ptr(p), 0, n));
  else
    memset(p, 0, n);
}
inline void gpuc_to_host(void *dst, const void *src, size_t n) {
  if (n == 0) return;
  if (gpuc_hybrid_on_device())
    GPUC_CU(cuMemcpyDtoH(dst, gpuc_cu_ptr(src), n));
  else
    memcpy(dst, src, n);
}
inline void gpuc_to_device(void *dst, const void *src, size_t n) {
  if (n == 0) return;
  if (gpuc_hybrid_on_device())
    GPUC_CU(cuMemcpyHtoD(gpuc_cu_ptr(dst), src, n));
  else
    memcpy(dst, src, n);
}
inline void gpuc_on_device(void *dst, const void *src, size_t n) {
  if (n == 0) return;
  if (gpuc_hybrid_on_device())
    GPUC_CU(cuMemcpyDtoD(gpuc_cu_ptr(dst), gpuc_cu_ptr(src), n));
  else
    memcpy(dst, src, n);
}
