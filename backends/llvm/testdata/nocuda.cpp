// nocuda.cpp: a CUDA driver for TestHybridDrivers, built as
// libcuda.so.1, that finds no device. cuInit waits NOCUDA_MS
// milliseconds (0 by default) and fails, as on a machine without a GPU;
// the hybrid program must run on the CPU, and must not wait for it.
// NOCUDA_LOG names a file that cuInit creates, to tell that it ran.
// Every other call is a test failure, so it aborts (its arguments do not
// matter for that).
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

extern "C" int cuInit(unsigned) {
  const char *log = getenv("NOCUDA_LOG");
  if (log != nullptr) {
    FILE *f = fopen(log, "w");
    if (f != nullptr) fclose(f);
  }
  const char *ms = getenv("NOCUDA_MS");
  if (ms != nullptr) {
    long long n = atoll(ms);
    struct timespec ts = {(time_t)(n / 1000), (long)(n % 1000) * 1000000L};
    nanosleep(&ts, nullptr);
  }
  return 100;  // CUDA_ERROR_NO_DEVICE
}

extern "C" int cuGetErrorString(int, const char **s) {
  *s = "no CUDA-capable device is detected";
  return 0;
}

#define NOCUDA(name)                                                \
  extern "C" int name(void) {                                       \
    fprintf(stderr, "nocuda: %s called without a device\n", #name); \
    abort();                                                        \
  }
NOCUDA(cuDeviceGet)
NOCUDA(cuDeviceGetCount)
NOCUDA(cuDevicePrimaryCtxRetain)
NOCUDA(cuCtxSetCurrent)
NOCUDA(cuCtxSynchronize)
NOCUDA(cuModuleLoadDataEx)
NOCUDA(cuModuleGetFunction)
NOCUDA(cuEventCreate)
// cuda.h names these by their versioned symbols, the stub by the plain
// ones; the driver has both.
NOCUDA(cuModuleGetGlobal_v2)
NOCUDA(cuMemAlloc_v2)
NOCUDA(cuMemFree_v2)
NOCUDA(cuMemsetD8_v2)
NOCUDA(cuMemcpyHtoD_v2)
NOCUDA(cuMemcpyDtoH_v2)
NOCUDA(cuMemcpyDtoD_v2)
NOCUDA(cuModuleGetGlobal)
NOCUDA(cuMemAlloc)
NOCUDA(cuMemFree)
NOCUDA(cuMemsetD8)
NOCUDA(cuMemcpyHtoD)
NOCUDA(cuMemcpyDtoH)
NOCUDA(cuMemcpyDtoD)
NOCUDA(cuFuncGetAttribute)
NOCUDA(cuFuncSetAttribute)
NOCUDA(cuLaunchKernel)
NOCUDA(cuMemGetInfo)
NOCUDA(cuMemGetInfo_v2)
