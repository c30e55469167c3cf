package llvm

import (
	llir "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"

	"gpuc/backends/abi"
	"gpuc/internal/diag"
	"gpuc/ir"
)

// worldConstructs lists what the target does not run of a world of
// devices (Note [World] in package ir): NVPTX runs one device, and the
// host target runs a module with DEVICES on its worker threads (Note
// [World on threads] in package abi), but for what that leaves out.
func worldConstructs(m *ir.Module, target Target) diag.List {
	if target == Host && m.Param(ir.DevicesParam) != nil {
		return abi.ThreadWorldConstructs(m, "llvm")
	}
	return abi.WorldConstructs(m, "llvm")
}

// worldGlobals defines, on the host target in a world, the thread-local
// words that device_id() and num_devices() read, which the host program
// sets before a worker runs a device's blocks (Note [World on threads]).
func (g *gen) worldGlobals() {
	if g.m.Param(ir.DevicesParam) == nil {
		return
	}
	g.world = map[ir.BuiltinOp]*llir.Global{}
	for i, op := range []ir.BuiltinOp{ir.DeviceID, ir.NumDevices} {
		name := []string{abi.DeviceIDWord, abi.NumDevicesWord}[i]
		v := g.global(name, types.I32, ir.Global, i32(int64(i))) // device 0 of 1 until set
		v.Align = 4
		v.TLSModel = enum.TLSModelInitialExec
		g.world[op] = v
	}
}
