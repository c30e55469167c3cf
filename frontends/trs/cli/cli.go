// Package cli is the TRS frontend as the driver and gpuc's command line
// see it: its descriptor, with the flags of the .trs and .rec inputs, and
// the subcommands that only term rewrite systems have (rewrite, maude,
// plot). It stands apart from package trs because those subcommands use
// the CPU rewriter and the Maude translation, which import trs.
package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"gpuc/frontends/frontend"
	"gpuc/frontends/trs"
	"gpuc/ir"
)

// Frontend describes the TRS frontend to the driver.
var Frontend = &frontend.Frontend{
	Name:   "TRS",
	Exts:   []string{".trs", ".rec"}, // .rec: the REC format (Note [REC] in frontends/trs)
	Beside: []string{".input"},       // trs.InputBeside
	Bind:   bind,
	Commands: func(stdout io.Writer) []*cobra.Command {
		return []*cobra.Command{rewriteCommand(stdout), maudeCommand(stdout), plotCommand(stdout)}
	},
}

func bind(fs *pflag.FlagSet) *frontend.Session {
	opts := trs.Options{Print: trs.PrintTerm}
	var inputs []string
	var trace string
	fs.StringArrayVar(&inputs, "input", nil, "TRS: the input term (default: FILE.input beside FILE.trs, if any)")
	var stats string
	frontend.StatsFlag(fs, &stats, "TRS: print iterations, rewrites, live terms and peak parallelism")
	fs.Int64Var(&opts.Capacity, "capacity", 0, "TRS: term slots of the store, the CAPACITY parameter's default; without it, CAPACITY is fitted to the device: the most slots, up to 2^30 (with --world, 2^31-256 a device), whose buffers fit in 80% of its free memory")
	fs.BoolVar(&opts.World, "world", false, "TRS: a program for a world of DEVICES devices, each owning and rewriting its part of the store, CAPACITY slots a device (gpuc run --devices K; compiled, DEVICES=K; the host build, a device a worker thread)")
	fs.Var(&opts.Print, "print", "TRS: print the normal form (term) or its size and hash (summary)")
	fs.StringVar(&trace, "trace", "", "TRS: write the per-iteration parallelism as CSV to this file (run; a compiled program prints it after its output with TRACE=1)")
	frontend.RunOnly(fs, "trace")
	parse := func(file string, src []byte, world bool) (*ir.Module, error) {
		o := opts
		o.World = world
		o.Trace, o.Stats = trace != "", stats != ""
		switch len(inputs) {
		case 0:
			var err error
			if o.Input, o.InputName, err = trs.InputBeside(file); err != nil {
				return nil, err
			}
		case 1:
			o.Input = inputs[0]
		default:
			return nil, fmt.Errorf("%s: --input gives a TRS its input term; there are %d", file, len(inputs))
		}
		return trs.Parse(file, src, o)
	}
	return &frontend.Session{
		Parse: func(file string, src []byte) (*ir.Module, error) { return parse(file, src, opts.World) },
		OneDevice: func(file string, src []byte) (*ir.Module, error) {
			if !opts.World {
				return nil, nil
			}
			return parse(file, src, false)
		},
		RunOutput: func(stdout io.Writer) (io.Writer, func() error, error) { return traceOutput(stdout, trace) },
		JSONArgs: func() []string {
			if stats == "" {
				return nil
			}
			return []string{trs.StatsJSON}
		},
	}
}
