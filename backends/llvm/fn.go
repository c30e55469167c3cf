package llvm

import (
	"fmt"

	llir "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"gpuc/backends/abi"
	"gpuc/ir"
)

// fn builds the body of one kernel or device function.
type fn struct {
	g       *gen
	src     *ir.Func
	f       *llir.Func
	allocas *llir.Block // the entry block: every alloca, then a branch on
	cur     *llir.Block // where code goes now
	nblocks int
	vars    map[string]*slot       // locals and function parameters in scope
	params  map[string]value.Value // module parameters
	bufs    map[string]value.Value // global and shared buffers' base pointers
	loops   []loop
	cpu     *cpuState // kernels on the host target
	length  bool      // emitting a buffer's length, which start-up checked
	plan    *abi.CheckPlan
	goOn    bool         // failed checks go on: Note [Going on after a fault] in package abi
	halts   bool         // goOn in a kernel with barriers: faultHalt after each and where it ends
	active  []*abi.Hoist // hoisted tests that hold in the loop copy being emitted
}

// slot is the memory of a local: one alloca, or for a local of a kernel
// with barriers on the host target, one per thread of the block.
type slot struct {
	ptr     value.Value
	t       ir.Type
	private bool // one element per thread, indexed by the thread id
}

// loop is an enclosing loop: where break and continue go. A loop that
// holds a barrier on the host target is block-wide: threads leave or skip
// it by their status (Note [Barriers on the CPU]).
type loop struct {
	brk, cont *llir.Block
	wide      bool
	depth     int // nesting depth among block-wide loops
}

func (g *gen) newFn(src *ir.Func) *fn {
	lf := g.funcs[src.Name]
	f := &fn{g: g, src: src, f: lf, vars: map[string]*slot{}, params: map[string]value.Value{},
		bufs: map[string]value.Value{}}
	if g.checks {
		f.plan = abi.PlanChecks(g.m, src) // Note [Check placement] in package abi
		// On the host target a fault ends the launch (Note [Raise on
		// the CPU]), which costs nothing there: no check goes on.
		f.goOn = g.target == NVPTX && g.conv.GoOn(src)
		f.halts = f.goOn && g.conv.BarrierStops(src) && g.errWord != nil
	}
	f.allocas = lf.NewBlock("entry")
	f.cur = f.block("start")
	return f
}

// bind maps the LLVM parameters from index at on to the buffers and
// module parameters that package abi passes after the IR's own.
func (f *fn) bind(at int) {
	ps := f.f.Params[at:]
	for _, b := range f.g.conv.Buffers(f.src) {
		f.bufs[b.Name], ps = ps[0], ps[1:]
	}
	for _, p := range f.g.conv.Params(f.src) {
		f.params[p.Name], ps = ps[0], ps[1:]
	}
}

// finish branches from the entry block to the code and closes the last
// block.
func (f *fn) finish() {
	f.allocas.NewBr(f.f.Blocks[1])
	if f.cur.Term == nil {
		f.leave()
	}
}

func (f *fn) errorf(pos ir.Pos, format string, args ...any) {
	f.g.errorf(pos, "%s %s: %s", f.src.Kind, f.src.Name, fmt.Sprintf(format, args...))
}

// block creates a block with a unique name.
func (f *fn) block(name string) *llir.Block {
	f.nblocks++
	return f.f.NewBlock(fmt.Sprintf("%s.%d", name, f.nblocks))
}

// jump ends the current block with a branch to b, unless it has ended.
func (f *fn) jump(b *llir.Block) {
	if f.cur.Term == nil {
		f.cur.NewBr(b)
	}
}

// enter makes b the current block.
func (f *fn) enter(b *llir.Block) { f.cur = b }

// arm emits body into block b with emit, then jumps to end.
func (f *fn) arm(b *llir.Block, emit func([]ir.Stmt), body []ir.Stmt, end *llir.Block) {
	f.enter(b)
	emit(body)
	f.jump(end)
}

// alloca reserves memory for n values of type t (one if n is nil) in the
// entry block, so that loops do not grow the stack.
func (f *fn) alloca(t types.Type, n value.Value) *llir.InstAlloca {
	a := f.allocas.NewAlloca(t)
	a.NElems = n
	return a
}

// newSlot makes the memory of a local of type t, private to each thread
// if private is set.
func (f *fn) newSlot(t ir.Type, private bool) *slot {
	if private {
		return &slot{ptr: f.alloca(valType(t), f.cpu.block), t: t, private: true}
	}
	return &slot{ptr: f.alloca(valType(t), nil), t: t}
}

// addr is the address of a local for the current thread.
func (f *fn) addr(s *slot) value.Value {
	if !s.private {
		return s.ptr
	}
	return f.cur.NewGetElementPtr(valType(s.t), s.ptr, f.cur.NewLoad(types.I32, f.g.geom[ir.ThreadID]))
}

// leave returns from the function: void, or the result type's zero; a
// kernel on the host target returns the block it is at (Note [Blocks
// across cores]).
func (f *fn) leave() {
	if f.cpu != nil {
		f.cur.NewRet(f.cur.NewLoad(types.I32, f.g.geom[ir.BlockID]))
		return
	}
	if f.src.Result == ir.Void || f.src.Kind == ir.KernelFunc {
		f.cur.NewRet(nil)
		return
	}
	f.cur.NewRet(zero(f.src.Result))
}

// unreachable starts a block for code after a jump, which nothing enters.
func (f *fn) unreachable() {
	if f.cur.Term != nil {
		f.enter(f.block("dead"))
	}
}

// call calls an intrinsic or library function.
func (f *fn) call(name string, result types.Type, args ...value.Value) value.Value {
	var ts []types.Type
	for _, a := range args {
		ts = append(ts, a.Type())
	}
	return f.cur.NewCall(f.g.intrinsic(name, result, ts...), args...)
}

// raiseError records message id in the error word unless another is
// there, as the first raise wins.
func (f *fn) raiseError(id int) {
	f.cur.NewCmpXchg(f.g.errWord, i32(0), i32(int64(id)), enum.AtomicOrderingMonotonic, enum.AtomicOrderingMonotonic)
}

// checkRaised leaves the function if the error word is set: on the host
// target a raise ends the launch (Note [Raise on the CPU]).
func (f *fn) checkRaised() {
	w := f.cur.NewLoad(types.I32, f.g.errWord)
	raised, ok := f.block("raised"), f.block("ok")
	f.cur.NewCondBr(f.cur.NewICmp(enum.IPredNE, w, i32(0)), raised, ok)
	f.enter(raised)
	f.leave()
	f.enter(ok)
}
