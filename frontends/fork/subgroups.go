package fork

import (
	"math"
	"math/bits"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// Note [Subgroup instances]
//
// A sh variable is shared by the group that declares it, so one declared
// in a fork body, or in a branch of an if whose condition differs within
// the group, has one instance per subgroup. Sibling subgroups run
// concurrently (ir/doc.go), so they cannot share one buffer.
//
// Each statement that divides the Fork group is a subFrame: a fork of k
// subgroups, or an if, which makes two. A subgroup numbers itself in
// mixed radix, path = outer path * k + @ (the then-part of an if 0, the
// else-part 1), in a local declared at the top of its body when some
// declaration inside asks for it. A sh variable declared in the subgroup
// is a buffer of as many instances as the frames around it make
// subgroups, the product of their counts, and the subgroup uses the
// instance at path. Inside a group-recursive function the frames start
// afresh at each recursion level and the group's own instance comes first:
// (fr_start * product + path) * len (Note [Group recursion]).
//
// The counts must therefore be constants or expressions over parameters,
// so that the buffer's length is one: a count that is only known at run
// time would give sibling subgroups different radices. Such a fork, as
// fork(groupsize(); @ = $; ...), takes start's processor count P instead,
// which bounds its live subgroups; a subgroup numbered P or more raises an
// error before it declares anything. The buffer is sized
// from the parameters and allocated on the device with the others, so an
// instance count too large for the device's memory is the allocation's
// clean error, before the program runs.

// subFrame is a statement that divides the Fork group (Note [Subgroup
// instances]).
type subFrame struct {
	outer *subFrame
	pos   diag.Pos
	count ir.Expr        // the number of subgroups, over parameters; nil if not
	index func() ir.Expr // this subgroup's number, at the top of its body
	path  string         // the local holding the path, "" until asked for
	decl  *ir.Decl       // its declaration, placed by dividing
	fork  bool           // a fork, which renumbers $; an if keeps it
	// bounded marks a fork whose count is known only at run time: count
	// is then start's processor count, which bounds the live subgroups,
	// and a subgroup numbered beyond it raises an error.
	bounded bool
	lead    *binding // the cell of seqLeader's election, nil until asked
}

// dividing lowers the body of one subgroup of a statement that divides the
// Fork group into count subgroups, index giving the subgroup's number at
// the top of the body.
func (b *body) dividing(pos diag.Pos, fork bool, count ir.Expr, index func() ir.Expr, fn func()) []ir.Stmt {
	fr := &subFrame{outer: b.sub, pos: pos, count: count, index: index, fork: fork}
	if !overParams(count) {
		fr.count, fr.bounded = nil, b.procs != nil
		if fr.bounded {
			fr.count = ir.CloneExpr(b.procs)
		}
	}
	saved := b.sub
	b.sub = fr
	body := b.Nest(fn)
	b.sub = saved
	if fr.decl != nil {
		pre := []ir.Stmt{fr.decl}
		if fr.bounded {
			over := binaryOp(pos, ">=", convert(fr.index(), ir.I64), convert(ir.CloneExpr(fr.count), ir.I64), ir.I64)
			pre = append([]ir.Stmt{&ir.If{Pos: pos, Cond: over, Then: []ir.Stmt{&ir.Raise{Pos: pos,
				Msg: "fork: a subgroup that declares sh variables is numbered beyond start's processor count, which bounds their instances"}}}}, pre...)
		}
		body = append(pre, body...)
	}
	return body
}

// subPath returns the local holding the path of fr's subgroup, declaring
// it at the top of fr's body on first use.
func (b *body) subPath(fr *subFrame) string {
	if fr.path != "" {
		return fr.path
	}
	var v ir.Expr = convert(fr.index(), ir.I64)
	if fr.outer != nil {
		outer := varRef(fr.pos, b.subPath(fr.outer), ir.I64)
		v = binaryOp(fr.pos, "+", binaryOp(fr.pos, "*", outer, convert(ir.CloneExpr(fr.count), ir.I64), ir.I64), v, ir.I64)
	}
	fr.path = b.fresh("sub_path")
	fr.decl = &ir.Decl{Pos: fr.pos, Name: fr.path, T: ir.I64, Init: v}
	return fr.path
}

// subInstances returns the number of subgroups that the frames around the
// code make, or nil after reporting a count not known before run time.
func (b *body) subInstances(v *variable) ir.Expr {
	var n ir.Expr
	for fr := b.sub; fr != nil; fr = fr.outer {
		if fr.count == nil {
			b.errorf(v.pos, "sh variable %s needs one instance per subgroup, but the fork at line %d divides the group into a number of subgroups known only at run time, and start's processor count, which would bound them, is not a constant or parameter expression either", v.name, fr.pos.Line)
			return nil
		}
		k := convert(ir.CloneExpr(fr.count), ir.I64)
		if n == nil {
			n = k
		} else {
			n = satMul(v.pos, n, k)
		}
	}
	return n
}

// instanced binds a sh local or local array declared inside statements
// that divide the group, also in a group-recursive function (Note
// [Subgroup instances]): it declares the buffer with one instance per
// subgroup and returns the binding, or nil after an error.
func (b *body) instanced(v *variable, name string) *binding {
	bd := &binding{v: v, buf: name}
	n := b.subInstances(v)
	if n == nil {
		return nil
	}
	bd.sub, bd.subN = b.subPath(b.sub), n
	if b.rec != nil {
		bd.start = b.rec.start
		n = satMul(v.pos, convert(ir.CloneExpr(b.procs), ir.I64), n)
	}
	if v.isArray() {
		bd.stride = arrayLen(v)
		if bd.stride == nil {
			return nil // an error was reported at the declaration
		}
		n = satMul(v.pos, n, convert(ir.CloneExpr(bd.stride), ir.I64))
	}
	b.l.m.Buffers = append(b.l.m.Buffers, &ir.Buffer{Pos: v.pos, Name: name, Elem: v.t, Len: n, Space: ir.Global, Role: ir.Scratch})
	return bd
}

// satMul multiplies two non-negative i64 lengths, giving MaxInt64 where
// the product overflows, so that a buffer too large for any device fails
// its allocation with a clean error instead of wrapping to a length that
// fits.
func satMul(pos diag.Pos, x, y ir.Expr) ir.Expr {
	a, aok := constInt(x)
	c, cok := constInt(y)
	if aok && cok && a >= 0 && c >= 0 {
		if hi, lo := bits.Mul64(uint64(a), uint64(c)); hi != 0 || lo > math.MaxInt64 {
			return intConst(pos, ir.I64, math.MaxInt64)
		}
	}
	prod := binaryOp(pos, "*", x, y, ir.I64)
	if _, ok := prod.(*ir.Const); ok {
		return prod
	}
	over := binaryOp(pos, "&&",
		binaryOp(pos, "!=", ir.CloneExpr(x), intConst(pos, ir.I64, 0), ir.I64),
		binaryOp(pos, "!=", binaryOp(pos, "/", ir.CloneExpr(prod), ir.CloneExpr(x), ir.I64), ir.CloneExpr(y), ir.I64), ir.Bool)
	return &ir.Select{Pos: pos, Cond: over, X: intConst(pos, ir.I64, math.MaxInt64), Y: prod}
}

// Note [Seq in subgroups]
//
// seq S runs S on one processor of the group, the one with $ == 0, but
// the subgroups of an if keep the parent's $, so one of them may have no
// processor 0. There the members elect the one with the lowest gid(): in
// a cell of their own (one instance per subgroup, Note [Subgroup
// instances]), each takes the atomic max of MaxInt32 - gid(); after a
// barrier the processor that finds its own key is the leader, and after
// another it clears the cell for the next election and runs S.

// seqLeader returns the condition under which a processor runs a seq
// body, emitting the election of Note [Seq in subgroups] where the group
// is a subgroup of an if; nil where $ == 0 serves.
func (b *body) seqLeader(pos diag.Pos) ir.Expr {
	fr := b.sub
	if fr == nil || fr.fork {
		return nil
	}
	if fr.lead == nil {
		v := &variable{pos: pos, name: "seq_leader", t: ir.I32, kind: localVar, shared: true}
		fr.lead = b.instanced(v, b.l.newPlaceholder(v.name))
		if fr.lead == nil {
			return nil // an error was reported
		}
	}
	cell := func() ir.Expr { return b.instanceIndex(fr.lead, intConst(pos, ir.I32, 0)) }
	key := b.local(pos, "seq_key", ir.I32, &ir.Binary{Pos: pos, Op: ir.Sub,
		X: intConst(pos, ir.I32, math.MaxInt32), Y: &ir.Builtin{Pos: pos, Op: ir.GlobalID}})
	b.Emit(&ir.Atomic{Pos: pos, Op: ir.AtomicMax, Buf: fr.lead.buf, Index: cell(), Args: []ir.Expr{varRef(pos, key, ir.I32)}})
	b.barrier(pos)
	won := b.local(pos, "seq_lead", ir.Bool, &ir.Binary{Pos: pos, Op: ir.Eq,
		X: &ir.Load{Pos: pos, Buf: fr.lead.buf, Index: cell(), T: ir.I32}, Y: varRef(pos, key, ir.I32)})
	b.barrier(pos)
	b.Emit(&ir.If{Pos: pos, Cond: varRef(pos, won, ir.Bool), Then: []ir.Stmt{
		&ir.Store{Pos: pos, Buf: fr.lead.buf, Index: cell(), Value: intConst(pos, ir.I32, 0)}}})
	return varRef(pos, won, ir.Bool)
}
