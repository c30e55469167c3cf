// Package rewrite is gpuc's CPU rewriter for term rewrite systems: a
// plain recursive innermost rewriter over a term graph, as in Listing 2
// of the TRS paper. It is one of the three oracles that `gpuc run` and
// Maude must agree with, and the CPU baseline of the benchmarks
// (`gpuc rewrite`).
//
// It rewrites the same graph as the device does (Note [Sharing] in
// package trs): the input's identical subterms share a node, a rule's
// variables are shared where the right-hand side repeats them, and a
// rewritten node is overwritten in place. Since innermost normal forms
// are functions of the term, every node is rewritten by the same rules in
// any order, so it counts exactly the rewrites that the device counts.
// Nodes are reference-counted and reused, as on the device.
//
// It is not the device algorithm run on the CPU: it is sequential,
// leftmost-innermost and recursive.
package rewrite

import (
	"fmt"

	"gpuc/frontends/trs"
)

// Rewriter holds a term graph and normalises it.
type Rewriter struct {
	sys   *trs.System
	k     int32 // argument slots per node: the largest arity
	arity []int32
	of    []int32   // the symbol a copy stands for (Sym.Of), else -1
	rules [][]*rule // by head symbol
	head  []int32
	args  []int32 // k per node
	rc    []int32
	nf    []bool
	at    []int64 // Note [Critical path]
	now   int64   // the time of the step being applied
	free  []int32
	limit int
	root  int32
	regs  []int32 // match registers
	old   []int32 // the arguments a rewrite replaces
	made  []int32 // the nodes a right-hand side made
	stack []int32 // nodes to free
	// Steps counts the rewrite steps taken.
	Steps int64
	// Span is the critical path: the length of the longest chain of
	// rewrites each of which needs the one before (Note [Critical path]).
	Span int64
	// MaxSteps, if positive, bounds Steps.
	MaxSteps int64
	// MaxDepth, if positive, bounds the nesting of the recursive walk
	// instead of DefaultMaxDepth.
	MaxDepth int
	depth    int
	stopped  error // ErrSteps or ErrDepth: the walk unwinds
}

// DefaultMaxDepth bounds the recursion of the walk, which a system that
// never terminates, such as f(x) -> f(f(x)), deepens by one frame a step:
// past it the rewrite stops with ErrDepth rather than overflowing the Go
// stack.
const DefaultMaxDepth = 1 << 20

// ErrCapacity is returned when the graph would outgrow the node limit.
var ErrCapacity = fmt.Errorf("term store full")

// ErrSteps is returned when the rewrite would take more than MaxSteps.
var ErrSteps = fmt.Errorf("more rewrite steps than the limit")

// ErrDepth is returned when the walk would nest deeper than MaxDepth.
var ErrDepth = fmt.Errorf("the rewrite nests deeper than the limit")

// New loads the input term of sys. limit bounds the number of live nodes
// (0: no bound).
func New(sys *trs.System, limit int) *Rewriter {
	r := &Rewriter{sys: sys, k: int32(sys.MaxArity), limit: limit}
	r.arity = make([]int32, len(sys.Syms))
	r.of = make([]int32, len(sys.Syms))
	r.rules = make([][]*rule, len(sys.Syms))
	nregs := r.k
	for i, s := range sys.Syms {
		r.arity[i] = int32(s.Arity)
		r.of[i] = -1
		if s.Of != nil {
			r.of[i] = int32(s.Of.Index)
		}
		for _, rl := range s.Rules {
			c := compile(rl)
			nregs = max(nregs, int32(c.nregs))
			r.rules[i] = append(r.rules[i], c)
		}
	}
	r.regs = make([]int32, nregs)
	g := sys.Graph(sys.Input)
	refs := g.Refs()
	for i := range g.Head {
		n := r.newNode(g.Head[i])
		copy(r.args[n*r.k:], g.Args[i])
		r.rc[n] = refs[i]
	}
	r.root = g.Root()
	return r
}

// Normalize rewrites the input term to its normal form. It returns
// ErrCapacity if the live nodes would exceed the limit, ErrSteps if the
// steps would exceed MaxSteps, ErrDepth if the walk would nest deeper than
// MaxDepth.
func (r *Rewriter) Normalize() (err error) {
	defer func() {
		if p := recover(); p != nil {
			if p != ErrCapacity {
				panic(p)
			}
			err = ErrCapacity
		}
	}()
	if r.MaxDepth <= 0 {
		r.MaxDepth = DefaultMaxDepth
	}
	r.normalize(r.root)
	r.Span = r.at[r.root]
	return r.stopped
}

// Root is the node of the input term.
func (r *Rewriter) Root() int32 { return r.root }

// Live is the number of nodes in use.
func (r *Rewriter) Live() int { return len(r.head) - len(r.free) }

// Len implements trs.Store.
func (r *Rewriter) Len() int32 { return int32(len(r.head)) }

// Node implements trs.Store.
func (r *Rewriter) Node(i int32) (int32, []int32) {
	h := r.head[i]
	return h, r.args[i*r.k : i*r.k+r.arity[h]]
}

// Note [Critical path]
//
// A rewrite needs the rewrites that brought its redex's arguments to
// normal form and the one that made the redex; the rest can happen in
// parallel. at[n] is the time of node n in rewrite steps: for a node not
// yet in normal form, the step that made it (0 for the input), and for
// one in normal form, the step after which it was. A rewrite of t
// happens one step after the latest of t's own time and its arguments'.
// The root's time at the end is the span of the rewrite, the length of
// its longest chain of dependent rewrites: no rewriter that rewrites
// innermost, however many redexes it rewrites at once, takes fewer
// rounds, and Steps / Span is the parallelism on offer. The device's
// local walks (Note [Local normalisation] in package trs) run such a
// chain in one thread, so the span also bounds how long the one thread
// on the chain must take.

// normalize is Listing 2's derive: the arguments first, then the node,
// until no rule applies; a rewrite may leave new arguments to normalise.
func (r *Rewriter) normalize(t int32) {
	if r.nf[t] {
		return
	}
	if r.depth++; r.depth > r.MaxDepth {
		r.stopped = ErrDepth
		return
	}
	for {
		base := t * r.k
		ready := r.at[t]
		for i := int32(0); i < r.arity[r.head[t]]; i++ {
			a := r.args[base+i]
			if !r.nf[a] {
				if r.normalize(a); r.stopped != nil {
					r.depth--
					return
				}
			}
			ready = max(ready, r.at[a])
		}
		r.now = ready + 1
		if !r.rewrite(t) {
			if of := r.of[r.head[t]]; of >= 0 {
				r.head[t] = of // Note [Conditional rules] in package trs
			}
			r.nf[t] = true
			r.at[t] = ready
			r.depth--
			return
		}
		r.at[t] = r.now
		if r.Steps++; r.MaxSteps > 0 && r.Steps > r.MaxSteps {
			r.stopped = ErrSteps
			r.depth--
			return
		}
	}
}

// newNode takes a node from the free list or the end of the store.
func (r *Rewriter) newNode(h int32) int32 {
	var n int32
	if len(r.free) > 0 {
		n = r.free[len(r.free)-1]
		r.free = r.free[:len(r.free)-1]
		r.nf[n] = false
	} else {
		if r.limit > 0 && len(r.head) >= r.limit {
			panic(ErrCapacity)
		}
		n = int32(len(r.head))
		r.head = append(r.head, 0)
		r.rc = append(r.rc, 0)
		r.nf = append(r.nf, false)
		r.at = append(r.at, 0)
		for i := int32(0); i < r.k; i++ {
			r.args = append(r.args, 0)
		}
	}
	r.head[n] = h
	r.rc[n] = 0
	r.at[n] = r.now
	return n
}

// release drops one reference to n and frees what is no longer
// referenced.
func (r *Rewriter) release(n int32) {
	r.rc[n]--
	if r.rc[n] > 0 {
		return
	}
	r.stack = append(r.stack[:0], n)
	for len(r.stack) > 0 {
		m := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		r.free = append(r.free, m)
		base := m * r.k
		for i := int32(0); i < r.arity[r.head[m]]; i++ {
			a := r.args[base+i]
			r.rc[a]--
			if r.rc[a] == 0 {
				r.stack = append(r.stack, a)
			}
		}
	}
}
