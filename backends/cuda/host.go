package cuda

import (
	"fmt"
	"strconv"
	"strings"

	"gpuc/ir"
)

// hostStmt emits the statements that only host code has.
func (f *fn) hostStmt(s ir.Stmt) {
	if !f.host {
		f.errorf(s.At(), "host statement in %s", f.where())
		return
	}
	switch s := s.(type) {
	case *ir.Launch:
		f.launch(s)
	case *ir.Copy:
		pre, v := f.operands(s.DstOff, s.SrcOff, s.Count)
		f.pre(pre)
		if dst, src := f.e.m.Buffer(s.Dst), f.e.m.Buffer(s.Src); dst != nil && f.e.distributed(dst) || src != nil && f.e.distributed(src) {
			f.line("gpuc_dist_copy(%s, %s, %s, %s, %s, %s, %s, %s);", f.memory(s.Dst, s.Pos), f.distBlock(dst), v[0].s,
				f.memory(s.Src, s.Pos), f.distBlock(src), v[1].s, v[2].s, cstring(s.Pos.String()))
			return
		}
		f.line("gpuc_copy(%s, %s, %s, %s, %s, %s);", f.memory(s.Dst, s.Pos), v[0].s, f.memory(s.Src, s.Pos), v[1].s, v[2].s, cstring(s.Pos.String()))
	case *ir.Swap:
		f.line("gpuc_swap(%s, %s);", f.memory(s.A, s.Pos), f.memory(s.B, s.Pos))
		if f.e.worldSwap(f.e.m.Buffer(s.A), f.e.m.Buffer(s.B)) {
			f.line("gpuc_world_barrier(); // the devices share the storage")
		}
	case *ir.Printf:
		f.printf(s)
	case *ir.Write:
		pre, v := f.operands(s.Count)
		f.pre(pre)
		if len(f.e.raiseMsgs) > 0 {
			f.line("gpuc_check_device_error();")
		}
		if b := f.e.m.Buffer(s.Array); b != nil && f.e.distributed(b) {
			f.line("gpuc_dist_write(%s, %s, %s, %s);", f.memory(s.Array, s.Pos), f.distBlock(b), v[0].s, cstring(s.Pos.String()))
			return
		}
		f.line("gpuc_write(%s, %s, %s);", f.memory(s.Array, s.Pos), v[0].s, cstring(s.Pos.String()))
	}
}

// memory names the host's handle of a global or constant buffer or of a
// host array.
func (f *fn) memory(name string, pos ir.Pos) string {
	if a := f.e.m.Array(name); a != nil {
		return f.e.n.c(a.Name)
	}
	b := f.e.m.Buffer(name)
	if b == nil || b.Space == ir.Shared {
		f.errorf(pos, "%s is not a global or constant buffer or a host array", name)
		return name
	}
	return f.e.hostBuf(b)
}

// launch evaluates the geometry and the arguments, and has the device
// launch. Kernels receive their arguments, then the global buffers and
// parameters they use, as package abi says.
func (f *fn) launch(s *ir.Launch) {
	k := f.e.m.Func(s.Kernel)
	if k == nil || k.Kind != ir.KernelFunc {
		f.errorf(s.Pos, "launch of %s, which is not a kernel", s.Kernel)
		return
	}
	pre, v := f.operands(append(append([]ir.Expr{}, s.Args...), s.Grid, s.Block)...)
	f.pre(pre)
	smem := "0"
	if len(f.e.conv.Shared(k)) > 0 {
		smem = smemVar(f.e, k)
	}
	world := s.World && f.e.world
	if world && !f.worldSynced {
		f.line("gpuc_world_barrier(); // a world launch starts with a world barrier")
	}
	f.line("{")
	f.indent++
	if f.e.worldKernels[k.Name] {
		f.worldLaunch(s, v[len(s.Args)].s, v[len(s.Args)+1].s)
	} else {
		f.line("const long long gpuc_grid = %s, gpuc_block = %s;", v[len(s.Args)].s, v[len(s.Args)+1].s)
	}
	if s.Coop {
		f.coopLaunch(s, k, v[:len(s.Args)], smem)
	} else {
		f.inWorldLaunch = s.World
		f.e.dev.launch(f, k, v[:len(s.Args)], smem, cstring(s.Pos.String()))
		f.inWorldLaunch = false
	}
	f.indent--
	f.line("}")
	if world && !s.Coop {
		f.line("gpuc_world_barrier(); // and ends with one")
	}
}

// coopLaunch launches cooperatively when the device holds the whole grid
// at once, and otherwise runs the fallback, or fails without one. Only the
// runtime API's programs launch cooperatively.
func (f *fn) coopLaunch(s *ir.Launch, k *ir.Func, args []cx, smem string) {
	if _, ok := f.e.dev.(runtimeAPI); !ok {
		f.errorf(s.Pos, "cooperative launch of %s: only the CUDA C backend's programs launch cooperatively; lower with --grid-sync=never", s.Kernel)
		return
	}
	for _, a := range f.e.launchArgs(k) {
		args = append(args, primary(a))
	}
	name := f.e.n.c(k.Name)
	world := s.World && f.e.world
	f.line("if (gpuc_check_geometry(%s, gpuc_grid, gpuc_block)) {", cstring(s.Pos.String()))
	f.indent++
	f.line("if (gpuc_coop_fits(%s, gpuc_grid, gpuc_block, %s)) {", name, smem)
	run := func(grid string) {
		f.line("  gpuc_profile_mark();")
		f.line("  gpuc_launch_coop%s;", call("", append([]cx{primary(name), primary(grid), primary("gpuc_block"), primary(smem)}, args...)...).s)
		f.line("  GPUC_CUDA(cudaGetLastError());")
		f.line("  gpuc_profile_mark();")
		f.line("  gpuc_profile_launch(true, %s);", cstring(f.f.Name))
		f.line("  gpuc_device_ran = true;")
		if world {
			f.line("  gpuc_world_barrier(); // and ends with one")
		}
	}
	run("gpuc_grid")
	if s.Stride && !world {
		// Note [Strided cooperative kernels]: as many blocks as fit.
		f.line("} else if (gpuc_coop_held(%s, gpuc_grid, gpuc_block, %s) > 0) {", name, smem)
		run(fmt.Sprintf("gpuc_coop_held(%s, gpuc_grid, gpuc_block, %s)", name, smem))
	}
	f.line("} else {")
	f.indent++
	if s.Fallback != nil {
		// The fallback starts after the launch's world barrier, and
		// needs no other at its end if its last statement ends in one.
		f.syncedEntry = world
		f.block(s.Fallback)
		if world && !f.syncedExit {
			f.line("gpuc_world_barrier(); // and ends with one")
		}
	} else {
		f.line("gpuc_fail(\"cooperative launch of %%lld blocks of %%lld threads does not fit on this device\", gpuc_grid, gpuc_block);")
	}
	f.indent--
	f.line("}")
	f.indent--
	f.line("}")
}

// launchArgs lists the arguments of a launch of k after its own: the
// buffers and parameters it receives, as the host names them.
func (e *emitter) launchArgs(k *ir.Func) []string {
	var args []string
	for _, b := range e.conv.Buffers(k) {
		args = append(args, e.hostBuf(b)+".ptr")
	}
	for _, p := range e.conv.Params(k) {
		args = append(args, e.n.c(p.Name))
	}
	if e.worldKernels[k.Name] {
		args = append(args, "(int)gpuc_b0", "(int)gpuc_grid_all")
	}
	return args
}

// printf prints through C's printf (printf stderr through fprintf to
// gpuc_stats_stream: standard error, or the program's --stats=FILE)
// with the conversions of ir.FormatPiece
// and the casts that its type rules promise. The '0' flag is dropped from
// %s and %c, where glibc ignores it anyway, since C leaves it undefined.
func (f *fn) printf(s *ir.Printf) {
	pieces, err := ir.ParseFormat(s.Format)
	if err != nil {
		f.errorf(s.Pos, "%v", err)
		return
	}
	pre, v := f.operands(s.Args...)
	f.pre(pre)
	var format strings.Builder
	var args []cx
	n := 0
	for _, p := range pieces {
		if p.Verb == 's' || p.Verb == 'c' {
			p.Zero = false
		}
		format.WriteString(p.Spec())
		if p.Verb == 0 {
			continue
		}
		if n >= len(v) {
			f.errorf(s.Pos, "printf format %q wants more arguments", s.Format)
			return
		}
		args = append(args, printfArg(p, s.Args[n].Type(), v[n]))
		n++
	}
	if len(f.e.raiseMsgs) > 0 {
		f.line("gpuc_check_device_error();")
	}
	if s.Stderr {
		parts := []string{"gpuc_stats_stream()", cstring(format.String())}
		for _, a := range args {
			parts = append(parts, a.s)
		}
		f.line("fprintf(%s);", strings.Join(parts, ", "))
		return
	}
	if plainFormat(pieces) {
		f.fastPrintf(pieces, args, "stdout")
		return
	}
	parts := []string{cstring(format.String())}
	for _, a := range args {
		parts = append(parts, a.s)
	}
	f.line("printf(%s);", strings.Join(parts, ", "))
}

// plainFormat reports whether a format holds only text and integer
// conversions without flags or widths (%d %u %ld %lu), which fastPrintf
// writes.
func plainFormat(pieces []ir.FormatPiece) bool {
	for _, p := range pieces {
		if p.Verb == 0 {
			continue
		}
		if (p.Verb != 'd' && p.Verb != 'u') || p.Minus || p.Zero || p.Width >= 0 || p.Prec >= 0 {
			return false
		}
	}
	return true
}

// fastPrintf writes a plain format's line into a buffer on the stack with
// gpuc_put_* and hands it to stream (stdout or stderr) in one fwrite: the
// same bytes as printf, without parsing the format at run time. args are
// the printf arguments, cast as printfArg casts them.
func (f *fn) fastPrintf(pieces []ir.FormatPiece, args []cx, stream string) {
	size, n := 0, 0
	var puts []string
	for _, p := range pieces {
		switch {
		case p.Verb == 0:
			if p.Lit == "" {
				continue
			}
			size += len(p.Lit)
			puts = append(puts, fmt.Sprintf("gpuc_pn = gpuc_put_text(gpuc_pb, gpuc_pn, %s, %d);", cstring(p.Lit), len(p.Lit)))
		case p.Verb == 'd':
			size += 20
			puts = append(puts, fmt.Sprintf("gpuc_pn = gpuc_put_i64(gpuc_pb, gpuc_pn, (long long)%s);", operand(args[n])))
			n++
		default:
			size += 20
			puts = append(puts, fmt.Sprintf("gpuc_pn = gpuc_put_u64(gpuc_pb, gpuc_pn, (unsigned long long)%s);", operand(args[n])))
			n++
		}
	}
	if size == 0 {
		return
	}
	if n == 0 {
		text := ""
		for _, p := range pieces {
			text += p.Lit
		}
		f.line("fwrite(%s, 1, %d, %s);", cstring(text), len(text), stream)
		return
	}
	f.line("{")
	f.indent++
	f.line("char gpuc_pb[%d];", size)
	f.line("size_t gpuc_pn = 0;")
	for _, p := range puts {
		f.line("%s", p)
	}
	f.line("fwrite(gpuc_pb, 1, gpuc_pn, %s);", stream)
	f.indent--
	f.line("}")
}

// printfArg casts a printf argument to the C type its conversion takes.
func printfArg(p ir.FormatPiece, t ir.Type, x cx) cx {
	var c string
	switch {
	case p.Verb == 's':
		return x
	case p.Verb == 'f' || p.Verb == 'e':
		// One sign for NaN, as the interpreter prints it.
		return primary("gpuc_nan_canon(" + operand(x) + ")")
	case p.Verb == 'd' && p.Long:
		c = "long"
	case p.Verb == 'd' || p.Verb == 'c':
		c = "int"
	case p.Long:
		c = "unsigned long"
	default:
		c = "unsigned"
	}
	if c == ctype(t) {
		return x
	}
	return unary("(" + c + ")" + operand(x))
}

// hostMain writes C++'s main, named main (a world program that carries the
// one-device program has two, each named run): it reads the command line, fits the
// parameters that have a fit fraction, sizes every memory from the
// parameters, reads the input files, sets up the device buffers, runs the
// IR's main, and prints the output buffers. --time measures from before
// the first device operation to after the last.
func (e *emitter) hostMain(main string) string {
	f := &fn{e: e, f: &ir.Func{Name: "main", Kind: ir.HostFunc}, host: true, indent: 1}
	if e.detach {
		// Before anything else (Note [Detached exit] in detach.h).
		f.line("gpuc_detach(%s);", e.dev.(detacher).detachByDefault())
	}
	if _, gpu := e.dev.(detacher); gpu && !e.world && !e.threads {
		// Device 0 alone in sight, before CUDA starts (Note [A world's
		// start and exit]).
		f.line("gpuc_only_gpu(0);")
	}
	for _, l := range e.argTables() {
		f.line("%s", l)
	}
	e.respecArgs(f)
	if e.world {
		// One process per device from here on (Note [World on NVSHMEM]),
		// DEVICES read after the command line sets it (Note [DEVICES
		// after the command line]).
		f.line("const bool gpuc_args = gpuc_parse_args(argc, argv, %s);", e.argCounts())
		f.line("const bool gpuc_time = gpuc_world_start(gpuc_args, (long long)%s);", e.n.c(ir.DevicesParam))
		f.line("if (gpuc_world.size != (long long)%s) gpuc_fail(\"internal error: a world of %%d processes for DEVICES=%%lld\", gpuc_world.size, (long long)%s);", e.n.c(ir.DevicesParam), e.n.c(ir.DevicesParam))
	} else {
		f.line("const bool gpuc_time = gpuc_parse_args(argc, argv, %s);", e.argCounts())
	}
	if e.threads {
		e.threadDevices(f)
	}
	if d, ok := e.dev.(interface{ early(*fn) }); ok { // the hybrid device's context thread
		d.early(f)
	}
	if e.fitted() {
		f.line("gpuc_fit_params(gpuc_params, gpuc_time);")
	}
	if len(e.m.Buffers)+len(e.m.Arrays) > 0 {
		f.line("")
		f.line("// Sizes, from the parameters.")
		e.sizes(f)
	}
	if ins, checks := e.inputs(), e.inputChecks(); len(ins)+len(checks) > 0 {
		f.line("")
		f.line("// Input files.")
		if _, ok := e.dev.(runtimeAPI); ok && len(ins) > 0 {
			f.line("gpuc_input_alloc = gpuc_pinned_alloc;")
			f.line("gpuc_input_free = gpuc_pinned_free;")
		}
		for _, l := range append(checks, ins...) {
			f.line("%s", l)
		}
	}
	f.line("")
	e.respecStart(f)
	if e.world {
		// NVSHMEM sizes its symmetric heap at init, from the pool.
		e.poolSize(f)
		f.line("gpuc_world_init(gpuc_pool_bytes);")
	}
	if _, ok := e.dev.(runtimeAPI); ok && len(e.raiseMsgs) > 0 {
		// The pinned error word (Note [Error word]) is start-up, before the
		// clock and the first launch (Note [Loading before the clock]).
		f.line("gpuc_error_host_init();")
	}
	e.dev.start(f)
	e.setup(f)
	if e.world {
		f.line("gpuc_world_barrier(); // every device's buffers are filled")
	}
	f.line("")
	if len(e.raiseMsgs) > 0 {
		f.line("gpuc_fail_hook = gpuc_report_device_error;")
	}
	if len(e.raiseMsgs) > e.nRaise {
		f.line("if (!gpuc_checks_on) gpuc_device_checks_off();")
	}
	if mf := e.m.Main(); mf != nil {
		f.line("%s();", e.n.c(mf.Name))
	} else {
		e.errorf(e.m.Pos, "module %s has no host function main", e.m.Name)
	}
	f.line("")
	e.finish(f)
	f.exitNotify()
	f.line("return 0;")
	return "int " + main + "(int argc, char **argv) {\n" + f.b.String() + "}\n"
}

// argTables spells the tables of parameters and buffers that
// gpuc_parse_args reads the command line against.
func (e *emitter) argTables() []string {
	var lines []string
	if len(e.m.Params) > 0 {
		var ps []string
		for _, p := range e.m.Params {
			ps = append(ps, fmt.Sprintf("{%s, %s, &%s, false}", cstring(p.Name), typeTag(p.Type), e.n.c(p.Name)))
		}
		lines = append(lines, "gpuc_param_arg gpuc_params[] = {"+strings.Join(ps, ", ")+"};")
	}
	if len(e.m.Buffers) > 0 {
		var bs []string
		for _, b := range e.m.Buffers {
			bs = append(bs, fmt.Sprintf("{%s, %t, nullptr}", cstring(b.Name), b.Role == ir.Input))
		}
		lines = append(lines, "gpuc_buffer_arg gpuc_buffers[] = {"+strings.Join(bs, ", ")+"};")
	}
	return lines
}

func (e *emitter) argCounts() string {
	params, bufs := "nullptr, 0", "nullptr, 0"
	if n := len(e.m.Params); n > 0 {
		params = fmt.Sprintf("gpuc_params, %d", n)
	}
	if n := len(e.m.Buffers); n > 0 {
		bufs = fmt.Sprintf("gpuc_buffers, %d", n)
	}
	return fmt.Sprintf("%s, %s, %s", params, bufs, cstring(e.m.Name))
}

// fitted reports whether some parameter has a fit fraction.
func (e *emitter) fitted() bool {
	for _, p := range e.m.Params {
		if p.Fit > 0 {
			return true
		}
	}
	return false
}

// fitParams writes gpuc_device_bytes and gpuc_fit_params, which fit each
// parameter with a fit fraction that the command line does not set to
// the device's free memory (Note [Fitted parameters] in package ir), as
// interp does, or nothing where no parameter has one. With --time it
// reports the values on standard error.
func (e *emitter) fitParams() string {
	if !e.fitted() {
		return ""
	}
	size := &fn{e: e, f: &ir.Func{Name: "gpuc_device_bytes", Kind: ir.HostFunc}, host: true, indent: 1}
	size.line("unsigned long long n = 0;")
	for _, b := range e.m.Buffers {
		if b.Space == ir.Shared {
			continue
		}
		n := cast(ir.I64, size.expr(b.Len))
		if b.Len.Type() == ir.U64 {
			n = unary("(unsigned long long)" + operand(size.expr(b.Len)))
		}
		if e.distributed(b) {
			// Each device holds a block (Note [World] in package ir).
			n = call("gpuc_world_block", n)
		}
		size.line("n = gpuc_add_bytes(n, %s, sizeof(%s));", n.s, ctype(b.Elem))
	}
	size.line("return n;")

	f := &fn{e: e, f: &ir.Func{Name: "gpuc_fit_params", Kind: ir.HostFunc}, host: true, indent: 1}
	var fits []int
	var unset []string
	for i, p := range e.m.Params {
		if p.Fit > 0 {
			fits = append(fits, i)
			unset = append(unset, fmt.Sprintf("!params[%d].set", i))
		}
	}
	f.line("if (!(%s)) return;", strings.Join(unset, " || "))
	if e.world {
		f.line("const unsigned long long free_bytes = gpuc_world_free_memory();")
	} else {
		f.line("const unsigned long long free_bytes = gpuc_free_memory();")
	}
	for _, i := range fits {
		f.line("if (!params[%d].set) %s = 1;", i, e.n.c(e.m.Params[i].Name))
	}
	for _, i := range fits {
		p := e.m.Params[i]
		name, t := e.n.c(p.Name), ctype(p.Type)
		f.line("if (!params[%d].set) {", i)
		f.line("  const long long v = gpuc_fit(%dLL, gpuc_fit_budget(%s, free_bytes), [](long long v) {", ir.FitBound(p), fitLiteral(p.Fit))
		f.line("    %s = (%s)v;", name, t)
		f.line("    return gpuc_device_bytes();")
		f.line("  });")
		f.line("  %s = (%s)v;", name, t)
		f.line("}")
	}
	f.line("if (!report) return;")
	f.line("const unsigned long long used = gpuc_device_bytes();")
	for _, i := range fits {
		p := e.m.Params[i]
		f.line("if (!params[%d].set) gpuc_report_fit(%s, (long long)%s, %s, free_bytes, used);", i, cstring(p.Name), e.n.c(p.Name), fitLiteral(p.Fit))
	}
	return `
// gpuc_device_bytes is the size of the global and constant buffers with
// the parameters' current values.
static unsigned long long gpuc_device_bytes(void) {
` + size.b.String() + `}

// gpuc_fit_params fits the parameters with a fit fraction that the
// command line does not set, in declaration order (Note [Fitted
// parameters] in package ir); with report (--time) it prints their values.
static void gpuc_fit_params(const gpuc_param_arg *params, bool report) {
` + f.b.String() + "}\n"
}

// fitLiteral spells a fit fraction as a C++ double.
func fitLiteral(fit float64) string {
	s := strconv.FormatFloat(fit, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// sizes computes the length of every memory, allocates the host arrays
// and sizes each kernel's dynamic shared memory.
func (e *emitter) sizes(f *fn) {
	length := func(what string, name string, n ir.Expr) string {
		return fmt.Sprintf("gpuc_length(%q, %s, (long long)%s)", what, cstring(name), operand(f.expr(n)))
	}
	for _, b := range e.m.Buffers {
		if b.Space == ir.Shared {
			f.line("gpuc_len_%s = %s;", e.n.c(b.Name), length("buffer", b.Name, b.Len))
		} else {
			f.line("%s.len = %s;", e.hostBuf(b), length("buffer", b.Name, b.Len))
		}
		if e.distributed(b) {
			host, _ := blockVar(e, b)
			f.line("%s = gpuc_world_block(%s.len);", host, e.hostBuf(b))
		}
	}
	for _, a := range e.m.Arrays {
		f.line("%s.alloc(%s);", e.n.c(a.Name), length("array", a.Name, a.Len))
	}
	for _, k := range e.m.Funcs {
		if bufs := e.conv.Shared(k); k.Kind == ir.KernelFunc && len(bufs) > 0 {
			var parts []string
			for _, b := range bufs {
				parts = append(parts, fmt.Sprintf("gpuc_align16((size_t)gpuc_len_%s * sizeof(%s))", e.n.c(b.Name), ctype(b.Elem)))
			}
			f.line("%s = %s;", smemVar(e, k), strings.Join(parts, " + "))
		}
	}
}

// inputs reads the input buffers' files into host memory, before the
// device clock starts; streamed ones are read later, into the device
// (Note [Streamed input] in prelude.cuh).
func (e *emitter) inputs() []string {
	var out []string
	for i, b := range e.m.Buffers {
		if b.Role == ir.Input && b.Space != ir.Shared && !e.streamed(b) {
			out = append(out, fmt.Sprintf("void *const gpuc_in_%s = gpuc_read_input(&gpuc_buffers[%d], %s, %s.len);",
				e.n.c(b.Name), i, typeTag(b.Elem), e.hostBuf(b)))
		}
	}
	return out
}

// setup has the device allocate or find each global and constant buffer
// and fill it: zeroes, an input file or static contents.
func (e *emitter) setup(f *fn) {
	if len(e.m.Buffers) > 0 {
		f.line("")
		f.line("// Device buffers.")
	}
	if p, ok := e.dev.(interface{ pool(*fn) }); ok {
		p.pool(f)
	}
	for _, b := range e.m.Buffers {
		if b.Space == ir.Shared {
			continue
		}
		e.dev.setup(f, b)
	}
}

// finish copies the output buffers back, stops the clock, reports any
// device error, prints the outputs and releases everything.
func (e *emitter) finish(f *fn) {
	f.line("// Output buffers, copied back before the clock stops.")
	if e.world {
		// Device 0 reads other devices' blocks once they are done.
		f.line("gpuc_world_barrier();")
	}
	e.dev.sync(f)
	var outs []*ir.Buffer
	for _, b := range e.m.Buffers {
		if b.Role == ir.Output && b.Space != ir.Shared {
			outs = append(outs, b)
			if e.distributed(b) {
				host, _ := blockVar(e, b)
				f.line("%s *const gpuc_out_%s = gpuc_dist_fetch(%s, %s);", ctype(b.Elem), e.n.c(b.Name), e.hostBuf(b), host)
			} else {
				f.line("%s *const gpuc_out_%s = gpuc_fetch(%s);", ctype(b.Elem), e.n.c(b.Name), e.hostBuf(b))
			}
		}
	}
	e.dev.stop(f)
	f.line("gpuc_check_device_error();")
	for _, b := range outs {
		f.line("gpuc_print_values(%s, gpuc_out_%s, %s.len);", typeTag(b.Elem), e.n.c(b.Name), e.hostBuf(b))
		f.line("free(gpuc_out_%s);", e.n.c(b.Name))
	}
	e.dev.release(f)
	// The input blocks outlive the clock: freeing page-locked memory
	// waits for the device and unmaps every page (Note [Input files]).
	for _, b := range e.m.Buffers {
		if b.Role == ir.Input && b.Space != ir.Shared && !e.streamed(b) {
			f.line("gpuc_free_input(gpuc_in_%s);", e.n.c(b.Name))
		}
	}
	for _, a := range e.m.Arrays {
		f.line("free(%s.ptr);", e.n.c(a.Name))
	}
}
