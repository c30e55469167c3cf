// trs_gather.cu: the device's random-access (gather) bandwidth, the
// yardstick of the TRS paper's Table 3, for scripts/bench-trs.sh.
//
// Every thread reads 4-byte words at pseudo-random positions of a large
// array (a hash of its index, so that no index array is streamed) and
// adds them up; the sums go to memory so that nothing is optimised away.
// It prints the useful bandwidth (4 bytes per read) and the sector
// bandwidth (32 bytes per read, what DRAM moves for a lone random word),
// both in GiB/s, as the best of several runs.
//
//   nvcc -O3 -arch=sm_90 -o trs_gather trs_gather.cu && ./trs_gather [GiB]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err = (call);                                                         \
    if (err != cudaSuccess) {                                                         \
      fprintf(stderr, "trs_gather: %s: %s\n", #call, cudaGetErrorString(err));        \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

__device__ inline unsigned hash(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

__global__ void fill(unsigned *a, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    a[i] = (unsigned)i;
}

// gather: each thread makes reads random reads; mask = n - 1, n a power of 2.
__global__ void gather(const unsigned *a, unsigned mask, int reads, unsigned *sums) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned s = 0;
  for (int r = 0; r < reads; r++) s += a[hash(t * 1024u + (unsigned)r) & mask];
  sums[t] = s;
}

int main(int argc, char **argv) {
  int gib = argc > 1 ? atoi(argv[1]) : 4;
  size_t n = (size_t)gib << 28; // 4-byte words
  if (n == 0 || (n & (n - 1)) != 0 || n > (1ULL << 32)) {
    fprintf(stderr, "trs_gather: the array must be 1, 2, 4, 8 or 16 GiB\n");
    return 1;
  }
  unsigned *a, *sums;
  const int block = 256, grid = 132 * 16, reads = 256;
  const size_t threads = (size_t)grid * block;
  CHECK(cudaMalloc(&a, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&sums, threads * sizeof(unsigned)));
  fill<<<4096, 256>>>(a, n);
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  float best = 1e30f;
  for (int run = 0; run < 5; run++) {
    CHECK(cudaEventRecord(t0));
    gather<<<grid, block>>>(a, (unsigned)(n - 1), reads, sums);
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    if (ms < best) best = ms;
  }
  double words = (double)threads * reads;
  double gibs = words * 4 / (best / 1e3) / (1ULL << 30);
  printf("gather %d GiB: %.0f random 4-byte reads in %.3f ms: %.1f GiB/s useful, %.1f GiB/s in 32-byte sectors\n",
         gib, words, best, gibs, gibs * 8);
  return 0;
}
