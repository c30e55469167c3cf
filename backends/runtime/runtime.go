// Package runtime holds the C++ runtime that gpuc's generated programs
// share: gpuc_runtime.h, plain C++ for argument parsing, input files,
// errors, the IR's scalar semantics in C++ and output formatting, and
// gpuc_device.h, device buffers, copies and launch checks over a few
// primitives that each kind of device provides. Backends paste them into
// each program, so that no backend keeps its own copy of the host logic.
//
// It is not a Go runtime: nothing here runs in the compiler.
package runtime

import _ "embed"

// Header is the text of gpuc_runtime.h.
//
//go:embed gpuc_runtime.h
var Header string

// Device is the text of gpuc_device.h, which follows a device's prelude.
//
//go:embed gpuc_device.h
var Device string
