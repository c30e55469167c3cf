package fromllvm

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"gpuc/analysis/its"
)

// Note [Large-block encoding]
// Locations are the entry, the loop heads (targets of retreating edges) and the exit. Each
// transition is one path between two of them through loop-free code, executed symbolically:
// values defined on the path are expressions over the variables at its start. Paths that reach
// a join with the same values are merged, keeping the guards they share (a sound widening).
// Where more than maxStates differ at one join, that join becomes a location too and the
// function is translated again, so the number of transitions stays linear in the code size.

const (
	maxStates   = 16
	maxExprSize = 400
)

type state struct {
	guards []its.Expr
	env    map[value.Value]its.Expr
}

// build translates the function with the current cut points; false means a join became a new
// cut point and the caller must start again.
func (t *fnT) build() bool {
	t.exit = -1
	if len(t.blocks) == 0 {
		return true
	}
	t.sys.Entry = t.locOf(0)
	for _, c := range t.rpo {
		if t.cut[c] {
			t.locOf(c)
		}
	}
	for _, c := range t.rpo {
		if t.cut[c] && !t.fromCut(c) {
			return false
		}
	}
	t.foldConstCopies()
	if t.noAlias {
		t.assume("distinct kernel pointer parameters point to disjoint buffers (as GPUVerify assumes)")
	}
	for a := range t.assumed {
		t.sys.Assumed = append(t.sys.Assumed, a)
	}
	sort.Strings(t.sys.Assumed)
	if t.o.Semantics == "c" && len(t.sys.Assumed) > 0 {
		t.sys.Semantics = "c"
	}
	return true
}

func (t *fnT) assume(s string) { t.assumed[s] = true }

func (t *fnT) exitLoc() int {
	if t.exit < 0 {
		t.exit = t.sys.AddExit()
	}
	return t.exit
}

// fromCut enumerates the paths that leave cut point c.
func (t *fnT) fromCut(c int) bool {
	pending := map[int][]*state{c: {{env: map[value.Value]its.Expr{}}}}
	var trans []its.Transition
	from := t.loc[c]
	for k := t.rpoPos[c]; k < len(t.rpo); k++ {
		b := t.rpo[k]
		sts := pending[b]
		if len(sts) == 0 {
			continue
		}
		delete(pending, b)
		blk := t.blocks[b]
		for _, st := range sts {
			if !t.exec(blk, st) {
				continue
			}
			emit := func(to int, g []its.Expr, upd map[string]its.Expr) {
				if !infeasible(g) {
					trans = append(trans, its.Transition{From: from, To: to, Guard: g, Update: upd, Pos: t.pos(blk.Term)})
				}
			}
			next := func(s int, g its.Expr) bool {
				ns := &state{guards: append([]its.Expr(nil), st.guards...)}
				if g != nil {
					if isFalse(g) {
						return true
					}
					ns.guards = addGuard(ns.guards, g)
					if infeasible(ns.guards) {
						return true
					}
				}
				phis := t.phis(t.blocks[s], blk, st.env)
				if t.cut[s] {
					upd := t.updates(st.env)
					for v, e := range phis {
						if nv, ok := t.vars[v]; ok {
							upd[nv.Name] = coerce(toBit(e), nv.Sort)
						}
					}
					emit(t.loc[s], ns.guards, upd)
					return true
				}
				ns.env = map[value.Value]its.Expr{}
				for v, e := range st.env {
					if t.needVar[v] {
						ns.env[v] = e
					}
				}
				for v, e := range phis {
					ns.env[v] = e
				}
				pending[s] = mergeState(pending[s], ns)
				if len(pending[s]) > maxStates {
					t.cut[s] = true
					return false
				}
				return true
			}
			switch tm := blk.Term.(type) {
			case *ir.TermBr:
				if !next(t.idx[tm.Target.(*ir.Block)], nil) {
					return false
				}
			case *ir.TermCondBr:
				cnd := t.eval(tm.Cond, st.env)
				if !next(t.idx[tm.TargetTrue.(*ir.Block)], cnd) || !next(t.idx[tm.TargetFalse.(*ir.Block)], its.Negate(cnd)) {
					return false
				}
			case *ir.TermSwitch:
				x := t.eval(tm.X, st.env)
				var dflt []its.Expr
				for _, cs := range tm.Cases {
					cv := t.eval(cs.X, st.env)
					if !next(t.idx[cs.Target.(*ir.Block)], its.B(its.Eq, x, cv)) {
						return false
					}
					dflt = append(dflt, its.B(its.Ne, x, cv))
				}
				var g its.Expr
				for _, d := range dflt {
					if g == nil {
						g = d
					} else {
						g = its.B(its.LAnd, g, d)
					}
				}
				if !next(t.idx[tm.TargetDefault.(*ir.Block)], g) {
					return false
				}
			case *ir.TermUnreachable:
				// After a call that does not return (a trap): the thread ends. Keeping the
				// path keeps every way out of a loop (a witness must not ignore it).
				emit(t.exitLoc(), st.guards, t.updates(st.env))
			case *ir.TermRet:
				emit(t.exitLoc(), st.guards, t.updates(st.env))
			default: // resume and friends do not occur in kernels; the thread ends
				emit(t.exitLoc(), st.guards, t.updates(st.env))
			}
		}
	}
	for _, tr := range mergeTrans(trans) {
		for _, st := range splitIte(tr) {
			if !infeasible(st.Guard) {
				t.sys.Trans = append(t.sys.Trans, st)
			}
		}
	}
	return true
}

// updates gives the variable updates of the values a path defined.
func (t *fnT) updates(env map[value.Value]its.Expr) map[string]its.Expr {
	upd := map[string]its.Expr{}
	for v, e := range env {
		if nv, ok := t.vars[v]; ok && t.needVar[v] {
			upd[nv.Name] = coerce(toBit(e), nv.Sort)
		}
	}
	return upd
}

// phis evaluates the relevant phis of block s on the edge from pred, simultaneously.
func (t *fnT) phis(s, pred *ir.Block, env map[value.Value]its.Expr) map[value.Value]its.Expr {
	out := map[value.Value]its.Expr{}
	for _, in := range s.Insts {
		p, ok := in.(*ir.InstPhi)
		if !ok {
			break
		}
		if !t.relevant[p] {
			continue
		}
		for _, inc := range p.Incs {
			if inc.Pred == pred {
				ps, _ := t.sortOfValue(p)
				out[p] = coerce(t.eval(inc.X, env), ps)
				break
			}
		}
	}
	return out
}

// exec runs the relevant instructions of b on st (phis were evaluated on entry); false when a
// guard it adds is false.
func (t *fnT) exec(b *ir.Block, st *state) bool {
	for _, in := range b.Insts {
		if _, ok := in.(*ir.InstPhi); ok {
			continue
		}
		if c, ok := in.(*ir.InstCall); ok && calleeName(c) == "llvm.assume" && len(c.Args) == 1 {
			g := t.eval(arg(c, 0), st.env)
			if isFalse(g) {
				return false
			}
			st.guards = addGuard(st.guards, g)
			continue
		}
		v, ok := in.(value.Value)
		if !ok || !t.relevant[v] {
			continue
		}
		e := t.translate(in, st.env)
		if t.cyclic[t.idx[b]] {
			e = t.hoist(v, e)
		}
		if its.Size(e) > maxExprSize {
			s, _ := t.sortOfValue(v)
			e = &its.Nondet{Sort: s, Why: "expression too large: " + valueName(v)}
		}
		st.env[v] = e
		if t.o.Semantics == "c" {
			if g := t.noSignedOverflow(in, st.env); g != nil {
				st.guards = addGuard(st.guards, g)
			}
		}
	}
	return true
}

// foldConstCopies replaces a variable whose every update copies one constant variable (a
// hoisted value kept for uses in other blocks) by that variable. SSA defines a value before
// any use, so no read sees the variable before its copy.
func (t *fnT) foldConstCopies() {
	copyOf := map[string]string{}
	bad := map[string]bool{}
	for _, tr := range t.sys.Trans {
		for k, e := range tr.Update {
			r, ok := e.(*its.Ref)
			if !ok || !t.constVar[r.Var.Name] || (copyOf[k] != "" && copyOf[k] != r.Var.Name) {
				bad[k] = true
				continue
			}
			copyOf[k] = r.Var.Name
		}
		for _, h := range tr.Havoc {
			bad[h] = true
		}
	}
	repl := map[string]its.Var{}
	for k, c := range copyOf {
		if bad[k] || t.constVar[k] {
			continue
		}
		v, _ := t.sys.Var(c)
		kv, _ := t.sys.Var(k)
		if v.Sort == kv.Sort {
			repl[k] = v
		}
	}
	if len(repl) == 0 {
		return
	}
	for i := range t.sys.Trans {
		tr := &t.sys.Trans[i]
		for j, g := range tr.Guard {
			tr.Guard[j] = renameVars(g, repl)
		}
		upd := map[string]its.Expr{}
		for k, e := range tr.Update {
			if _, gone := repl[k]; !gone {
				upd[k] = renameVars(e, repl)
			}
		}
		tr.Update = upd
	}
	var vars []its.Var
	for _, v := range t.sys.Vars {
		if _, gone := repl[v.Name]; !gone {
			vars = append(vars, v)
		}
	}
	t.sys.Vars = vars
}

func renameVars(e its.Expr, repl map[string]its.Var) its.Expr {
	switch x := e.(type) {
	case *its.Ref:
		if v, ok := repl[x.Var.Name]; ok {
			return its.R(v)
		}
	case *its.Unary:
		return &its.Unary{Op: x.Op, X: renameVars(x.X, repl)}
	case *its.Binary:
		return its.B(x.Op, renameVars(x.X, repl), renameVars(x.Y, repl))
	case *its.Cast:
		return &its.Cast{Op: x.Op, X: renameVars(x.X, repl), To: x.To}
	case *its.Ite:
		return &its.Ite{C: renameVars(x.C, repl), T: renameVars(x.T, repl), E: renameVars(x.E, repl)}
	case *its.Load:
		return &its.Load{Buffer: x.Buffer, Addr: renameVars(x.Addr, repl), Sort: x.Sort}
	}
	return e
}

// Note [Hoisted invariants]
// A value computed inside a loop from unknown constants only (parameters, launch values, hoisted
// loads: Note [Hoisted loads]) is the same on every iteration: it becomes a variable that no
// transition updates, with its definition as a fact. A bound such as starting + no_of_edges
// then reads as one variable, whose wrap-around happened once, before the loop, instead of a
// sum that a ranking function would have to carry.

// hoist replaces a compound expression over unknown constants by its variable.
func (t *fnT) hoist(v value.Value, e its.Expr) its.Expr {
	switch e.(type) {
	case *its.Const, *its.Ref:
		return e
	}
	s := its.SortOf(e)
	if s.IsBool() || !t.constantExpr(e) {
		return e
	}
	key := "inv|" + s.String() + "|" + e.String()
	nv, ok := t.loads[key]
	if !ok {
		nv = its.Var{Name: t.uniq("inv." + valueName(v)), Sort: s}
		t.loads[key] = nv
		t.constVar[nv.Name] = true
		t.sys.Vars = append(t.sys.Vars, nv)
		t.sys.Facts = append(t.sys.Facts, its.Fact{Expr: its.B(its.Eq, its.R(nv), e), Why: "loop-invariant " + valueName(v)})
	}
	return its.R(nv)
}

// constantExpr reports whether e reads only variables that no transition updates.
func (t *fnT) constantExpr(e its.Expr) bool {
	return its.ReadsOnly(e, func(name string) bool { return t.constVar[name] })
}

// noSignedOverflow is the guard that an nsw add, sub or mul does not overflow (--semantics=c).
func (t *fnT) noSignedOverflow(in ir.Instruction, env map[value.Value]its.Expr) its.Expr {
	var op its.Op
	var x, y value.Value
	var flags []enum.OverflowFlag
	switch in := in.(type) {
	case *ir.InstAdd:
		op, x, y, flags = its.Add, in.X, in.Y, in.OverflowFlags
	case *ir.InstSub:
		op, x, y, flags = its.Sub, in.X, in.Y, in.OverflowFlags
	case *ir.InstMul:
		op, x, y, flags = its.Mul, in.X, in.Y, in.OverflowFlags
	default:
		return nil
	}
	nsw := false
	for _, f := range flags {
		if f == enum.OverflowFlagNSW {
			nsw = true
		}
	}
	s, ok := sortOf(x.Type())
	if !nsw || !ok || s.IsBool() || 2*s.Width > 64 {
		return nil
	}
	wide := its.Sort{Width: 2 * s.Width, Signed: true}
	s, _ = t.sortOfValue(in.(value.Value))
	ex, ey := coerce(t.eval(x, env), s), coerce(t.eval(y, env), s)
	exact := its.B(op, &its.Cast{Op: its.SExt, X: ex, To: wide}, &its.Cast{Op: its.SExt, X: ey, To: wide})
	wrapped := &its.Cast{Op: its.SExt, X: its.B(op, ex, ey), To: wide}
	p := t.pos(in)
	t.assume("no signed overflow (nsw) at " + p)
	return its.B(its.Eq, wrapped, exact)
}

func mergeState(sts []*state, ns *state) []*state {
	k := envKey(ns.env)
	for _, s := range sts {
		if envKey(s.env) == k {
			s.guards = mergeGuards([][]its.Expr{s.guards, ns.guards})
			return sts
		}
	}
	return append(sts, ns)
}

func envKey(env map[value.Value]its.Expr) string {
	ks := make([]string, 0, len(env))
	for v, e := range env {
		ks = append(ks, v.Ident()+"="+e.String())
	}
	sort.Strings(ks)
	return strings.Join(ks, ";")
}

// mergeTrans merges transitions with the same ends and updates. The merged guard is exact: the
// guards all paths share, and the disjunction of what is left of each path's (Note [Exact
// merges]).
func mergeTrans(ts []its.Transition) []its.Transition {
	var out []its.Transition
	var alts [][][]its.Expr
	keys := map[string]int{}
	for _, tr := range ts {
		ks := make([]string, 0, len(tr.Update))
		for n, e := range tr.Update {
			ks = append(ks, n+"="+e.String())
		}
		sort.Strings(ks)
		k := fmt.Sprintf("%d>%d|%s", tr.From, tr.To, strings.Join(ks, ";"))
		if i, ok := keys[k]; ok {
			alts[i] = append(alts[i], tr.Guard)
			continue
		}
		keys[k] = len(out)
		out = append(out, tr)
		alts = append(alts, [][]its.Expr{tr.Guard})
	}
	for i := range out {
		if len(alts[i]) > 1 {
			out[i].Guard = mergeGuards(alts[i])
		}
	}
	return out
}

// Note [Exact merges]
// Paths between the same two cut points with the same updates become one transition. Its guard
// used to be only the guards the paths share, a sound widening that could lose a loop's bound:
// polybench nussinov's c3 <= min(31, c1 + floord(n - c0 + 2, 4) + 31) reaches the back edge
// on two paths (c3 <= 31 on one, c3 <= c1 + ... + 31 on the other) and the merged self-loop
// had no bound on c3 at all. Now the guard is the shared guards and the disjunction of the
// rest of each path's guards, which is exact; the disjunction is dropped only where some path
// has no guard of its own (it is true), or it would hold more than maxMergedAlts paths or
// maxExprSize nodes, or where the two paths differ in one test only (x and its negation: a
// branch whose arms rejoin with the same values, BFS's "if (!visited[id])" around a store).
// States that meet at a join with the same values merge the same way.

const maxMergedAlts = 8

// residue gives the guards of g that are not shared (in).
func residue(g []its.Expr, in map[string]bool) []its.Expr {
	var out []its.Expr
	for _, x := range g {
		if !in[x.String()] {
			out = append(out, x)
		}
	}
	return out
}

// mergeGuards gives the guard of the paths with guards gs, one conjunction each.
func mergeGuards(gs [][]its.Expr) []its.Expr {
	shared := gs[0]
	for _, g := range gs[1:] {
		shared = its.Intersect(shared, g)
	}
	if len(gs) > maxMergedAlts {
		return shared
	}
	size := 0
	for _, g := range gs {
		for _, x := range g {
			size += its.Size(x)
		}
	}
	if size > maxExprSize {
		return shared
	}
	in := map[string]bool{}
	for _, g := range shared {
		in[g.String()] = true
	}
	// Two paths that differ in one branch only (a test and its negation) need no disjunction.
	if len(gs) == 2 {
		a, b := residue(gs[0], in), residue(gs[1], in)
		if len(a) == 1 && len(b) == 1 && its.Negate(a[0]).String() == b[0].String() {
			return shared
		}
	}
	var disj its.Expr
	for _, g := range gs {
		var conj its.Expr
		for _, x := range g {
			if in[x.String()] {
				continue
			}
			if conj == nil {
				conj = x
			} else {
				conj = its.B(its.LAnd, conj, x)
			}
		}
		if conj == nil {
			return shared // this path needs no more than the shared guards
		}
		if disj == nil {
			disj = conj
		} else {
			disj = its.B(its.LOr, disj, conj)
		}
	}
	return append(shared, disj)
}

// infeasible reports whether guards hold a guard and its negation.
func infeasible(gs []its.Expr) bool {
	// Text identifies a guard only without fresh values: two nondets may print alike.
	seen := map[string]bool{}
	for _, g := range gs {
		if !hasNondet(g) {
			seen[g.String()] = true
		}
	}
	for _, g := range gs {
		if !hasNondet(g) && seen[its.Negate(g).String()] {
			return true
		}
	}
	return false
}

// addGuard appends g split at &&, dropping true and repeated guards. A guard that reads a fresh
// value stays: the analysis needs every branch as it is, for witnesses.
func addGuard(gs []its.Expr, g its.Expr) []its.Expr {
	return its.AddGuard(gs, g, func(h, g its.Expr) bool { return !hasNondet(g) && h.String() == g.String() })
}

func isFalse(g its.Expr) bool {
	c, ok := g.(*its.Const)
	return ok && c.Sort.IsBool() && c.Val.Sign() == 0
}

// eval gives the expression of an operand on a path.
func (t *fnT) eval(v value.Value, env map[value.Value]its.Expr) its.Expr {
	if e, ok := env[v]; ok {
		return e
	}
	if nv, ok := t.vars[v]; ok {
		if s, _ := sortOf(v.Type()); s.IsBool() {
			return fromBit(nv)
		}
		return its.R(nv)
	}
	s, ok := sortOf(v.Type())
	if !ok {
		s = its.U32
	}
	switch c := v.(type) {
	case *constant.Int:
		if s.IsBool() {
			if c.X.Sign() != 0 {
				return its.True()
			}
			return its.False()
		}
		return &its.Const{Val: s.Norm(new(big.Int).Set(c.X)), Sort: s}
	case *constant.Null:
		return its.C(0, its.U64)
	case *ir.Global:
		return t.globalVar(c)
	case *constant.ExprGetElementPtr:
		idx := make([]value.Value, len(c.Indices))
		for i, x := range c.Indices {
			idx[i] = x
		}
		return t.gep(c.ElemType, c.Src, idx, env)
	case *constant.ExprBitCast:
		return t.cast(c.From, c.To, env)
	case *constant.ExprAddrSpaceCast:
		return t.cast(c.From, c.To, env)
	case *constant.ExprPtrToInt:
		return t.cast(c.From, c.To, env)
	case *constant.ExprIntToPtr:
		return t.cast(c.From, c.To, env)
	}
	return &its.Nondet{Sort: s, Why: "value " + valueName(v)}
}

// globalVar is the unknown constant address of a global.
func (t *fnT) globalVar(g *ir.Global) its.Expr {
	if nv, ok := t.vars[g]; ok {
		return its.R(nv)
	}
	nv := its.Var{Name: t.uniq("@" + g.Name()), Sort: its.U64}
	t.constVar[nv.Name] = true
	t.vars[g] = nv
	t.sys.Vars = append(t.sys.Vars, nv)
	return its.R(nv)
}

// cast converts between integers and pointers (both bitvectors here).
func (t *fnT) cast(from value.Value, to types.Type, env map[value.Value]its.Expr) its.Expr {
	x := t.eval(from, env)
	_, ok1 := sortOf(from.Type())
	fs := its.SortOf(x)
	ts, ok2 := sortOf(to)
	if !ok1 || !ok2 {
		if !ok2 {
			ts = its.U32
		}
		return &its.Nondet{Sort: ts, Why: "cast"}
	}
	return resize(x, fs, ts, false)
}

// coerce gives e in sort s of the same width: a constant is re-read, any other bitvector
// reinterpreted (Note [Signedness classes]).
func coerce(e its.Expr, s its.Sort) its.Expr {
	es := its.SortOf(e)
	if es == s || es.IsBool() || s.IsBool() || es.Width != s.Width {
		return e
	}
	if c, ok := e.(*its.Const); ok {
		return &its.Const{Val: s.Norm(new(big.Int).Set(c.Val)), Sort: s}
	}
	return &its.Cast{Op: its.ZExt, X: e, To: s}
}

// resize zero- or sign-extends or truncates x from sort f to sort s.
func resize(x its.Expr, f, s its.Sort, signed bool) its.Expr {
	switch {
	case f.IsBool() && s.IsBool():
		return x
	case f.IsBool():
		one := its.C(1, s)
		if signed {
			one = its.C(-1, s)
		}
		return &its.Ite{C: x, T: one, E: its.C(0, s)}
	case s.IsBool():
		return its.B(its.Ne, its.B(its.And, x, its.C(1, f)), its.C(0, f))
	case f.Width == s.Width:
		return coerce(x, s)
	case f.Width > s.Width:
		return &its.Cast{Op: its.Trunc, X: x, To: s}
	case signed:
		return &its.Cast{Op: its.SExt, X: x, To: s}
	}
	return &its.Cast{Op: its.ZExt, X: x, To: s}
}

// gep computes an address: the base plus each index (sign-extended to 64 bits) times its stride.
func (t *fnT) gep(elem types.Type, src value.Value, idx []value.Value, env map[value.Value]its.Expr) its.Expr {
	addr := t.eval(src, env)
	cur := elem
	for i, ix := range idx {
		var stride int64
		if i == 0 {
			stride = sizeOf(elem)
		} else {
			switch ct := cur.(type) {
			case *types.StructType:
				c, ok := ix.(*constant.Int)
				if !ok {
					return &its.Nondet{Sort: its.U64, Why: "address"}
				}
				fi := int(c.X.Int64())
				if fi < 0 || fi >= len(ct.Fields) {
					return &its.Nondet{Sort: its.U64, Why: "address"}
				}
				if off := fieldOffset(ct, fi); off != 0 {
					addr = its.B(its.Add, addr, its.C(off, its.U64))
				}
				cur = ct.Fields[fi]
				continue
			case *types.ArrayType:
				cur = ct.ElemType
			case *types.VectorType:
				cur = ct.ElemType
			default:
				return &its.Nondet{Sort: its.U64, Why: "address"}
			}
			stride = sizeOf(cur)
		}
		s, ok := sortOf(ix.Type())
		if !ok || s.IsBool() {
			return &its.Nondet{Sort: its.U64, Why: "address"}
		}
		if c, ok := ix.(*constant.Int); ok && c.X.Sign() == 0 {
			continue
		}
		ex := t.eval(ix, env)
		off := resize(ex, its.SortOf(ex), its.U64, true)
		if stride != 1 {
			off = its.B(its.Mul, off, its.C(stride, its.U64))
		}
		addr = its.B(its.Add, addr, off)
	}
	return addr
}
