package ir

// Expr is a typed, side-effect-free expression, except for Call, which runs
// a function. The sum type is closed by the isExpr marker.
type Expr interface {
	// Type is the expression's scalar type.
	Type() Type
	// At is the expression's source position.
	At() Pos
	isExpr()
}

// Const is a literal scalar in canonical encoding (see Bits).
//
//	42  42u  42l  42ul  i8(42)  u8(42)  1.5  1.5f  true  inf  nan
type Const struct {
	Pos  Pos
	T    Type
	Bits Bits
}

// Str is a string literal; it may appear only as a printf argument.
//
//	"text"
type Str struct {
	Pos   Pos
	Value string
}

// Var reads a local variable: a private in device code, a scalar in host
// code, or a function parameter. Regions may also read the host variables
// in scope where they start.
//
//	x
type Var struct {
	Pos  Pos
	Name string
	T    Type
}

// ParamRef reads a module parameter.
//
//	N
type ParamRef struct {
	Pos  Pos
	Name string
	T    Type
}

// Load reads one element of a buffer or a host array. In host code a load
// from a device buffer is a read-back of one device scalar.
//
//	data[i]
type Load struct {
	Pos   Pos
	Buf   string
	Index Expr
	T     Type // the element type
}

// UnOp is a unary operator.
type UnOp uint8

const (
	Neg    UnOp = iota // -x, numeric
	Not                // !x, bool
	BitNot             // ~x, integer
)

var unOpNames = [...]string{Neg: "-", Not: "!", BitNot: "~"}

func (o UnOp) String() string { return enumName(unOpNames[:], int(o), "unop") }

// Unary applies a unary operator.
//
//	-x  !c  ~m
type Unary struct {
	Pos Pos
	Op  UnOp
	X   Expr
}

// BinOp is a binary operator. Operands have the same type; comparisons and
// logical operators yield bool.
type BinOp uint8

const (
	Add BinOp = iota
	Sub
	Mul
	Div // integer division truncates toward zero
	Rem // sign of the dividend, as in C
	And
	Or
	Xor
	Shl
	Shr // arithmetic for signed, logical for unsigned operands
	LogAnd
	LogOr
	Eq
	Ne
	Lt
	Le
	Gt
	Ge
)

var binOpNames = [...]string{
	Add: "+", Sub: "-", Mul: "*", Div: "/", Rem: "%", And: "&", Or: "|", Xor: "^",
	Shl: "<<", Shr: ">>", LogAnd: "&&", LogOr: "||",
	Eq: "==", Ne: "!=", Lt: "<", Le: "<=", Gt: ">", Ge: ">=",
}

func (o BinOp) String() string { return enumName(binOpNames[:], int(o), "binop") }

// IsCompare reports whether o is a comparison.
func (o BinOp) IsCompare() bool { return o >= Eq }

// IsLogical reports whether o is && or ||.
func (o BinOp) IsLogical() bool { return o == LogAnd || o == LogOr }

// Prec is o's binding strength in .kir text, higher binds tighter, as in C.
func (o BinOp) Prec() int {
	switch o {
	case Mul, Div, Rem:
		return 10
	case Add, Sub:
		return 9
	case Shl, Shr:
		return 8
	case Lt, Le, Gt, Ge:
		return 7
	case Eq, Ne:
		return 6
	case And:
		return 5
	case Xor:
		return 4
	case Or:
		return 3
	case LogAnd:
		return 2
	}
	return 1 // LogOr
}

// ParseBinOp looks up an operator by its spelling.
func ParseBinOp(s string) (BinOp, bool) {
	for o, n := range binOpNames {
		if n == s {
			return BinOp(o), true
		}
	}
	return 0, false
}

// Binary applies a binary operator. && and || short-circuit.
//
//	a + b  i < n  c && d
type Binary struct {
	Pos  Pos
	Op   BinOp
	X, Y Expr
}

// Select evaluates X if Cond holds and Y otherwise, as C's ?: does: the
// side not taken is not evaluated.
//
//	c ? x : y
type Select struct {
	Pos        Pos
	Cond, X, Y Expr
}

// Convert converts X to type T with C's conversion rules; float to integer
// truncates toward zero, and bool(x) is x != 0.
//
//	f32(i)
type Convert struct {
	Pos Pos
	T   Type
	X   Expr
}

// Call calls a device function from device code or a host function from
// host code.
//
//	gcd(a, b)
type Call struct {
	Pos  Pos
	Func string
	Args []Expr
	T    Type // the callee's result type
}

// BuiltinOp names an intrinsic value or function.
type BuiltinOp uint8

const (
	// Launch-level thread geometry, all i32; kernels only.
	ThreadID   BuiltinOp = iota // tid(): the thread's index in its block
	BlockID                     // bid(): the block's index in the grid
	BlockDim                    // bdim(): threads per block
	GridDim                     // gdim(): blocks in the grid
	GlobalID                    // gid(): bid()*bdim()+tid() in kernels; the processor's index in a region
	ProcID                      // pid(): the processor's id in its group ($ in Fork); regions only
	GroupID                     // group(): the group's id (@ in Fork); regions only
	GroupSize                   // groupsize(): processors in the group; regions only
	NumProcs                    // nprocs(): processors in the region; regions only
	Min                         // min(a, b)
	Max                         // max(a, b)
	Abs                         // abs(a)
	Sqrt                        // sqrt(x), float
	DeviceID                    // device_id(): the device running the code, 0..num_devices()-1 (Note [World])
	NumDevices                  // num_devices(): the devices of the world
	Hybrid                      // hybrid(work, live): host code only; work, an integer (Note [Hybrid points])
	OnDevice                    // ondevice(): host code only; i32 1 where the device holds the data, else 0
)

// Note [Hybrid points]
//
// hybrid(work, live) is the value work, an integer, and marks a point of
// the host program where it may move its device data between the host's
// and the device's memory: the top of an iteration of a fixpoint loop,
// between launches, where work is the parallelism of what follows (TRS:
// the slots listed). live, of work's type, vouches that no element at or
// above it of a global buffer whose length is a parameter alone was
// written yet (TRS: the slots handed out), so that a move copies only
// that prefix of such a buffer and all of the others.
// The interpreter and GPU-only programs take it as work;
// a host build keeps its buffers in two copies and moves them there
// (Note [Hybrid migration] in backends/cuda/hybrid.h). Passes must not
// fold, hoist or evaluate it, so it is no math builtin to them.
// ondevice() says which side holds the data, so that the host program can
// pick the way that suits it (TRS: its summary of the normal form); it is
// 1 in the interpreter and in GPU-only programs.

var builtinNames = [...]string{
	ThreadID: "tid", BlockID: "bid", BlockDim: "bdim", GridDim: "gdim", GlobalID: "gid",
	ProcID: "pid", GroupID: "group", GroupSize: "groupsize", NumProcs: "nprocs",
	Min: "min", Max: "max", Abs: "abs", Sqrt: "sqrt",
	DeviceID: "device_id", NumDevices: "num_devices",
	Hybrid: "hybrid", OnDevice: "ondevice",
}

func (o BuiltinOp) String() string { return enumName(builtinNames[:], int(o), "builtin") }

// ParseBuiltin looks up a builtin by name.
func ParseBuiltin(s string) (BuiltinOp, bool) {
	for o, n := range builtinNames {
		if n == s {
			return BuiltinOp(o), true
		}
	}
	return 0, false
}

// Arity is the number of arguments o takes.
func (o BuiltinOp) Arity() int {
	switch o {
	case Min, Max, Hybrid:
		return 2
	case Abs, Sqrt:
		return 1
	}
	return 0
}

// IsKernelOnly reports whether o is thread geometry that exists only in
// kernels launched with a grid and block.
func (o BuiltinOp) IsKernelOnly() bool { return o <= GridDim }

// IsRegionOnly reports whether o exists only inside SPMD regions.
func (o BuiltinOp) IsRegionOnly() bool { return o >= ProcID && o <= NumProcs }

// IsWorld reports whether o asks about the world of devices (Note [World]).
func (o BuiltinOp) IsWorld() bool { return o == DeviceID || o == NumDevices }

// Builtin is an intrinsic: thread geometry, the world, or a math function.
//
//	tid()  pid()  min(a, b)  sqrt(x)  device_id()
type Builtin struct {
	Pos  Pos
	Op   BuiltinOp
	Args []Expr
}

func (e *Const) Type() Type    { return e.T }
func (e *Str) Type() Type      { return String }
func (e *Var) Type() Type      { return e.T }
func (e *ParamRef) Type() Type { return e.T }
func (e *Load) Type() Type     { return e.T }
func (e *Unary) Type() Type {
	if e.Op == Not {
		return Bool
	}
	return e.X.Type()
}
func (e *Binary) Type() Type {
	if e.Op.IsCompare() || e.Op.IsLogical() {
		return Bool
	}
	return e.X.Type()
}
func (e *Select) Type() Type  { return e.X.Type() }
func (e *Convert) Type() Type { return e.T }
func (e *Call) Type() Type    { return e.T }
func (e *Builtin) Type() Type {
	if len(e.Args) > 0 {
		return e.Args[0].Type()
	}
	return I32
}

func (e *Const) At() Pos    { return e.Pos }
func (e *Str) At() Pos      { return e.Pos }
func (e *Var) At() Pos      { return e.Pos }
func (e *ParamRef) At() Pos { return e.Pos }
func (e *Load) At() Pos     { return e.Pos }
func (e *Unary) At() Pos    { return e.Pos }
func (e *Binary) At() Pos   { return e.Pos }
func (e *Select) At() Pos   { return e.Pos }
func (e *Convert) At() Pos  { return e.Pos }
func (e *Call) At() Pos     { return e.Pos }
func (e *Builtin) At() Pos  { return e.Pos }

func (*Const) isExpr()    {}
func (*Str) isExpr()      {}
func (*Var) isExpr()      {}
func (*ParamRef) isExpr() {}
func (*Load) isExpr()     {}
func (*Unary) isExpr()    {}
func (*Binary) isExpr()   {}
func (*Select) isExpr()   {}
func (*Convert) isExpr()  {}
func (*Call) isExpr()     {}
func (*Builtin) isExpr()  {}

// IntConst makes an integer constant of type t.
func IntConst(t Type, v int64) *Const { return &Const{T: t, Bits: IntBits(t, v)} }

// BoolConst makes a bool constant.
func BoolConst(v bool) *Const {
	if v {
		return &Const{T: Bool, Bits: 1}
	}
	return &Const{T: Bool}
}

// Int returns the value of an integer or bool constant as int64 (u64
// values above 2^63-1 wrap).
func (e *Const) Int() int64 { return int64(e.Bits) }

// Float returns the value of a float constant.
func (e *Const) Float() float64 { return AsFloat(e.T, e.Bits) }

// HybridIterParam is the parameter that bounds the iterations a module's
// inner loops run between two visits of its hybrid point (TRS: the
// one-block loop's); 0, the default of GPU-only and host programs, sets
// no bound. A hybrid build sets its default to HybridIterDefault, so that
// the program can move soon after its parallelism changes (Note [Hybrid
// points]).
const (
	HybridIterParam   = "HYBRIDITER"
	HybridIterDefault = 16
)

// HasHybridPoints reports whether m's host code marks hybrid points
// (Note [Hybrid points]): whether a hybrid build can move its data.
func HasHybridPoints(m *Module) bool {
	found := false
	for _, f := range m.Funcs {
		if f == nil || found {
			continue
		}
		WalkAllExprs(f.Body, func(e Expr) bool {
			if b, ok := e.(*Builtin); ok && b.Op == Hybrid {
				found = true
			}
			return !found
		})
	}
	return found
}
