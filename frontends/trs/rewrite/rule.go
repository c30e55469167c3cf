package rewrite

import "gpuc/frontends/trs"

// rule is a rule compiled for matching, a program over registers, where
// registers 0 to n-1 hold the arguments of the node being rewritten, and
// for building its right-hand side.
type rule struct {
	ops   []op
	nregs int
	vars  []int32 // the register bound to each variable
	// The right-hand side: a variable's register (collapse >= 0), or the
	// new nodes, children first, and the root's symbol and arguments.
	collapse int32
	build    []newNode
	root     int32
	rootArgs []source
}

// newNode is a node a right-hand side makes.
type newNode struct {
	sym  int32
	args []source
}

// source is where an argument comes from: a register (reg >= 0) or the
// node made by build step node.
type source struct{ reg, node int32 }

type opKind uint8

const (
	opHead opKind = iota // regs[a] must have head symbol b
	opArg                // regs[c] = argument b of regs[a]
	opEq                 // regs[a] and regs[b] must be equal terms
)

type op struct {
	kind    opKind
	a, b, c int32
}

// compile lays out the left-hand side's checks depth first, each head
// test before the loads below it, and the equality tests of repeated
// variables last.
func compile(rl *trs.Rule) *rule {
	c := &rule{vars: make([]int32, len(rl.Vars)), collapse: -1}
	for i := range c.vars {
		c.vars[i] = -1
	}
	c.nregs = len(rl.LHS.Args)
	var eqs []op
	var subs []boundSub
	var walk func(p *trs.Term, reg int32)
	walk = func(p *trs.Term, reg int32) {
		if p.Var != nil {
			if first := c.vars[p.Var.Index]; first >= 0 {
				eqs = append(eqs, op{kind: opEq, a: first, b: reg})
			} else {
				c.vars[p.Var.Index] = reg
			}
			return
		}
		subs = append(subs, boundSub{p, reg})
		c.ops = append(c.ops, op{kind: opHead, a: reg, b: int32(p.Sym.Index)})
		for i, a := range p.Args {
			sub := int32(c.nregs)
			c.nregs++
			c.ops = append(c.ops, op{kind: opArg, a: reg, b: int32(i), c: sub})
			walk(a, sub)
		}
	}
	for i, a := range rl.LHS.Args {
		walk(a, int32(i))
	}
	c.ops = append(c.ops, eqs...)
	c.compileRHS(rl.RHS, subs)
	return c
}

// boundSub is a matched subterm of a left-hand side, not a variable, and
// its register.
type boundSub struct {
	t   *trs.Term
	reg int32
}

// compileRHS lays out the right-hand side's new nodes, children first.
// Variables, and copies of matched subterms of the left-hand side, are
// shared, as the device shares them (Note [Sharing] in package trs).
func (c *rule) compileRHS(rhs *trs.Term, subs []boundSub) {
	bound := func(t *trs.Term) (int32, bool) {
		if t.Var != nil {
			return c.vars[t.Var.Index], true
		}
		for _, s := range subs {
			if trs.SameTerm(s.t, t) {
				return s.reg, true
			}
		}
		return -1, false
	}
	if reg, ok := bound(rhs); ok {
		c.collapse = reg
		return
	}
	var src func(t *trs.Term) source
	src = func(t *trs.Term) source {
		if reg, ok := bound(t); ok {
			return source{reg: reg, node: -1}
		}
		n := newNode{sym: int32(t.Sym.Index)}
		for _, a := range t.Args {
			n.args = append(n.args, src(a))
		}
		c.build = append(c.build, n)
		return source{reg: -1, node: int32(len(c.build) - 1)}
	}
	c.root = int32(rhs.Sym.Index)
	for _, a := range rhs.Args {
		c.rootArgs = append(c.rootArgs, src(a))
	}
}

// rewrite applies the first rule of t's head that matches, in place, and
// reports whether one did. Registers 0 to arity-1 hold t's arguments for
// every rule; the others each rule sets before it reads them.
func (r *Rewriter) rewrite(t int32) bool {
	h := r.head[t]
	rules := r.rules[h]
	if len(rules) == 0 {
		return false
	}
	copy(r.regs, r.args[t*r.k:t*r.k+r.arity[h]])
	for _, rl := range rules {
		if r.match(rl) {
			r.apply(t, rl)
			return true
		}
	}
	return false
}

func (r *Rewriter) match(rl *rule) bool {
	regs := r.regs
	for _, o := range rl.ops {
		switch o.kind {
		case opHead:
			if r.head[regs[o.a]] != o.b {
				return false
			}
		case opArg:
			regs[o.c] = r.args[regs[o.a]*r.k+o.b]
		case opEq:
			if !r.equal(regs[o.a], regs[o.b]) {
				return false
			}
		}
	}
	return true
}

// equal compares two terms in normal form.
func (r *Rewriter) equal(a, b int32) bool {
	if a == b {
		return true
	}
	if r.head[a] != r.head[b] {
		return false
	}
	for i := int32(0); i < r.arity[r.head[a]]; i++ {
		if !r.equal(r.args[a*r.k+i], r.args[b*r.k+i]) {
			return false
		}
	}
	return true
}

// apply overwrites t with the right-hand side under the bindings in
// r.regs: the new root's arguments take their references before the old
// arguments drop theirs, so that nothing still needed is freed.
func (r *Rewriter) apply(t int32, rl *rule) {
	base := t * r.k
	r.old = append(r.old[:0], r.args[base:base+r.arity[r.head[t]]]...)
	if rl.collapse >= 0 {
		src := r.regs[rl.collapse]
		h := r.head[src]
		for i := int32(0); i < r.arity[h]; i++ {
			a := r.args[src*r.k+i]
			r.rc[a]++
			r.args[base+i] = a
		}
		r.head[t] = h
	} else {
		r.made = r.made[:0]
		for _, n := range rl.build {
			m := r.newNode(n.sym)
			for i, a := range n.args {
				c := r.from(a)
				r.rc[c]++
				r.args[m*r.k+int32(i)] = c
			}
			r.made = append(r.made, m)
		}
		for i, a := range rl.rootArgs {
			c := r.from(a)
			r.rc[c]++
			r.args[base+int32(i)] = c
		}
		r.head[t] = rl.root
	}
	for _, a := range r.old {
		r.release(a)
	}
}

// from is the node an argument source names.
func (r *Rewriter) from(s source) int32 {
	if s.reg >= 0 {
		return r.regs[s.reg]
	}
	return r.made[s.node]
}
