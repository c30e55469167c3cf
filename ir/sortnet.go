package ir

// Note [Device sort]
//
// SortNetwork builds, at the SPMD level, a bitonic sorting network over
// an index array: the region's processors stride over the compare-exchange
// pairs of each stage, with a grid barrier after each, log2(size)*(log2
// (size)+1)/2 stages for a power-of-two size. The elements are indices
// into whatever arrays hold the keys; the caller gives the order as a
// function of two index expressions, so one builder sorts any record
// layout (structure of arrays, several keys). Index -1 marks padding and
// sorts after every element. The loops are uniform, so the host-loops,
// grid-sync and split-barriers passes make them a cooperative kernel's
// grid syncs or host-driven launches, as any SPMD loop. A bitonic network
// is not stable: elements that the order does not separate may come out
// in any order, which is fine for output that prints equal elements the
// same way (the CHR store, Note [Output] in frontends/chr).

// SortNetwork returns statements for a region that sort idx[0..size) by
// less, a strict order on two index values (both not -1). size must be a
// power of two and idx must hold at least size elements, padded with -1.
// fresh hands out local names unused in the region.
func SortNetwork(pos Pos, idx string, size Expr, less func(a, b Expr) Expr, fresh func(string) string) []Stmt {
	i32 := func(v int64) Expr { return IntConst(I32, v) }
	bin := func(op BinOp, x, y Expr) Expr { return &Binary{Pos: pos, Op: op, X: x, Y: y} }
	v := func(name string) Expr { return &Var{Name: name, T: I32} }
	k, j, i, l, a, b := fresh("sk"), fresh("sj"), fresh("si"), fresh("sl"), fresh("sa"), fresh("sb")
	// after(x, y): x sorts strictly after y, padding last.
	after := func(x, y Expr) Expr {
		return bin(LogOr,
			bin(LogAnd, bin(Eq, x, i32(-1)), bin(Ne, y, i32(-1))),
			bin(LogAnd, bin(LogAnd, bin(Ne, x, i32(-1)), bin(Ne, y, i32(-1))), less(y, x)))
	}
	up := bin(Eq, bin(And, v(i), v(k)), i32(0))
	swap := bin(LogOr, bin(LogAnd, up, after(v(a), v(b))), bin(LogAnd, &Unary{Pos: pos, Op: Not, X: up}, after(v(b), v(a))))
	exchange := []Stmt{
		&Decl{Pos: pos, Name: a, T: I32, Init: &Load{Pos: pos, Buf: idx, Index: v(i), T: I32}},
		&Decl{Pos: pos, Name: b, T: I32, Init: &Load{Pos: pos, Buf: idx, Index: v(l), T: I32}},
		&If{Pos: pos, Cond: swap, Then: []Stmt{
			&Store{Pos: pos, Buf: idx, Index: v(i), Value: v(b)},
			&Store{Pos: pos, Buf: idx, Index: v(l), Value: v(a)},
		}},
	}
	pairs := &For{Pos: pos,
		Init: &Decl{Pos: pos, Name: i, T: I32, Init: &Builtin{Pos: pos, Op: ProcID}},
		Cond: bin(Lt, v(i), size),
		Post: &Assign{Pos: pos, Name: i, Value: bin(Add, v(i), &Builtin{Pos: pos, Op: NumProcs})},
		Body: []Stmt{
			&Decl{Pos: pos, Name: l, T: I32, Init: bin(Xor, v(i), v(j))},
			&If{Pos: pos, Cond: bin(Gt, v(l), v(i)), Then: exchange},
		}}
	stages := &For{Pos: pos,
		Init: &Decl{Pos: pos, Name: j, T: I32, Init: bin(Div, v(k), i32(2))},
		Cond: bin(Gt, v(j), i32(0)),
		Post: &Assign{Pos: pos, Name: j, Value: bin(Div, v(j), i32(2))},
		Body: []Stmt{pairs, &Barrier{Pos: pos, Grid: true}}}
	// sk > 0: for size 2^30, sk doubles past the last stage to -2^31 and then to 0, which
	// `sk <= size` alone never leaves.
	return []Stmt{&For{Pos: pos,
		Init: &Decl{Pos: pos, Name: k, T: I32, Init: i32(2)},
		Cond: bin(LogAnd, bin(Gt, v(k), i32(0)), bin(Le, v(k), size)),
		Post: &Assign{Pos: pos, Name: k, Value: bin(Mul, v(k), i32(2))},
		Body: []Stmt{stages}}}
}
