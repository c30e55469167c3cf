package ir

import "math"

// This file is the rule of Note [Fitted parameters]: the interpreter
// follows it through these functions, and the generated programs through
// gpuc_fit in backends/runtime/gpuc_runtime.h, which mirrors them.

// FitBound is the largest value that fitted parameter p may take: its
// default, read as the parameter's type reads it, but at most MaxInt64,
// the largest length.
func FitBound(p *Param) int64 {
	if p.Type == U64 && p.Default < 0 {
		return math.MaxInt64
	}
	return p.Default
}

// FitBudget is the number of bytes that a fit fraction allows of free
// bytes of device memory: fit × free, rounded down.
func FitBudget(fit float64, free uint64) uint64 {
	b := fit * float64(free)
	switch {
	case !(b > 0):
		return 0
	case b >= math.MaxUint64:
		return math.MaxUint64
	}
	return uint64(b)
}

// FitValue is the value of a fitted parameter whose largest value is hi:
// the largest v in [1, hi] with bytes(v) <= budget, or 1 if there is
// none. bytes(v) is the size of the device buffers with the parameter at
// v; it must not shrink as v grows. FitValue calls it O(log hi) times.
func FitValue(hi int64, budget uint64, bytes func(v int64) uint64) int64 {
	if hi <= 1 || bytes(hi) <= budget {
		return max(hi, 1)
	}
	// bytes(lo) <= budget, or lo is 1; bytes(hi) > budget.
	lo := int64(1)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if bytes(mid) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// AddBytes adds n elements of size bytes each to total, saturating at
// MaxUint64. A negative n adds nothing.
func AddBytes(total uint64, n int64, size int) uint64 {
	if n <= 0 || size <= 0 {
		return total
	}
	if uint64(n) > math.MaxUint64/uint64(size) {
		return math.MaxUint64
	}
	b := uint64(n) * uint64(size)
	if total > math.MaxUint64-b {
		return math.MaxUint64
	}
	return total + b
}

// DefaultValue evaluates an integer expression over parameters and
// constants with every parameter at its default (a fitted parameter at its
// largest value). ok is false where e reads anything else, uses floats or
// divides by zero.
func (m *Module) DefaultValue(e Expr) (v int64, ok bool) {
	ok = true
	e = RewriteExpr(CloneExpr(e), func(x Expr) Expr {
		r, isRef := x.(*ParamRef)
		if !isRef {
			return x
		}
		p := m.Param(r.Name)
		if p == nil {
			ok = false
			return x
		}
		return IntConst(r.T, p.Default)
	})
	if !ok || !e.Type().IsInt() {
		return 0, false
	}
	b, why := EvalConst(e)
	if why != "" {
		return 0, false
	}
	if e.Type().IsSigned() {
		return int64(b), true
	}
	if b > math.MaxInt64 {
		return 0, false
	}
	return int64(b), true
}
