package passes

import "gpuc/ir"

// Note [Region CFG]
//
// Passes that reason about what happens between two synchronisation points
// of an SPMD region (barrier elision, private-variable spilling) work on a
// small control-flow graph of the region body. Its nodes are atoms: a
// simple statement, a condition evaluation, a grid barrier, or one of the
// implicit synchronisation points of a split, split while or fork (their
// entry, where the condition or group is evaluated for the whole group;
// their exit, where the group rejoins; a split while's iteration end).
// Structured statements become edges. Syncs of group constructs are nodes
// of kind syncNode: they stop a search like a barrier does.

type nodeKind uint8

const (
	atomNode    nodeKind = iota // a statement or condition
	barrierNode                 // a grid barrier statement
	syncNode                    // an implicit sync of a group construct
)

// node is one atom of a region body.
type node struct {
	kind  nodeKind
	stmt  ir.Stmt   // the statement, the barrier, or the group construct
	exprs []ir.Expr // what this atom evaluates
	role  syncRole  // for sync nodes
	depth int       // loops around the atom: how often it runs, roughly
	succ  []*node
	pred  []*node
}

// syncRole says which implicit sync of a group construct a node is.
type syncRole uint8

const (
	syncEntry syncRole = iota
	syncExit
	syncIter // end of one iteration of a split while
)

// cfg is the graph of one region body.
type cfg struct {
	nodes []*node
	entry *node
	exit  *node
}

type cfgBuilder struct {
	g     *cfg
	loops []loopTargets
	depth int
}

type loopTargets struct{ brk, cont *node }

// buildCFG builds the graph of a region body.
func buildCFG(body []ir.Stmt) *cfg {
	b := &cfgBuilder{g: &cfg{}}
	b.g.entry = b.add(atomNode, nil)
	b.g.exit = b.add(atomNode, nil)
	last := b.list(body, []*node{b.g.entry})
	b.connect(last, b.g.exit)
	return b.g
}

func (b *cfgBuilder) add(kind nodeKind, s ir.Stmt, exprs ...ir.Expr) *node {
	n := &node{kind: kind, stmt: s, exprs: exprs, depth: b.depth}
	b.g.nodes = append(b.g.nodes, n)
	return n
}

func (b *cfgBuilder) connect(from []*node, to *node) {
	for _, f := range from {
		f.succ = append(f.succ, to)
		to.pred = append(to.pred, f)
	}
}

// list threads the statements of body after the nodes in from and returns
// the nodes control leaves the list from.
func (b *cfgBuilder) list(body []ir.Stmt, from []*node) []*node {
	for _, s := range body {
		from = b.stmt(s, from)
	}
	return from
}

// then adds a node after from and returns it as the new frontier.
func (b *cfgBuilder) then(from []*node, n *node) []*node {
	b.connect(from, n)
	return []*node{n}
}

func (b *cfgBuilder) stmt(s ir.Stmt, from []*node) []*node {
	switch s := s.(type) {
	case *ir.Barrier:
		return b.then(from, b.add(barrierNode, s))
	case *ir.If:
		c := b.add(atomNode, s, s.Cond)
		b.connect(from, c)
		return append(b.list(s.Then, []*node{c}), b.list(s.Else, []*node{c})...)
	case *ir.Switch:
		c := b.add(atomNode, s, s.X)
		b.connect(from, c)
		out := b.list(s.Default, []*node{c})
		for _, cs := range s.Cases {
			out = append(out, b.list(cs.Body, []*node{c})...)
		}
		return out
	case *ir.While:
		return b.loop(s, nil, s.Cond, nil, s.Body, from)
	case *ir.For:
		return b.loop(s, s.Init, s.Cond, s.Post, s.Body, from)
	case *ir.Break:
		b.connect(from, b.loops[len(b.loops)-1].brk)
		return nil
	case *ir.Continue:
		b.connect(from, b.loops[len(b.loops)-1].cont)
		return nil
	case *ir.Raise, *ir.Return:
		b.then(from, b.add(atomNode, s, ir.StmtExprs(s)...))
		return nil
	case *ir.Split:
		entry := b.sync(s, syncEntry, s.Cond)
		exit := b.sync(s, syncExit)
		b.connect(from, entry)
		b.connect(b.list(s.Then, []*node{entry}), exit)
		b.connect(b.list(s.Else, []*node{entry}), exit)
		return []*node{exit}
	case *ir.Fork:
		entry := b.sync(s, syncEntry, s.Count, s.Group, s.Member)
		exit := b.sync(s, syncExit)
		b.connect(from, entry)
		b.connect(b.list(s.Body, []*node{entry}), exit)
		return []*node{exit}
	case *ir.SplitWhile:
		entry := b.sync(s, syncEntry, s.Cond)
		iter := b.sync(s, syncIter)
		exit := b.sync(s, syncExit)
		b.connect(from, entry)
		b.connect([]*node{iter}, entry)
		b.connect([]*node{entry}, exit)
		b.loops = append(b.loops, loopTargets{brk: exit, cont: iter})
		b.depth++
		b.connect(b.list(s.Body, []*node{entry}), iter)
		b.depth--
		b.loops = b.loops[:len(b.loops)-1]
		return []*node{exit}
	}
	return b.then(from, b.add(atomNode, s, ir.StmtExprs(s)...))
}

func (b *cfgBuilder) sync(s ir.Stmt, role syncRole, exprs ...ir.Expr) *node {
	n := b.add(syncNode, s, exprs...)
	n.role = role
	return n
}

// loop threads a while or for loop: init, then the condition, the body
// and post back to the condition.
func (b *cfgBuilder) loop(s ir.Stmt, init ir.Stmt, cond ir.Expr, post ir.Stmt, body []ir.Stmt, from []*node) []*node {
	if init != nil {
		from = b.then(from, b.add(atomNode, init, ir.StmtExprs(init)...))
	}
	c := b.add(atomNode, s, cond)
	b.connect(from, c)
	exit := b.add(atomNode, nil) // a joint, evaluating nothing
	cont := c
	var p *node
	if post != nil {
		p = b.add(atomNode, post, ir.StmtExprs(post)...)
		b.connect([]*node{p}, c)
		cont = p
	}
	b.connect([]*node{c}, exit)
	b.loops = append(b.loops, loopTargets{brk: exit, cont: cont})
	b.depth++
	b.connect(b.list(body, []*node{c}), cont)
	b.depth--
	b.loops = b.loops[:len(b.loops)-1]
	return []*node{exit}
}

// reach collects the atoms reachable from start's successors (forward) or
// predecessors (backward) without passing a barrier or sync node that
// stops reports true for. start itself is not included.
func reach(start *node, forward bool, stops func(*node) bool) []*node {
	seen := map[*node]bool{start: true}
	var out []*node
	var work []*node
	next := func(n *node) []*node {
		if forward {
			return n.succ
		}
		return n.pred
	}
	work = append(work, next(start)...)
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
		if n.kind != atomNode && stops(n) {
			continue
		}
		work = append(work, next(n)...)
	}
	return out
}
