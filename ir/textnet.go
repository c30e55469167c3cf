package ir

// Note [Device formatting]
//
// A program whose output is many lines of integers formats them on the
// device, so that the host copies back the text and writes it with one
// Write statement, instead of formatting each line itself (a million
// lines take longer to format on the host than the fixpoint that made
// them takes on the GPU). The frontend, at the SPMD level:
//
//  1. computes each line's length into an array, with DecimalLen for its
//     integers (printf's %ld: a minus sign, then the digits);
//  2. turns the lengths into end offsets with ScanNetwork, an inclusive
//     prefix sum;
//  3. writes each line's bytes from the end offset of the line before,
//     with PutDecimal for its integers, into a u8 buffer;
//
// then copies the buffer's first (last end offset) bytes to a host array
// and writes them. The scan is a Hillis–Steele network: log2(n) stages,
// each one pass over the array with a grid barrier after it, so the
// host-loops, grid-sync and split-barriers passes make it grid syncs or
// launches as any SPMD loop; it does O(n log n) work, which is a few
// microseconds a stage for a million lines. The stages go back and forth
// between the array and the temporary (Note [A scan that ping-pongs]).

// Note [A scan that ping-pongs]
//
// Stage k of the scan reads one of buf and tmp and writes the other:
// even stages (d = 1, 4, 16, ...: d & 0x55555555 != 0) read buf, odd ones
// read tmp, so each stage is one pass and one grid barrier (it was two,
// a pass into tmp and a copy back). The last stage (d >= n - d) always
// writes buf: after an even number of stages it reads tmp as any odd
// stage; otherwise it adds in place, buf[i] += buf[i-d] for i >= d only,
// which is race-free because i - d < n - d <= d, so every element it
// reads is one that the stage does not write. The choices are tests of
// the stage's d, which every processor agrees on: no new local crosses a
// barrier, and the stages stay one loop (one kernel when split).

// ScanNetwork returns statements for a region that replace buf[0..n)
// with its inclusive prefix sums, using tmp (as long as buf, of the same
// integer type) for the stages. n is an i32 expression that every
// processor agrees on; the statements end with a grid barrier. fresh
// hands out local names unused in the region.
func ScanNetwork(pos Pos, buf, tmp string, t Type, n Expr, fresh func(string) string) []Stmt {
	i32 := func(v int64) Expr { return IntConst(I32, v) }
	bin := func(op BinOp, x, y Expr) Expr { return &Binary{Pos: pos, Op: op, X: x, Y: y} }
	v := func(name string) Expr { return &Var{Name: name, T: I32} }
	d := fresh("scd")
	strided := func(name string, body []Stmt) Stmt {
		return &For{Pos: pos,
			Init: &Decl{Pos: pos, Name: name, T: I32, Init: &Builtin{Pos: pos, Op: ProcID}},
			Cond: bin(Lt, v(name), n),
			Post: &Assign{Pos: pos, Name: name, Value: bin(Add, v(name), &Builtin{Pos: pos, Op: NumProcs})},
			Body: body}
	}
	sum := func(src, i string) Expr {
		return bin(Add, &Load{Pos: pos, Buf: src, Index: v(i), T: t}, &Load{Pos: pos, Buf: src, Index: bin(Sub, v(i), v(d)), T: t})
	}
	// stage is one pass from src into dst.
	stage := func(src, dst string) Stmt {
		i := fresh("sci")
		return strided(i, []Stmt{&Store{Pos: pos, Buf: dst, Index: v(i), Value: &Select{Pos: pos,
			Cond: bin(Ge, v(i), v(d)), X: sum(src, i), Y: &Load{Pos: pos, Buf: src, Index: v(i), T: t}}}})
	}
	// inPlace is the last stage after an odd number: buf[i] += buf[i-d].
	inPlace := func() Stmt {
		i := fresh("sci")
		return strided(i, []Stmt{&If{Pos: pos, Cond: bin(Ge, v(i), v(d)), Then: []Stmt{
			&Store{Pos: pos, Buf: buf, Index: v(i), Value: sum(buf, i)}}}})
	}
	even := bin(Ne, bin(And, v(d), i32(0x55555555)), i32(0))
	last := bin(Ge, v(d), bin(Sub, n, v(d)))
	return []Stmt{
		&For{Pos: pos,
			Init: &Decl{Pos: pos, Name: d, T: I32, Init: i32(1)},
			Cond: bin(Lt, v(d), n),
			Post: &Assign{Pos: pos, Name: d, Value: bin(Mul, v(d), i32(2))},
			Body: []Stmt{
				&If{Pos: pos, Cond: even,
					Then: []Stmt{&If{Pos: pos, Cond: last, Then: []Stmt{inPlace()}, Else: []Stmt{stage(buf, tmp)}}},
					Else: []Stmt{stage(tmp, buf)}},
				&Barrier{Pos: pos, Grid: true}}},
		&Barrier{Pos: pos, Grid: true},
	}
}

// magnitude is |x| of an i64 as a u64, exact for the least i64 too.
func magnitude(pos Pos, x Expr) Expr {
	u := &Convert{Pos: pos, T: U64, X: x}
	return &Select{Pos: pos, Cond: &Binary{Pos: pos, Op: Lt, X: x, Y: IntConst(I64, 0)},
		X: &Binary{Pos: pos, Op: Sub, X: IntConst(U64, 0), Y: u}, Y: u}
}

// DecimalLen is the number of bytes that printf's %ld writes for the i64
// x, as an i64 expression (Note [Device formatting]): no loop, the digits
// as nineteen selects, k+1 for the largest k with |x| >= 10^k, and one
// for the sign. It was a sum of twenty 0-or-1 terms, which LLVM keeps as
// one add of twenty operands into the offset that PutDecimal's loop
// counts down from; loop strength reduction weighed every way to split
// it, and took 5 of clang -O2's 8 s on primes.chr's host kernels (2.7 s
// in all with the selects) and 5 of llc's 7 s on its NVPTX module.
func DecimalLen(pos Pos, x Expr) Expr {
	m := magnitude(pos, x)
	var n Expr = IntConst(I64, 1)
	p := uint64(1)
	for k := 1; k <= 19; k++ {
		p *= 10
		n = &Select{Pos: pos, Cond: &Binary{Pos: pos, Op: Ge, X: m, Y: &Const{T: U64, Bits: Bits(p)}}, X: IntConst(I64, int64(k+1)), Y: n}
	}
	sign := &Select{Pos: pos, Cond: &Binary{Pos: pos, Op: Lt, X: x, Y: IntConst(I64, 0)}, X: IntConst(I64, 1), Y: IntConst(I64, 0)}
	return &Binary{Pos: pos, Op: Add, X: n, Y: sign}
}

// PutDecimal returns statements that write the i64 x as printf's %ld
// does into the u8 buffer buf from the i64 offset at, and then add its
// length to the i64 local at (Note [Device formatting]).
func PutDecimal(pos Pos, buf, at string, x Expr, fresh func(string) string) []Stmt {
	bin := func(op BinOp, x, y Expr) Expr { return &Binary{Pos: pos, Op: op, X: x, Y: y} }
	m, e, neg := fresh("dm"), fresh("de"), fresh("dneg")
	vm, ve, vat := &Var{Name: m, T: U64}, &Var{Name: e, T: I64}, &Var{Name: at, T: I64}
	ten := IntConst(U64, 10)
	digit := &Convert{Pos: pos, T: U8, X: bin(Add, IntConst(U64, '0'), bin(Rem, vm, ten))}
	return []Stmt{
		&Decl{Pos: pos, Name: neg, T: Bool, Init: bin(Lt, x, IntConst(I64, 0))},
		&Decl{Pos: pos, Name: m, T: U64, Init: magnitude(pos, x)},
		// e: the offset after the last digit.
		&Decl{Pos: pos, Name: e, T: I64, Init: bin(Add, vat, DecimalLen(pos, x))},
		&If{Pos: pos, Cond: &Var{Name: neg, T: Bool}, Then: []Stmt{
			&Store{Pos: pos, Buf: buf, Index: vat, Value: IntConst(U8, '-')}}},
		&Assign{Pos: pos, Name: at, Value: ve},
		&While{Pos: pos, Cond: BoolConst(true), Body: []Stmt{
			&Assign{Pos: pos, Name: e, Value: bin(Sub, ve, IntConst(I64, 1))},
			&Store{Pos: pos, Buf: buf, Index: ve, Value: digit},
			&Assign{Pos: pos, Name: m, Value: bin(Div, vm, ten)},
			&If{Pos: pos, Cond: bin(Eq, vm, IntConst(U64, 0)), Then: []Stmt{&Break{Pos: pos}}},
		}},
	}
}

// PutText returns statements that write text into the u8 buffer buf from
// the i64 local at, and add its length to at.
func PutText(pos Pos, buf, at, text string) []Stmt {
	vat := &Var{Name: at, T: I64}
	var out []Stmt
	for k := 0; k < len(text); k++ {
		out = append(out, &Store{Pos: pos, Buf: buf, Index: &Binary{Pos: pos, Op: Add, X: vat, Y: IntConst(I64, int64(k))}, Value: IntConst(U8, int64(text[k]))})
	}
	if len(text) > 0 {
		out = append(out, &Assign{Pos: pos, Name: at, Value: &Binary{Pos: pos, Op: Add, X: vat, Y: IntConst(I64, int64(len(text)))}})
	}
	return out
}
