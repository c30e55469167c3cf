// Package fuzz holds gpuc's fuzz targets, in its tests: one per frontend,
// each taking a source text through the whole compile path, and one that
// runs Fork programs before and after the passes and compares them (Note
// [Fuzz targets]). It has no code of its own outside the tests.
//
// `make fuzz-ci` runs each target briefly, as CI does; `make fuzz` longer.
package fuzz

// Note [Fuzz targets]
//
// A target fails on what gpuc must never do with any input: panic, report
// an "internal error", or hang. Errors are fine; each stage runs as far as
// the input allows. The compile path is driver.Load (parse, check, lower,
// verify), the default pipeline with the verifier after each pass, in
// both grid-sync modes, CUDA emission, LLVM emission for NVPTX and for the
// host, and both host programs (the driver API one with a stand-in PTX,
// since llc is not needed to write it). FuzzForkPasses also runs each
// valid Fork program in the interpreter before and after the passes, with
// a step limit (Note [Step limit] in package interp), and fails when the
// two runs print differently.
//
// The seeds are the repository's examples and test programs and, where it
// is present, the shared corpus (../shared/corpus).

// Note [Fuzzing speed]
//
// An input that reaches new code is minimized before the fuzzer goes on:
// the worker runs smaller and smaller versions of it, for up to
// -fuzzminimizetime (60 s by default), and those runs are not counted in
// the fuzzer's "execs". A valid Fork or KIR program takes 10-300 ms
// through the whole compile path (instrumented, on a loaded machine), so
// each of the first new inputs took the whole 60 s, and in 500 s these
// targets showed under 2 executions a second: about one new input a
// minute, minimized. Nothing in a run builds a program with clang or
// starts a process. `make fuzz` bounds minimizing to 50 runs an input
// (FUZZMINIMIZE), which leaves the targets at tens to hundreds of
// executions a second and checks each input just as fully
// (docs/GPU-RUNS.md, "Fuzzing, 10 minutes a target").
