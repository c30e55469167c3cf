// cpu.h: the device side of a host program that runs the LLVM backend's
// --target=host kernels on the CPU, pasted after gpuc_runtime.h and before
// gpuc_device.h. Device memory is host memory, and a launch is a call of
// the kernel's function, which runs every block and thread in turn.
#include <time.h>
#include <unistd.h>

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

// gpuc_free_memory is the physical memory available for device buffers:
// MemAvailable of /proc/meminfo, which counts the page cache that the
// kernel would give up, or where there is none the free pages.
inline unsigned long long gpuc_free_memory(void) {
  if (FILE *f = fopen("/proc/meminfo", "r")) {
    char line[256];
    unsigned long long kib = 0;
    bool found = false;
    while (!found && fgets(line, sizeof line, f) != nullptr) found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    fclose(f);
    if (found) return kib * 1024;
  }
  long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (unsigned long long)pages * (unsigned long long)size : 0;
}

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
