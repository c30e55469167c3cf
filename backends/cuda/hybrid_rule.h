// hybrid_rule.h: the rule of hybrid points by measured time, pasted
// before hybrid.h, which calls it (Note [Hybrid migration]). It reads no
// clock and no setting of its own, so that a test can run it on made-up
// figures.
//
// Note [Migration by measured time]
//
// A point's work, the list it starts from, says little of the work up to
// the next point: fib32 on one H100 went down at a list below 16 and
// spent 9 s on the host where the GPU alone took 1.07 s, as its next
// iterations forked widely (docs/BENCHMARKS.md, 2026-11-26 21:24-21:28).
// So the rule compares measured time. Between two points the program ran
// on one side; the interval's time is the clock between them, less the
// move, and its work the slots handed out (live's growth: every
// rewrite's new term takes slots, so that they stand for its rewrites).
// From the host's intervals the rule keeps the host's least ms per slot:
// on one processor the host's one-block loop gives a new term the slot
// that garbage left (Note [Low parallelism] in frontends/trs/lower_one.go)
// and live grows less than its rewrites, so that only its widest
// intervals count slots as the device does. From the device's intervals
// it keeps its least ms per slot (its throughput, on wide lists), its
// least ms per slot times the list the interval started from (its
// latency: on a narrow list each entry's slots are a dependent chain),
// and its least interval (its fixed cost of a point's iterations:
// launches, the host's reads of the list). The device's estimate for an
// interval of the host that handed out S slots from a list of W is the
// largest of S at its throughput, S / W at its latency, and its least
// interval.
//   down, on the device: the interval took more than MARGIN times what
//     the host would have taken for its slots, plus a move (the last
//     move's measured time), and the list is not growing;
//   up, on the host: the list is at least HYBRID_UP times MARGIN / 2
//     (the rule by size, for the first move, when nothing of the device
//     is measured), or
//     the interval took more than MARGIN times the device's estimate,
//     plus a move, and the list is not shrinking.
// Where the interval after a move shows it wrong (the side it left was
// more than MARGIN times faster, by the same figures), the point moves
// back, the list growing or not, and MARGIN, which starts at 2, doubles,
// up to 64, so that such a move is not tried again at the same figures. An interval of fewer than
// GPUC_HYBRID_MIN_SLOTS slots measures nothing, and a side not measured
// yet leaves the rule by size in force (down below HYBRID_DOWN), as does
// HYBRID_RULE=size, or HYBRID_DOWN set, for the moves down.
#define GPUC_HYBRID_MIN_SLOTS 256

struct gpuc_hybrid_meter {
  double t = -1;           // when the last point's interval began (ms), -1 before the first point
  long long live = 0;      // live at the last point
  long long work = -1;     // work at the last point, -1 before the first
  double host_ms = 0;      // the host's least ms per slot, 0 not measured
  double dev_ms = 0;       // the device's least ms per slot, 0 not measured
  double dev_floor = 0;    // the device's least interval (ms), 0 not measured
  double dev_lat = 0;      // the device's least ms per slot and entry of the list, 0 not measured
  double move_ms = 0;      // the last move's time
  double margin = 2;       // MARGIN
  int last_move = 0;       // 1: the last point moved; 0 else
  bool by_size = false;    // HYBRID_RULE=size: the rule by size alone
  bool down_by_size = false;  // HYBRID_DOWN set: the moves down by size
};

// gpuc_hybrid_measure records the interval that ended at a point passed
// at now (ms), on the side that ran it, and returns its slots.
inline long long gpuc_hybrid_measure(gpuc_hybrid_meter &m, double now, long long live, bool on_device) {
  const long long slots = m.t >= 0 && live > m.live ? live - m.live : 0;
  if (m.t >= 0 && slots >= GPUC_HYBRID_MIN_SLOTS) {
    const double dt = now - m.t, per = dt / (double)slots;
    if (!on_device)
      m.host_ms = m.host_ms > 0 && m.host_ms < per ? m.host_ms : per;
    else {
      const double lat = per * (double)(m.work > 1 ? m.work : 1);
      if (m.dev_ms == 0 || per < m.dev_ms) m.dev_ms = per;
      if (m.dev_lat == 0 || lat < m.dev_lat) m.dev_lat = lat;
      if (m.dev_floor == 0 || dt < m.dev_floor) m.dev_floor = dt;
    }
  }
  return slots;
}

// gpuc_hybrid_device_ms is the device's estimate for an interval of
// slots that started from a list of width.
inline double gpuc_hybrid_device_ms(const gpuc_hybrid_meter &m, long long slots, long long width) {
  const double thr = (double)slots * m.dev_ms, lat = (double)slots * m.dev_lat / (double)(width > 1 ? width : 1);
  const double est = thr > lat ? thr : lat;
  return est > m.dev_floor ? est : m.dev_floor;
}

// gpuc_hybrid_vote is the rule of Note [Migration by measured time] at a
// point passed at now, with the list work and live, where the settings'
// up and down are HYBRID_UP and HYBRID_DOWN; it measures the interval
// that ended here and reports whether the point asks to move.
inline bool gpuc_hybrid_vote(gpuc_hybrid_meter &m, double now, long long work, long long live, bool on_device, long long up, long long down) {
  const double dt = now - m.t;
  const bool first = m.t < 0;
  const long long prev = m.work;
  const long long slots = gpuc_hybrid_measure(m, now, live, on_device);
  if (live > m.live) m.live = live;
  m.work = work;
  m.t = now;
  if (m.last_move && !m.by_size && !first && slots >= GPUC_HYBRID_MIN_SLOTS) {
    // The interval after a move: was it the move's side's to run?
    const bool wrong = on_device ? (m.host_ms > 0 && dt > m.margin * (slots * m.host_ms) + m.move_ms)
                                 : (m.dev_ms > 0 && dt > m.margin * gpuc_hybrid_device_ms(m, slots, prev) + m.move_ms);
    if (wrong) {
      if (m.margin < 64) m.margin *= 2;
      m.last_move = 0;
      return true;  // undo it, the list growing or not
    }
  }
  m.last_move = 0;
  if (m.by_size || first) return on_device ? work < down : work >= up;
  if (on_device) {
    if (m.down_by_size) return work < down;
    if (prev >= 0 && work > prev) return false;  // never down while the list grows
    if (m.host_ms == 0 || slots < GPUC_HYBRID_MIN_SLOTS) return work < down;
    return dt > m.margin * (slots * m.host_ms) + m.move_ms;
  }
  if ((double)work >= (double)up * (m.margin / 2)) return true;  // by size, raised with MARGIN
  if (m.dev_ms == 0 || slots < GPUC_HYBRID_MIN_SLOTS || (prev >= 0 && work < prev)) return false;
  return dt > m.margin * gpuc_hybrid_device_ms(m, slots, prev) + m.move_ms;
}

// gpuc_hybrid_moved records a move that took ms and ended at end, when
// the next interval starts (after the device's spares were allocated, the
// first time, which is no cost of a move).
inline void gpuc_hybrid_moved(gpuc_hybrid_meter &m, double ms, double end) {
  m.move_ms = ms;
  m.t = end;
  m.last_move = 1;
}
