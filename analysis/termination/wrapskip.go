package termination

import "gpuc/analysis/its"

// Note [Strides by a parameter go to the condition search]
//
// A grid-stride loop up to a count that a capacity bounds, `for (i = gid; i < n; i += P)` with
// n <= CAP (CHR's and Fork's generated loops, in every rule kernel and a dozen times in each
// cooperative kernel), ends only under a bound on the parameters: i + P wraps where CAP and P
// are near 2^31, and no invariant changes that, since nothing bounds a parameter but a
// condition. The staged proof still tried both Houdini stages on such a nest, over the whole
// system (in a CHR rule kernel with a partner scan, 2 s of solver time, most of the kernel's
// budget), and then had no work left for the condition search, so the kernel was UNKNOWN.
// Where the first two stages (the free invariants, the interval bounds) leave stuck a part of a
// nest that steps a counter by a variable nothing updates (a parameter, a launch size, a value
// read once), the top-level proof leaves the Houdini stages out for that nest and hands it to
// the condition search. That search proves it under the strongest condition with every stage,
// then weakens the condition one parameter at a time down to none, so a nest that Houdini
// proves without a condition still ends with none, at the price of the condition tries. Only
// the top-level proof does this, and only where a condition search follows.

// leaveToConditions reports whether the stuck part bad of a nest, after the first two stages,
// goes to the condition search without the Houdini stages.
func (a *analyzer) leaveToConditions(bad []int) bool {
	if a.only != nil || a.eng.cfg.NoConditions {
		return false
	}
	if squareGuard(a.sys, bad) { // Note [Squares that do not wrap]
		return true
	}
	changed := changedVars(a.sys.Trans...)
	for _, ti := range bad {
		for v, e := range a.sys.Trans[ti].Update {
			b, ok := e.(*its.Binary)
			if !ok || (b.Op != its.Add && b.Op != its.Sub) {
				continue
			}
			x, xok := b.X.(*its.Ref)
			y, yok := b.Y.(*its.Ref)
			if xok && yok && x.Var.Name == v && !changed[y.Var.Name] {
				return true
			}
		}
	}
	return false
}

// Note [Work per loop nest]
//
// The work budget (Note [Work budget]) was set on the corpus, whose kernels hold one or two loop
// nests. A cooperative kernel holds a whole region, a dozen nests (CHR's fixpoint loop with
// every rule's owner loops, then the output's compaction and sort), each a few queries; with
// the kernel's 250 it ran out before the condition search that each of them needs. So a system
// of more than nestsPerWork top-level nests gets Config.Work for every nestsPerWork of them.
// The solver's effort (Note [Processor-time budget], Note [Solver work in resource units])
// scales the same way; the corpus's kernels hold at most four nests but a few, so the time
// target holds there.

// nestsPerWork is the number of top-level loop nests one Config.Work serves.
const nestsPerWork = 4

// workFor gives the work budget of a system whose top-level loop nests are top.
func (e *Engine) workFor(top [][]int) int {
	return e.cfg.Work * max(1, (len(top)+nestsPerWork-1)/nestsPerWork)
}
