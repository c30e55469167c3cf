// Package graph holds the graph algorithms that more than one package
// needs, over graphs given as successor lists of the nodes 0..n-1.
package graph

// SCCs returns the strongly connected components of the graph of n nodes
// whose successors are succ, by Tarjan's algorithm: each as its nodes, in
// the order the algorithm closes them, which lists a component after
// every component that it reaches.
func SCCs(n int, succ [][]int) [][]int {
	index := make([]int, n)
	low := make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	next := 0
	var visit func(int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, w := range succ[v] {
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var c []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				c = append(c, w)
				if w == v {
					break
				}
			}
			out = append(out, c)
		}
	}
	for i := 0; i < n; i++ {
		if index[i] < 0 {
			visit(i)
		}
	}
	return out
}
