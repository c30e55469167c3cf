package termination

import (
	"math/big"
	"math/rand"
	"path/filepath"
	"testing"

	"gpuc/analysis/its"
)

// mutants changes one step of a loop at a time: a constant step becomes 0 or changes sign.
func mutants(sys *its.System) []*its.System {
	var out []*its.System
	inLoop := map[int]bool{}
	for _, c := range sccs(sys, allTrans(sys)) {
		for _, ti := range c {
			inLoop[ti] = true
		}
	}
	for ti, t := range sys.Trans {
		if !inLoop[ti] {
			continue
		}
		for _, k := range its.SortedUpdates(t) {
			b, ok := t.Update[k].(*its.Binary)
			if !ok || (b.Op != its.Add && b.Op != its.Sub) {
				continue
			}
			c, ok := b.Y.(*its.Const)
			if !ok || c.Val.Sign() == 0 {
				continue
			}
			for _, nv := range []*big.Int{new(big.Int), new(big.Int).Neg(c.Val)} {
				m := *sys
				m.Trans = append([]its.Transition(nil), sys.Trans...)
				nt := t
				nt.Update = map[string]its.Expr{}
				for kk, e := range t.Update {
					nt.Update[kk] = e
				}
				nt.Update[k] = &its.Binary{Op: b.Op, X: b.X, Y: &its.Const{Val: c.Sort.Norm(nv), Sort: c.Sort}}
				m.Trans[ti] = nt
				out = append(out, &m)
			}
		}
	}
	return out
}

// TestMutants mutates the steps of the constructed systems' loops. A mutant's verdict may be
// anything but a stale TRUE: where it is TRUE, runs on small launches must end; where it is FALSE,
// the witness must run past the bound.
func TestMutants(t *testing.T) {
	e := engine(t, "z3")
	files, _ := filepath.Glob("testdata/its/*.its")
	rng := rand.New(rand.NewSource(2))
	total, changed := 0, 0
	for _, f := range files {
		sys, orig := constructedZ3(t, e, f)
		for i, m := range mutants(sys) {
			if testing.Short() && i%2 == 1 {
				continue // every other mutant in short mode (Note [Short mode] in internal/irtest)
			}
			total++
			r := e.Analyze(m)
			if r.Verdict != orig.Verdict || r.Condition != orig.Condition {
				changed++
			}
			switch {
			case r.Verdict == True:
				for run := 0; run < 10; run++ {
					init, ok := smallStart(m, rng)
					if !ok {
						continue
					}
					if exited, _ := simulate(m, init, rng, 100000); !exited {
						t.Errorf("%s: a mutant is TRUE but does not end from %v:\n%s", f, init, m)
						break
					}
				}
			case r.Verdict == False:
				init := map[string]*big.Int{}
				for k, v := range r.Witness.Launch {
					init[k], _ = new(big.Int).SetString(v, 10)
				}
				if exited, n := simulate(m, init, rng, 2000); exited {
					t.Errorf("%s: a mutant's witness %s exits after %d steps:\n%s", f, launchText(r.Witness.Launch), n, m)
				}
			}
		}
	}
	if total == 0 || changed == 0 {
		t.Errorf("%d mutants, %d with a changed verdict: the mutations test nothing", total, changed)
	}
	t.Logf("%d mutants, %d with a changed verdict", total, changed)
}
