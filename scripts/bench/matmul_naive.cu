// A hand-written naive CUDA matrix multiplication, one thread per element
// of C, the comparison for examples/fork/matmul.fork in
// scripts/bench-fork.sh. It prints what the Fork program prints, and the
// device time of initialisation, multiplication and checksum on stderr.
#include <cstdio>
#include <cstdlib>
#include <cstring>

__device__ int entry(int i, int j, int k) { return (i * k + j * (k + 2)) % 7 - 3; }

__global__ void init(int *A, int *B, int n) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n * n) {
    A[e] = entry(e / n, e % n, 1);
    B[e] = entry(e / n, e % n, 2);
  }
}

__global__ void mul(const int *A, const int *B, int *C, unsigned long long *checksum, int n) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n * n) return;
  int i = e / n, j = e % n, sum = 0;
  for (int k = 0; k < n; k++) sum += A[i * n + k] * B[k * n + j];
  C[e] = sum;
  atomicAdd(checksum, (unsigned long long)((long long)sum * (i + 2 * j + 1)));
}

int main(int argc, char **argv) {
  int n = 64;
  for (int a = 1; a < argc; a++)
    if (strncmp(argv[a], "N=", 2) == 0) n = atoi(argv[a] + 2);
  int *A, *B, *C;
  unsigned long long *sum;
  cudaMalloc(&A, sizeof(int) * n * n);
  cudaMalloc(&B, sizeof(int) * n * n);
  cudaMalloc(&C, sizeof(int) * n * n);
  cudaMalloc(&sum, sizeof *sum);
  cudaMemset(sum, 0, sizeof *sum);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  cudaEventRecord(t0);
  int threads = 256, blocks = (n * n + threads - 1) / threads;
  init<<<blocks, threads>>>(A, B, n);
  mul<<<blocks, threads>>>(A, B, C, sum, n);
  cudaEventRecord(t1);
  cudaEventSynchronize(t1);
  float ms = 0;
  cudaEventElapsedTime(&ms, t0, t1);
  int c00, cnn;
  unsigned long long s;
  cudaMemcpy(&c00, C, sizeof c00, cudaMemcpyDeviceToHost);
  cudaMemcpy(&cnn, C + (size_t)n * n - 1, sizeof cnn, cudaMemcpyDeviceToHost);
  cudaMemcpy(&s, sum, sizeof s, cudaMemcpyDeviceToHost);
  if (cudaGetLastError() != cudaSuccess) return 1;
  printf("C[0][0] = %d, C[%d][%d] = %d\n", c00, n - 1, n - 1, cnn);
  printf("checksum %ld\n", (long)s);
  fprintf(stderr, "naive: %.3f ms\n", ms);
  return 0;
}
