package trs

import (
	"fmt"
	"strings"
)

// Graph is a ground term as a directed acyclic graph: node i has head
// symbol Head[i] and arguments Args[i], and every node comes after its
// arguments, so the root is the last node. The lowering loads the input
// graph into the term store, and the CPU rewriter starts from it.
type Graph struct {
	Head []int32
	Args [][]int32
}

// Root is the last node.
func (g *Graph) Root() int32 { return int32(len(g.Head) - 1) }

// Graph builds the graph of a ground term, with one node for each
// distinct subterm: identical subterms share a node, so that a subterm
// that occurs twice is rewritten once, which leaves the normal form as it
// is, since normal forms under innermost rewriting are functions of the
// term (Note [Sharing]).
func (sys *System) Graph(t *Term) *Graph {
	g := &Graph{}
	ids := map[string]int32{}
	var add func(t *Term) int32
	add = func(t *Term) int32 {
		args := make([]int32, len(t.Args))
		key := fmt.Sprint(t.Sym.Index)
		for i, a := range t.Args {
			args[i] = add(a)
			key += fmt.Sprintf(",%d", args[i])
		}
		if id, ok := ids[key]; ok {
			return id
		}
		id := int32(len(g.Head))
		ids[key] = id
		g.Head = append(g.Head, int32(t.Sym.Index))
		g.Args = append(g.Args, args)
		return id
	}
	add(t)
	return g
}

// Pending reports, for each node, whether it may not be in normal form:
// some symbol in it has rules.
func (sys *System) Pending(g *Graph) []bool {
	p := make([]bool, len(g.Head))
	for i := range g.Head {
		p[i] = sys.Syms[g.Head[i]].Defined()
		for _, a := range g.Args[i] {
			p[i] = p[i] || p[a]
		}
	}
	return p
}

// Refs counts the references to each node: from the arguments of other
// nodes, and one for the root.
func (g *Graph) Refs() []int32 {
	rc := make([]int32, len(g.Head))
	for _, args := range g.Args {
		for _, a := range args {
			rc[a]++
		}
	}
	rc[g.Root()]++
	return rc
}

// Store is read access to a term graph: the graph of the input, the CPU
// rewriter's store, a term read back from Maude.
type Store interface {
	// Len is the number of nodes; they are numbered from 0.
	Len() int32
	// Node returns the head symbol of node i and its arguments.
	Node(i int32) (head int32, args []int32)
}

// Len implements Store.
func (g *Graph) Len() int32 { return int32(len(g.Head)) }

// Node implements Store.
func (g *Graph) Node(i int32) (int32, []int32) { return g.Head[i], g.Args[i] }

// FormatNode prints the term at node root of s, as Format prints terms.
func (sys *System) FormatNode(s Store, root int32) string {
	var b strings.Builder
	var walk func(i int32)
	walk = func(i int32) {
		h, args := s.Node(i)
		b.WriteString(sys.Syms[h].Name)
		if len(args) == 0 {
			if !sys.Bare() {
				b.WriteString("()")
			}
			return
		}
		b.WriteByte('(')
		for k, a := range args {
			if k > 0 {
				b.WriteString(", ")
			}
			walk(a)
		}
		b.WriteByte(')')
	}
	walk(root)
	return b.String()
}
