package ir

import "strconv"

// BoundValue gives the upper end of a bounded buffer's range for the
// given parameter values (Note [Bounded buffers]); ok is false where b
// has no bound or it names no parameter in params.
func (b *Buffer) BoundValue(params map[string]int64) (int64, bool) {
	if b.Bound == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(b.Bound, 10, 64); err == nil {
		return n, true
	}
	n, ok := params[b.Bound]
	return n, ok
}

// bound checks a buffer's bound (Note [Bounded buffers]): integers, at
// most one of progress and bound, a parameter or a non-negative constant.
func (v *verifier) bound(m *Module, b *Buffer) {
	if b.Bound == "" {
		return
	}
	switch {
	case !b.Elem.IsInt():
		v.errorf(b.Pos, "buffer %s has bound %s, so it must hold integers", b.Name, b.Bound)
	case b.Progress != "":
		v.errorf(b.Pos, "buffer %s has both progress and bound; it may have one", b.Name)
	case b.Role != Scratch:
		v.errorf(b.Pos, "buffer %s has bound %s, so it must be scratch (its contents start at zero)", b.Name, b.Bound)
	}
	if n, err := strconv.ParseInt(b.Bound, 10, 64); err == nil {
		if n < 0 {
			v.errorf(b.Pos, "buffer %s has a negative bound %d", b.Name, n)
		}
		return
	}
	if m.Param(b.Bound) == nil {
		v.errorf(b.Pos, "buffer %s has bound %s, which is no parameter", b.Name, b.Bound)
	}
}

// storesOnly checks that what writes buffer name at pos, by the act
// named what, is no write of a buffer with a below bound, which only
// stores may write (Note [Bounded buffers]).
func (v *verifier) storesOnly(name string, pos Pos, what string) {
	if b := v.buffers[name]; b != nil && b.Below {
		v.errorf(pos, "%s writes buffer %s, whose values lie below %s; only stores may write it (Note [Bounded buffers])", what, name, b.Bound)
	}
}

// BelowMessage is the error of a write of value (printed) into b, whose
// below bound is hi (printed), without its position: the interpreter's
// fault, and, with printf conversions for both, the format of generated
// code's (abi.BelowFault).
func BelowMessage(b *Buffer, value, hi string) string {
	bound := hi
	if _, err := strconv.ParseInt(b.Bound, 10, 64); err != nil {
		bound = b.Bound + " = " + hi
	}
	return "a write stores " + value + " into buffer " + b.Name + ", whose values lie in [0, " + bound + ") (Note [Bounded buffers])"
}
