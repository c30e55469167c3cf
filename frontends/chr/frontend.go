package chr

import (
	"path/filepath"

	"github.com/spf13/pflag"

	"gpuc/frontends/frontend"
	"gpuc/ir"
)

// Frontend describes the CHR frontend to the driver.
var Frontend = &frontend.Frontend{
	Name: "CHR",
	// .pl: SWI-Prolog files that declare CHR constraints, as their
	// authors keep them (Note [CHR in .pl files]).
	Exts: []string{".chr", ".pl"},
	Bind: func(fs *pflag.FlagSet) *frontend.Session {
		opts := &Options{}
		fs.StringVar(&opts.Query, "query", "", "CHR: a file of constraints, one per line, that replaces the program's query")
		fs.BoolVar(&opts.Stats, "stats", false, "CHR: print rule firings and fixpoint steps after the store")
		return &frontend.Session{Parse: func(file string, src []byte) (*ir.Module, error) {
			if filepath.Ext(file) == ".pl" {
				return ParseProlog(file, src, *opts)
			}
			return Parse(file, src, *opts)
		}}
	},
}
