// Package fromllvm translates external GPU kernels (LLVM IR, or OpenCL and CUDA sources that
// clang-16 compiles, Note [Compiling external kernels]) into integer transition systems for
// termination analysis, one per kernel and per device function still called, under the
// thread-modular abstraction (Note [Thread-modular ITS] in analysis/its). It is read-only: it
// never changes or emits code.
package fromllvm

import (
	"fmt"
	"sort"
	"strings"

	"github.com/llir/llvm/asm"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/value"

	"gpuc/analysis/its"
	"gpuc/internal/graph"
)

// Systems compiles path (.cl, .cu or .ll) and translates it: gpuc check's entry point.
func Systems(path string, o Options) ([]*its.System, error) { return TranslateFile(path, o) }

// TranslateFile compiles path (.cl, .cu or .ll) and translates it.
func TranslateFile(path string, o Options) ([]*its.System, error) {
	text, err := CompileFile(path, o)
	if err != nil {
		return nil, err
	}
	m, err := asm.ParseString(path, text)
	if err != nil {
		return nil, fmt.Errorf("%s:1:1: error: reading LLVM IR: %v", path, firstLine(err.Error()))
	}
	return Translate(m, path, o)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Translate builds the systems of m's kernels, and of the device functions that a kernel
// still calls after inlining, in the order of m's functions.
func Translate(m *ir.Module, file string, o Options) ([]*its.System, error) {
	kernels := kernelSet(m)
	called := map[*ir.Func]bool{}
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if c, ok := in.(*ir.InstCall); ok {
					if g, ok := c.Callee.(*ir.Func); ok {
						called[g] = true
					}
				}
			}
		}
	}
	var out []*its.System
	for _, f := range m.Funcs {
		if len(f.Blocks) == 0 || !(kernels[f] || called[f]) {
			continue
		}
		s, err := translateFunc(m, f, file, kernels[f], o)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if len(kernels) == 0 && len(out) == 0 {
		// A module of device functions only: every defined function.
		for _, f := range m.Funcs {
			if len(f.Blocks) > 0 {
				s, err := translateFunc(m, f, file, false, o)
				if err != nil {
					return nil, err
				}
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// kernelSet finds kernels: the SPIR kernel calling convention, PTX's, or nvvm.annotations.
func kernelSet(m *ir.Module) map[*ir.Func]bool {
	ks := map[*ir.Func]bool{}
	byName := map[string]*ir.Func{}
	for _, f := range m.Funcs {
		byName[f.Name()] = f
		if f.CallingConv == enum.CallingConvSPIRKernel || f.CallingConv == enum.CallingConvPTXKernel {
			ks[f] = true
		}
	}
	if nd, ok := m.NamedMetadataDefs["nvvm.annotations"]; ok {
		for _, n := range nd.Nodes {
			d, ok := n.(interface{ LLString() string })
			if !ok {
				continue
			}
			s := d.LLString()
			if !strings.Contains(s, `!"kernel"`) {
				continue
			}
			for name, f := range byName {
				if strings.Contains(s, "@"+name+",") || strings.Contains(s, "@"+name+" ") {
					ks[f] = true
				}
			}
		}
	}
	return ks
}

// fnT holds the translation of one function.
type fnT struct {
	m      *ir.Module
	f      *ir.Func
	file   string
	kernel bool
	o      Options
	sys    *its.System

	blocks  []*ir.Block
	idx     map[*ir.Block]int
	succ    [][]int
	rpo     []int // reverse postorder: a topological order once edges into cut points go
	rpoPos  []int
	cyclic  []bool // block lies on a cycle
	cut     []bool // location: entry, loop heads, joins where paths were too many
	head    []bool
	barrier []bool // block calls a barrier

	defBlock  map[value.Value]int
	relevant  map[value.Value]bool
	needVar   map[value.Value]bool
	cls       map[value.Value]value.Value // union-find of signedness classes
	signedCls map[value.Value]bool
	readOnly  map[value.Value]bool // kernel pointer parameters and globals never written

	names    map[string]bool
	vars     map[value.Value]its.Var
	launch   map[string]its.Var
	loads    map[string]its.Var // hoisted read-only loads and invariants by key
	constVar map[string]bool    // variables no transition updates
	invKey   map[value.Value]string
	loc      map[int]int // block -> location
	exit     int
	assumed  map[string]bool
	noAlias  bool // a read-only parameter load relied on distinct parameters
	nondetOK bool
}

func translateFunc(m *ir.Module, f *ir.Func, file string, kernel bool, o Options) (*its.System, error) {
	t := &fnT{m: m, f: f, file: file, kernel: kernel, o: o}
	t.cfg()
	t.findReadOnly()
	t.findRelevant()
	for round := 0; ; round++ {
		t.reset()
		if ok := t.build(); ok || round > len(t.blocks) {
			break
		}
	}
	return t.sys, nil
}

// cfg numbers the blocks, finds successors, the reverse postorder, loop heads (targets of
// retreating edges) and blocks on cycles.
func (t *fnT) cfg() {
	t.blocks = t.f.Blocks
	t.idx = map[*ir.Block]int{}
	for i, b := range t.blocks {
		t.idx[b] = i
	}
	n := len(t.blocks)
	t.succ = make([][]int, n)
	t.barrier = make([]bool, n)
	t.defBlock = map[value.Value]int{}
	for i, b := range t.blocks {
		for _, s := range termSuccs(b.Term) {
			if j, ok := t.idx[s]; ok {
				t.succ[i] = append(t.succ[i], j)
			}
		}
		for _, in := range b.Insts {
			if v, ok := in.(value.Value); ok {
				t.defBlock[v] = i
			}
			if c, ok := in.(*ir.InstCall); ok && isBarrier(calleeName(c)) {
				t.barrier[i] = true
			}
		}
	}
	t.head = make([]bool, n)
	state := make([]int, n) // 0 new, 1 on stack, 2 done
	var post []int
	var dfs func(int)
	dfs = func(i int) {
		state[i] = 1
		for _, j := range t.succ[i] {
			switch state[j] {
			case 0:
				dfs(j)
			case 1:
				t.head[j] = true
			}
		}
		state[i] = 2
		post = append(post, i)
	}
	if n > 0 {
		dfs(0)
	}
	t.rpoPos = make([]int, n)
	for i := range t.rpoPos {
		t.rpoPos[i] = -1
	}
	for i := len(post) - 1; i >= 0; i-- {
		t.rpoPos[post[i]] = len(t.rpo)
		t.rpo = append(t.rpo, post[i])
	}
	// Blocks on cycles: strongly connected components of size > 1 or with a self edge.
	t.cyclic = make([]bool, n)
	for _, c := range graph.SCCs(n, t.succ) {
		if len(c) > 1 {
			for _, i := range c {
				t.cyclic[i] = true
			}
		} else {
			for _, j := range t.succ[c[0]] {
				if j == c[0] {
					t.cyclic[c[0]] = true
				}
			}
		}
	}
	t.cut = make([]bool, n)
	if n > 0 {
		t.cut[0] = true
	}
	for i := range t.head {
		if t.head[i] {
			t.cut[i] = true
		}
	}
}

func termSuccs(t ir.Terminator) []*ir.Block {
	var out []*ir.Block
	add := func(v value.Value) {
		if b, ok := v.(*ir.Block); ok {
			out = append(out, b)
		}
	}
	switch t := t.(type) {
	case *ir.TermBr:
		add(t.Target)
	case *ir.TermCondBr:
		add(t.TargetTrue)
		add(t.TargetFalse)
	case *ir.TermSwitch:
		add(t.TargetDefault)
		for _, c := range t.Cases {
			add(c.Target)
		}
	case *ir.TermIndirectBr:
		for _, v := range t.ValidTargets {
			add(v)
		}
	}
	return out
}

func calleeName(c *ir.InstCall) string {
	if g, ok := c.Callee.(*ir.Func); ok {
		return g.Name()
	}
	return ""
}

// findRelevant marks the values that branch conditions depend on: only those become variables
// (a slice of the function for its control flow).
func (t *fnT) findRelevant() {
	t.relevant = map[value.Value]bool{}
	var work []value.Value
	mark := func(v value.Value) {
		if v == nil || t.relevant[v] {
			return
		}
		t.relevant[v] = true
		work = append(work, v)
	}
	for _, b := range t.blocks {
		switch tm := b.Term.(type) {
		case *ir.TermCondBr:
			mark(tm.Cond)
		case *ir.TermSwitch:
			mark(tm.X)
		}
		for _, in := range b.Insts {
			if c, ok := in.(*ir.InstCall); ok && calleeName(c) == "llvm.assume" && len(c.Args) == 1 {
				mark(arg(c, 0))
			}
		}
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		for _, op := range t.operands(v) {
			mark(op)
		}
	}
	// Note [Signedness classes]
	// LLVM integers have no signedness, but its sorts do, and the analysis reads a variable
	// over the integers as its sort says. Values joined by arithmetic, phis and selects form a
	// class (bitwise operations do not join: masks mix readings). A class is signed where a
	// signed compare reads a member, else unsigned where an unsigned compare does, else signed
	// where sdiv, srem, ashr or sext reads one, else unsigned. Operands of another reading are
	// reinterpreted.
	t.cls = map[value.Value]value.Value{}
	for _, b := range t.blocks {
		for _, in := range b.Insts {
			v, ok := in.(value.Value)
			if !ok {
				continue
			}
			var ops []value.Value
			switch in := in.(type) {
			case *ir.InstAdd, *ir.InstSub, *ir.InstMul,
				*ir.InstUDiv, *ir.InstSDiv, *ir.InstURem, *ir.InstSRem, *ir.InstFreeze:
				ops = instOperands(in)
			case *ir.InstShl:
				ops = []value.Value{in.X}
			case *ir.InstLShr:
				ops = []value.Value{in.X}
			case *ir.InstAShr:
				ops = []value.Value{in.X}
			case *ir.InstSelect:
				ops = []value.Value{in.ValueTrue, in.ValueFalse}
			case *ir.InstPhi:
				for _, inc := range in.Incs {
					ops = append(ops, inc.X)
				}
			}
			for _, op := range ops {
				if _, isConst := op.(constant.Constant); !isConst {
					t.union(v, op)
				}
			}
		}
	}
	// Votes: compares decide (signed ones win), other signed readings only where a class is
	// never compared.
	const sCmp, uCmp, sUse = 1, 2, 4
	votes := map[value.Value]int{}
	vote := func(v value.Value, k int) {
		if _, isConst := v.(constant.Constant); !isConst {
			votes[t.find(v)] |= k
		}
	}
	for _, b := range t.blocks {
		for _, in := range b.Insts {
			switch in := in.(type) {
			case *ir.InstICmp:
				switch in.Pred {
				case enum.IPredSLT, enum.IPredSLE, enum.IPredSGT, enum.IPredSGE:
					vote(in.X, sCmp)
					vote(in.Y, sCmp)
				case enum.IPredULT, enum.IPredULE, enum.IPredUGT, enum.IPredUGE:
					vote(in.X, uCmp)
					vote(in.Y, uCmp)
				}
			case *ir.InstSDiv:
				vote(in.X, sUse)
			case *ir.InstSRem:
				vote(in.X, sUse)
			case *ir.InstAShr:
				vote(in.X, sUse)
			case *ir.InstSExt:
				vote(in.From, sUse)
			}
		}
	}
	t.signedCls = map[value.Value]bool{}
	for c, k := range votes {
		t.signedCls[c] = k&sCmp != 0 || (k&uCmp == 0 && k&sUse != 0)
	}
}

func (t *fnT) find(v value.Value) value.Value {
	root := v
	for {
		p, ok := t.cls[root]
		if !ok || p == root {
			break
		}
		root = p
	}
	for v != root {
		p := t.cls[v]
		t.cls[v] = root
		v = p
	}
	return root
}

func (t *fnT) union(a, b value.Value) {
	ra, rb := t.find(a), t.find(b)
	if ra != rb {
		t.cls[ra] = rb
	}
}

// sortOfValue is v's sort with the signedness of its class (Note [Signedness classes]).
func (t *fnT) sortOfValue(v value.Value) (its.Sort, bool) {
	s, ok := sortOf(v.Type())
	if !ok || s.IsBool() || isPtr(v.Type()) {
		return s, ok
	}
	s.Signed = t.signedCls[t.find(v)]
	return s, true
}

// operands lists the values v's translation reads.
func (t *fnT) operands(v value.Value) []value.Value {
	switch in := v.(type) {
	case *ir.InstPhi:
		var out []value.Value
		for _, inc := range in.Incs {
			out = append(out, inc.X)
		}
		return out
	case *ir.InstLoad:
		if t.roBase(in.Src) != nil {
			return []value.Value{in.Src}
		}
		return nil
	case *ir.InstCall:
		switch calleeName(in) {
		case "llvm.smax.i32", "llvm.smin.i32", "llvm.umax.i32", "llvm.umin.i32",
			"llvm.smax.i64", "llvm.smin.i64", "llvm.umax.i64", "llvm.umin.i64",
			"llvm.abs.i32", "llvm.abs.i64", "llvm.smax.i16", "llvm.smin.i16", "llvm.umax.i16", "llvm.umin.i16",
			"llvm.smax.i8", "llvm.smin.i8", "llvm.umax.i8", "llvm.umin.i8":
			out := make([]value.Value, len(in.Args))
			for i := range in.Args {
				out[i] = arg(in, i)
			}
			return out
		}
		return nil
	case ir.Instruction:
		return instOperands(in)
	}
	return nil
}

// instOperands lists the operands of the pure instructions the translation models.
func instOperands(in ir.Instruction) []value.Value {
	switch in := in.(type) {
	case *ir.InstAdd:
		return []value.Value{in.X, in.Y}
	case *ir.InstSub:
		return []value.Value{in.X, in.Y}
	case *ir.InstMul:
		return []value.Value{in.X, in.Y}
	case *ir.InstUDiv:
		return []value.Value{in.X, in.Y}
	case *ir.InstSDiv:
		return []value.Value{in.X, in.Y}
	case *ir.InstURem:
		return []value.Value{in.X, in.Y}
	case *ir.InstSRem:
		return []value.Value{in.X, in.Y}
	case *ir.InstShl:
		return []value.Value{in.X, in.Y}
	case *ir.InstLShr:
		return []value.Value{in.X, in.Y}
	case *ir.InstAShr:
		return []value.Value{in.X, in.Y}
	case *ir.InstAnd:
		return []value.Value{in.X, in.Y}
	case *ir.InstOr:
		return []value.Value{in.X, in.Y}
	case *ir.InstXor:
		return []value.Value{in.X, in.Y}
	case *ir.InstICmp:
		return []value.Value{in.X, in.Y}
	case *ir.InstSelect:
		return []value.Value{in.Cond, in.ValueTrue, in.ValueFalse}
	case *ir.InstTrunc:
		return []value.Value{in.From}
	case *ir.InstZExt:
		return []value.Value{in.From}
	case *ir.InstSExt:
		return []value.Value{in.From}
	case *ir.InstPtrToInt:
		return []value.Value{in.From}
	case *ir.InstIntToPtr:
		return []value.Value{in.From}
	case *ir.InstBitCast:
		return []value.Value{in.From}
	case *ir.InstAddrSpaceCast:
		return []value.Value{in.From}
	case *ir.InstFreeze:
		return []value.Value{in.X}
	case *ir.InstGetElementPtr:
		return append([]value.Value{in.Src}, in.Indices...)
	}
	return nil
}

// needVars decides which relevant instruction values live in variables: phis of locations,
// and any value read outside the block that defines it (other than by a phi of a successor).
func (t *fnT) needVars() {
	t.needVar = map[value.Value]bool{}
	useIn := func(op value.Value, blk int) {
		if d, ok := t.defBlock[op]; ok && d != blk {
			t.needVar[op] = true
		}
	}
	for _, b := range t.blocks {
		bi := t.idx[b]
		for _, in := range b.Insts {
			v, ok := in.(value.Value)
			if c, isCall := in.(*ir.InstCall); isCall && calleeName(c) == "llvm.assume" && len(c.Args) == 1 {
				useIn(arg(c, 0), bi)
			}
			if !ok || !t.relevant[v] {
				continue
			}
			if p, ok := in.(*ir.InstPhi); ok {
				if t.cut[bi] {
					t.needVar[p] = true
				}
				for _, inc := range p.Incs {
					if pb, ok := inc.Pred.(*ir.Block); ok {
						useIn(inc.X, t.idx[pb])
					}
				}
				continue
			}
			for _, op := range t.operands(v) {
				useIn(op, bi)
			}
		}
		switch tm := b.Term.(type) {
		case *ir.TermCondBr:
			useIn(tm.Cond, bi)
		case *ir.TermSwitch:
			useIn(tm.X, bi)
		}
	}
}

func (t *fnT) reset() {
	t.sys = &its.System{Name: t.f.Name(), File: t.file}
	t.names = map[string]bool{}
	t.vars = map[value.Value]its.Var{}
	t.launch = map[string]its.Var{}
	t.loads = map[string]its.Var{}
	t.constVar = map[string]bool{}
	t.invKey = map[value.Value]string{}
	t.loc = map[int]int{}
	t.assumed = map[string]bool{}
	t.noAlias = false
	t.needVars()
	for _, p := range t.f.Params {
		if s, ok := t.sortOfValue(p); ok {
			if s.IsBool() {
				s = bit
			}
			v := its.Var{Name: t.uniq(valueName(p)), Sort: s}
			t.vars[p] = v
			t.sys.Vars = append(t.sys.Vars, v)
			t.sys.Params = append(t.sys.Params, v.Name)
			t.constVar[v.Name] = true
		}
	}
	for _, b := range t.blocks {
		for _, in := range b.Insts {
			v, ok := in.(value.Value)
			if !ok || !t.needVar[v] {
				continue
			}
			s, ok := t.sortOfValue(v)
			if !ok {
				continue
			}
			if s.IsBool() {
				s = bit // Note [Boolean variables]
			}
			nv := its.Var{Name: t.uniq(valueName(v)), Sort: s}
			t.vars[v] = nv
			t.sys.Vars = append(t.sys.Vars, nv)
		}
	}
}

// Note [Boolean variables]
// Variables are bitvectors (its.System.Validate), so an i1 value that lives in a variable is a
// 1-bit one: reading it compares with 0, assigning it picks 1 or 0.
var bit = its.Sort{Width: 1}

func fromBit(v its.Var) its.Expr { return its.B(its.Ne, its.R(v), its.C(0, bit)) }

func toBit(e its.Expr) its.Expr {
	if its.SortOf(e).IsBool() {
		return &its.Ite{C: e, T: its.C(1, bit), E: its.C(0, bit)}
	}
	return e
}

func valueName(v value.Value) string {
	s := strings.TrimPrefix(v.Ident(), "%")
	s = strings.TrimPrefix(s, "@")
	s = strings.Trim(s, `"`)
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "v" + s
	}
	return s
}

func (t *fnT) uniq(name string) string {
	n := name
	for i := 2; t.names[n]; i++ {
		n = fmt.Sprintf("%s_%d", name, i)
	}
	t.names[n] = true
	return n
}

// pos is the source position of a debug location attachment, or "".
func (t *fnT) pos(v any) string {
	m, ok := v.(interface {
		MDAttachments() []*metadata.Attachment
	})
	if !ok {
		return ""
	}
	for _, a := range m.MDAttachments() {
		if d, ok := a.Node.(*metadata.DILocation); ok && a.Name == "dbg" && d.Line > 0 {
			return fmt.Sprintf("%s:%d:%d", t.file, d.Line, d.Column)
		}
	}
	return ""
}

func (t *fnT) blockPos(b *ir.Block) string {
	for _, in := range b.Insts {
		if p := t.pos(in); p != "" {
			return p
		}
	}
	return t.pos(b.Term)
}

// locOf gives the location of cut point block i, creating it.
func (t *fnT) locOf(i int) int {
	if l, ok := t.loc[i]; ok {
		return l
	}
	b := t.blocks[i]
	name := valueName(b)
	if i == 0 {
		name = "entry"
	}
	l := its.Loc{Name: name, Pos: t.blockPos(b), LoopHead: t.head[i]}
	if t.head[i] {
		l.Barrier = t.barrierOnCycle(i)
	}
	t.sys.Locs = append(t.sys.Locs, l)
	t.loc[i] = len(t.sys.Locs) - 1
	return t.loc[i]
}

// barrierOnCycle reports whether a barrier lies on a cycle through block h.
func (t *fnT) barrierOnCycle(h int) bool {
	for _, c := range graph.SCCs(len(t.blocks), t.succ) {
		in := false
		for _, i := range c {
			if i == h {
				in = true
			}
		}
		if !in {
			continue
		}
		for _, i := range c {
			if t.barrier[i] {
				return true
			}
		}
	}
	return false
}

// sortedValues orders a set of values by block and then name, for deterministic output.
func (t *fnT) sortedValues(m map[value.Value]its.Expr) []value.Value {
	vs := make([]value.Value, 0, len(m))
	for v := range m {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].Ident() < vs[j].Ident() })
	return vs
}
