package main

import (
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
)

// runLimits are gpuc run's bounds and progress (Note [Bounded runs] in
// ir/interp).
type runLimits struct {
	maxSteps int64
	timeout  time.Duration
	progress string
}

func (l *runLimits) add(cmd *cobra.Command) {
	cmd.Flags().Int64Var(&l.maxSteps, "max-steps", 0, "stop with an error after this many steps: loop iterations, calls and threads started, all threads together (0: no limit)")
	cmd.Flags().DurationVar(&l.timeout, "timeout", 0, "stop with an error after this long, e.g. 30s or 5m (0: no limit)")
	cmd.Flags().StringVar(&l.progress, "progress", "auto", "show steps and elapsed time on stderr: auto (when it is a terminal), always or never")
	_ = cmd.RegisterFlagCompletionFunc("progress", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
}

// progressTo is where progress goes: stderr if asked for, or if auto and
// stderr is a terminal; else nil.
func (l *runLimits) progressTo(stderr io.Writer) io.Writer {
	switch l.progress {
	case "always":
		return stderr
	case "never":
		return nil
	}
	if f, ok := stderr.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return stderr
		}
	}
	return nil
}
