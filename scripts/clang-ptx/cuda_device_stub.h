// cuda_device_stub.h: enough of CUDA for clang-16 --cuda-device-only -S to
// turn a generated .cu into PTX without a CUDA SDK (scripts/clang-ptx.sh).
// Host calls are declared only; device intrinsics map to clang builtins.
#include <stddef.h>
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
#define __constant__ __attribute__((constant))
#define __shared__ __attribute__((shared))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __align__(n) __attribute__((aligned(n)))
#include "__clang_cuda_builtin_vars.h"
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};
struct uint4 { unsigned x, y, z, w; };
__host__ __device__ inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

enum cudaError_t { cudaSuccess = 0 };
cudaError_t cudaConfigureCall(dim3 g, dim3 b, size_t s = 0, cudaStream_t st = 0);
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
struct cudaFuncAttributes { int maxThreadsPerBlock; };
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func);
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
const char *cudaGetErrorString(cudaError_t error);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaMallocHost(void **p, size_t size);
cudaError_t cudaMemGetInfo(size_t *free, size_t *total);
#define cudaHostAllocMapped 0x02
#define cudaHostAllocDefault 0
cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
template <class T> cudaError_t cudaMalloc(T **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream = 0);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream = 0);
template <class T> cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0, cudaMemcpyKind kind = cudaMemcpyHostToDevice);
template <class T> cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0, cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
template <class T> cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count, size_t offset = 0, cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t s = 0);
template <class T> cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol);
template <class T> cudaError_t cudaFuncSetAttribute(T *entry, cudaFuncAttribute attr, int value);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
#define cudaStreamNonBlocking 0x01
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
#define cudaEventDisableTiming 0x02
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
enum cudaLimit { cudaLimitStackSize };
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount, cudaDevAttrCooperativeLaunch, cudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMinor };
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
template <class T> cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, T func, int block, size_t smem);
enum cudaLaunchAttributeID { cudaLaunchAttributeCooperative };
union cudaLaunchAttributeValue { int cooperative; };
struct cudaLaunchAttribute { cudaLaunchAttributeID id; cudaLaunchAttributeValue val; };
struct cudaLaunchConfig_t { dim3 gridDim, blockDim; size_t dynamicSmemBytes; cudaStream_t stream; cudaLaunchAttribute *attrs; unsigned numAttrs; };
template <typename... P, typename... A> cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(P...), A &&...args);
cudaError_t cudaLaunchCooperativeKernel(const void *f, dim3 g, dim3 b, void **args, size_t smem = 0, cudaStream_t s = 0);

#define GPUC_A(name, T, op) __device__ inline T name(T *p, T v) { return __atomic_##op(p, v, __ATOMIC_RELAXED); }
#define GPUC_AI(name, op) GPUC_A(name, int, op) GPUC_A(name, unsigned, op) GPUC_A(name, unsigned long long, op) GPUC_A(name, long long, op)
GPUC_AI(atomicAdd, fetch_add)
GPUC_AI(atomicSub, fetch_sub)
GPUC_AI(atomicOr, fetch_or)
GPUC_AI(atomicAnd, fetch_and)
GPUC_AI(atomicXor, fetch_xor)
GPUC_AI(atomicExch, exchange_n)
__device__ inline float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
__device__ inline double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
__device__ inline int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
__device__ inline unsigned atomicMin(unsigned *p, unsigned v) { return __nvvm_atom_min_gen_ui(p, v); }
__device__ inline long long atomicMin(long long *p, long long v) { return __nvvm_atom_min_gen_ll(p, v); }
__device__ inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v) { return __nvvm_atom_min_gen_ull(p, v); }
__device__ inline int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
__device__ inline unsigned atomicMax(unsigned *p, unsigned v) { return __nvvm_atom_max_gen_ui(p, v); }
__device__ inline long long atomicMax(long long *p, long long v) { return __nvvm_atom_max_gen_ll(p, v); }
__device__ inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v) { return __nvvm_atom_max_gen_ull(p, v); }
template <class T> __device__ inline T atomicCAS(T *p, T c, T v) { __atomic_compare_exchange_n(p, &c, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); return c; }
__device__ inline int atomicCAS_system(int *p, int c, int v) { return __nvvm_atom_sys_cas_gen_i(p, c, v); }
__device__ inline unsigned atomicInc(unsigned *p, unsigned v) { return __nvvm_atom_inc_gen_ui(p, v); }
__device__ inline unsigned __activemask(void) { unsigned m; asm volatile("activemask.b32 %0;" : "=r"(m)); return m; }
__device__ inline unsigned __match_any_sync(unsigned m, unsigned long long v) { return __nvvm_match_any_sync_i64(m, v); }
__device__ inline unsigned __match_any_sync(unsigned m, unsigned v) { return __nvvm_match_any_sync_i32(m, v); }
__device__ inline unsigned __match_any_sync(unsigned m, int v) { return __nvvm_match_any_sync_i32(m, v); }
__device__ inline int __ffs(int x) { return __builtin_ffs(x); }
__device__ inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }
__device__ inline int __popc(unsigned x) { return __builtin_popcount(x); }
__device__ inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__device__ inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
__device__ inline int __all_sync(unsigned m, int p) { return __nvvm_vote_all_sync(m, p); }
__device__ inline int __any_sync(unsigned m, int p) { return __nvvm_vote_any_sync(m, p); }
__device__ inline unsigned __ballot_sync(unsigned m, int p) { return __nvvm_vote_ballot_sync(m, p); }
__device__ inline int __shfl_sync(unsigned m, int v, int l, int w = 32) { return __nvvm_shfl_sync_idx_i32(m, v, l, ((32 - w) << 8) | 0x1f); }
__device__ inline unsigned __shfl_sync(unsigned m, unsigned v, int l, int w = 32) { return (unsigned)__shfl_sync(m, (int)v, l, w); }
__device__ inline long long __shfl_sync(unsigned m, long long v, int l, int w = 32) { int lo = __shfl_sync(m, (int)v, l, w), hi = __shfl_sync(m, (int)(v >> 32), l, w); return ((long long)hi << 32) | (unsigned)lo; }
__device__ inline unsigned long long __shfl_sync(unsigned m, unsigned long long v, int l, int w = 32) { return (unsigned long long)__shfl_sync(m, (long long)v, l, w); }
__device__ inline float __shfl_sync(unsigned m, float v, int l, int w = 32) { return __nvvm_shfl_sync_idx_f32(m, v, l, ((32 - w) << 8) | 0x1f); }
__device__ inline double __shfl_sync(unsigned m, double v, int l, int w = 32) { long long x = __builtin_bit_cast(long long, v); return __builtin_bit_cast(double, __shfl_sync(m, x, l, w)); }
__device__ inline int __shfl_xor_sync(unsigned m, int v, int l, int w = 32) { return __nvvm_shfl_sync_bfly_i32(m, v, l, ((32 - w) << 8) | 0x1f); }
__device__ inline unsigned __shfl_xor_sync(unsigned m, unsigned v, int l, int w = 32) { return (unsigned)__shfl_xor_sync(m, (int)v, l, w); }
__device__ inline long long __shfl_xor_sync(unsigned m, long long v, int l, int w = 32) { int lo = __shfl_xor_sync(m, (int)v, l, w), hi = __shfl_xor_sync(m, (int)(v >> 32), l, w); return ((long long)hi << 32) | (unsigned)lo; }
__device__ inline unsigned long long __shfl_xor_sync(unsigned m, unsigned long long v, int l, int w = 32) { return (unsigned long long)__shfl_xor_sync(m, (long long)v, l, w); }
__device__ inline float __shfl_xor_sync(unsigned m, float v, int l, int w = 32) { return __nvvm_shfl_sync_bfly_f32(m, v, l, ((32 - w) << 8) | 0x1f); }
__device__ inline double __shfl_xor_sync(unsigned m, double v, int l, int w = 32) { long long x = __builtin_bit_cast(long long, v); return __builtin_bit_cast(double, __shfl_xor_sync(m, x, l, w)); }
__device__ inline void __threadfence_system(void) { __nvvm_membar_sys(); }
__device__ inline void __threadfence(void) { __nvvm_membar_gl(); }
__device__ inline int __syncthreads_or(int p) { return __nvvm_bar0_or(p); }
__device__ inline int __syncthreads_and(int p) { return __nvvm_bar0_and(p); }
__device__ inline int __syncthreads_count(int p) { return __nvvm_bar0_popc(p); }
__device__ inline void __nanosleep(unsigned ns) { asm volatile("nanosleep.u32 %0;" :: "r"(ns)); }
[[noreturn]] __device__ inline void __trap(void) { __builtin_trap(); }
__device__ inline float __fmul_rn(float x, float y) { return __nvvm_mul_rn_f(x, y); }
__device__ inline double __dmul_rn(double x, double y) { return __nvvm_mul_rn_d(x, y); }
__host__ __device__ inline long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
__host__ __device__ inline double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
