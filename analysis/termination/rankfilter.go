package termination

import (
	"math/big"
	"math/rand"

	"gpuc/analysis/its"
)

// Note [Sampled steps before ranking]
// A ranking template that fails costs up to three solver queries before decrease rejects it
// (strict, strict with the whole context, weak), and a nest split into cases has dozens of
// templates: polybench's cholesky spent a quarter of its work budget on templates of its inner
// loops at each Houdini stage. So before the first query for a component, the system runs as in
// Note [Sampling before Houdini] (solver-given entry states, random walks with random load
// values), and the steps taken are kept. A template that some kept step of a transition of the
// component raises is rejected with no query. That loses nothing: the step is a run of the
// system the proof reads, so it meets every invariant the proof may assume, and the solver's
// check of that transition would find it. The runs start only once a template has failed, so
// a loop ranked by its first template (most of them) costs no more.

// sampledStep is one sampled firing of transition t.
type sampledStep struct {
	t         int
	pre, post map[string]*big.Int
}

// sampledSteps runs a.sys from the hints' entry states once per analyzer and keeps the steps.
func (a *analyzer) sampledSteps() []sampledStep {
	if a.stepsDone {
		return a.steps
	}
	a.stepsDone = true
	sys := a.sys
	rng := rand.New(rand.NewSource(2))
	draw := func(s its.Sort) *big.Int { return drawValue(rng, s) }
	for _, init := range a.entryStates() {
		if init == nil {
			continue
		}
		for _, v := range sys.Vars {
			if init[v.Name] == nil {
				init[v.Name] = new(big.Int) // a value the model leaves out: zero
			}
		}
		for run := 0; run < 6; run++ {
			vals, loc := init, sys.Entry
			mem := map[string]*big.Int{}
			for i := 0; i < 200 && !sys.IsExit(loc); i++ {
				env := drawEnv(vals, mem, draw)
				enabled := enabledAt(sys, loc, env)
				if len(enabled) == 0 {
					break
				}
				ti := enabled[rng.Intn(len(enabled))]
				next := fire(sys, sys.Trans[ti], vals, env, draw)
				a.steps = append(a.steps, sampledStep{t: ti, pre: vals, post: next})
				vals, loc = next, sys.Trans[ti].To
			}
		}
	}
	return a.steps
}

// raisedBySample reports whether a sampled step of a transition of comp raises fn
// (Note [Sampled steps before ranking]).
func (a *analyzer) raisedBySample(comp []int, fn map[int]*Linear) bool {
	in := map[int]bool{}
	for _, ti := range comp {
		in[ti] = true
	}
	for _, s := range a.sampledSteps() {
		if !in[s.t] {
			continue
		}
		t := a.sys.Trans[s.t]
		f, g := fn[t.From], fn[t.To]
		if f == nil || g == nil {
			continue
		}
		if evalLinear(g, s.post).Cmp(evalLinear(f, s.pre)) > 0 {
			return true
		}
	}
	return false
}

// evalLinear is f at vals, each variable read as its sort says (as walk keeps them).
func evalLinear(f *Linear, vals map[string]*big.Int) *big.Int {
	r := new(big.Int).Set(f.Const)
	var p big.Int
	for v, c := range f.Coef {
		if x, ok := vals[v]; ok {
			r.Add(r, p.Mul(c, x))
		}
	}
	return r
}
