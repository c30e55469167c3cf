package passes

import "gpuc/ir"

// Note [Uniform checks on every thread]
//
// A cooperative kernel runs a region's statements with effects under `if
// active` (Note [Grid sync]), and a raise is an effect. CHR's fixpoint
// loop checks its step count, `if step > MAXSTEPS { raise ... }`, where
// step and MAXSTEPS are the same on every thread: under `if active` the
// threads past the region's size would loop on (to the next grid sync)
// with nothing of their own that ends the loop, and termination analysis,
// which looks at one thread, could not see the bound (it read the loop as
// a spin on the flag other blocks set). Running such a check on every
// thread changes nothing observable: the active threads, of which there is
// at least one wherever the kernel runs (its grid is the region's size
// rounded up to blocks), raise at the same check, and a raise stops the
// whole cooperative kernel, the program ending with the message. So an
// if whose condition reads only locals that are the same on every
// thread, parameters and constants (no memory, no calls), and whose body
// is only raises, stays outside the guard. Group-split keeps guarding it:
// a subgroup may be empty, and then nothing may raise.

// uniformCheck reports whether s is `if c { raise ... }` with c the same
// on every thread and read from no memory.
func (g *grouper) uniformCheck(s ir.Stmt) bool {
	i, ok := s.(*ir.If)
	if !ok || len(i.Else) > 0 || len(i.Then) == 0 || g.u.varies(i.Cond) {
		return false
	}
	for _, t := range i.Then {
		if _, ok := t.(*ir.Raise); !ok {
			return false
		}
	}
	pure := true
	ir.WalkExpr(i.Cond, func(x ir.Expr) bool {
		switch x.(type) {
		case *ir.Load, *ir.Call:
			pure = false
		}
		return pure
	})
	return pure
}
