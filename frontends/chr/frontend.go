package chr

import (
	"io"
	"path/filepath"

	"github.com/spf13/pflag"

	"gpuc/frontends/frontend"
	"gpuc/ir"
)

// StatsJSON is the argument that makes a program compiled with --stats
// print its statistics as JSON.
const StatsJSON = "STATS=2"

// Frontend describes the CHR frontend to the driver.
var Frontend = &frontend.Frontend{
	Name: "CHR",
	// .pl: SWI-Prolog files that declare CHR constraints, as their
	// authors keep them (Note [CHR in .pl files]).
	Exts:  []string{".chr", ".pl"},
	Hover: hover,
	Bind: func(fs *pflag.FlagSet) *frontend.Session {
		opts := &Options{}
		fs.StringVar(&opts.Query, "query", "", "CHR: a file of constraints, one per line, that replaces the program's query")
		var stats string
		frontend.StatsFlag(fs, &stats, "CHR: print rule firings, fixpoint steps and claim rounds to stderr, or with --stats=FILE (run) to FILE")
		return &frontend.Session{
			Parse: func(file string, src []byte) (*ir.Module, error) {
				o := *opts
				o.Stats = stats != ""
				if filepath.Ext(file) == ".pl" {
					return ParseProlog(file, src, o)
				}
				return Parse(file, src, o)
			},
			RunStderr: func(stderr io.Writer) (io.Writer, func() error, error) { return frontend.StatsTo(stderr, stats) },
			// gpuc run --json: the statistics as one JSON object
			// (printStats).
			JSONArgs: func() []string {
				if stats == "" {
					return nil
				}
				return []string{StatsJSON}
			},
		}
	},
}
