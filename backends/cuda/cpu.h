// cpu.h: the device side of a host program that runs the LLVM backend's
// --target=host kernels on the CPU, pasted after gpuc_runtime.h and before
// gpuc_device.h. Device memory is host memory, and a launch is a call of
// the kernel's function, which runs every block and thread in turn.
#include <time.h>

// Device memory primitives, for gpuc_device.h.
inline void *gpuc_device_alloc(size_t n) {
  void *p = calloc(n, 1);
  if (p == nullptr) gpuc_fail("out of memory for %zu bytes of device memory", n);
  return p;
}
inline void gpuc_device_free(void *p) { free(p); }
inline void gpuc_device_zero(void *p, size_t n) { memset(p, 0, n); }
inline void gpuc_to_host(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
inline void gpuc_to_device(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
inline void gpuc_on_device(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }

// gpuc_shared_area returns n bytes for the shared buffers of a launch's
// blocks, which the kernel zeroes for each block; malloc aligns them to
// 16 bytes, as package abi wants.
inline unsigned char *gpuc_shared_area(size_t n) {
  static unsigned char *area = nullptr;
  static size_t cap = 0;
  if (n > cap) {
    free(area);
    area = (unsigned char *)malloc(n);
    if (area == nullptr) gpuc_fail("out of memory for %zu bytes of shared memory", n);
    cap = n;
  }
  return area;
}

// The clock measures wall time, as the device's work runs on this thread.
static double gpuc_clock_t0;
inline double gpuc_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
inline void gpuc_clock_start(void) { gpuc_clock_t0 = gpuc_now_ms(); }
inline double gpuc_clock_stop(void) { return gpuc_now_ms() - gpuc_clock_t0; }
