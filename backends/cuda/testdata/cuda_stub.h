// cuda_stub.h: just enough of CUDA's declarations for a plain C++
// compiler to check the programs that the CUDA backend writes:
//
//	g++ -std=c++17 -fsyntax-only -include cuda_stub.h prog.cu
//
// Nothing here runs. Declarations follow cuda_runtime.h's signatures, so
// that argument types are checked as nvcc would check them. Define
// __CUDA_ARCH__ as well to check the device side of __host__ __device__
// helpers.
#include <stddef.h>

#define __CUDACC__ 1
#define GPUC_CUDA_STUB 1
#define __global__
#define __device__
#define __host__
#define __constant__
#define __shared__
#define __align__(n) __attribute__((aligned(n)))

// g++ cannot parse kernel<<<grid, block, smem>>>(args): call the kernel.
#define GPUC_LAUNCH(kernel, grid, block, smem) kernel

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};
struct uint4 {
  unsigned x, y, z, w;
};
uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w);
extern uint3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;

enum cudaError_t { cudaSuccess = 0 };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost,
  cudaMemcpyHostToDevice,
  cudaMemcpyDeviceToHost,
  cudaMemcpyDeviceToDevice,
  cudaMemcpyDefault
};
#define __launch_bounds__(...)
struct cudaFuncAttributes {
  int maxThreadsPerBlock;
};
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func);
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUstream_st *cudaStream_t;

const char *cudaGetErrorString(cudaError_t error);
cudaError_t cudaGetLastError(void);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaMemGetInfo(size_t *free, size_t *total);
#define cudaHostAllocMapped 0x02
cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
template <class T> cudaError_t cudaMalloc(T **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream = 0);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream = 0);
template <class T>
cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice);
template <class T>
cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
template <class T> cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol);
template <class T> cudaError_t cudaFuncSetAttribute(T *entry, cudaFuncAttribute attr, int value);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
#define cudaStreamNonBlocking 0x01
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
#define cudaEventDisableTiming 0x02
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

void __syncthreads(void);

enum cudaLimit { cudaLimitStackSize };
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);

// Cooperative launches.
enum cudaDeviceAttr {
  cudaDevAttrMultiProcessorCount,
  cudaDevAttrCooperativeLaunch,
  cudaDevAttrComputeCapabilityMajor,
  cudaDevAttrComputeCapabilityMinor
};
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
template <class T> cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, T func, int block, size_t smem);
enum cudaLaunchAttributeID { cudaLaunchAttributeCooperative };
union cudaLaunchAttributeValue {
  int cooperative;
};
struct cudaLaunchAttribute {
  cudaLaunchAttributeID id;
  cudaLaunchAttributeValue val;
};
struct cudaLaunchConfig_t {
  dim3 gridDim, blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned numAttrs;
};
template <typename... P, typename... A> cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(P...), A &&...args);
namespace cooperative_groups {
struct grid_group {
  void sync();
};
grid_group this_grid();
}
float __fmul_rn(float x, float y);
double __dmul_rn(double x, double y);
long long __double_as_longlong(double x);
double __longlong_as_double(long long x);

#define GPUC_STUB_ATOMIC2(name, T) T name(T *address, T val);
#define GPUC_STUB_ATOMIC_INTS(name)                                                                                    \
  GPUC_STUB_ATOMIC2(name, int)                                                                                         \
  GPUC_STUB_ATOMIC2(name, unsigned)                                                                                    \
  GPUC_STUB_ATOMIC2(name, unsigned long long)
GPUC_STUB_ATOMIC_INTS(atomicAdd)
GPUC_STUB_ATOMIC2(atomicAdd, float)
GPUC_STUB_ATOMIC2(atomicAdd, double)
GPUC_STUB_ATOMIC2(atomicSub, int)
GPUC_STUB_ATOMIC2(atomicSub, unsigned)
GPUC_STUB_ATOMIC_INTS(atomicMin)
GPUC_STUB_ATOMIC2(atomicMin, long long)
GPUC_STUB_ATOMIC_INTS(atomicMax)
GPUC_STUB_ATOMIC2(atomicMax, long long)
GPUC_STUB_ATOMIC_INTS(atomicAnd)
GPUC_STUB_ATOMIC_INTS(atomicOr)
GPUC_STUB_ATOMIC_INTS(atomicXor)
GPUC_STUB_ATOMIC_INTS(atomicExch)
GPUC_STUB_ATOMIC2(atomicExch, float)
unsigned atomicInc(unsigned *address, unsigned val);
int atomicCAS(int *address, int compare, int val);
unsigned atomicCAS(unsigned *address, unsigned compare, unsigned val);
unsigned long long atomicCAS(unsigned long long *address, unsigned long long compare, unsigned long long val);
int atomicCAS_system(int *address, int compare, int val);
unsigned long long atomicAdd_system(unsigned long long *address, unsigned long long val);
unsigned __activemask(void);
unsigned __match_any_sync(unsigned mask, unsigned long long value);
int __ffs(int x);
int __popc(unsigned x);
int __all_sync(unsigned mask, int predicate);
template <class T> T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32);
template <class T> T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32);
void __threadfence_system(void);
[[noreturn]] void __trap(void);
