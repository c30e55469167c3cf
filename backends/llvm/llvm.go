// Package llvm is gpuc's LLVM IR backend: it translates a module at the
// launch level into an LLVM module built with github.com/llir/llvm, for
// one of two targets.
//
//   - NVPTX (nvptx64-nvidia-cuda): each kernel is a PTX entry marked in
//     !nvvm.annotations; buffers live in address spaces global (1),
//     shared (3) and constant (4); thread geometry and block barriers are
//     NVVM intrinsics, atomics are atomicrmw and cmpxchg, and a raise
//     records its message in the error word and exits the thread. llc
//     turns the module into PTX (PTX), which a generated C++ host program
//     loads through the CUDA driver API (HostProgram).
//   - Host: each kernel is an ordinary function that runs every block of
//     a launch, one after another, and every thread of a block in a loop.
//     Block barriers split that loop (Note [Barriers on the CPU]). The
//     module is compiled with clang and linked with the C++ host program.
//
// Both follow the IR's semantics (ir/doc.go and ir/eval.go): wrapping
// integer arithmetic, division by -1 that wraps, shift counts taken modulo
// the width, saturating float-to-integer conversions, float operations
// without contraction, lazy ?:, && and ||, and left-to-right evaluation.
// Kernels and host programs agree on arguments as package abi says.
//
// It is not an optimiser: locals live in allocas, and LLVM's passes (or
// ptxas) do the rest. Nor does it write host code: the host program is
// package cuda's emitter with a driver-API or CPU device.
package llvm

import (
	"fmt"

	llir "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"

	"gpuc/backends/abi"
	"gpuc/internal/diag"
	"gpuc/ir"
)

// Target is what the module is for.
type Target uint8

const (
	// NVPTX is a GPU module for llc -march=nvptx64.
	NVPTX Target = iota
	// Host is a CPU module whose kernels loop over blocks and threads.
	Host
)

// ParseTarget reads a target name: nvptx or host.
func ParseTarget(s string) (Target, bool) {
	switch s {
	case "nvptx":
		return NVPTX, true
	case "host":
		return Host, true
	}
	return NVPTX, false
}

func (t Target) String() string {
	if t == Host {
		return "host"
	}
	return "nvptx"
}

// Options controls code generation.
type Options struct {
	Target Target
	// NoChecks leaves out the checks of indices and divisors (Note
	// [Checks] in package abi): `gpuc compile --checks=off`.
	NoChecks bool
}

// The NVPTX target's triple and data layout, as clang writes them for CUDA.
const (
	nvptxTriple = "nvptx64-nvidia-cuda"
	nvptxLayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
)

// Emit writes the LLVM module for m, which must be at the launch level and
// have passed ir.Verify. Errors are positioned, as a diag.List.
func Emit(m *ir.Module, opts Options) (out []byte, err error) {
	if m == nil {
		return nil, fmt.Errorf("llvm: nil module")
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("llvm: internal error emitting module %s: %v", m.Name, r)
		}
	}()
	if errs := abi.SPMDConstructs(m, "llvm"); len(errs) > 0 {
		return nil, errs
	}
	if errs := worldConstructs(m, opts.Target); len(errs) > 0 {
		return nil, errs
	}
	if errs := cooperative(m); len(errs) > 0 {
		return nil, errs
	}
	g := newGen(m, opts)
	g.module()
	if len(g.errs) > 0 {
		g.errs.Sort()
		return nil, g.errs
	}
	return []byte(g.mod.String()), nil
}

// gen holds what the functions of one module share.
type gen struct {
	m        *ir.Module
	target   Target
	mod      *llir.Module
	conv     *abi.Conv
	raiseIDs map[string]int        // see abi.Raises
	checks   bool                  // kernels check indices and divisors
	faultIDs map[string]int        // see abi.Faults
	values   *llir.Global          // a fault's two values (abi.FaultValues)
	checksOn *llir.Global          // cleared by CHECKS=0 (abi.ChecksWord)
	mayRaise map[string]bool       // device functions that raise, themselves or through calls
	funcs    map[string]*llir.Func // kernels and device functions by IR name
	consts   map[string]*llir.Global
	errWord  *llir.Global
	smem     *llir.Global                  // NVPTX: the dynamic shared area
	geom     map[ir.BuiltinOp]*llir.Global // host: the current thread's geometry
	world    map[ir.BuiltinOp]*llir.Global // host, in a world: the worker's device and the world's size
	serial   *llir.Global                  // host: the worker runs its launch alone (Note [Atomics of one worker])
	decls    map[string]*llir.Func
	errs     diag.List
}

func newGen(m *ir.Module, opts Options) *gen {
	checks := !opts.NoChecks
	g := &gen{m: m, target: opts.Target, mod: llir.NewModule(), conv: abi.New(m, checks), checks: checks,
		funcs: map[string]*llir.Func{}, consts: map[string]*llir.Global{}, decls: map[string]*llir.Func{}}
	var msgs []string
	g.raiseIDs, msgs = abi.Raises(m)
	g.faultIDs = map[string]int{}
	if checks {
		g.faultIDs, _ = abi.Faults(m, len(msgs)+1)
	}
	g.mayRaise = raisers(m, checks)
	return g
}

func (g *gen) errorf(pos ir.Pos, format string, args ...any) {
	g.errs.Add(pos, "llvm: "+format, args...)
}

// module builds the whole module: globals, every kernel's and device
// function's signature (calls may go forward), then their bodies.
func (g *gen) module() {
	g.mod.SourceFilename = g.m.Name
	if g.target == NVPTX {
		g.mod.TargetTriple, g.mod.DataLayout = nvptxTriple, nvptxLayout
	}
	g.globals()
	var code []*ir.Func
	for _, f := range g.m.Funcs {
		if f.Kind != ir.HostFunc {
			g.funcs[f.Name] = g.declare(f)
			code = append(code, f)
		}
	}
	for _, f := range code {
		switch {
		case f.Kind == ir.DeviceFunc:
			g.deviceFunc(f)
		case g.target == NVPTX:
			g.gpuKernel(f)
		default:
			g.cpuKernel(f)
		}
	}
	if g.target == NVPTX {
		g.annotate(code)
	}
}

// space is the address space of memory space s on the target.
func (g *gen) space(s ir.Space) types.AddrSpace {
	if g.target == Host {
		return 0
	}
	switch s {
	case ir.Global:
		return 1
	case ir.Shared:
		return 3
	}
	return 4
}

// ptr is the type of a pointer to elements of type t in space s.
func (g *gen) ptr(t types.Type, s ir.Space) *types.PointerType {
	p := types.NewPointer(t)
	p.AddrSpace = g.space(s)
	return p
}

// global defines a module global of content type t in space s.
func (g *gen) global(name string, t types.Type, s ir.Space, init constant.Constant) *llir.Global {
	v := g.mod.NewGlobalDef(name, init)
	v.ContentType = t
	v.AddrSpace = g.space(s)
	v.Typ = g.ptr(t, s)
	v.Align = abi.Align
	return v
}

// globals defines the error word, each constant buffer and, on NVPTX,
// the dynamic shared area or, on the host target, the current thread's
// geometry. Host programs find them by name (package abi).
func (g *gen) globals() {
	g.errWord = g.global(abi.ErrorWord, types.I32, ir.Global, constant.NewInt(types.I32, 0))
	g.errWord.Align = 4
	if len(g.faultIDs) > 0 {
		t := types.NewArray(2, types.I64)
		g.values = g.global(abi.FaultValues, t, ir.Global, constant.NewZeroInitializer(t))
		g.checksOn = g.global(abi.ChecksWord, types.I32, ir.Global, i32(1))
		g.checksOn.Align = 4
	}
	for _, b := range g.m.Buffers {
		if b.Space != ir.Constant {
			continue
		}
		n, ok := constLength(b.Len)
		if !ok {
			g.errorf(b.Pos, "constant buffer %s: length is not a constant", b.Name)
		}
		t := types.NewArray(uint64(max(n, 1)), memType(b.Elem))
		g.consts[b.Name] = g.global(abi.ConstantPrefix+b.Name, t, ir.Constant, constant.NewZeroInitializer(t))
	}
	if g.target == Host {
		// Each worker of the host program's pool runs its own blocks
		// (Note [Blocks across cores]): the geometry, the error word and
		// a fault's values are the worker's.
		g.errWord.TLSModel = enum.TLSModelInitialExec
		if g.values != nil {
			g.values.TLSModel = enum.TLSModelInitialExec
		}
		g.geom = map[ir.BuiltinOp]*llir.Global{}
		for _, op := range []ir.BuiltinOp{ir.ThreadID, ir.BlockID, ir.BlockDim, ir.GridDim} {
			v := g.global("gpuc_"+op.String(), types.I32, ir.Global, i32(0))
			v.Linkage, v.Align = enum.LinkageInternal, 4
			v.TLSModel = enum.TLSModelInitialExec
			g.geom[op] = v
		}
		g.worldGlobals()
		g.serialFlag()
		return
	}
	t := types.NewArray(0, types.I8)
	g.smem = g.mod.NewGlobal("gpuc_smem", t)
	g.smem.AddrSpace, g.smem.Typ, g.smem.Align = 3, g.ptr(t, ir.Shared), abi.Align
	g.smem.Linkage = enum.LinkageExternal
}

// declare creates the LLVM function of kernel or device function f with
// the signature that package abi describes. On the host target a kernel
// first takes the grid and block sizes, the worker's shared area and the
// range of blocks to run, and returns the block it stopped at (Note
// [Blocks across cores]). A kernel takes bool parameters as bytes, as
// the host passes them.
func (g *gen) declare(f *ir.Func) *llir.Func {
	var params []*llir.Param
	host := f.Kind == ir.KernelFunc && g.target == Host
	if host {
		params = append(params, llir.NewParam("gpuc_grid", types.I32), llir.NewParam("gpuc_block", types.I32),
			llir.NewParam("gpuc_shared", types.I8Ptr), llir.NewParam("gpuc_lo", types.I32), llir.NewParam("gpuc_hi", types.I32))
	}
	for _, p := range f.Params {
		t := valType(p.Type)
		if f.Kind == ir.KernelFunc {
			t = memType(p.Type)
		}
		params = append(params, llir.NewParam(p.Name, t))
	}
	for _, b := range g.conv.Buffers(f) {
		params = append(params, llir.NewParam(b.Name, g.ptr(memType(b.Elem), b.Space)))
	}
	for _, p := range g.conv.Params(f) {
		params = append(params, llir.NewParam(p.Name, valType(p.Type)))
	}
	name, result := "gpuc_func_"+f.Name, valType(f.Result)
	switch {
	case host:
		name, result = abi.KernelPrefix+f.Name, types.I32
	case f.Kind == ir.KernelFunc:
		name, result = abi.KernelPrefix+f.Name, types.Void
	}
	lf := g.mod.NewFunc(name, result, params...)
	if f.Kind == ir.DeviceFunc {
		lf.Linkage = enum.LinkageInternal
	}
	return lf
}

// annotate marks the kernels as PTX entries, with the largest block
// each is launched with where that is known.
func (g *gen) annotate(code []*ir.Func) {
	named := &metadata.NamedDef{Name: "nvvm.annotations"}
	for _, f := range code {
		if f.Kind != ir.KernelFunc {
			continue
		}
		note := func(key string, v int64) {
			md := &metadata.Tuple{MetadataID: metadata.MetadataID(len(g.mod.MetadataDefs)), Fields: []metadata.Field{
				g.funcs[f.Name], &metadata.String{Value: key}, constant.NewInt(types.I32, v)}}
			g.mod.MetadataDefs = append(g.mod.MetadataDefs, md)
			named.Nodes = append(named.Nodes, md)
		}
		note("kernel", 1)
		if n := abi.MaxBlock(g.m, f.Name); n > 0 {
			// llc budgets registers for the blocks the program launches
			// (at the parameters' defaults), never so many that they
			// cannot run.
			note("maxntidx", n)
		}
	}
	if len(named.Nodes) > 0 {
		g.mod.NamedMetadataDefs[named.Name] = named
	}
}

// intrinsic returns the declaration of an LLVM intrinsic or library
// function, creating it on first use.
func (g *gen) intrinsic(name string, result types.Type, params ...types.Type) *llir.Func {
	if f, ok := g.decls[name]; ok {
		return f
	}
	var ps []*llir.Param
	for _, t := range params {
		ps = append(ps, llir.NewParam("", t))
	}
	f := g.mod.NewFunc(name, result, ps...)
	g.decls[name] = f
	return f
}

// raisers lists the device functions that may raise, themselves or
// through the functions they call.
func raisers(m *ir.Module, checks bool) map[string]bool {
	may := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, f := range m.Funcs {
			if f.Kind != ir.DeviceFunc || may[f.Name] {
				continue
			}
			raises := ir.AnyStmt(f.Body, func(s ir.Stmt) bool {
				switch s.(type) {
				case *ir.Raise:
					return true
				case *ir.Store, *ir.Atomic:
					return checks
				}
				return false
			}) || ir.AnyExprIn(f.Body, func(e ir.Expr) bool {
				switch e := e.(type) {
				case *ir.Call:
					return may[e.Func]
				case *ir.Load:
					return checks
				case *ir.Binary:
					return checks && abi.CheckedDivisor(e)
				}
				return false
			})
			if raises {
				may[f.Name] = true
				changed = true
			}
		}
	}
	return may
}

// cooperative reports cooperative launches and the grid barriers of their
// kernels, which this backend does not implement: the passes lower grid
// barriers to kernel boundaries instead with --grid-sync=never.
func cooperative(m *ir.Module) diag.List {
	var errs diag.List
	for _, f := range m.Funcs {
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			switch s := s.(type) {
			case *ir.Launch:
				if s.Coop {
					errs.Add(s.Pos, "llvm: cooperative launch of %s; the LLVM backend needs modules lowered with --grid-sync=never", s.Kernel)
				}
			case *ir.Barrier:
				if s.Grid {
					errs.Add(s.Pos, "llvm: grid barrier in kernel %s; the LLVM backend needs modules lowered with --grid-sync=never", f.Name)
				}
			}
			return true
		})
	}
	errs.Sort()
	return errs
}
