package fork

import (
	"fmt"

	"github.com/spf13/pflag"

	"gpuc/frontends/frontend"
	"gpuc/internal/enum"
	"gpuc/ir"
)

// Frontend describes the Fork frontend to the driver.
var Frontend = &frontend.Frontend{
	Name: "Fork",
	Exts: []string{".fork"},
	Bind: func(fs *pflag.FlagSet) *frontend.Session {
		opts := &Options{CRCW: Priority}
		fs.Int64Var(&opts.Procs, "procs", 1024, "processors of a Fork 'start' without a count")
		fs.Var(&opts.CRCW, "crcw", "Fork's concurrent-write rule: priority or arbitrary")
		fs.BoolVar(&opts.World, "world", false, "Fork: split start's processors across DEVICES devices, with the shared variables distributed (gpuc run --devices K)")
		return &frontend.Session{Parse: func(file string, src []byte) (*ir.Module, error) {
			return Parse(file, src, *opts)
		}}
	},
}

// CRCW is the rule that resolves concurrent writes in synchronous code.
type CRCW string

const (
	// Priority makes the lowest $ win; "" means it too.
	Priority CRCW = "priority"
	// Arbitrary lets any writer win.
	Arbitrary CRCW = "arbitrary"
)

func (c CRCW) String() string { return string(c) }

// Type names the flag's value in help.
func (CRCW) Type() string { return "rule" }

// Set parses a rule, as a flag's value.
func (c *CRCW) Set(s string) error {
	if err := enum.Set(c, s, Priority, Arbitrary); err != nil {
		return fmt.Errorf("unknown concurrent-write rule %q (%v)", s, err)
	}
	return nil
}
