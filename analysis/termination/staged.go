package termination

// Note [Ranked outer levels carry over]
// prove tries each loop nest with ever stronger invariants (free invariants, interval bounds,
// the two Houdini stages). A stage that ranks the outer levels of a nest and is stuck on an
// inner part leaves that part (proveComponent's third result): the next stage first tries only
// that part, keeping the outer rankings and their obligations, rather than proving the outer
// levels again (polybench nussinov spent half its time so). Every stage's invariants are
// proved inductive, so the outer rankings stay valid, and the certificate holds the invariant
// obligations of every stage used. Where the part fails, the stage tries the whole nest as
// before: stronger invariants may pick another outer ranking that leaves an easier part.

// stagedProof is one loop nest's proof across invariant stages.
type stagedProof struct {
	a     *analyzer
	comp  []int
	ranks []Ranking
	obl   []Obligation
	bad   []int         // the part not ranked yet; nil once proved
	used  []*Invariants // the invariant sets that ranks and obl rely on
	tried bool
}

// try attempts the proof with the invariants at inv (Note [Ranked outer levels carry over]).
func (p *stagedProof) try(inv *Invariants) {
	if !p.tried {
		p.tried = true
		p.ranks, p.obl, p.bad = p.a.proveComponent(*inv, p.comp)
		p.used = []*Invariants{inv}
		return
	}
	if len(p.bad) < len(p.comp) {
		r, o, b := p.a.proveComponent(*inv, p.bad)
		if b == nil {
			p.ranks = append(p.ranks, r...)
			p.obl = append(p.obl, o...)
			p.bad = nil
			p.used = append(p.used, inv)
			return
		}
	}
	p.ranks, p.obl, p.bad = p.a.proveComponent(*inv, p.comp)
	p.used = []*Invariants{inv}
}
