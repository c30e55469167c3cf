// gpuc_device.h: device buffers as the host program sees them, for every
// kind of device: the CUDA runtime API, the CUDA driver API and the CPU.
// It is pasted after the device's prelude, which defines the primitives
// it builds on:
//
//   void *gpuc_device_alloc(size_t n);                       at least one byte
//   void gpuc_device_free(void *p);
//   void gpuc_to_host(void *dst, const void *src, size_t n);    device to host
//   void gpuc_to_device(void *dst, const void *src, size_t n);  host to device
//   void gpuc_on_device(void *dst, const void *src, size_t n);  device to device, not overlapping
//   unsigned long long gpuc_free_memory(void);                  free bytes, for fitted parameters
//
// Device addresses are held as T *, which the host never dereferences.
#ifndef GPUC_DEVICE_H
#define GPUC_DEVICE_H

// gpuc_check_device_error reports an error raised on the device, if any.
// Each program defines it; it is empty where no device code raises. It
// asks the device only if a kernel ran since the last time
// (gpuc_device_ran), so that a program printing many lines does not pay
// a device round trip per line.
static void gpuc_check_device_error(void);

// gpuc_device_ran is set after every launch and cleared by
// gpuc_check_device_error.
[[maybe_unused]] static bool gpuc_device_ran = false;

// gpuc_alloc_size is the size to allocate for n bytes: devices need at
// least one.
inline size_t gpuc_alloc_size(size_t n) { return n > 0 ? n : 1; }

// gpuc_pool_add returns the size of a pool of total bytes with a buffer of
// n bytes added at the next 256-byte boundary (cudaMalloc aligns its own
// allocations so). A pool too large for size_t is an error.
inline size_t gpuc_pool_add(size_t total, size_t n) {
  const size_t a = (gpuc_alloc_size(n) + 255) & ~(size_t)255;
  if (a < n || total > (size_t)-1 - a) gpuc_fail("device buffers too large: more than %zu bytes in all", (size_t)-1);
  return total + a;
}

// gpuc_dev is a global or constant buffer as the host sees it: its device
// address, its length in elements and its name. Host code reads and writes
// single elements with get and set, checking the index.
template <typename T> struct gpuc_dev {
  T *ptr;
  long long len;
  const char *name;

  size_t bytes() const { return (size_t)len * sizeof(T); }
  // check checks index i; pos, if given, is where the access is, for the
  // interpreter's message.
  void check(long long i, const char *pos = nullptr) const {
    if (i >= 0 && i < len) return;
    if (pos != nullptr) gpuc_fail_line(pos, ": error: index %lld out of range for buffer %s of length %lld", i, name, len);
    gpuc_fail("index %lld out of range for buffer %s of length %lld", i, name, len);
  }
  T get(long long i, const char *pos = nullptr) const {
    check(i, pos);
    T v{};
    gpuc_to_host(&v, ptr + i, sizeof(T));
    gpuc_check_device_error();
    return v;
  }
  void set(long long i, T v, const char *pos = nullptr) const {
    check(i, pos);
    gpuc_to_device(ptr + i, &v, sizeof(T));
  }
};

// gpuc_copy copies n elements between device buffers and host arrays, with
// the range checks of the IR's copy statement.
template <typename T>
inline void gpuc_copy(gpuc_dev<T> &dst, long long doff, gpuc_dev<T> &src, long long soff, long long n, const char *pos) {
  gpuc_copy_count(n, pos);
  gpuc_copy_range("buffer", dst.name, dst.len, doff, n, pos);
  gpuc_copy_range("buffer", src.name, src.len, soff, n, pos);
  if (n == 0) return;
  size_t bytes = (size_t)n * sizeof(T);
  if (dst.ptr == src.ptr && doff != soff && (doff < soff ? soff - doff : doff - soff) < n) {
    // Overlapping ranges of one buffer: device copies leave them undefined.
    void *tmp = gpuc_device_alloc(bytes);
    gpuc_on_device(tmp, src.ptr + soff, bytes);
    gpuc_on_device(dst.ptr + doff, tmp, bytes);
    gpuc_device_free(tmp);
    return;
  }
  gpuc_on_device(dst.ptr + doff, src.ptr + soff, bytes);
}

template <typename T>
inline void gpuc_copy(gpuc_array<T> &dst, long long doff, gpuc_dev<T> &src, long long soff, long long n, const char *pos) {
  gpuc_copy_count(n, pos);
  gpuc_copy_range("array", dst.name, dst.len, doff, n, pos);
  gpuc_copy_range("buffer", src.name, src.len, soff, n, pos);
  if (n == 0) return;
  gpuc_to_host(dst.ptr + doff, src.ptr + soff, (size_t)n * sizeof(T));
  gpuc_check_device_error();
}

template <typename T>
inline void gpuc_copy(gpuc_dev<T> &dst, long long doff, gpuc_array<T> &src, long long soff, long long n, const char *pos) {
  gpuc_copy_count(n, pos);
  gpuc_copy_range("buffer", dst.name, dst.len, doff, n, pos);
  gpuc_copy_range("array", src.name, src.len, soff, n, pos);
  if (n == 0) return;
  gpuc_to_device(dst.ptr + doff, src.ptr + soff, (size_t)n * sizeof(T));
}

// Note [Writing from the device]
//
// Text formatted on the device (Note [Device formatting] in package ir) is
// written from the device buffer that holds it (the IR's write of a
// buffer): no host array as long as the text, whose pages fault in at the
// first touch, and no copy into pageable memory, which the driver stages
// through page-locked buffers of its own. The CUDA runtime's prelude
// copies the text through a ring of page-locked chunks, allocated before
// the clock (gpuc_write_init: they depend on no input, Note [Loading
// before the clock]), so that later chunks cross the bus while chunk i is
// written (Note [A ring as deep as the text] in the CUDA prelude): the
// write costs about the fwrite of the text and one chunk's copy. On
// the CPU the device buffer is host memory and is written as it is.
// Elsewhere (the driver API, hybrid programs) gpuc_write_device below
// copies the text chunk by chunk through one host buffer.
#ifndef GPUC_WRITE_DEVICE
inline void gpuc_write_device(const unsigned char *src, size_t n, const char *pos) {
  enum { chunk = 1 << 20 };
  static unsigned char *buf = nullptr;
  if (buf == nullptr && (buf = (unsigned char *)malloc(chunk)) == nullptr) gpuc_fail("out of host memory");
  for (size_t off = 0; off < n; off += chunk) {
    const size_t len = n - off < (size_t)chunk ? n - off : (size_t)chunk;
    gpuc_to_host(buf, src + off, len);
    if (fwrite(buf, 1, len, stdout) != len) gpuc_fail_line(pos, ": error: write of %zu bytes failed", n);
  }
}
#endif

// gpuc_write writes the first n bytes of a device buffer to standard
// output: the write statement of a buffer.
template <typename T>
inline void gpuc_write(gpuc_dev<T> &src, long long n, const char *pos) {
  static_assert(sizeof(T) == 1, "write takes a buffer of bytes");
  if (n < 0) gpuc_fail_line(pos, ": error: write of a negative count %lld", n);
  gpuc_copy_range("buffer", src.name, src.len, 0, n, pos);
  if (n > 0) gpuc_write_device((const unsigned char *)src.ptr, (size_t)n, pos);
}

// gpuc_fetch copies a buffer back into a calloc'd host array.
template <typename T> inline T *gpuc_fetch(const gpuc_dev<T> &b) {
  T *host = (T *)calloc(gpuc_alloc_size(b.bytes()), 1);
  if (host == nullptr) gpuc_fail("buffer %s: out of host memory (%lld elements)", b.name, b.len);
  gpuc_to_host(host, b.ptr, b.bytes());
  return host;
}

// gpuc_swap exchanges two device buffers of one type and length.
template <typename T> inline void gpuc_swap(gpuc_dev<T> &a, gpuc_dev<T> &b) {
  T *p = a.ptr;
  a.ptr = b.ptr;
  b.ptr = p;
}

#endif // GPUC_DEVICE_H
