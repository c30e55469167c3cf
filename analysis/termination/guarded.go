package termination

import (
	"strings"

	"gpuc/analysis/its"
)

// Note [Guarded expression intervals]
// A transition's guards often bound a compound expression that its updates then read: polybench
// nussinov starts c2 at X - 126 under the guard X >= 126, where X is a sum over parameters, so
// c2 >= 0. Within one transition, the same expression (with no fresh value) is one value, so a
// guard "X op Y" narrows X like a variable: the interval goes into the environment under X's text
// (a key no variable has), and ieval meets each compound expression with its entry there. The
// entries hold for the transition's pre-state only: ipost drops them from the post-state. A
// disjunctive guard (Note [Exact merges] in analysis/fromllvm) narrows each side in a copy of the
// environment and joins the copies that can hold.

// guardedKey prefixes the keys of guarded expressions; guardedAny marks an environment that has
// some, so that ieval renders an expression's text only then.
const (
	guardedKey = "\x00"
	guardedAny = "\x00\x00"
)

// exprVar gives the pseudo-variable of compound expression x in env, entering its interval.
func exprVar(x its.Expr, env ienv) (its.Var, bool) {
	switch x.(type) {
	case *its.Binary, *its.Unary, *its.Cast:
	default:
		return its.Var{}, false
	}
	s := its.SortOf(x)
	if s.IsBool() || its.HasNondet(x) {
		return its.Var{}, false
	}
	v := its.Var{Name: guardedKey + x.String(), Sort: s}
	if _, ok := env[v.Name]; !ok {
		env[v.Name] = ieval(x, env)
		env[guardedAny] = ival{}
	}
	return v, true
}

// withGuarded meets r, the interval of x, with x's guarded interval in env, if any.
func withGuarded(x its.Expr, env ienv, r ival) ival {
	if _, any := env[guardedAny]; !any {
		return r
	}
	switch x.(type) {
	case *its.Binary, *its.Unary, *its.Cast:
	default:
		return r
	}
	if g, ok := env[guardedKey+x.String()]; ok {
		if m, ok := r.meet(g); ok {
			return m
		}
	}
	return r
}

// dropGuarded removes the guarded expressions from env.
func dropGuarded(env ienv) {
	for k := range env {
		if strings.HasPrefix(k, guardedKey) {
			delete(env, k)
		}
	}
}

// irefineOr narrows env by x || y: each side in a copy, then the join of those that can hold.
func irefineOr(g *its.Binary, env ienv) bool {
	l, r := env.copy(), env.copy()
	lok, rok := irefine(g.X, l), irefine(g.Y, r)
	var keep ienv
	switch {
	case !lok && !rok:
		return false
	case !lok:
		keep = r
	case !rok:
		keep = l
	default:
		keep = ienv{}
		for k, a := range l {
			if b, ok := r[k]; ok {
				if k == guardedAny {
					keep[k] = a
					continue
				}
				keep[k] = a.join(b)
			}
		}
	}
	for k := range env {
		delete(env, k)
	}
	for k, a := range keep {
		env[k] = a
	}
	return true
}
