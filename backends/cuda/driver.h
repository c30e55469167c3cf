// driver.h: the device side of a host program that runs the LLVM backend's
// PTX kernels through the CUDA driver API, pasted after gpuc_runtime.h and
// before gpuc_device.h. It holds the checked driver calls, the context and
// module, the device memory primitives, launches and the clock.

// GPUC_CU checks a CUDA driver call; a failure is "error: CALL: WHY".
#define GPUC_CU(call) gpuc_cu_check((call), #call)

inline void gpuc_cu_check(CUresult err, const char *call) {
  if (err == CUDA_SUCCESS) return;
  const char *why = nullptr;
  if (cuGetErrorString(err, &why) != CUDA_SUCCESS || why == nullptr) why = "unknown CUDA error";
  gpuc_fail("%.*s: %s", (int)strcspn(call, "("), call, why);
}

// gpuc_module holds the kernels; gpuc_clock times the device's work.
static CUmodule gpuc_module;
static CUevent gpuc_clock[2];

// gpuc_device_context makes the first GPU's primary context current, the
// first time it is called.
inline void gpuc_device_context(void) {
  static bool current = false;
  if (current) return;
  CUdevice dev;
  CUcontext ctx;
  GPUC_CU(cuInit(0));
  GPUC_CU(cuDeviceGet(&dev, 0));
  GPUC_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  GPUC_CU(cuCtxSetCurrent(ctx));
  current = true;
}

// gpuc_jit_log holds the driver's compiler log of the last PTX load.
static char gpuc_jit_log[16384];

// gpuc_device_load loads the PTX, which the driver compiles for the GPU,
// into the current context, and makes the clock's events; a failure to
// load is returned, with the compiler's log in gpuc_jit_log, for the
// caller to report.
inline CUresult gpuc_device_load(const char *ptx) {
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {gpuc_jit_log, (void *)(uintptr_t)sizeof gpuc_jit_log};
  CUresult err = cuModuleLoadDataEx(&gpuc_module, ptx, 2, opts, vals);
  if (err != CUDA_SUCCESS) return err;
  GPUC_CU(cuEventCreate(&gpuc_clock[0], CU_EVENT_DEFAULT));
  GPUC_CU(cuEventCreate(&gpuc_clock[1], CU_EVENT_DEFAULT));
  return CUDA_SUCCESS;
}

// gpuc_device_start makes the context current and loads the PTX; a
// failure shows the compiler's log.
inline void gpuc_device_start(const char *ptx) {
  gpuc_device_context();
  CUresult err = gpuc_device_load(ptx);
  if (err != CUDA_SUCCESS) {
    fprintf(stderr, "%s", gpuc_jit_log);
    gpuc_cu_check(err, "cuModuleLoadDataEx");
  }
}

#ifndef GPUC_HYBRID
inline void gpuc_clock_start(void) { GPUC_CU(cuEventRecord(gpuc_clock[0], nullptr)); }

// gpuc_clock_stop returns the milliseconds since gpuc_clock_start.
inline double gpuc_clock_stop(void) {
  float ms = 0;
  GPUC_CU(cuEventRecord(gpuc_clock[1], nullptr));
  GPUC_CU(cuEventSynchronize(gpuc_clock[1]));
  GPUC_CU(cuEventElapsedTime(&ms, gpuc_clock[0], gpuc_clock[1]));
  return ms;
}
#endif

// The host holds device addresses as pointers.
inline CUdeviceptr gpuc_cu_ptr(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

// A hybrid program (hybrid.h) has a point, memory primitives that reach
// either side and the host's clock of its own.
#ifndef GPUC_HYBRID
// gpuc_hybrid is a hybrid point (Note [Hybrid points] in ir/expr.go): a
// program on the GPU alone stays there, and its data on the device.
inline long long gpuc_hybrid(long long work, long long) { return work; }
inline bool gpuc_hybrid_on_device(void) { return true; }

// Device memory primitives, for gpuc_device.h. The host holds device
// addresses as pointers.
inline void *gpuc_device_alloc(size_t n) {
  CUdeviceptr p = 0;
  GPUC_CU(cuMemAlloc(&p, n));
  return (void *)(uintptr_t)p;
}
inline void gpuc_device_free(void *p) { GPUC_CU(cuMemFree(gpuc_cu_ptr(p))); }
inline void gpuc_device_zero(void *p, size_t n) {
  if (n > 0) GPUC_CU(cuMemsetD8(gpuc_cu_ptr(p), 0, n));
}
inline void gpuc_to_host(void *dst, const void *src, size_t n) {
  if (n > 0) GPUC_CU(cuMemcpyDtoH(dst, gpuc_cu_ptr(src), n));
}
inline void gpuc_to_device(void *dst, const void *src, size_t n) {
  if (n > 0) GPUC_CU(cuMemcpyHtoD(gpuc_cu_ptr(dst), src, n));
}
inline void gpuc_on_device(void *dst, const void *src, size_t n) {
  if (n > 0) GPUC_CU(cuMemcpyDtoD(gpuc_cu_ptr(dst), gpuc_cu_ptr(src), n));
}
inline unsigned long long gpuc_free_memory(void) {
  size_t free_bytes = 0, total = 0;
  gpuc_device_context();
  GPUC_CU(cuMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

#endif

// gpuc_device_global finds a module global of at least n bytes: a
// constant buffer or the error word.
inline void *gpuc_device_global(const char *name, size_t n) {
  CUdeviceptr p = 0;
  size_t size = 0;
  GPUC_CU(cuModuleGetGlobal(&p, &size, gpuc_module, name));
  if (size < n) gpuc_fail("module global %s has %zu bytes, want %zu", name, size, n);
  return (void *)(uintptr_t)p;
}

// gpuc_launchable checks a launch's geometry and reports whether there is
// anything to run (grid 0 launches nothing). It raises the kernel's limit
// of dynamic shared memory where the launch needs more than 48 KiB.
inline bool gpuc_launchable(CUfunction kernel, const char *name, const char *pos, long long grid, long long block, size_t smem) {
  if (!gpuc_check_geometry(pos, grid, block)) return false;
  int most = 0;
  GPUC_CU(cuFuncGetAttribute(&most, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, kernel));
  if (block > most)
    gpuc_fail("launch %s: block size %lld is more than the %d threads a block of this kernel can have (gpuc compiles "
              "each kernel for the blocks its launches have at the parameters' defaults; gpuc compile FILE NAME=VALUE "
              "sets a default)",
              name, block, most);
  if (smem > 48 * 1024)
    GPUC_CU(cuFuncSetAttribute(kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem));
  return true;
}
