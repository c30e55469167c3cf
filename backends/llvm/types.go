package llvm

import (
	"math"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"

	"gpuc/ir"
)

// valType is the LLVM type of a value of IR type t: bool is i1.
func valType(t ir.Type) types.Type {
	switch t {
	case ir.Bool:
		return types.I1
	case ir.I8, ir.U8:
		return types.I8
	case ir.I32, ir.U32:
		return types.I32
	case ir.I64, ir.U64:
		return types.I64
	case ir.F32:
		return types.Float
	case ir.F64:
		return types.Double
	}
	return types.Void
}

// mangle spells a scalar type as overloaded intrinsics' names do:
// llvm.sqrt.f32, llvm.fptosi.sat.i32.f64.
func mangle(t ir.Type) string {
	if t.IsFloat() {
		return t.String()
	}
	return valType(t).LLString()
}

// memType is the LLVM type of an element of type t in memory, and of a
// kernel argument: bool is a byte, as in C++.
func memType(t ir.Type) types.Type {
	if t == ir.Bool {
		return types.I8
	}
	return valType(t)
}

// konst is the constant of IR type t with canonical bits b. Special
// floats go through their bit patterns, which keeps NaNs' signs and
// payloads.
func konst(t ir.Type, b ir.Bits) constant.Constant {
	switch t {
	case ir.Bool:
		return constant.NewBool(b != 0)
	case ir.I8, ir.U8:
		return constant.NewInt(types.I8, int64(int8(b)))
	case ir.I32, ir.U32:
		return constant.NewInt(types.I32, int64(int32(b)))
	case ir.I64, ir.U64:
		return constant.NewInt(types.I64, int64(b))
	case ir.F32:
		if f := ir.AsFloat(t, b); math.IsNaN(f) || math.IsInf(f, 0) {
			return constant.NewBitCast(constant.NewInt(types.I32, int64(int32(b))), types.Float)
		}
		return constant.NewFloat(types.Float, ir.AsFloat(t, b))
	case ir.F64:
		if f := ir.AsFloat(t, b); math.IsNaN(f) || math.IsInf(f, 0) {
			return constant.NewBitCast(constant.NewInt(types.I64, int64(b)), types.Double)
		}
		return constant.NewFloat(types.Double, ir.AsFloat(t, b))
	}
	return constant.NewInt(types.I32, 0)
}

// zero is the zero value of IR type t.
func zero(t ir.Type) constant.Constant { return konst(t, 0) }

// constantI8, i32 and i64 make integer constants.
func constantI8(v int64) constant.Constant { return constant.NewInt(types.I8, v) }
func i32(v int64) constant.Constant        { return constant.NewInt(types.I32, v) }
func i64(v int64) constant.Constant        { return constant.NewInt(types.I64, v) }

// constLength evaluates the length of a constant buffer, which the
// verifier keeps constant, with the IR's own scalar semantics.
func constLength(e ir.Expr) (int64, bool) {
	b, why := ir.EvalConst(e)
	return int64(b), why == "" && int64(b) >= 0
}
