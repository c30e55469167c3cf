// fakecuda.cpp: a CUDA driver for TestHybridFakeDevice, built as
// libcuda.so.1, whose device is the host. Device memory is host memory;
// a module is its PTX text, which tells each kernel's parameter count;
// and a launch calls the kernel's --target=host function in the program
// (found with dlsym: the program is linked with -rdynamic) over every
// block, with the arguments that cuLaunchKernel passes. Each argument is
// read as 8 bytes: the TRS kernels take integers and pointers only,
// which the x86-64 calling convention passes in 8-byte slots, using
// only the low bytes of a narrower integer, and a caller may pass more
// arguments than a function takes. So the hybrid program's GPU side, its
// moves and its launches, runs here without a GPU.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <map>
#include <string>

namespace {
std::string ptx;
struct kernel {
  void *host;
  int params;
};
const int most = 40;
typedef int (*hostfn)(int, int, unsigned char *, int, int, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long, long);
}  // namespace

extern "C" {
int cuInit(unsigned) { return 0; }
int cuGetErrorString(int, const char **s) {
  *s = "fakecuda: unsupported";
  return 0;
}
int cuDeviceGetCount(int *n) {
  *n = 1;
  return 0;
}
int cuDeviceGet(int *d, int) {
  *d = 0;
  return 0;
}
// FAKECUDA_EXIT_MS makes the context's teardown at exit take that many
// milliseconds, as a real driver's does (Note [Detached exit] in
// backends/cuda/detach.h).
static void fake_teardown(void) {
  const long long n = atoll(getenv("FAKECUDA_EXIT_MS"));
  struct timespec ts = {(time_t)(n / 1000), (long)(n % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}
int cuDevicePrimaryCtxRetain(void **c, int) {
  *c = (void *)&ptx;
  if (getenv("FAKECUDA_EXIT_MS") != nullptr) atexit(fake_teardown);
  return 0;
}
int cuCtxSetCurrent(void *) { return 0; }
int cuCtxSynchronize(void) { return 0; }
int cuEventCreate(void **e, unsigned) {
  *e = nullptr;
  return 0;
}
// FAKECUDA_JIT_FAIL: the driver's compiler refuses the PTX, as a driver
// older than the PTX's ISA does (CUDA_ERROR_INVALID_PTX), with a log.
int cuModuleLoadDataEx(void **m, const void *image, unsigned n, int *opts, void **vals) {
  if (getenv("FAKECUDA_JIT_FAIL") != nullptr) {
    for (unsigned i = 0; i < n; i++)
      if (opts[i] == 5) snprintf((char *)vals[i], 64, "ptxas fatal   : fakecuda refuses the PTX\n");  // CU_JIT_ERROR_LOG_BUFFER
    return 218;
  }
  ptx = (const char *)image;
  *m = (void *)&ptx;
  return 0;
}
int cuModuleGetFunction(void **f, void *, const char *name) {
  size_t at = ptx.find(std::string(".entry ") + name + "(");
  if (at == std::string::npos) return 500;
  size_t end = ptx.find(')', at);
  int n = 0;
  for (size_t p = ptx.find(".param", at); p != std::string::npos && p < end; p = ptx.find(".param", p + 1)) n++;
  void *host = dlsym(RTLD_DEFAULT, name);
  if (host == nullptr || n > most) return 500;
  *f = new kernel{host, n};
  return 0;
}
// Module globals: the error words, zeroed words of the device's own.
int cuModuleGetGlobal(unsigned long long *p, size_t *size, void *, const char *name) {
  static std::map<std::string, void *> globals;
  void *&g = globals[name];
  if (g == nullptr) g = calloc(4096, 1);
  *p = (unsigned long long)(size_t)g;
  if (size != nullptr) *size = 4096;
  return 0;
}
int cuMemAlloc(unsigned long long *p, size_t n) {
  *p = (unsigned long long)(size_t)calloc(n, 1);
  return *p == 0 ? 2 : 0;
}
int cuMemFree(unsigned long long p) {
  free((void *)(size_t)p);
  return 0;
}
int cuMemsetD8(unsigned long long p, unsigned char v, size_t n) {
  memset((void *)(size_t)p, v, n);
  return 0;
}
int cuMemcpyHtoD(unsigned long long d, const void *s, size_t n) {
  memcpy((void *)(size_t)d, s, n);
  return 0;
}
int cuMemcpyDtoH(void *d, unsigned long long s, size_t n) {
  memcpy(d, (const void *)(size_t)s, n);
  return 0;
}
int cuMemcpyDtoD(unsigned long long d, unsigned long long s, size_t n) {
  memmove((void *)(size_t)d, (const void *)(size_t)s, n);
  return 0;
}
// A small device: the parameters fitted to it (HYBRID=0) stay small, and
// so do the spares that a move zeroes.
int cuMemGetInfo(size_t *free_bytes, size_t *total) {
  *free_bytes = *total = (size_t)64 << 20;
  return 0;
}
int cuFuncGetAttribute(int *v, int attr, void *) {
  *v = attr == 0 ? 1024 : 0;
  return 0;
}
int cuFuncSetAttribute(void *, int, int) { return 0; }
// FAKECUDA_LAUNCH_US=N makes each launch wait N us first, a GPU's
// latency, for the hybrid rule by time (Note [Migration by measured time]).
int cuLaunchKernel(void *f, unsigned gx, unsigned, unsigned, unsigned bx, unsigned, unsigned, unsigned smem, void *,
                   void **params, void **) {
  static const char *lat = getenv("FAKECUDA_LAUNCH_US");
  if (lat != nullptr) {
    struct timespec ts = {0, 1000L * atol(lat)};
    nanosleep(&ts, nullptr);
  }
  kernel *k = (kernel *)f;
  long a[most] = {0};
  for (int i = 0; i < k->params; i++) memcpy(&a[i], params[i], sizeof a[i]);
  unsigned char *shared = (unsigned char *)calloc(smem > 0 ? smem : 1, 1);
  ((hostfn)k->host)((int)gx, (int)bx, shared, 0, (int)gx, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                    a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23],
                    a[24], a[25], a[26], a[27], a[28], a[29], a[30], a[31], a[32], a[33], a[34], a[35], a[36], a[37],
                    a[38], a[39]);
  free(shared);
  return 0;
}
}
