package kir

import (
	"github.com/spf13/pflag"

	"gpuc/frontends/frontend"
)

// Frontend describes the .kir reader to the driver; it has no flags.
var Frontend = &frontend.Frontend{
	Name: "kernel IR",
	Exts: []string{".kir"},
	Bind: func(*pflag.FlagSet) *frontend.Session { return &frontend.Session{Parse: Parse} },
}
