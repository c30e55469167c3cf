package termination

import (
	"strings"

	"gpuc/analysis/its"
)

// Note [Conditions on the launch's parameters]
//
// A kernel's parameter that every launch sets to a module parameter has the fact `p == Q`
// (analysis/fromir's launch facts: CHR's and Fork's `procs_16` is PROCS). A condition on p is
// one on Q, but only Q is what the user sets, on the command line of the program; so the
// condition search bounds Q in p's place, and the condition reads `PROCS <= 1073741824`. The
// fact carries the bound over to p, so the proof is the same. Where NAME=VALUE fixes Q, p is
// fixed too and gets no bound: a bound below its value made the facts contradict each other,
// and every loop TRUE under a condition that cannot hold (`TRUE if procs_22 <= 1024` with
// PROCS=4096).

// launchAliases maps each variable that a launch-argument fact equates with another parameter
// to that parameter.
func launchAliases(sys *its.System) map[string]its.Var {
	params := map[string]bool{}
	for _, p := range sys.Params {
		params[p] = true
	}
	out := map[string]its.Var{}
	for _, f := range sys.Facts {
		if !strings.HasPrefix(f.Why, "launch argument ") {
			continue
		}
		b, ok := f.Expr.(*its.Binary)
		if !ok || b.Op != its.Eq {
			continue
		}
		x, okx := b.X.(*its.Ref)
		y, oky := b.Y.(*its.Ref)
		if okx && oky && params[y.Var.Name] && x.Var.Sort == y.Var.Sort && x.Var.Name != y.Var.Name {
			out[x.Var.Name] = y.Var
		}
	}
	return out
}

// onLaunchParams replaces each variable of vs that a launch fact equates with a module parameter
// by that parameter, once, and leaves it out where fixed says the parameter is fixed.
func onLaunchParams(sys *its.System, vs []its.Var, fixed func(string) bool) []its.Var {
	alias := launchAliases(sys)
	seen := map[string]bool{}
	var out []its.Var
	for _, v := range vs {
		if q, ok := alias[v.Name]; ok {
			if fixed(q.Name) {
				continue
			}
			v = q
		}
		if !seen[v.Name] {
			seen[v.Name] = true
			out = append(out, v)
		}
	}
	return out
}
