package cuda

import (
	"strings"

	"gpuc/backends/abi"
	"gpuc/ir"
)

// The CPU program of a module that uses the world: its devices are the
// worker threads (Note [World on threads] in package abi).

// threadDevices makes DEVICES, where the command line leaves it, the
// number of workers, and checks it.
func (e *emitter) threadDevices(f *fn) {
	for i, p := range e.m.Params {
		if p.Name != ir.DevicesParam {
			continue
		}
		n := e.n.c(p.Name)
		f.line("if (!gpuc_params[%d].set) %s = gpuc_pool_get()->workers; // a device a worker", i, n)
		f.line("if (%s < 1) gpuc_fail(\"DEVICES=%%lld: want at least 1\", (long long)%s);", n, n)
	}
}

// threadsLaunch runs a launch's blocks, all being the kernel's function's
// arguments: a world launch's by device (gpuc_cpu_world_launch), a launch
// that is not world once per device, device 0 first, until one raises.
// The worker sets the kernels' device words first.
func threadsLaunch(f *fn, k *ir.Func, all []string, smem string) {
	devs := f.e.n.c(ir.DevicesParam)
	call := abi.KernelPrefix + k.Name + "(" + strings.Join(all, ", ") + ")"
	if f.inWorldLaunch {
		f.line("auto gpuc_blocks = [&](unsigned char *gpuc_sh, int gpuc_lo, int gpuc_hi, int gpuc_d) {")
		f.line("  %s = gpuc_d;", abi.DeviceIDWord)
		f.line("  %s = (int)%s;", abi.NumDevicesWord, devs)
		f.line("  return %s;", call)
		f.line("};")
		f.line("gpuc_cpu_world_launch((int)gpuc_grid, (int)gpuc_block, %s, (int)%s, gpuc_blocks);", smem, devs)
		return
	}
	f.line("for (int gpuc_d = 0; gpuc_d < (int)%s; gpuc_d++) {", devs)
	f.line("  auto gpuc_blocks = [&](unsigned char *gpuc_sh, int gpuc_lo, int gpuc_hi) {")
	f.line("    %s = gpuc_d;", abi.DeviceIDWord)
	f.line("    %s = (int)%s;", abi.NumDevicesWord, devs)
	f.line("    return %s;", call)
	f.line("  };")
	f.line("  gpuc_cpu_launch((int)gpuc_grid, (int)gpuc_block, %s, gpuc_blocks);", smem)
	f.line("  if (gpuc_cpu_raised != 0) break;")
	f.line("}")
}
