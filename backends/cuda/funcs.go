package cuda

import (
	"fmt"
	"strings"

	"gpuc/ir"
)

// fn emits the body of one function.
type fn struct {
	e      *emitter
	f      *ir.Func
	host   bool
	b      strings.Builder
	indent int
	temps  []string        // declarations of the temporaries, see operands
	reads  map[string]bool // locals whose value is read
}

func (e *emitter) newFn(f *ir.Func) *fn {
	return &fn{e: e, f: f, host: f.Kind == ir.HostFunc, indent: 1, reads: readVars(f.Body)}
}

func (f *fn) line(format string, args ...any) {
	if format != "" {
		f.b.WriteString(strings.Repeat("  ", f.indent))
	}
	fmt.Fprintf(&f.b, format, args...)
	f.b.WriteByte('\n')
}

// temp declares a new temporary of type t at the top of the function.
func (f *fn) temp(t ir.Type) string {
	name := fmt.Sprintf("gpuc_t%d", len(f.temps)+1)
	f.temps = append(f.temps, fmt.Sprintf("%s %s = %s;", ctype(t), name, constant(t, 0).s))
	return name
}

func (f *fn) errorf(pos ir.Pos, format string, args ...any) {
	f.e.errorf(pos, "%s %s: %s", f.f.Kind, f.f.Name, fmt.Sprintf(format, args...))
}

// where names the kind of code f holds, for messages.
func (f *fn) where() string {
	switch f.f.Kind {
	case ir.KernelFunc:
		return "a kernel"
	case ir.DeviceFunc:
		return "a device function"
	}
	return "host code"
}

// readVars lists the locals whose values body reads. A read inside an
// assignment to the same local does not count: nvcc calls such a local
// "set but never used".
func readVars(body []ir.Stmt) map[string]bool {
	reads := map[string]bool{}
	ir.WalkStmts(body, func(s ir.Stmt) bool {
		self := ""
		if a, ok := s.(*ir.Assign); ok {
			self = a.Name
		}
		for _, x := range ir.StmtExprs(s) {
			ir.WalkExpr(x, func(x ir.Expr) bool {
				if v, ok := x.(*ir.Var); ok && v.Name != self {
					reads[v.Name] = true
				}
				return true
			})
		}
		return true
	})
	return reads
}

// function emits the definition of g.
func (e *emitter) function(g *ir.Func) string {
	f := e.newFn(g)
	var prologue []string
	if g.Kind == ir.KernelFunc {
		prologue = f.sharedPrologue()
	}
	f.block(g.Body)
	var b strings.Builder
	fmt.Fprintf(&b, "%s {\n", e.signature(g))
	for _, l := range append(f.temps, prologue...) {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	b.WriteString(f.b.String())
	b.WriteString("}\n")
	return b.String()
}

// signature spells g's C++ declaration: kernels and device functions take
// their IR parameters and then the buffers and module parameters they use
// (see usage).
func (e *emitter) signature(g *ir.Func) string {
	var params []string
	for _, p := range g.Params {
		params = append(params, ctype(p.Type)+" "+e.n.c(p.Name))
	}
	u := e.use[g]
	for _, b := range e.extraBufs(g) {
		switch {
		case b.Space == ir.Shared:
			params = append(params, ctype(b.Elem)+" *"+e.n.c(b.Name))
		case u.written[b]:
			params = append(params, ctype(b.Elem)+" *__restrict__ "+e.n.c(b.Name))
		default:
			params = append(params, "const "+ctype(b.Elem)+" *__restrict__ "+e.n.c(b.Name))
		}
	}
	for _, p := range e.extraParams(g) {
		params = append(params, ctype(p.Type)+" "+e.n.c(p.Name))
	}
	prefix := map[ir.FuncKind]string{ir.KernelFunc: "__global__ ", ir.DeviceFunc: "__device__ "}[g.Kind]
	return fmt.Sprintf("%s%s %s(%s)", prefix, ctype(g.Result), e.n.c(g.Name), strings.Join(params, ", "))
}

// extraBufs lists, in declaration order, the buffers that a kernel or
// device function receives as pointers: the global buffers it uses and,
// for device functions, the shared ones, which kernels carve out of their
// dynamic shared memory themselves.
func (e *emitter) extraBufs(g *ir.Func) []*ir.Buffer {
	u := e.use[g]
	if u == nil {
		return nil
	}
	var out []*ir.Buffer
	for _, b := range e.m.Buffers {
		if u.bufs[b] && (b.Space == ir.Global || g.Kind == ir.DeviceFunc) {
			out = append(out, b)
		}
	}
	return out
}

// extraParams lists, in declaration order, the module parameters that a
// kernel or device function receives: those it uses, and for kernels those
// that size its shared buffers.
func (e *emitter) extraParams(g *ir.Func) []*ir.Param {
	u := e.use[g]
	if u == nil {
		return nil
	}
	need := map[*ir.Param]bool{}
	for p := range u.params {
		need[p] = true
	}
	if g.Kind == ir.KernelFunc {
		for _, b := range e.sharedBufs(g) {
			ir.WalkExpr(b.Len, func(x ir.Expr) bool {
				if r, ok := x.(*ir.ParamRef); ok && e.m.Param(r.Name) != nil {
					need[e.m.Param(r.Name)] = true
				}
				return true
			})
		}
	}
	var out []*ir.Param
	for _, p := range e.m.Params {
		if need[p] {
			out = append(out, p)
		}
	}
	return out
}

// extraArgs spells the extra arguments of a call of the device function g:
// in device code, buffers and parameters go by their own names.
func (e *emitter) extraArgs(g *ir.Func) []string {
	var out []string
	for _, b := range e.extraBufs(g) {
		out = append(out, e.n.c(b.Name))
	}
	for _, p := range e.extraParams(g) {
		out = append(out, e.n.c(p.Name))
	}
	return out
}

// sharedBufs lists the shared buffers that kernel k uses, itself or
// through device functions, in declaration order.
func (e *emitter) sharedBufs(k *ir.Func) []*ir.Buffer {
	var out []*ir.Buffer
	for _, b := range e.m.Buffers {
		if b.Space == ir.Shared && e.use[k] != nil && e.use[k].bufs[b] {
			out = append(out, b)
		}
	}
	return out
}

// sharedPrologue carves the kernel's shared buffers out of its dynamic
// shared memory and zeroes it, as the host sized it (see hostSharedSize).
func (f *fn) sharedPrologue() []string {
	bufs := f.e.sharedBufs(f.f)
	if len(bufs) == 0 {
		return nil
	}
	out := []string{
		"extern __shared__ __align__(16) unsigned char gpuc_smem[];",
		"size_t gpuc_off = 0;",
	}
	for _, b := range bufs {
		t := ctype(b.Elem)
		out = append(out, fmt.Sprintf("%s *const %s = gpuc_shared<%s>(gpuc_smem, &gpuc_off, %s);",
			t, f.e.n.c(b.Name), t, f.expr(b.Len).s))
	}
	return append(out, "gpuc_zero_shared(gpuc_smem, gpuc_off);")
}
