// nocuda.cpp: a CUDA driver for TestHybridNoDevice that finds no device.
// cuInit waits NOCUDA_MS milliseconds (0 by default) and fails, as on a
// machine without a GPU; the program must run on the CPU, and must not
// wait for it. Every other call is a test failure. The stub cuda.h
// declares the calls with C++ linkage, and so does this file.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

CUresult cuInit(unsigned int) {
  const char *ms = getenv("NOCUDA_MS");
  if (ms != nullptr) {
    long long n = atoll(ms);
    struct timespec ts = {(time_t)(n / 1000), (long)(n % 1000) * 1000000L};
    nanosleep(&ts, nullptr);
  }
  return (CUresult)100;  // CUDA_ERROR_NO_DEVICE
}
CUresult cuGetErrorString(CUresult, const char **s) {
  *s = "no CUDA-capable device is detected";
  return CUDA_SUCCESS;
}

#define NOCUDA(name, ...)                                           \
  CUresult name(__VA_ARGS__) {                           \
    fprintf(stderr, "nocuda: %s called without a device\n", #name); \
    abort();                                                        \
  }
NOCUDA(cuDeviceGet, CUdevice *, int)
NOCUDA(cuDeviceGetCount, int *)
NOCUDA(cuDevicePrimaryCtxRetain, CUcontext *, CUdevice)
NOCUDA(cuCtxSetCurrent, CUcontext)
NOCUDA(cuCtxSynchronize, void)
NOCUDA(cuModuleLoadDataEx, CUmodule *, const void *, unsigned int, CUjit_option *, void **)
NOCUDA(cuModuleGetFunction, CUfunction *, CUmodule, const char *)
NOCUDA(cuModuleGetGlobal, CUdeviceptr *, size_t *, CUmodule, const char *)
NOCUDA(cuEventCreate, CUevent *, unsigned int)
NOCUDA(cuMemAlloc, CUdeviceptr *, size_t)
NOCUDA(cuMemFree, CUdeviceptr)
NOCUDA(cuMemsetD8, CUdeviceptr, unsigned char, size_t)
NOCUDA(cuMemcpyHtoD, CUdeviceptr, const void *, size_t)
NOCUDA(cuMemcpyDtoH, void *, CUdeviceptr, size_t)
NOCUDA(cuMemcpyDtoD, CUdeviceptr, CUdeviceptr, size_t)
NOCUDA(cuFuncGetAttribute, int *, CUfunction_attribute, CUfunction)
NOCUDA(cuFuncSetAttribute, CUfunction, CUfunction_attribute, int)
NOCUDA(cuLaunchKernel, CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **)
