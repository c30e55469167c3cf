// Package frontend is the descriptor that each gpuc frontend provides: its
// name and file extensions, its own command-line flags, the function that
// parses a source file into a module, and any subcommands of its own.
//
// The driver keeps the list of frontends (one line each) and does the rest:
// it picks a frontend by extension, defines every frontend's flags on the
// commands that read sources, and refuses a flag given for an input it does
// not apply to. A frontend knows nothing of the others, of passes or of
// backends (Note [Frontend flags]).
package frontend

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"gpuc/ir"
)

// Frontend describes one input language.
type Frontend struct {
	// Name names the language in help and messages: "TRS", "Fork".
	Name string
	// Exts are the file extensions it reads, with the dot: ".trs".
	Exts []string
	// Beside are the extensions of the files that Parse may read beside
	// a source file, in their place of a flag: ".input" for NAME.input
	// beside NAME.trs. Tools that copy or cache a source take them along.
	Beside []string
	// Bind defines the frontend's flags on fs, bound to a fresh set of
	// options, and returns the frontend as those options configure it.
	// Flag usage strings hold no backquotes: pflag would take the quoted
	// word for the value's placeholder.
	Bind func(fs *pflag.FlagSet) *Session
	// Hover, if not nil, returns the language server's hover text for a
	// word of the source text, or "".
	Hover func(text, word string) string
	// Commands, if not nil, returns the frontend's own subcommands.
	Commands func(stdout io.Writer) []*cobra.Command
}

// Session is a frontend bound to the values of its flags.
type Session struct {
	// Parse reads a source file, which file names in diagnostics, and
	// returns a module at any level. It need not verify it.
	Parse func(file string, src []byte) (*ir.Module, error)
	// RunOutput, if not nil, wraps the standard output of a program that
	// gpuc run interprets; done flushes and closes what it opened.
	RunOutput func(stdout io.Writer) (w io.Writer, done func() error, err error)
	// RunStderr, if not nil, is where such a program's printf stderr goes
	// instead of stderr (CHR's --stats=FILE); done closes what it opened.
	RunStderr func(stderr io.Writer) (w io.Writer, done func() error, err error)
	// JSONArgs, if not nil, returns the NAME=VALUE arguments that make the
	// program print its own reports as JSON (TRS's STATS=2); gpuc run
	// --json puts them before the command line's.
	JSONArgs func() []string
	// OneDevice, if not nil, parses the source as Parse does, but for one
	// device, where Parse makes a world program that the frontend lowers
	// differently (TRS --world); nil, nil where it does not. The CUDA
	// program of the world module runs it when DEVICES=1 (Note [A world of
	// one runs the one-device program] in backends/cuda).
	OneDevice func(file string, src []byte) (*ir.Module, error)
}

// StatsFlag defines --stats on fs as the frontends that print statistics
// share it: bare --stats turns them on, --stats=FILE (gpuc run) also sends
// them to FILE. StatsTo is where they go in gpuc run.
func StatsFlag(fs *pflag.FlagSet, stats *string, usage string) {
	fs.StringVar(stats, "stats", "", usage)
	fs.Lookup("stats").NoOptDefVal = "-"
}

// StatsTo opens where statistics go in gpuc run for a --stats value: stderr
// for "" and "-", else the file it names.
func StatsTo(stderr io.Writer, stats string) (io.Writer, func() error, error) {
	if stats == "" || stats == "-" {
		return stderr, func() error { return nil }, nil
	}
	f, err := os.Create(stats)
	if err != nil {
		return nil, nil, fmt.Errorf("--stats=%s: %v", stats, err)
	}
	return f, f.Close, nil
}

// Note [Frontend flags]
//
// compile, run and opt take the flags of every frontend, but a flag is
// accepted only for the inputs it applies to: --capacity on a .fork file is
// an error that names the flag and the input kind. The driver defines each
// flag name once on the command, as a recorder of the values given (checked
// against every frontend that defines the name, so a bad value fails as the
// flags are parsed). Once the input's extension picks the frontend, Bind
// defines that frontend's flags on a fresh flag set and the recorded values
// are replayed there. Two frontends may define one name (--stats); the
// driver's buffer-role flags (--static, --input) apply to every input, except
// that a frontend defining the same name takes it over: TRS's --input is the
// input term.

// runOnly is the annotation that RunOnly puts on a flag.
const runOnly = "gpuc/run-only"

// RunOnly marks a flag of fs that only gpuc run can honour, such as a file
// that the interpreted program's output is split into; compile and opt
// refuse it.
func RunOnly(fs *pflag.FlagSet, name string) {
	if err := fs.SetAnnotation(name, runOnly, []string{"true"}); err != nil {
		panic(err) // a frontend marking a flag it did not define
	}
}

// IsRunOnly reports whether RunOnly marked f.
func IsRunOnly(f *pflag.Flag) bool { return len(f.Annotations[runOnly]) > 0 }
