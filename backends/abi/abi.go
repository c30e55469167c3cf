// Package abi is the calling convention between the host programs that
// gpuc generates and their kernels. The CUDA backend, which writes both
// halves in one .cu file, and the LLVM backend, whose kernels a generated
// C++ host program launches, follow it, so that one host emitter serves
// kernels from either.
//
// The convention:
//   - A kernel or device function receives its IR parameters, then a
//     pointer to each buffer it uses (Buffers), then the value of each
//     module parameter it uses (Params), each list in declaration order.
//     Uses count through the device functions it calls.
//   - Constant buffers are module globals, never arguments.
//   - A kernel carves its shared buffers (Shared) out of one dynamic
//     shared area, in declaration order, each at a 16-byte aligned offset
//     (SharedBytes), and zeroes the area when a block starts.
//   - Device code raises by storing the number of its message (Raises)
//     into a module-global int, the error word, unless another is there.
//
// It is not a backend: it writes no code.
package abi

import (
	"gpuc/internal/diag"
	"gpuc/ir"
)

// Symbols that the LLVM backend's modules define and the host programs
// look up: kernels, constant buffers and the error word. IR names are
// prefixed so that they cannot meet the C library's names.
const (
	KernelPrefix   = "gpuc_kernel_"
	ConstantPrefix = "gpuc_const_"
	ErrorWord      = "gpuc_error"
)

// Conv is the calling convention of one module: what each kernel and
// device function touches, in its own body or through its callees.
type Conv struct {
	m    *ir.Module
	use  map[*ir.Func]*usage
	goOn map[*ir.Func]bool // Note [Going on after a fault], computed on demand
}

// New analyses m, which must have passed ir.Verify. With checks, a
// function also receives the parameters of the lengths of the buffers
// it touches (Note [Checks]).
func New(m *ir.Module, checks bool) *Conv {
	return &Conv{m: m, use: analyzeUsage(m, checks)}
}

// Buffers lists the buffers that kernel or device function f receives as
// pointers: the global buffers it uses and, for device functions, the
// shared ones, which kernels carve out of their shared area themselves.
func (c *Conv) Buffers(f *ir.Func) []*ir.Buffer {
	u := c.use[f]
	if u == nil {
		return nil
	}
	var out []*ir.Buffer
	for _, b := range c.m.Buffers {
		if u.bufs[b] && (b.Space.IsDevice() || f.Kind == ir.DeviceFunc) {
			out = append(out, b)
		}
	}
	return out
}

// Params lists the module parameters that kernel or device function f
// receives: those it uses, and for kernels those that size its shared
// buffers.
func (c *Conv) Params(f *ir.Func) []*ir.Param {
	u := c.use[f]
	if u == nil {
		return nil
	}
	need := map[*ir.Param]bool{}
	for p := range u.params {
		need[p] = true
	}
	if f.Kind == ir.KernelFunc {
		for _, b := range c.Shared(f) {
			ir.WalkExpr(b.Len, func(x ir.Expr) bool {
				if r, ok := x.(*ir.ParamRef); ok && c.m.Param(r.Name) != nil {
					need[c.m.Param(r.Name)] = true
				}
				return true
			})
		}
	}
	var out []*ir.Param
	for _, p := range c.m.Params {
		if need[p] {
			out = append(out, p)
		}
	}
	return out
}

// Shared lists the shared buffers that kernel k uses, itself or through
// device functions, in declaration order: the layout of its shared area.
func (c *Conv) Shared(k *ir.Func) []*ir.Buffer {
	var out []*ir.Buffer
	for _, b := range c.m.Buffers {
		if b.Space == ir.Shared && c.use[k] != nil && c.use[k].bufs[b] {
			out = append(out, b)
		}
	}
	return out
}

// Writes reports whether f stores to b or updates it atomically, itself
// or through its callees.
func (c *Conv) Writes(f *ir.Func, b *ir.Buffer) bool {
	return c.use[f] != nil && c.use[f].written[b]
}

// Align is the alignment of each shared buffer in a kernel's shared area.
const Align = 16

// Raises numbers the distinct messages raised in kernels and device
// functions from 1, in module order; the device records the number of the
// first raise in the error word, and the host prints its message.
func Raises(m *ir.Module) (ids map[string]int, msgs []string) {
	ids = map[string]int{}
	for _, f := range m.Funcs {
		if f.Kind == ir.HostFunc {
			continue
		}
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if r, ok := s.(*ir.Raise); ok && ids[r.Msg] == 0 {
				msgs = append(msgs, r.Msg)
				ids[r.Msg] = len(msgs)
			}
			return true
		})
	}
	return ids, msgs
}

// SPMDConstructs lists the SPMD-level constructs in m, which the passes
// must lower before a backend can run; backend names the backend in the
// messages. Grid barriers in kernels are launch-level: cooperative
// launches run those kernels.
func SPMDConstructs(m *ir.Module, backend string) diag.List {
	var errs diag.List
	report := func(pos ir.Pos, what string) {
		errs.Add(pos, "%s: %s is SPMD-level; lower the module to the launch level first", backend, what)
	}
	for _, f := range m.Funcs {
		if f == nil {
			errs.Add(m.Pos, "%s: nil function in module %s", backend, m.Name)
			continue
		}
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			switch s := s.(type) {
			case *ir.Region:
				report(s.Pos, "region")
			case *ir.Split:
				report(s.Pos, "split")
			case *ir.Fork:
				report(s.Pos, "fork")
			case *ir.SplitWhile:
				report(s.Pos, "split while")
			case *ir.Barrier:
				if s.Grid && f.Kind != ir.KernelFunc {
					report(s.Pos, "barrier grid")
				}
			case *ir.Store:
				if s.Priority {
					report(s.Pos, "prio store")
				}
			case *ir.Atomic:
				if s.Op.IsMultiprefix() {
					report(s.Pos, "atomic "+s.Op.String())
				}
			}
			return true
		})
		ir.WalkAllExprs(f.Body, func(x ir.Expr) bool {
			if b, ok := x.(*ir.Builtin); ok && b.Op.IsRegionOnly() {
				report(b.Pos, b.Op.String()+"()")
			}
			return true
		})
	}
	errs.Sort()
	return errs
}

// MaxBlock is the largest block size that the host launches kernel k with
// when every parameter has its default, for the compiler's register budget
// (launch bounds); 0 where some launch's block size is not known before
// the program runs, or k is never launched. A launch with a larger block,
// from parameters set at run time, may find the kernel unable to run it.
func MaxBlock(m *ir.Module, k string) int64 {
	most := int64(0)
	for _, f := range m.Funcs {
		if f.Kind != ir.HostFunc {
			continue
		}
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			l, ok := s.(*ir.Launch)
			if !ok || l.Kernel != k || most < 0 {
				return most >= 0
			}
			v, known := blockBound(m, l.Block)
			if !known || v < 1 || v > 1024 {
				most = -1
				return false
			}
			most = max(most, v)
			return true
		})
	}
	return max(most, 0)
}

// WorldConstructs lists the constructs of m that make it a program for a
// world of devices (Note [World] in package ir): the DEVICES parameter,
// world memory spaces, device_id() and num_devices(), world launches and
// the host collectives. A backend that runs one device reports them;
// backend names it in the messages.
func WorldConstructs(m *ir.Module, backend string) diag.List {
	var errs diag.List
	report := func(pos ir.Pos, what string) {
		errs.Add(pos, "%s: %s belongs to a world of several devices, which this backend does not run", backend, what)
	}
	if p := m.Param(ir.DevicesParam); p != nil {
		report(p.Pos, "parameter "+p.Name)
	}
	for _, b := range m.Buffers {
		if b != nil && b.Space.IsWorld() {
			report(b.Pos, b.Space.String()+" buffer "+b.Name)
		}
	}
	for _, f := range m.Funcs {
		if f == nil {
			continue
		}
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			switch s := s.(type) {
			case *ir.Launch:
				if s.World {
					report(s.Pos, "world launch")
				}
			case *ir.Region:
				if s.World {
					report(s.Pos, "world region")
				}
			case *ir.WorldBarrier:
				report(s.Pos, "world_barrier")
			case *ir.AllGather:
				report(s.Pos, "allgather")
			case *ir.AllReduce:
				report(s.Pos, "allreduce")
			}
			for _, e := range ir.StmtExprs(s) {
				ir.WalkExpr(e, func(e ir.Expr) bool {
					if b, ok := e.(*ir.Builtin); ok && b.Op.IsWorld() {
						report(b.Pos, b.Op.String()+"()")
					}
					return true
				})
			}
			return true
		})
	}
	errs.Sort()
	return errs
}

// blockBound is an upper bound of a launch's block size e at the
// parameters' defaults: its value where the defaults fix it, else through
// min (the least known bound of its operands) and ?: (the larger of its
// two sides). TRS's one-block kernel launches min(SMALLB, a size read at
// run time), which is at most SMALLB; without the bound, llc and ptxas
// budgeted registers for no block size, and a launch of 512 threads
// failed where the kernel allowed 256 (REC's tak18 and benchsym20 on an
// H100, 2026-11-26).
func blockBound(m *ir.Module, e ir.Expr) (int64, bool) {
	if v, ok := m.DefaultValue(e); ok {
		return v, true
	}
	switch x := e.(type) {
	case *ir.Select:
		a, okA := blockBound(m, x.X)
		b, okB := blockBound(m, x.Y)
		return max(a, b), okA && okB
	case *ir.Builtin:
		if x.Op != ir.Min {
			return 0, false
		}
		best, found := int64(0), false
		for _, arg := range x.Args {
			if v, ok := blockBound(m, arg); ok && (!found || v < best) {
				best, found = v, true
			}
		}
		return best, found
	case *ir.Convert:
		return blockBound(m, x.X)
	}
	return 0, false
}
