package cuda

import (
	"fmt"
	"strconv"
	"strings"

	"gpuc/backends/abi"
	"gpuc/ir"
)

// Note [A world of one runs the one-device program]
//
// A world program's kernels pay for the world on every access: a
// distributed buffer's index tested against this device's block, slot
// ids that name a device, the checks that the one-device lowering proves
// away (Note [World accesses]; TRS: Note [TRS on several devices] in
// frontends/trs). On one device none of it does anything, and the issue
// asks that DEVICES=1 keep today's speed. So a frontend whose world
// lowering differs from its one-device lowering (TRS --world) hands the
// driver both modules, and the CUDA program carries both:
//
//   - one head (the runtime, the prelude, world.h), then the one-device
//     program in namespace gpuc_one and the world program in namespace
//     gpuc_many, each with its globals, kernels and host program, whose
//     entry point is run rather than main;
//   - main asks gpuc_world_of_one (world.h): DEVICES=1, from the command
//     line or the world module's default, and no --help, runs gpuc_one's,
//     with DEVICES=... and the world module's own parameters (TRS:
//     WORLDSTEPS) taken out of the command line (the one-device program
//     has no such parameters, and a script may pass them whatever
//     DEVICES is); anything else runs gpuc_many's.
//     GPUC_WORLD_OF_ONE=world in the environment runs the world program
//     on one device too, to measure what the world costs;
//   - the head's one hook into the program, gpuc_check_device_error, calls
//     the running program's through a pointer that main sets.
//
// The one-device program is today's, as `gpuc compile` without --world
// writes it, but for two things: it is built as world programs are
// (-rdc=true, so large device functions stay inline: Note [A world
// built with link-time optimization] in world.go) unless built apart
// (Note [The one-device program apart]), and its store holds at most what today's does
// (2^30 fitted, CAPACITY an i32), which on one device is all that fits.
// Both print the same bytes (the frontend's invariant for every world
// size), but for TRACE=1's mode column (today's program runs one-block
// iterations). nvcc compiles the device code twice over, so a program
// compiled with DEVICES=k, k > 1, as its default (the GPU check's world
// programs) carries the world program alone (the driver decides).

// Note [The one-device program apart]
//
// Inside a world program's -rdc build the one-device program runs at
// 0.845 of today's (Note [A world built with link-time optimization] in
// world.go). nvcc links a whole-program (non-rdc) object beside
// relocatable ones and NVSHMEM's device library, and both objects'
// kernels run (an H200, 2026-11-27 04:25). So the file builds in two
// parts as well as whole:
//   - -DGPUC_ONE_PART -c (no -rdc): the head without world.h (and so
//     without NVSHMEM's headers, which a whole-program build may refuse)
//     and gpuc_one, with the entry gpuc_one_main, and no main: today's
//     build of the one-device program;
//   - -DGPUC_ONE_APART, -rdc=true as always, with that object: the head,
//     gpuc_many and main, which calls gpuc_one_main.
// Both objects carry the head, whose inline functions and globals each
// part must keep its own (an inline function that one part's linker
// copy shares reads the other part's statics), so the first object's
// defined symbols but gpuc_one_main are renamed before the link
// (objcopy --redefine-syms, scripts/bench-multigpu.sh's build). Built
// whole, without either macro, the file is as before. Tree merge sort 23
// at DEVICES=1 on an H200 (2026-11-27 05:22): built apart 305.4 ms,
// today's program 305.6, built whole 362.0. `gpuc build` and the build
// line in the file's head still build it whole.

// moduleWithOne writes the world program of e carrying one, the
// one-device program, as the Note says.
func (e *emitter) moduleWithOne(one *ir.Module, opts Options) (string, error) {
	if _, ok := e.dev.(runtimeAPI); !ok || !e.world || e.rt != nil {
		return "", fmt.Errorf("cuda: the one-device program of module %s goes only with the CUDA backend's world program", e.m.Name)
	}
	if errs := abi.SPMDConstructs(one, "cuda"); len(errs) > 0 {
		return "", errs
	}
	if UsesWorld(one) {
		return "", fmt.Errorf("cuda: the one-device program of module %s has the parameter %s", e.m.Name, ir.DevicesParam)
	}
	o := newEmitter(one, e.dev, !opts.NoChecks)
	// The head is the world program's, which does not detach (Note [Detached
	// exit] in detach.h): neither does the one-device program it carries.
	o.detach = false
	var b strings.Builder
	b.WriteString(e.dev.head(e))
	b.WriteString("\n// The one-device program, which DEVICES=1 runs (Note [A world of one runs the one-device program]).\n#if !defined(GPUC_ONE_APART) || defined(GPUC_ONE_PART)\nnamespace gpuc_one {\n")
	b.WriteString(o.body("run"))
	b.WriteString("} // namespace gpuc_one\n#endif\n\n// The world program.\n#ifndef GPUC_ONE_PART\nnamespace gpuc_many {\n")
	b.WriteString(e.body("run"))
	b.WriteString("} // namespace gpuc_many\n#endif\n")
	e.errs = append(e.errs, o.errs...)
	devices := int64(1)
	var only []string // the world's own parameters, which DEVICES=1 drops
	for _, p := range e.m.Params {
		switch {
		case p.Name == ir.DevicesParam:
			devices = p.Default
		case one.Param(p.Name) == nil:
			only = append(only, strconv.Quote(p.Name+"=")+", ")
		}
	}
	fmt.Fprintf(&b, `
// The head's hook calls the running program's.
static void (*gpuc_check_device_error_at)(void) = nullptr;
static void gpuc_check_device_error(void) {
  if (gpuc_check_device_error_at != nullptr) gpuc_check_device_error_at();
}

// The one-device program's entry (Note [The one-device program apart]).
#if defined(GPUC_ONE_APART) && !defined(GPUC_ONE_PART)
int gpuc_one_main(int argc, char **argv);
#else
#ifndef GPUC_ONE_PART
static
#endif
int gpuc_one_main(int argc, char **argv) {
  gpuc_check_device_error_at = gpuc_one::gpuc_check_device_error;
  return gpuc_one::run(argc, argv);
}
#endif

#ifndef GPUC_ONE_PART
static const char *const gpuc_world_only[] = {%snullptr};

int main(int argc, char **argv) {
  if (gpuc_world_of_one(&argc, argv, %dLL, gpuc_world_only)) return gpuc_one_main(argc, argv);
  gpuc_check_device_error_at = gpuc_many::gpuc_check_device_error;
  return gpuc_many::run(argc, argv);
}
#endif
`, strings.Join(only, ""), devices)
	return b.String(), nil
}
