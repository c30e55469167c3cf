package interp

import (
	"fmt"
	"sync"
	"sync/atomic"

	"gpuc/ir"
)

// Note [Devices]
//
// The interpreter runs a module on a world of k devices (Config.Devices,
// gpuc run --devices k; Note [World] in package ir) by control
// replication, as the GPU does: k host programs, one per device, each on
// a goroutine of its own. They take turns: one runs at a time, from one
// collective (world_barrier, allgather, allreduce, a world region or
// launch, the end of the program) to the next, then hands over to the
// next device; the last device to arrive performs the collective (a world
// region runs then, all its processors at once, each on its device) and
// hands over to device 0 again. Runs are thus deterministic, and the
// devices never run Go code at the same time.
//
// Memories: global, symmetric and constant buffers and host arrays have
// an instance per device (memory.inst); distributed and replicated
// buffers one storage, indexed globally. Each access of a distributed
// buffer counts as local or remote by its owner, element i of n living on
// device i / ir.WorldPart(n, k); the counts end in the statistics.
//
// Each device's copy of the host program must take the same branches
// (Note [World-uniform host code] in package ir). Every host branch adds
// its position and outcome to a per-device trace hash, which the devices
// compare at each collective: a difference is a run-time error that
// names the collective.
//
// Only device 0's host program prints, and a kernel or a region that is
// not world prints from device 0's copy only; a world region or launch
// prints from all its processors, whatever their device. The output
// buffers are printed from device 0's instances.

// maxDevices bounds the world, so that memory grows by a bounded factor.
const maxDevices = 64

// setDevices fixes the number of devices: Config.Devices, which sets the
// DEVICES parameter of a module that has one, else that parameter.
func (x *machine) setDevices() error {
	p := x.mod.Param(ir.DevicesParam)
	k := int64(x.cfg.Devices)
	switch {
	case k < 0:
		return fmt.Errorf("--devices %d; want at least 1", k)
	case k > 0 && p != nil:
		if v, ok := x.cfg.Params[p.Name]; ok && v != k {
			return fmt.Errorf("%s=%d contradicts --devices %d", p.Name, v, k)
		}
		x.params[p.Name] = ir.IntBits(p.Type, k)
	case k == 0 && p != nil:
		k = asInt(p.Type, x.params[p.Name])
	case k == 0:
		k = 1
	}
	if k < 1 || k > maxDevices {
		return fmt.Errorf("%d devices; the interpreter runs 1 to %d", k, maxDevices)
	}
	x.devices = int(k)
	x.hosts = make([]hostThread, k)
	for d := range x.hosts {
		x.hosts[d].thread = x.host
		x.hosts[d].dev, x.hosts[d].mute = d, d != 0
	}
	if k > 1 {
		x.world = newWorld(int(k))
	}
	return nil
}

// devOf is the device that element or processor i of n lives on.
func (x *machine) devOf(i, n int64) int {
	if x.devices == 1 {
		return 0
	}
	return int(i / ir.WorldPart(n, int64(x.devices)))
}

// blockDev is the device that block b of a world launch of g blocks runs
// on.
func (x *machine) blockDev(b, g int64) int {
	k := int64(x.devices)
	return int(b / ((g + k - 1) / k))
}

// placement says where the host's next launch or region runs: on device
// dev, or split across the world.
type placement struct {
	dev   int
	world bool
}

// thread returns how a thread of a launch or region runs: on device dev
// if world, else on the placement's device, muted there unless it is 0.
func (p placement) thread(th *thread, dev int) {
	if p.world {
		th.dev, th.mute, th.world = dev, false, true
		return
	}
	th.dev, th.mute, th.world = p.dev, p.dev != 0, false
}

// world is the state that the devices' host programs share.
type world struct {
	k     int
	wake  []chan struct{}
	abort chan struct{}
	once  sync.Once
	arr   []arrival
	// The result of the last collective, read by each device as it
	// resumes.
	result ir.Bits
	local  atomic.Int64
	remote atomic.Int64
	// hostReads counts device 0's host program's loads from device
	// memory: the read-backs that each device's host makes on a GPU.
	hostReads atomic.Int64
}

// arrival is what a device brings to a collective.
type arrival struct {
	what  string // "allreduce", ...; "the end of the program"
	pos   ir.Pos
	trace uint64
	value ir.Bits
	regs  []ir.Bits // its host registers, for a world region
}

// errAborted unwinds a device's goroutine after another device failed.
type errAborted struct{}

func newWorld(k int) *world {
	w := &world{k: k, wake: make([]chan struct{}, k), abort: make(chan struct{}), arr: make([]arrival, k)}
	for d := range w.wake {
		w.wake[d] = make(chan struct{}, 1)
	}
	return w
}

// wait blocks device d until it is its turn.
func (w *world) wait(d int) {
	select {
	case <-w.wake[d]:
	case <-w.abort:
		panic(errAborted{})
	}
}

// runWorld runs the k host programs and reports the failure of the device
// that failed first, if any.
func (x *machine) runWorld() {
	w := x.world
	fails := make([]any, w.k)
	var wg sync.WaitGroup
	for d := range w.k {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(errAborted); !ok {
						fails[d] = r
					}
					w.once.Do(func() { close(w.abort) })
				}
			}()
			w.wait(d)
			x.runMainOn(d)
			x.arrive(d, arrival{what: "the end of the program"}, nil)
		})
	}
	w.wake[0] <- struct{}{}
	wg.Wait()
	for _, r := range fails {
		if r != nil {
			panic(r)
		}
	}
}

// arrive brings device d to a collective; the last device to arrive checks
// that all brought the same, runs act and hands over to device 0. It
// returns when d's turn comes again, except at the end of the program.
func (x *machine) arrive(d int, a arrival, act func(arr []arrival)) {
	w := x.world
	a.trace = x.hosts[d].trace
	x.hosts[d].trace = 0
	w.arr[d] = a
	end := act == nil
	if d < w.k-1 {
		w.wake[d+1] <- struct{}{}
		if !end {
			w.wait(d)
		}
		return
	}
	for e := 1; e < w.k; e++ {
		p, q := w.arr[0], w.arr[e]
		at := q.pos
		if !at.IsValid() {
			at = p.pos
		}
		switch {
		case p.what != q.what || p.pos != q.pos:
			fault(at, "device %d reached %s while device 0 reached %s at %s: the devices' host programs diverged (Note [World-uniform host code])", e, where(q), p.what, p.pos)
		case p.trace != q.trace:
			fault(at, "the host programs of devices 0 and %d took different branches before %s: host control flow must be world-uniform (Note [World-uniform host code])", e, where(q))
		}
	}
	if x.race != nil {
		x.race.epoch++
	}
	if end {
		return
	}
	act(w.arr)
	w.wake[0] <- struct{}{}
	w.wait(d)
}

func where(a arrival) string {
	if a.pos.IsValid() {
		return fmt.Sprintf("%s at %s", a.what, a.pos)
	}
	return a.what
}

// branch adds a host branch's outcome to the device's trace.
func (th *hostThread) branch(pos ir.Pos, v ir.Bits) {
	h := th.trace ^ uint64(pos.Line)<<32 ^ uint64(pos.Col)<<8 ^ v
	th.trace = h*0x100000001b3 + 0x9e3779b97f4a7c15
}

// hostThread is a device's host program: its thread and its branch trace.
type hostThread struct {
	thread
	trace uint64
}

// worldBarrier, allGather and allReduce compile the host collectives.
func (c *compiler) worldBarrier(s *ir.WorldBarrier) stmtFn {
	x, pos := c.x, s.Pos
	return func(f *frame) ctl {
		if x.world != nil {
			x.arrive(f.th.dev, arrival{what: "world_barrier", pos: pos}, func([]arrival) {})
		}
		return ctlNext
	}
}

func (c *compiler) allGather(s *ir.AllGather) stmtFn {
	m, x, pos := c.hostMemory(s.Buf, s.Pos), c.x, s.Pos
	if m == nil {
		return nop
	}
	return func(f *frame) ctl {
		if x.world == nil || m.inst == nil {
			return ctlNext
		}
		x.arrive(f.th.dev, arrival{what: "allgather " + m.name, pos: pos}, func([]arrival) {
			n := int64(len(m.data))
			for d, src := range m.inst {
				for e, dst := range m.inst {
					if e != d {
						lo, hi := x.block(d, n)
						copy(dst[lo:hi], src[lo:hi])
					}
				}
			}
		})
		return ctlNext
	}
}

// block is the range of n elements or processors that device d owns.
func (x *machine) block(d int, n int64) (lo, hi int64) {
	per := ir.WorldPart(n, int64(x.devices))
	return min(n, int64(d)*per), min(n, int64(d+1)*per)
}

func (c *compiler) allReduce(s *ir.AllReduce) stmtFn {
	v, t := c.expr(s.Value), typeOf(s.Value)
	slot, ok := c.lookup(s.Dst, s.Pos)
	if !ok {
		return nop
	}
	op, x, pos := s.Op, c.x, s.Pos
	var combine func(a, b ir.Bits) ir.Bits
	switch op {
	case ir.AtomicAdd:
		combine = func(a, b ir.Bits) ir.Bits { r, _ := ir.EvalBinary(ir.Add, t, a, b); return r }
	case ir.AtomicMin:
		combine = func(a, b ir.Bits) ir.Bits { return ir.EvalBuiltin(ir.Min, t, a, b) }
	case ir.AtomicMax:
		combine = func(a, b ir.Bits) ir.Bits { return ir.EvalBuiltin(ir.Max, t, a, b) }
	case ir.AtomicAnd:
		combine = func(a, b ir.Bits) ir.Bits { return a & b }
	case ir.AtomicOr:
		combine = func(a, b ir.Bits) ir.Bits { return a | b }
	case ir.AtomicXor:
		combine = func(a, b ir.Bits) ir.Bits { return a ^ b }
	default:
		c.errorf(pos, "allreduce takes add, min, max, and, or or xor, not %s", op)
		return nop
	}
	return func(f *frame) ctl {
		val := v(f)
		if x.world == nil {
			f.regs[slot] = val
			return ctlNext
		}
		x.arrive(f.th.dev, arrival{what: "allreduce", pos: pos, value: val}, func(arr []arrival) {
			r := arr[0].value
			for _, a := range arr[1:] {
				r = combine(r, a.value)
			}
			x.world.result = r
		})
		f.regs[slot] = x.world.result
		return ctlNext
	}
}

// worldRun runs a world region or launch: with one device at once, else
// when every device has arrived, with each device's host registers.
func (x *machine) worldRun(f *frame, what string, pos ir.Pos, run func(hosts [][]ir.Bits)) {
	if x.world == nil {
		x.place = placement{world: true}
		run([][]ir.Bits{f.regs})
		return
	}
	x.arrive(f.th.dev, arrival{what: what, pos: pos, regs: f.regs}, func(arr []arrival) {
		hosts := make([][]ir.Bits, len(arr))
		for d, a := range arr {
			hosts[d] = a.regs
		}
		x.place = placement{world: true}
		run(hosts)
	})
}
