package abi

import (
	"strings"

	"gpuc/ir"
)

// Note [Checks]
//
// Generated programs fail like the interpreter: an index out of range or
// an integer division by zero ends the program with the interpreter's
// positioned message, "FILE:LINE:COL: error: ...", and exit status 1.
// Host code checks with the position spelled in place. Device code checks
// each access to a buffer against the buffer's length, which it computes
// from the parameters (so a function receives the parameters of the
// lengths of the buffers it touches, see usage), and each divisor that is
// not a nonzero constant, and each value a store writes into a buffer
// with a below bound (Note [Bounded buffers] in package ir), after the
// index, as the interpreter does. A failed check is a fault: like a
// raise, it records a number in the error word, the first wins, and the
// winning thread also records two values (the index and the length, or
// the value and the bound) in the error
// values (FaultValues) before it stops as a raise stops, or, where Note
// [Going on after a fault] allows, goes on in range. The numbers of
// faults follow those of the raises (Faults), and each names a printf
// format that the host fills with the two values.
//
// CHECKS=0 on the program's command line clears the checks word
// (ChecksWord), which a failed check reads: the access then goes ahead as
// without checks, undefined as on the GPU. The comparisons stay; `gpuc
// compile --checks=off` leaves them out altogether.
//
// Which checks device code keeps, hoists out of loops or leaves out is
// Note [Check placement].
//
// Which fault a program reports when several threads fail is the first
// in block and thread order on the host, as in the interpreter, and the
// first to reach the error word on the GPU.

// Symbols of the checks in the LLVM backend's modules, which the host
// programs look up.
const (
	FaultValues = "gpuc_error_values"
	ChecksWord  = "gpuc_checks"
)

// IndexFault is the printf format of a failed index check at pos on
// buffer b, with the index (a long long, or an unsigned long long where
// unsigned is set) and the length as its values.
func IndexFault(pos ir.Pos, b *ir.Buffer, unsigned bool) string {
	conv := "%lld"
	if unsigned {
		conv = "%llu"
	}
	return escapePercent(pos.String()) + ": error: index " + conv + " out of range for buffer " +
		escapePercent(b.Name) + " of length %lld"
}

// BelowFault is the printf format of a failed check at pos of a value
// written into buffer b, which has a below bound (Note [Bounded buffers]
// in package ir), with the value (a long long, or an unsigned long long
// where unsigned is set) and the bound as its values: the interpreter's
// message.
func BelowFault(pos ir.Pos, b *ir.Buffer, unsigned bool) string {
	conv := "%lld"
	if unsigned {
		conv = "%llu"
	}
	msg := escapePercent(ir.BelowMessage(b, "\x00v", "\x00b"))
	msg = strings.Replace(strings.Replace(msg, "\x00v", conv, 1), "\x00b", "%lld", 1)
	return escapePercent(pos.String()) + ": error: " + msg
}

// CheckedWrite reports whether the value a store writes into b needs a
// check: b has a below bound.
func CheckedWrite(b *ir.Buffer) bool { return b != nil && b.Below && b.Bound != "" }

// DivFault is the printf format of a failed divisor check at pos.
func DivFault(pos ir.Pos) string {
	return escapePercent(pos.String()) + ": error: " + escapePercent(ir.ErrDivZero.Error())
}

func escapePercent(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// IndexUnsigned reports whether an index of type t prints as unsigned:
// the interpreter prints u64 indices so; narrower ones fit a long long.
func IndexUnsigned(t ir.Type) bool { return t == ir.U64 }

// IndexInRange reports whether index is a constant known to be in range
// for buffer b, whose check can go.
func IndexInRange(b *ir.Buffer, index ir.Expr) bool {
	i, ok1 := index.(*ir.Const)
	n, ok2 := b.Len.(*ir.Const)
	if !ok1 || !ok2 {
		return false
	}
	iv, nv := int64(ir.Normalize(i.T, i.Bits)), int64(ir.Normalize(n.T, n.Bits))
	return !IndexUnsigned(i.T) && iv >= 0 && iv < nv || IndexUnsigned(i.T) && i.Bits < uint64(max(nv, 0))
}

// CheckedDivisor reports whether the divisor of e needs a check: e is an
// integer division or remainder whose divisor is not a nonzero constant.
func CheckedDivisor(e *ir.Binary) bool {
	if e.Op != ir.Div && e.Op != ir.Rem {
		return false
	}
	t := e.X.Type()
	if !t.IsInt() {
		return false
	}
	k, ok := e.Y.(*ir.Const)
	return !ok || ir.Normalize(t, k.Bits) == 0
}

// Faults numbers the formats of the checks of every function of m from
// first, in module order, as Raises numbers raises, and of further
// modules after them where they add formats. Host functions count too:
// at the SPMD level their regions hold what kernels will hold, and a
// module before run-time specialization must number every check of the
// kernels specialized from it.
func Faults(m *ir.Module, first int, more ...*ir.Module) (ids map[string]int, fmts []string) {
	ids = map[string]int{}
	add := func(f string) {
		if ids[f] == 0 {
			fmts = append(fmts, f)
			ids[f] = first + len(fmts) - 1
		}
	}
	for _, mod := range append([]*ir.Module{m}, more...) {
		index := func(pos ir.Pos, buf string, idx ir.Expr) {
			if b := mod.Buffer(buf); b != nil && idx != nil {
				add(IndexFault(pos, b, IndexUnsigned(idx.Type())))
			}
		}
		for _, f := range mod.Funcs {
			ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
				switch s := s.(type) {
				case *ir.Store:
					index(s.Pos, s.Buf, s.Index)
					if b := mod.Buffer(s.Buf); CheckedWrite(b) && s.Value != nil {
						add(BelowFault(s.Pos, b, IndexUnsigned(b.Elem)))
					}
				case *ir.Atomic:
					index(s.Pos, s.Buf, s.Index)
				}
				return true
			})
			ir.WalkAllExprs(f.Body, func(e ir.Expr) bool {
				switch e := e.(type) {
				case *ir.Load:
					index(e.Pos, e.Buf, e.Index)
				case *ir.Binary:
					if CheckedDivisor(e) {
						add(DivFault(e.Pos))
					}
				}
				return true
			})
		}
	}
	return ids, fmts
}
