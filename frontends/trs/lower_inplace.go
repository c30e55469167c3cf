package trs

import (
	"fmt"

	"gpuc/ir"
)

// Note [Reuse in place]
//
// A rule such as conc(l(E, L1), L2) -> l(E, conc(L1, L2)) drops a matched
// argument of the root, the cell l(E, L1), and needs a new slot for
// conc(L1, L2). On one processor (Note [One processor's garbage]) the
// release lists the cell as garbage when its count falls to zero, the
// next rewrite's site takes it back off the list (trs_reuse), and the
// take drops the cell's references to E and L1, which the build had
// just added: revnat1000 spent about 145 of its 455 instructions a
// rewrite on that round trip (docs/BENCHMARKS.md).
//
// So where one processor runs the step, a rule that drops the argument a
// of the root, matched against a pattern f(p1, ..., pn), and needs a new
// slot (the first such argument only), first tests the argument's slot x: if it is counted (not the
// input's, Note [Input slots]) and its count is 1, the root held its
// only reference, and the rewrite would make it garbage. Then the
// rewrite takes x itself for its first new subterm (ip, the local, is
// 1 and the site takes one slot fewer), does not release x, and moves
// x's references to its arguments rather than adding and dropping them:
// an argument that the right-hand side uses n times, bound at that
// position (a variable's first occurrence, or the matched subterm
// itself), gains n - 1; one it does not use is released, as the take
// would have. What the store holds afterwards is what release, take and
// build made, with x in the place of the slot the site would have taken:
// the same terms, rewrites and output; only which slot holds which term
// and the garbage lists differ (fewer slots are taken). No one else reads x in the
// phase (Note [One processor's garbage]): nothing references it but the
// root, which the walk is rewriting. The wide step keeps its build
// (Note [Wide and one-processor steps]), and a world does without.

// inPlace is a rule's plan for reusing the slot of the root's argument
// arg (Note [Reuse in place]): the references added to each binding
// register, and the arguments of the dropped cell to release.
type inPlace struct {
	arg     int
	adds    []int64
	release []int
}

// planInPlace finds, for the rule of p on one device, a dropped argument
// of the root matched against a pattern that it can reuse in place, and
// sets p.inPlace (Note [Reuse in place]).
func (l *lowerer) planInPlace(p *rulePlan, ms *matchState) {
	if l.world || len(p.news) == 0 {
		return
	}
	r := ms.rule
	keys := ms.keys()
	for a, d := range p.delta {
		pat := r.LHS.Args[a]
		if d != -1 || pat.Sym == nil {
			continue
		}
		ip := &inPlace{arg: a, adds: append([]int64(nil), p.adds...)}
		first := firstOccurrences(r.LHS)
		for i, c := range pat.Args {
			var key any = c
			if c.Var != nil {
				key = c.Var
				if first[c.Var] != c {
					key = nil // bound elsewhere: this cell's argument is another slot
				}
			}
			at := -1
			for j, k := range keys {
				if key != nil && k == key {
					at = j
				}
			}
			if at >= 0 && ip.adds[at] > 0 {
				ip.adds[at]--
			} else {
				ip.release = append(ip.release, i)
			}
		}
		p.inPlace = ip
		return
	}
}

// firstOccurrences maps each variable of the left-hand side lhs to its
// first occurrence in the order match binds them: depth first, left to
// right.
func firstOccurrences(lhs *Term) map[*Var]*Term {
	first := map[*Var]*Term{}
	var walk func(t *Term)
	walk = func(t *Term) {
		if t.Var != nil {
			if _, ok := first[t.Var]; !ok {
				first[t.Var] = t
			}
			return
		}
		for _, a := range t.Args {
			walk(a)
		}
	}
	for _, a := range lhs.Args {
		walk(a)
	}
	return first
}

// decideInPlace sets ip in the match stage of a rule that may reuse a
// slot in place: 1 where one processor runs the step and the argument's
// slot is counted and held by the root alone.
func (l *lowerer) decideInPlace(b *fn, p *rulePlan) {
	if p.inPlace == nil {
		return
	}
	x := b.V(l.regs()[p.inPlace.arg])
	b.If(b.V("one"), func() {
		b.If(b.And(b.Ge(x, b.S(l.nodes)), b.Eq(b.Ld("rc", ir.CloneExpr(x)), b.I32(1))), func() {
			b.Set(lInPlace, b.I32(1))
		})
	})
}

// inPlaceTaken is what the site takes off need: ip on one processor.
func inPlaceTaken(b *fn) ir.Expr {
	return b.Sel(b.V("one"), b.V(lInPlace), b.I32(0))
}

// anyInPlace says whether some rule of the step may reuse a slot in place.
func anyInPlace(sa *stepAlloc) bool {
	for _, p := range sa.plans {
		if p.inPlace != nil {
			return true
		}
	}
	return false
}

// buildInPlace is the build stage of p where ip is 1: the first new
// subterm takes the dropped argument's slot, the others the site's
// (Note [Reuse in place]).
func (l *lowerer) buildInPlace(b *fn, p *rulePlan) {
	ip := p.inPlace
	x := b.V(l.regs()[ip.arg])
	// The bound slots, read anew under names of this branch's own, so
	// that the simplify pass can inline the other branch where one is
	// false (Note [Wide and one-processor steps]).
	ms := &matchState{rule: p.ms.rule, vars: map[*Var]ir.Expr{}, direct: p.ms.direct, subs: append([]boundSub(nil), p.ms.subs...)}
	rn := map[string]string{}
	for _, d := range p.reads {
		if d != nil {
			rn[d.Name] = d.Name + "p"
			b.Decl(d.Name+"p", d.T, ir.CloneExpr(d.Init))
		}
	}
	ren := func(e ir.Expr) ir.Expr {
		if v, ok := e.(*ir.Var); ok {
			if n, ok := rn[v.Name]; ok {
				return b.V(n)
			}
		}
		return ir.CloneExpr(e)
	}
	for k, e := range p.ms.vars {
		ms.vars[k] = ren(e)
	}
	for i := range ms.subs {
		ms.subs[i].slot = ren(ms.subs[i].slot)
	}
	l.moveRefsAs(b, p, ip.adds, ip.arg, func(i int) ir.Expr { return ren(p.bind(b, i)) })
	for _, i := range ip.release {
		b.Call("trs_release", l.arg(b, i, ir.CloneExpr(x)), b.V("k"))
	}
	p.news[0].slot = b.Decl(l.inPlaceSlot(p), l.id, ir.CloneExpr(x))
	if len(p.news) > 1 {
		l.takeSlots(b, groupTag(0), inPlaceTag(p), p.news[1:], nil)
	}
	l.writeNew(b, ms, p.news)
	l.setRoot(b, ms, p.news)
}

// The local ip and the names of the in-place build's slot locals.
const lInPlace = "ip"

func inPlaceTag(p *rulePlan) string { return fmt.Sprintf("%d_p", p.ms.rule.Index) }

func (l *lowerer) inPlaceSlot(p *rulePlan) string { return "t" + inPlaceTag(p) + "_x" }
