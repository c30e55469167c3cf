package ir

import (
	"fmt"
	"math"

	"gpuc/internal/diag"
)

// Pos is a source position; the zero Pos is "unknown".
type Pos = diag.Pos

// Type is a scalar type. Every value in gpuc is a scalar: buffers and host
// arrays are named, typed memories, never values.
type Type uint8

const (
	Invalid Type = iota
	Void         // result of a function that returns nothing
	Bool
	I8
	U8
	I32
	U32
	I64
	U64
	F32
	F64
	String // string literals; only as printf arguments
)

var typeNames = [...]string{
	Invalid: "invalid", Void: "void", Bool: "bool", I8: "i8", U8: "u8",
	I32: "i32", U32: "u32", I64: "i64", U64: "u64", F32: "f32", F64: "f64",
	String: "string",
}

func (t Type) String() string {
	return enumName(typeNames[:], int(t), "type")
}

// ParseType looks up a type by its .kir name. Only storable types and void
// have names that parse.
func ParseType(s string) (Type, bool) {
	for t := Void; t <= F64; t++ {
		if typeNames[t] == s {
			return t, true
		}
	}
	return Invalid, false
}

// IsInt reports whether t is an integer type (bool is not).
func (t Type) IsInt() bool { return t >= I8 && t <= U64 }

// IsSigned reports whether t is a signed integer type.
func (t Type) IsSigned() bool { return t == I8 || t == I32 || t == I64 }

// IsFloat reports whether t is f32 or f64.
func (t Type) IsFloat() bool { return t == F32 || t == F64 }

// IsNumeric reports whether arithmetic applies to t.
func (t Type) IsNumeric() bool { return t.IsInt() || t.IsFloat() }

// IsScalar reports whether t can be stored in a variable or a buffer.
func (t Type) IsScalar() bool { return t >= Bool && t <= F64 }

// Size is the storage size of t in bytes.
func (t Type) Size() int {
	switch t {
	case Bool, I8, U8:
		return 1
	case I32, U32, F32:
		return 4
	case I64, U64, F64:
		return 8
	}
	return 0
}

// Bits is the canonical 64-bit encoding of a scalar value, used by Const,
// static buffer contents and the interpreter:
//   - bool: 0 or 1;
//   - signed integers: the value sign-extended to 64 bits;
//   - unsigned integers: the value zero-extended to 64 bits;
//   - f32: math.Float32bits in the low 32 bits; f64: math.Float64bits.
type Bits = uint64

// Normalize returns the canonical encoding of v truncated to type t, as a
// conversion to t from a wider integer would.
func Normalize(t Type, v uint64) Bits {
	switch t {
	case Bool:
		if v != 0 {
			return 1
		}
		return 0
	case I8:
		return uint64(int64(int8(v)))
	case U8:
		return uint64(uint8(v))
	case I32:
		return uint64(int64(int32(v)))
	case U32, F32:
		return uint64(uint32(v))
	}
	return v
}

// IntBits encodes the integer i as a value of type t, truncating as C does.
func IntBits(t Type, i int64) Bits {
	switch t {
	case F32:
		return uint64(math.Float32bits(float32(i)))
	case F64:
		return math.Float64bits(float64(i))
	}
	return Normalize(t, uint64(i))
}

// FloatBits encodes f as a value of the float type t.
func FloatBits(t Type, f float64) Bits {
	if t == F32 {
		return uint64(math.Float32bits(float32(f)))
	}
	return math.Float64bits(f)
}

// AsFloat decodes a float-typed value.
func AsFloat(t Type, b Bits) float64 {
	if t == F32 {
		return float64(math.Float32frombits(uint32(b)))
	}
	return math.Float64frombits(b)
}

// Space is the memory space of a buffer.
type Space uint8

const (
	Global   Space = iota // device memory, visible to all threads
	Constant              // read-only in kernels, cached; compile-time-sized
	Shared                // one instance per block, for the block's threads
	// The world spaces (Note [World]): with one device each is Global.
	Symmetric   // one instance per device, on the symmetric heap
	Distributed // one array, block-distributed by index across devices
	Replicated  // one copy per device, written by the host only, broadcast
)

var spaceNames = [...]string{Global: "global", Constant: "constant", Shared: "shared",
	Symmetric: "symmetric", Distributed: "distributed", Replicated: "replicated"}

// IsWorld reports whether s is one of the world spaces of Note [World].
func (s Space) IsWorld() bool { return s >= Symmetric && s <= Replicated }

// IsDevice reports whether s is device memory that every thread of a
// launch may address: global or a world space.
func (s Space) IsDevice() bool { return s == Global || s.IsWorld() }

func (s Space) String() string { return enumName(spaceNames[:], int(s), "space") }

// ParseSpace looks up a memory space by its .kir name.
func ParseSpace(s string) (Space, bool) { return parseEnum[Space](spaceNames[:], s) }

// Role says where a buffer's contents come from and go to.
type Role uint8

const (
	Scratch Role = iota // zero-initialised working memory
	Input               // read from a file named on the command line
	Output              // printed, one element per line, when the program ends
	Static              // contents known at compile time (Buffer.Init)
)

var roleNames = [...]string{Scratch: "scratch", Input: "input", Output: "output", Static: "static"}

func (r Role) String() string { return enumName(roleNames[:], int(r), "role") }

// ParseRole looks up a buffer role by its .kir name.
func ParseRole(s string) (Role, bool) { return parseEnum[Role](roleNames[:], s) }

// parseEnum finds name s among names, the value's index.
func parseEnum[E ~uint8](names []string, s string) (E, bool) {
	for i, n := range names {
		if n == s && n != "" {
			return E(i), true
		}
	}
	return 0, false
}

// Level is the abstraction level of a module. See Note [Levels] in doc.go.
type Level uint8

const (
	// LaunchLevel is the level backends consume: kernels without grid
	// barriers, launched by a structured host program.
	LaunchLevel Level = iota
	// SPMDLevel adds parallel regions run by groups of virtual processors,
	// with grid barriers and group splits.
	SPMDLevel
)

func (l Level) String() string {
	if l == SPMDLevel {
		return "spmd"
	}
	return "launch"
}

// ParseLevel reads a level name.
func ParseLevel(s string) (Level, bool) {
	switch s {
	case "spmd":
		return SPMDLevel, true
	case "launch":
		return LaunchLevel, true
	}
	return LaunchLevel, false
}

// enumName names value v of an enumeration, or says it is out of range, so
// that printing malformed IR never panics.
func enumName(names []string, v int, kind string) string {
	if v >= 0 && v < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", kind, v)
}
