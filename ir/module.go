package ir

// Module is one compilation unit: parameters, memories, functions and the
// host program that drives them. Declarations keep their source order, which
// the printer preserves.
type Module struct {
	Pos     Pos
	Name    string
	Params  []*Param
	Buffers []*Buffer
	Arrays  []*Array
	Funcs   []*Func
}

// Param is a named integer parameter with a default value. The command line
// of `gpuc run` and of every generated program overrides it as NAME=VALUE.
// Parameters are read-only everywhere.
//
//	param N: i32 = 1024
//	param CAPACITY: i32 = 1073741824 fit 0.8
//
// A parameter with a fit fraction (Fit > 0) that the command line does not
// set takes the largest value up to its default for which the device
// buffers fit in that fraction of the device's free memory (Note [Fitted
// parameters]). Its default is then an upper bound, not its value, and no
// pass may fold it.
type Param struct {
	Pos     Pos
	Name    string
	Type    Type // an integer type
	Default int64
	Fit     float64 // 0: none; else in (0, 1]
}

// Buffer is a device memory: an array of Len elements of type Elem.
//
//	buffer data: i32[N] global output
//	buffer sig: u8[4] constant static = {137, 80, 78, 71}
//	buffer total: i64[1] global scratch progress "rewrites"
type Buffer struct {
	Pos   Pos
	Name  string
	Elem  Type
	Len   Expr // over parameters and constants
	Space Space
	Role  Role
	Init  []Bits // the contents of a static buffer, one per element
	// Progress, if not empty, names what the buffer's first element
	// counts (Note [Progress counters]).
	Progress string
	// Bound, if not empty, names a parameter B (or is a decimal constant):
	// every element the program stores lies in [0, B], a checked fact
	// (Note [Bounded buffers]).
	Bound string
	// Below, with Bound, narrows the range to [0, B): every value is an
	// index into a buffer of length B (`below "B"` in text).
	Below bool
}

// Note [Bounded buffers]
//
// A frontend whose own capacity checks keep a counter's values in a range
// states that range on the buffer: `bound "CAPACITY"` says that every
// value a store or an atomic writes into it lies in [0, CAPACITY] (the
// parameter's value, or a decimal constant). The interpreter checks each
// such write and fails with a positioned error, so a wrong fact shows in
// every test that runs the program; backends ignore this form. The
// termination analysis reads a load from the buffer as a value in that
// range (analysis/fromir), so a grid-stride loop up to a counter that
// other threads write ends where the bound is small enough, rather than
// being UNKNOWN. A buffer has at most one of progress and bound. The initial
// contents (zero, an input file) are not checked: a frontend puts a bound
// only on scratch buffers, whose elements start at zero.
//
// `below "CAPACITY"` is the half-open form: every value lies in [0,
// CAPACITY), an index into any buffer of CAPACITY elements (TRS's term
// ids in arg0, arg1...). Backends use it (Note [Range facts] in
// backends/abi): a load from such a buffer needs no check where it
// indexes a buffer of that length, so the buffer's writes are the
// checks, and the generated code checks each write whose value it
// cannot prove in range, with the interpreter's message, at the write.
// Backends rely on it only where the buffer's own length is CAPACITY, so
// that the first contents, zeros, lie below CAPACITY too.
// Only stores write such a buffer: no atomic, copy or swap (which would
// bring in values that no store checked).

// Note [Progress counters]
//
// A program can name a counter of its own for the interpreter to show
// beside its steps: an integer buffer in global memory whose first
// element the program keeps up to date, declared with Buffer.Progress
// (TRS's rewrites). gpuc run's progress line and its --json statistics
// show each one by that name. The interpreter reads the element between
// steps (Note [Bounded runs] in ir/interp), on the host's side, when no
// thread writes it. Backends ignore it; it changes nothing the program
// computes.

// Array is a host memory: a host-side array of Len elements.
//
//	array hist: u32[16]
type Array struct {
	Pos  Pos
	Name string
	Elem Type
	Len  Expr // over parameters and constants
}

// FuncKind says where a function runs and how it is entered.
type FuncKind uint8

const (
	KernelFunc FuncKind = iota // a kernel: launched by the host, returns nothing
	DeviceFunc                 // called from kernels, regions and device functions
	HostFunc                   // part of the host program; "main" is the entry
)

var funcKindNames = [...]string{KernelFunc: "kernel", DeviceFunc: "func", HostFunc: "host"}

func (k FuncKind) String() string { return enumName(funcKindNames[:], int(k), "funckind") }

// Func is a kernel, a device function or a host function.
//
//	kernel add(n: i32) { ... }
//	func gcd(a: i32, b: i32): i32 { ... }
//	host main() { ... }
type Func struct {
	Pos    Pos
	Kind   FuncKind
	Name   string
	Params []*Field
	Result Type // Void for kernels and procedures
	Body   []Stmt
}

// Field is a named, typed function parameter.
type Field struct {
	Pos  Pos
	Name string
	Type Type
}

// Param returns the parameter called name, or nil.
func (m *Module) Param(name string) *Param {
	for _, p := range m.Params {
		if p != nil && p.Name == name {
			return p
		}
	}
	return nil
}

// Buffer returns the device buffer called name, or nil.
func (m *Module) Buffer(name string) *Buffer {
	for _, b := range m.Buffers {
		if b != nil && b.Name == name {
			return b
		}
	}
	return nil
}

// Array returns the host array called name, or nil.
func (m *Module) Array(name string) *Array {
	for _, a := range m.Arrays {
		if a != nil && a.Name == name {
			return a
		}
	}
	return nil
}

// Func returns the function called name, or nil.
func (m *Module) Func(name string) *Func {
	for _, f := range m.Funcs {
		if f != nil && f.Name == name {
			return f
		}
	}
	return nil
}

// Main returns the host entry function, or nil.
func (m *Module) Main() *Func {
	if f := m.Func("main"); f != nil && f.Kind == HostFunc {
		return f
	}
	return nil
}

// Level is the lowest level at which m is legal: SPMD if any host function
// holds a parallel region, Launch otherwise.
func (m *Module) Level() Level {
	for _, f := range m.Funcs {
		if f == nil || f.Kind != HostFunc {
			continue
		}
		if AnyStmt(f.Body, func(s Stmt) bool { _, ok := s.(*Region); return ok }) {
			return SPMDLevel
		}
	}
	return LaunchLevel
}
