// The streaming bandwidth that scripts/bench-pe.sh holds the carving scan
// against: one read of a buffer of N bytes (the image's size), 16 bytes a
// thread per step, grid-stride, as fast as the device reads memory. It
// prints "stream: X ms, Y GB/s", the best of five runs.
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void stream(const uint4 *p, long long n, unsigned *sink) {
  unsigned acc = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) atomicAdd(sink, 1u); // keeps the loads
}

int main(int argc, char **argv) {
  long long bytes = 1LL << 32;
  for (int a = 1; a < argc; a++)
    if (strncmp(argv[a], "N=", 2) == 0) bytes = atoll(argv[a] + 2);
  long long n = bytes / 16;
  uint4 *p;
  unsigned *sink;
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (cudaMalloc(&p, n * 16) != cudaSuccess || cudaMalloc(&sink, sizeof *sink) != cudaSuccess) {
    fprintf(stderr, "stream: cannot allocate %lld bytes\n", bytes);
    return 1;
  }
  cudaMemset(p, 1, n * 16);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  float best = 1e30f;
  for (int r = 0; r < 5; r++) {
    cudaEventRecord(t0);
    stream<<<sms * 8, 256>>>(p, n, sink);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    if (ms < best) best = ms;
  }
  if (cudaGetLastError() != cudaSuccess) {
    fprintf(stderr, "stream: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  printf("stream: %.3f ms, %.1f GB/s\n", best, bytes / (best * 1e6));
  return 0;
}
