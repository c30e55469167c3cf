package termination

import "gpuc/analysis/its"

// Note [Exits split after the loop]
// A translator merges what follows a loop into the loop's exit transitions: Fork's cooperative
// kernels run `if active { ... }` after each synchronous loop, so the exit `r >= N` becomes
// `r >= N, active != 0` and `r >= N, active == 0`, and an `if ($ == 0)` after it one more exit
// with `gid == 0` beside the one without. Whether the thread leaves the loop does not depend on
// those guards (the exits' disjunction is `r >= N`), but barrierDivergence read every guard of
// every exit and warned of divergence through the thread id (oddeven, ilog2_rounds). Two
// syntactic rules leave such guards out, on guard sets (duplicates merged):
//   - an exit whose guards include all of another exit's from the same location adds nothing to
//     when the thread leaves (where it is enabled, so is the other);
//   - a guard g of an exit is one side of a split where another exit from the same location has
//     the same other guards and the negation of g: together they leave under the others alone.
// A split the rules do not see still warns, as before.

// exitIrrelevant reports whether guard i of exit t (from a location of the loop, whose
// locations in holds) does not decide whether the thread leaves the loop (Note [Exits split
// after the loop]).
func exitIrrelevant(sys *its.System, in map[int]bool, t its.Transition, i int) bool {
	mine := guardSet(t.Guard)
	want := its.Negate(t.Guard[i]).String()
	rest := guardSet(withoutGuard(t.Guard, t.Guard[i].String()))
	for _, u := range sys.Trans {
		if u.From != t.From || in[u.To] {
			continue
		}
		theirs := guardSet(u.Guard)
		if len(theirs) < len(mine) && subset(theirs, mine) {
			return true
		}
		for _, g := range u.Guard {
			if g.String() == want && equalSets(guardSet(withoutGuard(u.Guard, want)), rest) {
				return true
			}
		}
	}
	return false
}

func guardSet(gs []its.Expr) map[string]bool {
	m := map[string]bool{}
	for _, g := range gs {
		m[g.String()] = true
	}
	return m
}

func withoutGuard(gs []its.Expr, drop string) []its.Expr {
	var out []its.Expr
	for _, g := range gs {
		if g.String() != drop {
			out = append(out, g)
		}
	}
	return out
}

func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func equalSets(a, b map[string]bool) bool { return len(a) == len(b) && subset(a, b) }
