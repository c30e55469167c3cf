// driver_decls.h: the CUDA driver API's declarations that a hybrid
// program uses, for a machine with a C++ compiler but no CUDA toolkit
// (Note [Hybrid programs without the toolkit]).
#if defined(__has_include)
#if __has_include(<cuda.h>)
#define GPUC_HAVE_CUDA_H 1
#endif
#endif
#ifdef GPUC_HAVE_CUDA_H
#include <cuda.h>
#else
// Note [Hybrid programs without the toolkit]
// A hybrid program finds the driver's calls in libcuda.so.1 with dlopen
// on its context thread (cudaLoader in hybrid.go), so it links against
// nothing of CUDA's and needs cuda.h only for the calls' types. Where
// the toolkit is not installed (a machine with the driver alone, or
// none: the program then runs on the host), these declarations stand
// in. They follow cuda.h's ABI: the enumerators' values, 64-bit
// device pointers, and the versioned symbols that cuda.h maps the
// memory calls to (cuMemAlloc is cuMemAlloc_v2: the unversioned ones
// take 32-bit sizes). The driver's ABI is stable across releases, so
// these hold for every driver the PTX can run on.
#include <stddef.h>
typedef enum cudaError_enum { CUDA_SUCCESS = 0 } CUresult;
typedef unsigned long long CUdeviceptr;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef enum CUjit_option_enum { CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 } CUjit_option;
typedef enum CUfunction_attribute_enum {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
} CUfunction_attribute;
typedef enum CUevent_flags_enum { CU_EVENT_DEFAULT = 0 } CUevent_flags;
#define cuModuleGetGlobal cuModuleGetGlobal_v2
#define cuMemGetInfo cuMemGetInfo_v2
#define cuMemAlloc cuMemAlloc_v2
#define cuMemFree cuMemFree_v2
#define cuMemcpyHtoD cuMemcpyHtoD_v2
#define cuMemcpyDtoH cuMemcpyDtoH_v2
#define cuMemcpyDtoD cuMemcpyDtoD_v2
#define cuMemsetD8 cuMemsetD8_v2
extern "C" {
CUresult cuGetErrorString(CUresult error, const char **str);
CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetCount(int *count);
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int n, CUjit_option *options, void **values);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule module, const char *name);
CUresult cuModuleGetGlobal(CUdeviceptr *ptr, size_t *bytes, CUmodule module, const char *name);
CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes);
CUresult cuMemFree(CUdeviceptr ptr);
CUresult cuMemGetInfo(size_t *free_bytes, size_t *total);
CUresult cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t n);
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes);
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute attr, int value);
CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attr, CUfunction f);
CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
                        unsigned int bz, unsigned int shared, CUstream stream, void **params, void **extra);
CUresult cuEventCreate(CUevent *event, unsigned int flags);
}
#endif
