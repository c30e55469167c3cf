package interp

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// Config says how to run a module.
type Config struct {
	// Stdout receives the program's output: printf and the output buffers.
	// Nil discards it.
	Stdout io.Writer
	// Stderr receives what printf stderr writes. Nil discards it.
	Stderr io.Writer
	// Params overrides parameter defaults, NAME=VALUE; naming a parameter
	// the module lacks is an error.
	Params map[string]int64
	// Inputs names the file of each input buffer. A path starting with @
	// holds raw little-endian binary; any other holds whitespace-separated
	// text values: integers in decimal or 0x hex, floats, true or false.
	Inputs map[string]string
	// Race turns on the race checker (Note [Races]), which runs blocks on
	// one goroutine.
	Race bool
	// Workers is the number of goroutines that run the blocks of a launch;
	// 0 means runtime.GOMAXPROCS(0).
	Workers int
	// CoopThreads is how many threads a cooperative launch may have, as a
	// device's co-resident capacity: larger ones run their fallback, or
	// fail without one. 0 means DefaultCoopThreads.
	CoopThreads int64
	// DeviceMemory is the device's free memory in bytes as the program
	// starts, which fitted parameters that Params does not set are
	// fitted to (Note [Fitted parameters] in package ir). 0 means
	// DefaultDeviceMemory.
	DeviceMemory int64
	// MaxSteps, if positive, bounds the steps of the whole run: loop
	// iterations, calls, and threads started, on the host and on the
	// device (--max-steps). Past it the run stops with an error, so that
	// a harness can bound a program that never ends (Note [Step limit]).
	MaxSteps int64
	// Timeout, if positive, stops the run after that much time; Progress,
	// if set, receives a status line twice a second (Note [Bounded runs]).
	Timeout  time.Duration
	Progress io.Writer
	// Stats, if not nil, receives the run's statistics when it ends, with
	// an error too (gpuc run --json).
	Stats *Stats
	// Devices, when positive, is the number of devices to run on (gpuc
	// run --devices), and the value of the DEVICES parameter if the
	// module has one; 0 means that parameter, or 1 (Note [Devices]).
	Devices int
	// LoopLimit, when positive, stops the run with a *LoopLimitError as
	// soon as one loop of device code runs more than LoopLimit iterations
	// in one thread (gpuc check --replay confirms non-termination so).
	LoopLimit int64
}

// LoopLimitError says a device thread's loop passed Config.LoopLimit.
type LoopLimitError struct {
	Pos    ir.Pos
	Thread string // "thread T of block B"
	Limit  int64
}

// Error names the loop and the thread.
func (e *LoopLimitError) Error() string {
	return fmt.Sprintf("%s: error: the loop ran more than %d iterations in %s", e.Pos, e.Limit, e.Thread)
}

// DefaultDeviceMemory is the free device memory that the interpreter
// assumes: 256 MiB. It is a model, not the machine's memory, and smaller
// than a GPU's, because the interpreter is slow and holds every element
// in eight bytes, whatever its type; a run that wants a larger fitted
// store sets the parameter, or DeviceMemory (gpuc run --device-memory).
const DefaultDeviceMemory = 256 << 20

// DefaultCoopThreads is the cooperative capacity the interpreter assumes:
// an H100's 132 multiprocessors with 2048 threads each.
const DefaultCoopThreads = 132 * 2048

// RaiseError is returned when the program runs raise; Msg is its message.
type RaiseError struct{ Msg string }

// Error returns the raise message.
func (e *RaiseError) Error() string { return e.Msg }

// RaceError lists the data races that race-check mode found, one
// positioned diagnostic per race.
type RaceError struct{ Races diag.List }

// Error prints one line per race.
func (e *RaceError) Error() string { return e.Races.Error() }

// Limits that keep a wild program from exhausting the machine: Go cannot
// recover from running out of memory or stack.
const (
	maxElements   = 1 << 28 // buffer and array elements, all together: 2 GiB at 8 bytes an element
	maxShared     = 1 << 24 // shared elements per block
	maxProcs      = 1 << 26 // processors of a region that holds barriers
	maxCallDepth  = 10000   // nested calls of one thread
	maxBlockSize  = 1024    // threads per block, as on every CUDA GPU
	maxRaceErrors = 10
)

// Run runs m's host program with cfg. m should be verified; Run reports
// what the verifier would have caught as errors too, and never panics.
// Output written before an error stays written.
func Run(m *ir.Module, cfg Config) (err error) {
	w := cfg.Stdout
	if w == nil {
		w = io.Discard
	}
	out := bufio.NewWriterSize(w, 64<<10)
	defer func() {
		if ferr := out.Flush(); err == nil {
			err = ferr
		}
	}()
	defer catch(&err)
	if m == nil {
		return fmt.Errorf("interp: no module")
	}
	x, err := load(m, cfg, out)
	if err != nil {
		return err
	}
	defer x.watch()()
	if cfg.Stats != nil {
		defer func() { *cfg.Stats = x.stats() }()
	}
	x.runMain()
	x.printOutputs()
	return nil
}

// catch turns a panic of the run into its error. Run-time faults, raise
// and races panic with their error values; anything else is a bug in the
// interpreter, reported rather than crashing the caller.
func catch(err *error) {
	switch r := recover().(type) {
	case nil:
	case *diag.Error:
		*err = r
	case *RaiseError:
		*err = r
	case *RaceError:
		*err = r
	case *LoopLimitError:
		*err = r
	default:
		*err = fmt.Errorf("interp: internal error: %v", r)
	}
}

// fault stops the run with a positioned run-time error.
func fault(pos ir.Pos, format string, args ...any) {
	panic(diag.Errorf(pos, format, args...))
}

// machine is one run of a module.
type machine struct {
	mod     *ir.Module
	cfg     Config
	out     *bufio.Writer
	workers int
	params  map[string]ir.Bits
	mems    map[string]*memory
	shared  []int64 // per-block length of each shared buffer, by memory.shared
	funcs   map[string]*funcCode
	race    *raceChecker // nil unless cfg.Race
	host    thread       // the host program's thread
	// The world (Note [Devices]): its size, the devices' host programs,
	// and where the next launch or region runs; world is nil with one
	// device.
	devices int
	hosts   []hostThread
	world   *world
	place   placement
	lim     limits // Note [Bounded runs]
	clock   atomic.Uint64
	steps   atomic.Int64 // loop iterations, with Config.MaxSteps (limits.go)
}

// newInterval returns a fresh barrier-interval number (Note [Races]).
func (x *machine) newInterval() uint64 { return x.clock.Add(1) }

func load(m *ir.Module, cfg Config, out *bufio.Writer) (*machine, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	x := &machine{mod: m, cfg: cfg, out: out, workers: cfg.Workers}
	if x.workers <= 0 {
		x.workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Race {
		x.workers = 1
		x.race = newRaceChecker()
	}
	x.host.blk = &block{id: -1}
	for _, step := range []func() error{x.setParams, x.setDevices, x.fitParams, x.allocate, x.readInputs, x.replicate, x.compile} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// setParams fixes every parameter's value: its default or its override,
// which must fit its type.
func (x *machine) setParams() error {
	for _, name := range slices.Sorted(maps.Keys(x.cfg.Params)) {
		if x.mod.Param(name) == nil {
			return fmt.Errorf("unknown parameter %s%s", name, paramList(x.mod))
		}
	}
	var errs diag.List
	x.params = map[string]ir.Bits{}
	for _, p := range x.mod.Params {
		v, set := x.cfg.Params[p.Name]
		switch {
		case !p.Type.IsInt():
			errs.Add(p.Pos, "parameter %s has type %s; parameters are integers", p.Name, p.Type)
		case set && !fitsInt(p.Type, v):
			return fmt.Errorf("parameter %s=%d is out of range for %s", p.Name, v, p.Type)
		case !set && p.Type != ir.U64 && !fitsInt(p.Type, p.Default): // a u64 default may exceed MaxInt64
			errs.Add(p.Pos, "default %d of parameter %s is out of range for %s", p.Default, p.Name, p.Type)
		}
		if !set {
			v = p.Default
		}
		x.params[p.Name] = ir.IntBits(p.Type, v)
	}
	return errs.Err()
}

func paramList(m *ir.Module) string {
	if len(m.Params) == 0 {
		return " (the module has no parameters)"
	}
	s := " (the module has"
	for i, p := range m.Params {
		if i > 0 {
			s += ","
		}
		s += " " + p.Name
	}
	return s + ")"
}

// fitsInt reports whether v is a value of the integer type t.
func fitsInt(t ir.Type, v int64) bool {
	switch t {
	case ir.I64:
		return true
	case ir.U64:
		return v >= 0
	}
	return int64(ir.Normalize(t, uint64(v))) == v
}

// asInt reads a value of type t as an int64 for sizes, counts and offsets;
// unsigned values above MaxInt64 saturate, which every range check
// rejects.
func asInt(t ir.Type, b ir.Bits) int64 {
	switch {
	case t == ir.U64 && b > math.MaxInt64:
		return math.MaxInt64
	case t.IsFloat():
		return int64(ir.EvalConvert(ir.I64, t, b))
	}
	return int64(b)
}
