package abi

import (
	"gpuc/internal/diag"
	"gpuc/ir"
)

// Note [World on threads]
//
// The host build (the LLVM backend's --target=host kernels and the CUDA
// backend's CPU program) runs a module that uses the world (Note [World]
// in package ir) with the host's worker threads for devices, so that a
// program whose frontend places its data by owner, as TRS's --world store
// does (Note [TRS on several devices] in frontends/trs), gives each core
// its own slots, counters and lists: cores then seldom write the same
// cache lines, which a pool that hands out blocks in any order cannot
// avoid (Note [Pool by measure] in backends/cuda/cpu.h).
//
//   - One host program, device 0's: the world's host programs are copies
//     that take the same decisions (control replication), so one copy,
//     with device_id() 0 and num_devices() DEVICES, does what they all do,
//     given that every device's memory is the one host memory. DEVICES
//     defaults to the number of workers (GPUC_THREADS, or every core).
//   - Memory: a distributed buffer is one array of Len elements; device
//     d's part is the elements from d*WorldPart(Len, k), as on GPUs, and
//     a host store or copy into it, which on GPUs writes each device's
//     part, writes the whole. A replicated buffer, read-only in device
//     code, is one array for all. Symmetric buffers, allgather and
//     allreduce, and global buffers that device code writes (one private
//     instance per device) are not run: ThreadWorldConstructs reports
//     them.
//   - Launches: a world launch of G blocks gives device d the blocks
//     from d*ceil(G/k), and device d's blocks run on worker d mod the
//     number of workers, every time (gpuc_pool_world in cpu.h), so that a
//     device's data stays in one core's caches; the pool's measuring
//     default may still run all of them on the calling thread. A launch
//     that is not world runs once per device, device 0 first. Before it
//     runs a device's blocks, a worker sets the kernels' thread-local
//     device number (DeviceIDWord) and world size (NumDevicesWord).
//   - Barriers: a launch ends when all its blocks have run, so a world
//     barrier, at the start and end of a world launch or a world_barrier
//     statement, needs nothing more.
//
// Outputs are those of any k: the frontend's world lowering keeps them
// (TRS: the trace too), and CI compares them for 1, 2 and 3 workers
// (TestHostWorld in internal/driver).

// Thread-local words of the LLVM backend's host-target modules in a
// world (Note [World on threads]): the device whose blocks the calling
// worker runs, and the number of devices.
const (
	DeviceIDWord   = "gpuc_device_id"
	NumDevicesWord = "gpuc_num_devices"
)

// ThreadWorldConstructs lists the constructs of m, a module that may use
// the world, that a world on the host's threads does not run (Note [World
// on threads]): symmetric buffers, allgather, allreduce, and global
// buffers that device code writes. backend names it in the messages.
func ThreadWorldConstructs(m *ir.Module, backend string) diag.List {
	var errs diag.List
	report := func(pos ir.Pos, what string) {
		errs.Add(pos, "%s: %s on the host's threads, which hold one memory for the world, is not supported", backend, what)
	}
	written := map[string]bool{}
	for _, f := range m.Funcs {
		if f == nil {
			continue
		}
		if f.Kind != ir.HostFunc {
			ir.WalkBufferUses(f.Body, func(buf string, use ir.BufferUse) {
				if use != ir.UseRead {
					written[buf] = true
				}
			})
		}
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			switch s := s.(type) {
			case *ir.AllGather:
				report(s.Pos, "allgather")
			case *ir.AllReduce:
				report(s.Pos, "allreduce")
			case *ir.Region:
				if s.World {
					report(s.Pos, "world region")
				}
			}
			return true
		})
	}
	for _, b := range m.Buffers {
		switch {
		case b == nil:
		case b.Space == ir.Symmetric:
			report(b.Pos, "symmetric buffer "+b.Name)
		case b.Space == ir.Global && written[b.Name]:
			report(b.Pos, "global buffer "+b.Name+", which device code writes (one instance a device),")
		}
	}
	errs.Sort()
	return errs
}
