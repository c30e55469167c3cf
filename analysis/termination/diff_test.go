package termination

import (
	"math/big"
	"math/rand"
	"path/filepath"
	"testing"

	"gpuc/analysis/its"
)

// smallStart draws a start state of sys, every variable in [1, 40]:
// inside every condition the engine states (1 <= p <= 2^k, k >= 10). It
// reports whether the state meets the facts.
func smallStart(sys *its.System, rng *rand.Rand) (map[string]*big.Int, bool) {
	init := map[string]*big.Int{}
	for _, v := range sys.Vars {
		init[v.Name] = v.Sort.Norm(big.NewInt(rng.Int63n(40) + 1))
	}
	env := &its.Env{Vars: init}
	ok := true
	for _, fa := range sys.Facts {
		ok = ok && its.Eval(fa.Expr, env).Sign() != 0
	}
	return init, ok
}

// simulate runs sys from the state init with random values for loads and unknown variables, for
// at most max transitions. It reports whether an exit was reached.
func simulate(sys *its.System, init map[string]*big.Int, rng *rand.Rand, max int) (exited bool, steps int) {
	mem := map[string]*big.Int{}
	vals := map[string]*big.Int{}
	for _, v := range sys.Vars {
		if x, ok := init[v.Name]; ok {
			vals[v.Name] = x
		} else {
			vals[v.Name] = v.Sort.Norm(big.NewInt(rng.Int63n(64) - 8))
		}
	}
	small := func(s its.Sort) *big.Int { return s.Norm(big.NewInt(rng.Int63n(16) - 4)) }
	loc := sys.Entry
	for steps = 0; steps < max; steps++ {
		if sys.IsExit(loc) {
			return true, steps
		}
		env := drawEnv(vals, mem, small)
		enabled := enabledAt(sys, loc, env)
		if len(enabled) == 0 {
			return false, steps // stuck: not an exit
		}
		t := sys.Trans[enabled[rng.Intn(len(enabled))]]
		vals, loc = fire(sys, t, vals, env, small), t.To
	}
	return sys.IsExit(loc), steps
}

// TestDifferential checks each constructed system's verdict by running it: a TRUE system (under
// its condition) ends on small random launches, and a FALSE witness's launch runs past any
// bound whatever the loads return.
func TestDifferential(t *testing.T) {
	e := engine(t, "z3")
	files, _ := filepath.Glob("testdata/its/*.its")
	rng := rand.New(rand.NewSource(1))
	for _, f := range files {
		sys, r := constructedZ3(t, e, f)
		if r.Witness != nil {
			init := map[string]*big.Int{}
			for k, v := range r.Witness.Launch {
				init[k], _ = new(big.Int).SetString(v, 10)
			}
			for run := 0; run < 20; run++ {
				if exited, n := simulate(sys, init, rng, 2000); exited {
					t.Errorf("%s: the witness %s exits after %d steps", f, launchText(r.Witness.Launch), n)
				}
			}
		}
		if r.Verdict != True {
			continue
		}
		ran := 0
		for run := 0; run < 200 && ran < 20; run++ {
			init, ok := smallStart(sys, rng)
			if !ok {
				continue
			}
			ran++
			if exited, n := simulate(sys, init, rng, 100000); !exited {
				t.Errorf("%s: TRUE, but a run from %v did not exit in %d steps", f, init, n)
			}
		}
	}
}
