// hybrid.h: the moves of hybrid points, pasted after cpu.h in the host
// build and in the hybrid program. The device's side is reached through
// hooks that each defines (cpu.h: a second host copy; the hybrid
// program: the GPU, through the driver API).
//
// Note [Hybrid migration]
//
// A hybrid point (Note [Hybrid points] in ir/expr.go) is where the
// program may move every global buffer's data to the other side: the
// host's memory, where the kernels' host versions run, or the device's.
// Each global buffer registers the address of its handle's pointer; a
// move copies the buffer into its spare on the other side, only the
// prefix below the most live that any point gave where the buffer's
// length is a parameter alone, and exchanges the two, so that launches,
// reads and copies after it reach the side that holds the data, and a
// swap of two handles stays a swap. Constant buffers are copied to the
// device once and never back. Elements past live, never written, are
// zero on both sides: calloc and the device's zeroing made them so.
//
// The program starts on the host at once. The hybrid program starts the
// CUDA context, the module and the kernels' handles on a thread of their
// own, once a point's work or the run's length asks for it (Note [Context
// on demand] in hybrid_cuda.h); until that thread is done the device is
// not ready. A program that
// ends on the host does not wait for it: it leaves with _exit, and the
// process that the user sees has exited already, when the output was
// done (Note [Detached exit] in detach.h).
//
// Settings, read at the first point:
//   HYBRID=cpu       never move;
//   HYBRID=0         move at the first point, waiting for the device, and
//                    stay (GPU only);
//   HYBRID_MIGRATE=every  move at every point, waiting for the device (a
//                    test of the moves);
//   HYBRID_START_MS  when the context thread starts at the latest (50; 0:
//                    at once), Note [Context on demand];
//   HYBRID_DEVICE=copy    (host build only) the stand-in device, a second
//                    host copy, is ready from the start, so that the rule
//                    below decides.
//   HYBRID_RULE=time  the rule by measured time (Note [Migration by
//                    measured time]); size, the rule by size alone, is
//                    the default: on one H100 (2026-11-27 00:10) the
//                    rule by time left fib32 on the host as the size
//                    rule did and took benchsym20 from 493 to 903 ms,
//                    and on a loaded machine it kept a run on a slow
//                    stand-in device (backends/llvm's tests).
// The rule, at each point, with work the point's value, asks to move at
// HYBRID_K (1) points in a row, up only where the device is ready: by
// measured time (Note [Migration by measured time] in hybrid_rule.h)
// where the side to move to was measured, else by size:
//   up, when on the host and work was at least HYBRID_UP (default 4096
//   per worker of GPUC_THREADS, or 4096 where launch sites choose their
//   workers, Note [Pool by measure] in cpu.h);
//   down, when on the device and work was below HYBRID_DOWN (default
//   16; set, it decides the moves down alone).
// HYBRID_UP is where a CPU core's 50 ns or so per rewrite, times the work
// over the workers, passes a GPU iteration's fixed cost of about 20 us
// (launches and the host's read of the list's size) by tenfold; these
// are estimates from docs/BENCHMARKS.md's figures. HYBRID_DOWN was
// HYBRID_UP / 8 (512 to 1024 on two cores) until measured: on one H100
// with two host cores (2026-11-26 21:26-21:30, docs/BENCHMARKS.md), REC
// programs that went down at such a point spent the rest on the host,
// where the GPU alone ran 3 to 10 times faster (fib32 8.7 s against
// 1.07 s GPU-only, benchsym20 1.39 s against 0.46, evalexpr 4.5 s against
// 0.7): a point's work is the list it starts from, and the iterations
// up to the next point (HYBRIDITER) fork far past it, so a small list
// is no sequential tail. At 16, benchsym20 took 0.76 s, evalexpr 0.55,
// benchexpr20 0.66 (1.5 by default), hanoi20 2.8 (3.9), binarysearch
// 25.0 (31.1), tak36 1.6 (1.3); never going down (HYBRID_DOWN=0) won
// more on some (fib32 0.86 s) and lost hanoi20 (6.6 s), whose tail is
// sequential. At 16 fib32 still went down and took 9.5 to 10.8 s, so
// since wave 9 the moves are by measured time, and the sizes decide only
// the first move up and where a side was not measured. HYBRID_K is 1
// because TRS's points are coarse: one at each change between its
// one-block loop and a region, each of which runs many iterations. A move up that finds too little device memory leaves
// the program on the host for good.
struct gpuc_hybrid_buf {
  void **ptr;          // the handle's pointer: the side that holds the data
  void *spare;         // the other side's copy, allocated at the first move
  size_t bytes;
  size_t elem;         // the element's size where live bounds the part in use, else 0
  const char *global;  // a constant buffer's module global, else nullptr
};
struct gpuc_hybrid_state {
  bool read = false;         // the settings are read
  int mode = 0;              // 0 auto, 1 cpu only, 2 device only, 3 move at every point
  bool on_device = false;    // the data is on the device's side
  bool entered = false;      // the device's side is set up
  bool failed = false;       // the device cannot take the data
  long long up = 0, down = 0, k = 1;
  long long run = 0;         // points in a row that asked to move
  long long points[2] = {0, 0};  // points passed on each side
  long long moves = 0;
  long long live = 0;        // the most live that a point gave
  gpuc_hybrid_meter meter;   // Note [Migration by measured time]
  int nbufs = 0, cap = 0;
  gpuc_hybrid_buf *bufs = nullptr;
};
static gpuc_hybrid_state gpuc_hy;

// gpuc_hybrid_register records a global buffer's handle; global names a
// constant buffer's module global.
inline void gpuc_hybrid_register(void **ptr, size_t bytes, size_t elem, const char *global = nullptr) {
  gpuc_hybrid_state &h = gpuc_hy;
  if (h.nbufs == h.cap) {
    h.cap = h.cap > 0 ? 2 * h.cap : 16;
    h.bufs = (gpuc_hybrid_buf *)realloc(h.bufs, (size_t)h.cap * sizeof *h.bufs);
    if (h.bufs == nullptr) gpuc_fail("out of memory for the hybrid buffers' list");
  }
  h.bufs[h.nbufs++] = gpuc_hybrid_buf{ptr, nullptr, bytes, elem, global};
}

// gpuc_hybrid_settings reads the settings of Note [Hybrid migration].
inline void gpuc_hybrid_settings(void) {
  gpuc_hybrid_state &h = gpuc_hy;
  h.read = true;
  const char *mode = getenv("HYBRID"), *move = getenv("HYBRID_MIGRATE"), *dev = getenv("HYBRID_DEVICE"), *rule = getenv("HYBRID_RULE");
  if (mode != nullptr && strcmp(mode, "cpu") == 0)
    h.mode = 1;
  else if (mode != nullptr && strcmp(mode, "0") == 0)
    h.mode = 2;
  else if (mode != nullptr && strcmp(mode, "1") != 0)
    gpuc_fail("HYBRID=%s: want 0 (GPU only), cpu (CPU only) or 1 (both, the default)", mode);
  if (move != nullptr && strcmp(move, "every") != 0) gpuc_fail("HYBRID_MIGRATE=%s: want every", move);
  if (move != nullptr) h.mode = 3;
  if (dev != nullptr && strcmp(dev, "copy") != 0) gpuc_fail("HYBRID_DEVICE=%s: want copy", dev);
  if (rule != nullptr && strcmp(rule, "size") != 0 && strcmp(rule, "time") != 0) gpuc_fail("HYBRID_RULE=%s: want size (the default) or time", rule);
  h.meter.by_size = rule == nullptr || strcmp(rule, "size") == 0;
  long long up = gpuc_env_count("HYBRID_UP", 1, 1LL << 40), down = gpuc_env_count("HYBRID_DOWN", 0, 1LL << 40);
  long long k = gpuc_env_count("HYBRID_K", 1, 1 << 20);
  h.up = up > 0 ? up : 4096LL * (gpuc_pool_get()->measure ? 1 : gpuc_pool_get()->workers);
  h.down = down >= 0 ? down : 16;
  h.meter.down_by_size = down >= 0;
  if (k > 0) h.k = k;
}

// gpuc_hybrid_spares allocates the device's side of every buffer, the
// first time the data goes up, and reports whether it could.
inline bool gpuc_hybrid_spares(void) {
  gpuc_hybrid_state &h = gpuc_hy;
  if (h.entered) return true;
  gpuc_hy_enter();
  for (int i = 0; i < h.nbufs; i++) {
    gpuc_hybrid_buf &b = h.bufs[i];
    if (b.global != nullptr) {
      b.spare = gpuc_hy_global(b.global, b.bytes);
      gpuc_hy_up(b.spare, *b.ptr, b.bytes);
      continue;
    }
    b.spare = gpuc_hy_alloc(b.bytes);
    if (b.spare == nullptr) {
      for (int j = 0; j < i; j++)
        if (h.bufs[j].global == nullptr) gpuc_hy_free(h.bufs[j].spare);
      for (int j = 0; j < i; j++) h.bufs[j].spare = nullptr;
      h.failed = true;
      return false;
    }
  }
  h.entered = true;
  return true;
}

// gpuc_check_device_error is the program's (gpuc_device.h).
static void gpuc_check_device_error(void);

// gpuc_hybrid_move moves every buffer's data to the other side, after
// reporting an error raised on the side it leaves.
inline void gpuc_hybrid_move(void) {
  gpuc_hybrid_state &h = gpuc_hy;
  gpuc_check_device_error();
  if (!h.on_device && !gpuc_hybrid_spares()) return;
  for (int i = 0; i < h.nbufs; i++) {
    gpuc_hybrid_buf &b = h.bufs[i];
    size_t n = b.bytes;
    if (b.elem > 0 && (unsigned long long)h.live < n / b.elem) n = (size_t)h.live * b.elem;
    if (b.global == nullptr) {
      if (h.on_device)
        gpuc_hy_down(b.spare, *b.ptr, n);
      else
        gpuc_hy_up(b.spare, *b.ptr, n);
    }
    void *p = *b.ptr;
    *b.ptr = b.spare;
    b.spare = p;
  }
  h.on_device = !h.on_device;
  h.moves++;
}

// gpuc_hybrid is a hybrid point: it decides where the iteration that
// follows runs, moves the data there, and returns work.
inline long long gpuc_hybrid(long long work, long long live) {
  gpuc_hybrid_state &h = gpuc_hy;
  if (!h.read) gpuc_hybrid_settings();
  if (live > h.live) h.live = live;
  bool move = false;
  switch (h.mode) {
  case 0: {
    // Every point measures, the device ready or not.
    const bool ask = gpuc_hybrid_vote(h.meter, gpuc_now_ms(), work, live, h.on_device, h.up, h.down);
    if (h.failed || (!h.on_device && !gpuc_hy_ready(work >= h.up / 8))) break;
    h.run = ask ? h.run + 1 : 0;
    move = h.run >= h.k;
    break;
  }
  case 2:
    move = !h.on_device;
    if (move && !gpuc_hy_wait()) gpuc_hy_no_device("HYBRID=0");
    break;
  case 3:
    move = h.on_device || gpuc_hy_wait();
    break;
  }
  // The device's spares are allocated before the clock of the move, whose
  // time is the rule's cost of a move.
  if (move && !h.failed && (h.on_device || gpuc_hybrid_spares())) {
    const double t0 = gpuc_now_ms();
    gpuc_hybrid_move();
    const double t1 = gpuc_now_ms();
    if (h.mode == 0) gpuc_hybrid_moved(h.meter, t1 - t0, t1);
    h.run = 0;
    if (h.mode == 2 && !h.on_device) gpuc_fail("HYBRID=0: too little device memory for the buffers");
  }
  h.points[h.on_device]++;
  return work;
}

// gpuc_hybrid_on_device reports whether the device holds the data.
inline bool gpuc_hybrid_on_device(void) { return gpuc_hy.on_device; }

// gpuc_hybrid_report prints, for --time, where the points ran.
inline void gpuc_hybrid_report(void) {
  const gpuc_hybrid_state &h = gpuc_hy;
  if (const char *why = gpuc_hy_unused()) {
    if (gpuc_json)
      fprintf(stderr, "{\"gpuc\": \"hybrid-device\", \"unused\": \"%s\"}\n", why);
    else
      fprintf(stderr, "gpuc: hybrid: the device was not used: %s\n", why);
  }
  if (h.points[0] + h.points[1] == 0) return;
  if (gpuc_json)
    fprintf(stderr, "{\"gpuc\": \"hybrid\", \"host\": %lld, \"device\": %lld, \"moves\": %lld}\n", h.points[0], h.points[1], h.moves);
  else
    fprintf(stderr, "gpuc: hybrid points %lld on the host, %lld on the device, %lld moves\n", h.points[0], h.points[1], h.moves);
  // The rule's measures (Note [Migration by measured time]), 0 where not measured.
  if (h.mode != 0) return;
  const gpuc_hybrid_meter &m = h.meter;
  if (gpuc_json)
    fprintf(stderr, "{\"gpuc\": \"hybrid-rule\", \"rule\": \"%s\", \"host_ns_per_slot\": %.3g, \"device_ns_per_slot\": %.3g, \"device_least_ms\": %.3g, \"move_ms\": %.3g, \"margin\": %g}\n",
            m.by_size ? "size" : "time", m.host_ms * 1e6, m.dev_ms * 1e6, m.dev_floor, m.move_ms, m.margin);
  else
    fprintf(stderr, "gpuc: hybrid rule by %s: host %.3g ns a slot, device %.3g ns a slot and %.3g ms an interval at least, last move %.3g ms, margin %g\n",
            m.by_size ? "size" : "time", m.host_ms * 1e6, m.dev_ms * 1e6, m.dev_floor, m.move_ms, m.margin);
}

// gpuc_hybrid_release frees the spares, the handles' own memory being
// freed already, and leaves at once if the device is still starting.
inline void gpuc_hybrid_release(void) {
  gpuc_hybrid_state &h = gpuc_hy;
  for (int i = 0; i < h.nbufs; i++) {
    gpuc_hybrid_buf &b = h.bufs[i];
    if (b.spare == nullptr || b.global != nullptr) continue;  // constants are the module's
    if (h.on_device)
      free(b.spare);
    else
      gpuc_hy_free(b.spare);
  }
  free(h.bufs);
  h.nbufs = 0;
  gpuc_hy_exit();
}
