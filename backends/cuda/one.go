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
// writes it, built as today's is (whole: Note [A world built whole] in
// world.go), detached as today's is (until 2026-11-27 it was not: its
// whole run waited for the driver's teardown, Note [A world's start and
// exit] in world.go), but for its store, which holds at most what today's does
// (2^30 fitted, CAPACITY an i32), which on one device is all that fits.
// Both print the same bytes (the frontend's invariant for every world
// size), but for TRACE=1's mode column (today's program runs one-block
// iterations). nvcc compiles the device code twice over, so a program
// compiled with DEVICES=k, k > 1, as its default (the GPU check's world
// programs) carries the world program alone (the driver decides).

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
	// The head is the world program's, whose parent supervises its devices'
	// processes; the one-device program detaches as today's does (Note
	// [Detached exit] in detach.h), so detach.h follows the head.
	var b strings.Builder
	b.WriteString(e.dev.head(e))
	b.WriteString("\n" + detachPrelude + "\n")
	b.WriteString("\n// The one-device program, which DEVICES=1 runs (Note [A world of one runs the one-device program]).\nnamespace gpuc_one {\n")
	b.WriteString(o.body("run"))
	b.WriteString("} // namespace gpuc_one\n\n// The world program.\nnamespace gpuc_many {\n")
	b.WriteString(e.body("run"))
	b.WriteString("} // namespace gpuc_many\n")
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

static const char *const gpuc_world_only[] = {%snullptr};

int main(int argc, char **argv) {
  if (gpuc_world_of_one(&argc, argv, %dLL, gpuc_world_only)) {
    gpuc_check_device_error_at = gpuc_one::gpuc_check_device_error;
    return gpuc_one::run(argc, argv);
  }
  gpuc_check_device_error_at = gpuc_many::gpuc_check_device_error;
  return gpuc_many::run(argc, argv);
}
`, strings.Join(only, ""), devices)
	return b.String(), nil
}
