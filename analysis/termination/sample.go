package termination

import (
	"math/big"
	"math/rand"

	"gpuc/analysis/its"
	"gpuc/analysis/smt"
)

// Note [Sampling before Houdini]
// Most template candidates are false, and Houdini's solver queries drop only the few that each
// counterexample falsifies. So before the first query, the system runs: the solver gives a few
// entry states that satisfy the facts, and random walks from them (random load values, random
// choices among enabled transitions) visit states; a candidate false at a visited state of its
// location is dropped. Dropping is always safe, so the walks need not be exhaustive or exact.

// walk runs sys from init for at most steps transitions, calling visit at each state.
func walk(sys *its.System, init map[string]*big.Int, rng *rand.Rand, steps int, visit func(loc int, vals map[string]*big.Int)) {
	vals := map[string]*big.Int{}
	for _, v := range sys.Vars {
		if x, ok := init[v.Name]; ok {
			vals[v.Name] = x
		} else {
			vals[v.Name] = new(big.Int)
		}
	}
	draw := func(s its.Sort) *big.Int { return drawValue(rng, s) }
	mem := map[string]*big.Int{}
	loc := sys.Entry
	for i := 0; i < steps; i++ {
		visit(loc, vals)
		if sys.IsExit(loc) {
			return
		}
		env := drawEnv(vals, mem, draw)
		enabled := enabledAt(sys, loc, env)
		if len(enabled) == 0 {
			return
		}
		t := sys.Trans[enabled[rng.Intn(len(enabled))]]
		vals, loc = fire(sys, t, vals, env, draw), t.To
	}
}

// drawEnv is the state vals for one firing: draw gives the firing's
// nondeterministic values, each once, and memory's, each once a run
// (mem holds them).
func drawEnv(vals, mem map[string]*big.Int, draw func(its.Sort) *big.Int) *its.Env {
	draws := map[*its.Nondet]*big.Int{}
	return &its.Env{Vars: vals,
		Nondet: func(n *its.Nondet) *big.Int {
			if v, ok := draws[n]; ok {
				return v
			}
			draws[n] = draw(n.Sort)
			return draws[n]
		},
		Load: func(buf string, addr *big.Int, s its.Sort) *big.Int {
			k := buf + "/" + addr.String()
			if _, ok := mem[k]; !ok {
				mem[k] = draw(s)
			}
			return mem[k]
		}}
}

// fire is the state after t fires from vals, whose firing env is: draw
// gives what t havocs.
func fire(sys *its.System, t its.Transition, vals map[string]*big.Int, env *its.Env, draw func(its.Sort) *big.Int) map[string]*big.Int {
	next := make(map[string]*big.Int, len(vals))
	for k, v := range vals {
		next[k] = v
	}
	for _, k := range its.SortedUpdates(t) {
		v, _ := sys.Var(k)
		next[k] = v.Sort.Norm(its.Eval(t.Update[k], env))
	}
	for _, h := range t.Havoc {
		v, _ := sys.Var(h)
		next[h] = draw(v.Sort)
	}
	return next
}

// enabledAt lists the transitions out of loc whose guards hold in env.
func enabledAt(sys *its.System, loc int, env *its.Env) []int {
	var out []int
	for ti, t := range sys.Trans {
		if t.From != loc {
			continue
		}
		ok := true
		for _, g := range t.Guard {
			if its.Eval(g, env).Sign() == 0 {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, ti)
		}
	}
	return out
}

// entryStates asks the solver for an entry state under each of the hints, in order: the
// values the model gives (a variable it leaves out is absent), or nil where the hint admits none.
func (a *analyzer) entryStates() []map[string]*big.Int {
	sys := a.sys
	var out []map[string]*big.Int
	for _, hint := range a.hints() {
		q := newQuery(sys)
		x0 := q.entryWith(sys, hint)
		var ask []string
		for _, v := range sys.Vars {
			ask = append(ask, x0[v.Name])
		}
		res, model, err := a.check(q.script(), ask...)
		if err != nil || res != smt.Sat {
			out = append(out, nil)
			continue
		}
		init := map[string]*big.Int{}
		for _, v := range sys.Vars {
			if x, ok := smt.Value(model[x0[v.Name]]); ok {
				init[v.Name] = v.Sort.Norm(x)
			}
		}
		out = append(out, init)
	}
	return out
}

// sampleFilter drops the candidates that a sampled run falsifies at their location.
func (a *analyzer) sampleFilter(inv Invariants) {
	sys := a.sys
	rng := rand.New(rand.NewSource(1))
	for _, init := range a.entryStates() {
		if init == nil {
			continue
		}
		for run := 0; run < 6; run++ {
			walk(sys, init, rng, 200, func(loc int, vals map[string]*big.Int) {
				if loc == sys.Entry || len(inv[loc]) == 0 {
					return
				}
				env := &its.Env{Vars: vals}
				keep := inv[loc][:0]
				for _, c := range inv[loc] {
					if its.Eval(c, env).Sign() != 0 {
						keep = append(keep, c)
					}
				}
				inv[loc] = keep
			})
		}
	}
}

// drawValue is a sampled value of sort s: small, near zero of either
// sign, or the sort's largest, where wraps show.
func drawValue(rng *rand.Rand, s its.Sort) *big.Int {
	switch rng.Intn(4) {
	case 0:
		return s.Norm(big.NewInt(rng.Int63n(2048) - 1024))
	case 1:
		return s.Max()
	default:
		return s.Norm(big.NewInt(rng.Int63n(16)))
	}
}
