package interp

import (
	"fmt"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// access is one recorded access to a buffer element (Note [Races]).
type access struct {
	interval uint64
	block    int32  // -1 in a region
	thread   int32  // tid() in a kernel, the processor's index in a region
	pos      uint32 // the access's position, indexing raceChecker.positions; 0 for none
	scope    uint32 // the region's subgroup, indexing raceChecker.scopes; 0 for none
}

// coopBlock is the block of every access of a cooperative launch, whose
// grid barriers order all threads; their thread numbers are gid().
const coopBlock = -2

func (a access) String() string {
	if a.block == coopBlock {
		return fmt.Sprintf("thread %d", a.thread)
	}
	if a.block < 0 {
		return fmt.Sprintf("processor %d", a.thread)
	}
	return fmt.Sprintf("thread %d of block %d", a.thread, a.block)
}

// shadow is the race-check state of one element: its last write and up to
// two reads that may conflict with a later write.
type shadow struct{ w, r1, r2 access }

// raceChecker finds data races in race-check mode, where everything runs
// on one goroutine.
type raceChecker struct {
	positions []ir.Pos
	posIndex  map[ir.Pos]uint32
	launch    uint64 // the first interval of the current launch or region
	races     diag.List
	seen      map[raceKey]bool
	scopes    []scope // subgroups of regions; scopes[0] is every region's whole group
	epoch     uint32  // collectives completed (Note [Devices])
}

// scope is a subgroup of a split, a split while or a fork: a subgroup of
// its parent scope. The subgroups of one split or fork share a split
// number; those of splits one after another do not.
type scope struct {
	parent uint32
	depth  int32
	split  uint32
}

// raceKey is a racy address: a global element, or an element of one
// block's shared instance.
type raceKey struct {
	m     *memory
	block int64
	i     uint64
}

func newRaceChecker() *raceChecker {
	return &raceChecker{positions: []ir.Pos{{}}, posIndex: map[ir.Pos]uint32{}, seen: map[raceKey]bool{}, scopes: []scope{{}}}
}

// newScope returns a new subgroup inside parent, of split number split.
func (r *raceChecker) newScope(parent, split uint32) uint32 {
	r.scopes = append(r.scopes, scope{parent: parent, depth: r.scopes[parent].depth + 1, split: split})
	return uint32(len(r.scopes) - 1)
}

// concurrent reports whether accesses in scopes a and b may run at once
// whatever their barrier intervals: they lie in (or inside) different
// subgroups of one split or fork. Otherwise one scope holds the other, or
// they lie in subgroups of splits that ran one after the other, and their
// intervals order them.
func (r *raceChecker) concurrent(a, b uint32) bool {
	for r.scopes[a].depth > r.scopes[b].depth {
		a = r.scopes[a].parent
	}
	for r.scopes[b].depth > r.scopes[a].depth {
		b = r.scopes[b].parent
	}
	if a == b {
		return false
	}
	for r.scopes[a].parent != r.scopes[b].parent {
		a, b = r.scopes[a].parent, r.scopes[b].parent
	}
	return r.scopes[a].split == r.scopes[b].split
}

// pos numbers a source position for access records.
func (r *raceChecker) pos(p ir.Pos) uint32 {
	if n, ok := r.posIndex[p]; ok {
		return n
	}
	n := uint32(len(r.positions))
	r.positions = append(r.positions, p)
	r.posIndex[p] = n
	return n
}

// start begins a launch or region whose intervals are all at least first.
func (r *raceChecker) start(first uint64) { r.launch = first }

// check ends a launch or region: any race found stops the run.
func (r *raceChecker) check() {
	if len(r.races) > 0 {
		panic(&RaceError{Races: r.races})
	}
}

func (r *raceChecker) access(th *thread, pos uint32) access {
	if th.grid != nil {
		// Grid barriers order the blocks of a cooperative launch.
		return access{interval: th.grid.interval, block: coopBlock, thread: int32(th.gid), pos: pos}
	}
	if th.blk.id < 0 {
		return access{interval: th.blk.interval, block: -1, thread: int32(th.gid), pos: pos, scope: th.blk.scope}
	}
	return access{interval: th.blk.interval, block: int32(th.blk.id), thread: int32(th.tid), pos: pos}
}

// shadowOf returns the shadow of element i of m as th sees it.
func (r *raceChecker) shadowOf(th *thread, m *memory, i uint64) (*shadow, raceKey) {
	if m.shared >= 0 {
		return &th.blk.shadow[m.shared][i], raceKey{m, th.blk.id, i}
	}
	if d := th.dev; d > 0 && m.inst != nil {
		if m.shadows == nil {
			m.shadows = make([]pagedShadow, len(m.inst))
		}
		return m.shadows[d].at(i, len(m.data)), raceKey{m, -2 - int64(d), i}
	}
	return m.shadow.at(i, len(m.data)), raceKey{m, -1, i}
}

// pagedShadow is the shadow of a buffer or array, made a page at a time
// as its elements are first reached (Note [Shadows by the page]).
type pagedShadow struct{ pages [][]shadow }

// shadowPage is the elements of a shadow page.
const shadowPage = 1024

// at is the shadow of element i of an instance of n elements.
func (s *pagedShadow) at(i uint64, n int) *shadow {
	if s.pages == nil {
		s.pages = make([][]shadow, (n+shadowPage-1)/shadowPage)
	}
	p := &s.pages[i/shadowPage]
	if *p == nil {
		*p = make([]shadow, min(shadowPage, n-int(i/shadowPage*shadowPage)))
	}
	return &(*p)[i%shadowPage]
}

// Note [Shadows by the page]
//
// A race run reaches few elements of some large buffers: a TRS program
// records its trace in 4*TRACECAP words (a quarter million by default)
// and writes a few of them. Their shadows, 72 bytes an element, were
// made whole on the first access: 19 MB a run of that buffer alone, 31
// GB over frontends/trs's race tests. Pages of shadowPage elements made
// on first access keep the shadow near the elements reached.

// current reports whether p is an access of the current launch.
func (r *raceChecker) current(p access) bool { return p.pos != 0 && p.interval >= r.launch }

// conflict reports whether the earlier access p and the access c are
// unordered: different threads of one launch, in different blocks, in one
// barrier interval, or in sibling subgroups of a region.
func (r *raceChecker) conflict(p, c access) bool {
	return r.current(p) && (p.block != c.block ||
		p.thread != c.thread && (p.interval == c.interval || p.scope != c.scope && r.concurrent(p.scope, c.scope)))
}

// devMark is the cross-device race state of one element of a distributed
// buffer: the epoch (collectives completed, plus one) of its last
// accesses by a replica's thread, the device, and whether one wrote.
type devMark struct {
	epoch uint32
	dev   int32
	write bool
	pos   uint32
}

// crossDevice checks an access of a distributed buffer by the thread of a
// launch or region that each device runs for itself: two devices' accesses
// to one element between two collectives conflict as two blocks' would
// (Note [World] in package ir). World regions and launches run their
// processors together, and the checks above see them.
func (r *raceChecker) crossDevice(th *thread, m *memory, i uint64, pos uint32, write bool) {
	if !m.world || th.world || m.space != ir.Distributed {
		return
	}
	if m.marks == nil {
		m.marks = make([]devMark, len(m.data))
	}
	mk, e := &m.marks[i], r.epoch+1
	if mk.epoch == e && mk.dev != int32(th.dev) && (write || mk.write) {
		key := raceKey{m, -3, i}
		if !r.seen[key] {
			r.seen[key] = true
			kind, other := "read", "read"
			if write {
				kind = "write"
			}
			if mk.write {
				other = "write"
			}
			r.races.Add(r.positions[pos], "data race on %s[%d]: %s on device %d conflicts with %s at %s on device %d, with no collective between",
				m.name, i, kind, th.dev, other, r.positions[mk.pos], mk.dev)
		}
	}
	if mk.epoch != e || write && !mk.write {
		*mk = devMark{epoch: e, dev: int32(th.dev), write: write, pos: pos}
	}
}

// read checks and records a read of element i of m.
func (r *raceChecker) read(th *thread, m *memory, i uint64, pos uint32) {
	r.crossDevice(th, m, i, pos, false)
	sh, key := r.shadowOf(th, m, i)
	c := r.access(th, pos)
	if r.conflict(sh.w, c) {
		r.report(key, c, "read", sh.w, "write")
	}
	r.addReader(sh, c)
}

// write checks and records a write of element i of m.
func (r *raceChecker) write(th *thread, m *memory, i uint64, pos uint32) {
	r.crossDevice(th, m, i, pos, true)
	sh, key := r.shadowOf(th, m, i)
	c := r.access(th, pos)
	switch {
	case r.conflict(sh.w, c):
		r.report(key, c, "write", sh.w, "write")
	case r.conflict(sh.r1, c):
		r.report(key, c, "write", sh.r1, "read")
	case r.conflict(sh.r2, c):
		r.report(key, c, "write", sh.r2, "read")
	}
	*sh = shadow{w: c}
}

// prioWrite checks and records a priority store of element i of m.
// Priority resolves the stores of one group in one barrier interval, so
// only stores and reads of sibling subgroups, which run at once in no
// order that priority decides, conflict with it (Note [Races]).
func (r *raceChecker) prioWrite(th *thread, m *memory, i uint64, pos uint32) {
	sh, key := r.shadowOf(th, m, i)
	c := r.access(th, pos)
	sibling := func(p access) bool {
		return r.current(p) && p.block == c.block && p.thread != c.thread && p.scope != c.scope && r.concurrent(p.scope, c.scope)
	}
	switch {
	case sibling(sh.w):
		r.report(key, c, "write", sh.w, "write")
	case sibling(sh.r1):
		r.report(key, c, "write", sh.r1, "read")
	case sibling(sh.r2):
		r.report(key, c, "write", sh.r2, "read")
	}
	*sh = shadow{w: c}
}

// addReader keeps the reads that a later write may conflict with: those
// that conflict with c, since c covers the others (they are of c's thread
// or of an earlier interval of c's block), and c itself unless it is
// covered: by a read of an earlier block, which conflicts with every later
// access of the launch as blocks run in order, or by two reads of other
// threads in c's interval, since any later writer differs from one of them.
func (r *raceChecker) addReader(sh *shadow, c access) {
	r1, r2 := sh.r1, sh.r2
	if !r.conflict(r2, c) {
		r2 = access{}
	}
	if !r.conflict(r1, c) {
		r1, r2 = r2, access{}
	}
	switch {
	case r1.pos == 0:
		r1 = c
	case r1.block != c.block || r2.pos != 0 && r2.block != c.block:
	case r2.pos == 0:
		r2 = c
	}
	sh.r1, sh.r2 = r1, r2
}

// report records a race between the access c and the earlier access p,
// once per address; the tenth race stops the run at once.
func (r *raceChecker) report(key raceKey, c access, cKind string, p access, pKind string) {
	if r.seen[key] {
		return
	}
	r.seen[key] = true
	r.races.Add(r.positions[c.pos], "data race on %s[%d]: %s by %s conflicts with %s at %s by %s",
		key.m.name, key.i, cKind, c, pKind, r.positions[p.pos], p)
	if len(r.races) >= maxRaceErrors {
		r.check()
	}
}
