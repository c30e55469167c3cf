package ir

import (
	"errors"
	"math"
)

// This file is the scalar semantics of the IR's operators on canonical
// Bits: the constant folder uses it, and the interpreter agrees with it.

// ErrDivZero is returned for integer division or remainder by zero.
var ErrDivZero = errors.New("integer division by zero")

// EvalUnary applies op to x of type t.
func EvalUnary(op UnOp, t Type, x Bits) Bits {
	switch op {
	case Not:
		return x ^ 1
	case BitNot:
		return Normalize(t, ^x)
	}
	if t.IsFloat() {
		return FloatBits(t, -AsFloat(t, x))
	}
	return Normalize(t, -x)
}

// EvalBinary applies op to x and y of type t (the operand type).
func EvalBinary(op BinOp, t Type, x, y Bits) (Bits, error) {
	switch op {
	case LogAnd:
		return x & y, nil
	case LogOr:
		return x | y, nil
	}
	if op.IsCompare() {
		return compare(op, t, x, y), nil
	}
	if t.IsFloat() {
		return FloatBits(t, floatArith(op, t, AsFloat(t, x), AsFloat(t, y))), nil
	}
	w := uint64(t.Size() * 8)
	switch op {
	case Add:
		return Normalize(t, x+y), nil
	case Sub:
		return Normalize(t, x-y), nil
	case Mul:
		return Normalize(t, x*y), nil
	case Div, Rem:
		if Normalize(t, y) == 0 {
			return 0, ErrDivZero
		}
		if t.IsSigned() {
			a, b := int64(x), int64(y)
			if b == -1 { // avoid the trap on MinInt64 / -1; wraps as C on the GPU
				if op == Div {
					return Normalize(t, uint64(-a)), nil
				}
				return 0, nil
			}
			if op == Div {
				return Normalize(t, uint64(a/b)), nil
			}
			return Normalize(t, uint64(a%b)), nil
		}
		if op == Div {
			return x / y, nil
		}
		return x % y, nil
	case And:
		return x & y, nil
	case Or:
		return x | y, nil
	case Xor:
		return Normalize(t, x^y), nil
	case Shl:
		return Normalize(t, x<<(y%w)), nil
	case Shr:
		if t.IsSigned() {
			return Normalize(t, uint64(int64(x)>>(y%w))), nil
		}
		return x >> (y % w), nil
	}
	return 0, errors.New("bad operator " + op.String())
}

func floatArith(op BinOp, t Type, a, b float64) float64 {
	if t == F32 {
		x, y := float32(a), float32(b)
		switch op {
		case Add:
			return float64(x + y)
		case Sub:
			return float64(x - y)
		case Mul:
			return float64(float32(x * y))
		case Div:
			return float64(x / y)
		}
		return math.NaN() // the verifier admits no other float operator
	}
	switch op {
	case Add:
		return a + b
	case Sub:
		return a - b
	case Mul:
		return float64(a * b)
	case Div:
		return a / b
	}
	return math.NaN()
}

func compare(op BinOp, t Type, x, y Bits) Bits {
	var c int // -1, 0, 1; 2 for unordered floats
	switch {
	case t.IsFloat():
		a, b := AsFloat(t, x), AsFloat(t, y)
		switch {
		case a < b:
			c = -1
		case a > b:
			c = 1
		case a == b:
			c = 0
		default:
			c = 2
		}
	case t.IsSigned():
		a, b := int64(x), int64(y)
		if a < b {
			c = -1
		} else if a > b {
			c = 1
		}
	default:
		if x < y {
			c = -1
		} else if x > y {
			c = 1
		}
	}
	var r bool
	switch op {
	case Eq:
		r = c == 0
	case Ne:
		r = c != 0
	case Lt:
		r = c == -1
	case Le:
		r = c == -1 || c == 0
	case Gt:
		r = c == 1
	case Ge:
		r = c == 1 || c == 0
	}
	if r {
		return 1
	}
	return 0
}

// EvalConvert converts x of type from to type to, as C does, except that
// bool(x) is x != 0 and float-to-integer conversions saturate (NaN gives
// 0), where C leaves out-of-range conversions undefined.
func EvalConvert(to, from Type, x Bits) Bits {
	switch {
	case to == from:
		return x
	case to == Bool:
		if from.IsFloat() {
			if AsFloat(from, x) != 0 {
				return 1
			}
			return 0
		}
		return Normalize(Bool, x)
	case from.IsFloat() && to.IsFloat():
		return FloatBits(to, AsFloat(from, x))
	case from.IsFloat():
		return floatToInt(to, AsFloat(from, x))
	case to.IsFloat():
		// Round once, straight to the target type, as C does.
		signed := from.IsSigned() || from == Bool
		switch {
		case to == F32 && signed:
			return uint64(math.Float32bits(float32(int64(x))))
		case to == F32:
			return uint64(math.Float32bits(float32(x)))
		case signed:
			return math.Float64bits(float64(int64(x)))
		}
		return math.Float64bits(float64(x))
	}
	return Normalize(to, x)
}

func floatToInt(t Type, f float64) Bits {
	if math.IsNaN(f) {
		return 0
	}
	f = math.Trunc(f)
	switch t {
	case U64:
		if f <= 0 {
			return 0
		}
		if f >= math.Exp2(64) {
			return math.MaxUint64
		}
		return uint64(f)
	case I64:
		if f <= math.MinInt64 {
			return uint64(1) << 63
		}
		if f >= math.Exp2(63) {
			return math.MaxInt64
		}
		return uint64(int64(f))
	}
	lo, hi := intBounds(t)
	return Normalize(t, uint64(int64(math.Max(lo, math.Min(hi, f)))))
}

func intBounds(t Type) (lo, hi float64) {
	switch t {
	case I8:
		return math.MinInt8, math.MaxInt8
	case U8:
		return 0, math.MaxUint8
	case I32:
		return math.MinInt32, math.MaxInt32
	case U32:
		return 0, math.MaxUint32
	}
	return 0, 0
}

// EvalBuiltin applies a math builtin (min, max, abs, sqrt) to values of
// type t.
func EvalBuiltin(op BuiltinOp, t Type, args ...Bits) Bits {
	switch op {
	case Min, Max:
		less := compare(Lt, t, args[0], args[1]) == 1
		if t.IsFloat() {
			return FloatBits(t, floatMinMax(op, AsFloat(t, args[0]), AsFloat(t, args[1])))
		}
		if less == (op == Min) {
			return args[0]
		}
		return args[1]
	case Abs:
		switch {
		case t.IsFloat():
			return FloatBits(t, math.Abs(AsFloat(t, args[0])))
		case t.IsSigned() && int64(args[0]) < 0:
			return Normalize(t, -args[0])
		}
		return args[0]
	case Hybrid:
		return args[0]
	case Sqrt:
		if t == F32 {
			return FloatBits(t, float64(float32(math.Sqrt(AsFloat(t, args[0])))))
		}
		return FloatBits(t, math.Sqrt(AsFloat(t, args[0])))
	}
	return 0
}

// floatMinMax is CUDA's fminf/fmaxf: a NaN operand yields the other one.
func floatMinMax(op BuiltinOp, a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	case op == Min:
		return math.Min(a, b)
	}
	return math.Max(a, b)
}

// Fold evaluates one operation whose operands are constants: a unary,
// binary or builtin operation, or a conversion, becomes a constant at the
// operation's position. Anything else, an operation on a non-constant,
// and integer division by zero, which must fail at run time, stays as it
// is.
func Fold(e Expr) Expr {
	switch e := e.(type) {
	case *Unary:
		if x, ok := e.X.(*Const); ok {
			return &Const{Pos: e.Pos, T: e.Type(), Bits: EvalUnary(e.Op, x.T, x.Bits)}
		}
	case *Binary:
		x, okx := e.X.(*Const)
		y, oky := e.Y.(*Const)
		if !okx || !oky {
			return e
		}
		if v, err := EvalBinary(e.Op, x.T, x.Bits, y.Bits); err == nil {
			return &Const{Pos: e.Pos, T: e.Type(), Bits: v}
		}
	case *Convert:
		if x, ok := e.X.(*Const); ok {
			return &Const{Pos: e.Pos, T: e.T, Bits: EvalConvert(e.T, x.T, x.Bits)}
		}
	case *Builtin:
		if e.Op.Arity() == 0 || e.Op == Hybrid {
			return e
		}
		args := make([]Bits, len(e.Args))
		for i, a := range e.Args {
			c, ok := a.(*Const)
			if !ok {
				return e
			}
			args[i] = c.Bits
		}
		return &Const{Pos: e.Pos, T: e.Type(), Bits: EvalBuiltin(e.Op, e.Type(), args...)}
	}
	return e
}

const divByZero = "divides by zero"

// EvalConst evaluates an integer or bool expression over constants, as the
// lengths of static and constant buffers are written, with the scalar
// semantics of EvalUnary, EvalBinary, EvalConvert and EvalBuiltin. why says
// what stops it otherwise ("reads parameter N", "divides by zero"). e must
// have passed the type checks.
func EvalConst(e Expr) (b Bits, why string) {
	switch e := e.(type) {
	case *Const:
		if e.T.IsFloat() {
			return 0, "uses a float"
		}
		return e.Bits, ""
	case *ParamRef:
		return 0, "reads parameter " + e.Name
	case *Unary:
		x, why := EvalConst(e.X)
		return EvalUnary(e.Op, e.X.Type(), x), why
	case *Binary:
		x, why := EvalConst(e.X)
		y, why2 := EvalConst(e.Y)
		if why == "" {
			why = why2
		}
		if why != "" {
			return 0, why
		}
		v, err := EvalBinary(e.Op, e.X.Type(), x, y)
		if err != nil {
			return 0, divByZero
		}
		return v, ""
	case *Select:
		c, why := EvalConst(e.Cond)
		if why != "" {
			return 0, why
		}
		if c != 0 {
			return EvalConst(e.X)
		}
		return EvalConst(e.Y)
	case *Convert:
		x, why := EvalConst(e.X)
		if e.T.IsFloat() {
			return 0, "uses a float"
		}
		return Normalize(e.T, x), why
	case *Builtin:
		if e.Op != Min && e.Op != Max && e.Op != Abs {
			return 0, "is not constant"
		}
		args := make([]Bits, len(e.Args))
		for i, a := range e.Args {
			v, why := EvalConst(a)
			if why != "" {
				return 0, why
			}
			args[i] = v
		}
		return EvalBuiltin(e.Op, e.Args[0].Type(), args...), ""
	}
	return 0, "is not constant"
}
