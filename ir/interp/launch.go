package interp

import (
	"math"
	"sync"
	"sync/atomic"

	"gpuc/ir"
)

// launch runs kernel k on grid blocks of bdim threads. Blocks are split
// among the workers in chunks; if blocks fail, the error of the lowest
// failing block is reported, so errors do not depend on scheduling.
func (x *machine) launch(k *funcCode, args []ir.Bits, grid, bdim int64, pos ir.Pos) {
	checkGeometry(grid, bdim, pos)
	switch {
	case grid > math.MaxInt32:
		fault(pos, "grid size %d is larger than 2^31-1", grid)
	case grid > math.MaxInt32/bdim:
		// As for regions: the interpreter's thread indices are int32.
		fault(pos, "launch of %d blocks of %d threads is larger than the interpreter's limit of 2^31-1 threads", grid, bdim)
	case grid == 0:
		return
	}
	if x.cfg.MaxSteps > 0 {
		x.addSteps(pos, grid*bdim)
	}
	if x.race != nil {
		x.race.start(x.newInterval())
	}
	if n := min(int64(x.workers), grid); n > 1 {
		x.parallel(k, args, grid, bdim, n)
	} else {
		w := x.newWorker(k, args, grid, bdim)
		for b := int64(0); b < grid; b++ {
			w.run(b)
		}
	}
	if x.race != nil {
		x.race.check()
	}
}

// parallel runs the blocks of a launch on n goroutines.
func (x *machine) parallel(k *funcCode, args []ir.Bits, grid, bdim, n int64) {
	chunk := max(1, grid/(n*8))
	var next atomic.Int64
	var failAt atomic.Int64
	failAt.Store(math.MaxInt64)
	var mu sync.Mutex
	var failure any
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			w := x.newWorker(k, args, grid, bdim)
			for {
				lo := next.Add(chunk) - chunk
				if lo >= grid {
					return
				}
				for b := lo; b < min(lo+chunk, grid); b++ {
					if b > failAt.Load() {
						return
					}
					if r := w.try(b); r != nil {
						mu.Lock()
						if b < failAt.Load() {
							failAt.Store(b)
							failure = r
						}
						mu.Unlock()
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if failure != nil {
		panic(failure)
	}
}

// worker runs blocks of one launch, reusing its frames and shared memory
// from block to block.
type worker struct {
	x          *machine
	k          *funcCode
	args       []ir.Bits
	grid, bdim int64
	blk        block
	one        frame // a kernel without barriers: the frame of every thread
	team       team  // a kernel with barriers: one frame per thread
}

func (x *machine) newWorker(k *funcCode, args []ir.Bits, grid, bdim int64) *worker {
	w := &worker{x: x, k: k, args: args, grid: grid, bdim: bdim}
	w.blk.shared = make([][]ir.Bits, len(x.shared))
	w.blk.shadow = make([][]shadow, len(x.shared))
	for i, n := range x.shared {
		w.blk.shared[i] = make([]ir.Bits, n)
		if x.race != nil {
			w.blk.shadow[i] = make([]shadow, n)
		}
	}
	geometry := thread{bdim: bdim, gdim: grid, blk: &w.blk}
	if k.wide == nil {
		th := geometry
		w.one = frame{regs: make([]ir.Bits, k.nslots), th: &th}
		return w
	}
	threads := make([]thread, bdim)
	frames := make([]frame, bdim)
	regs := make([]ir.Bits, bdim*int64(k.nslots))
	w.team = team{frames: make([]*frame, bdim), st: make([]status, bdim), size: bdim, blk: &w.blk}
	for t := range threads {
		threads[t] = geometry
		threads[t].tid = int64(t)
		frames[t] = frame{regs: regs[t*k.nslots : (t+1)*k.nslots], th: &threads[t]}
		w.team.frames[t] = &frames[t]
	}
	return w
}

// try runs block b and returns what it panicked with, if anything.
func (w *worker) try(b int64) (failure any) {
	defer func() { failure = recover() }()
	w.run(b)
	return nil
}

// run runs block b: its shared memory starts zeroed, and its threads run
// one after another, or team-wide if the kernel holds barriers.
func (w *worker) run(b int64) {
	blk := &w.blk
	blk.id = b
	for i := range blk.shared {
		clear(blk.shared[i])
		clear(blk.shadow[i])
	}
	if w.x.race != nil {
		blk.interval = w.x.newInterval()
	}
	base := b * w.bdim
	if w.k.wide == nil {
		f, body := &w.one, w.k.body
		th := f.th
		th.bid = b
		w.x.place.thread(th, w.x.blockDev(b, w.grid))
		for t := int64(0); t < w.bdim; t++ {
			th.tid, th.gid = t, base+t
			copy(f.regs, w.args)
			body(f)
		}
		return
	}
	tm := &w.team
	for t, f := range tm.frames {
		f.th.bid, f.th.gid, f.th.depth = b, base+int64(t), 0
		w.x.place.thread(f.th, w.x.blockDev(b, w.grid))
		copy(f.regs, w.args)
		tm.st[t] = running
	}
	tm.live = len(tm.frames)
	w.k.wide(tm)
}

func (x *machine) coopThreads() int64 {
	if x.cfg.CoopThreads > 0 {
		return x.cfg.CoopThreads
	}
	return DefaultCoopThreads
}

// coopFits reports whether a cooperative launch fits the capacity.
func (x *machine) coopFits(grid, bdim int64) bool {
	return grid >= 0 && bdim >= 1 && grid*bdim <= x.coopThreads()
}

// coopLaunch runs a cooperative launch: all threads of the grid form one
// team, so that a grid barrier waits for every one of them. A block
// barrier waits for them all too, which synchronises more than it must and
// so stays correct; each block keeps its own shared memory.
func (x *machine) coopLaunch(k *funcCode, args []ir.Bits, grid, bdim int64, pos ir.Pos) {
	checkGeometry(grid, bdim, pos)
	if grid == 0 {
		return
	}
	if k.wide == nil {
		x.launch(k, args, grid, bdim, pos) // no barriers: an ordinary launch
		return
	}
	gridBlk := &block{id: -1, interval: x.newInterval()}
	if x.race != nil {
		x.race.start(gridBlk.interval)
	}
	n := grid * bdim
	checkTeamMemory(pos, "cooperative launch", n, k.nslots)
	if x.cfg.MaxSteps > 0 {
		x.addSteps(pos, n)
	}
	blocks := make([]block, grid)
	threads := make([]thread, n)
	frames := make([]frame, n)
	regs := make([]ir.Bits, n*int64(k.nslots))
	tm := &team{frames: make([]*frame, n), st: make([]status, n), live: int(n), size: n, blk: gridBlk}
	for b := range blocks {
		blocks[b] = block{id: int64(b), shared: make([][]ir.Bits, len(x.shared)), shadow: make([][]shadow, len(x.shared))}
		for i, size := range x.shared {
			blocks[b].shared[i] = make([]ir.Bits, size)
			if x.race != nil {
				blocks[b].shadow[i] = make([]shadow, size)
			}
		}
	}
	for i := range threads {
		b := int64(i) / bdim
		threads[i] = thread{tid: int64(i) % bdim, bid: b, bdim: bdim, gdim: grid, gid: int64(i), blk: &blocks[b], grid: gridBlk}
		x.place.thread(&threads[i], x.blockDev(b, grid))
		r := regs[int64(i)*int64(k.nslots) : int64(i+1)*int64(k.nslots)]
		copy(r, args)
		frames[i] = frame{regs: r, th: &threads[i]}
		tm.frames[i] = &frames[i]
	}
	k.wide(tm)
	if x.race != nil {
		x.race.check()
	}
}

// checkGeometry faults on a block size or a grid size that no launch may
// have.
func checkGeometry(grid, bdim int64, pos ir.Pos) {
	switch {
	case bdim < 1 || bdim > maxBlockSize:
		fault(pos, "block size %d is outside 1..%d", bdim, maxBlockSize)
	case grid < 0:
		fault(pos, "negative grid size %d", grid)
	}
}
