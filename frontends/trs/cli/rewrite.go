package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"gpuc/frontends/trs"
	"gpuc/frontends/trs/rewrite"
)

func rewriteCommand(stdout io.Writer) *cobra.Command {
	var input string
	print := trs.PrintTerm
	var capacity int
	var maxSteps int64
	var stats, timing, asJSON bool
	var deeper string
	var extrapolate int
	cmd := &cobra.Command{
		Use:   "rewrite FILE.trs [--input TERM]",
		Short: "Normalise a term rewrite system's input on the CPU",
		Long: `rewrite runs the CPU rewriter, a plain recursive innermost rewriter, on a
.trs file, and prints what the compiled program prints: the normal form,
or with --print=summary its size and hash, and with --stats (on standard
error) the number of rewrites, of distinct terms in the normal form, and the critical path: the
longest chain of rewrites each of which needs the one before, which bounds
any parallel innermost rewriter's rounds from below and the time of the
thread that runs the chain. It rewrites the same term graph as the GPU
program and counts the same rewrites. --time reports the rewriting time on standard error;
it is the CPU baseline of scripts/bench-trs.sh. --json prints both as
JSON (docs/TOOLKIT.md).

With --deeper TERM --extrapolate N, it normalises both the input and TERM,
the same workload one level deeper, and prints the summary and rewrite
count N levels deeper still, fitted (Note [Fitted summaries] in
frontends/trs): the figures that scripts/bench-multigpu.sh compares the
capacity runs with.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sys, err := loadTRS(args[0], input)
			if err != nil {
				return err
			}
			if capacity < 0 || maxSteps < 0 {
				return fmt.Errorf("--capacity=%d --max-steps=%d: want counts, 0 for no limit", capacity, maxSteps)
			}
			normalize := func(sys *trs.System) (*rewrite.Rewriter, time.Duration, error) {
				r := rewrite.New(sys, capacity)
				r.MaxSteps = maxSteps
				start := time.Now()
				err := r.Normalize()
				elapsed := time.Since(start)
				switch err {
				case rewrite.ErrCapacity:
					err = fmt.Errorf("term store full: the rewrite needs more than %d live terms", capacity)
				case rewrite.ErrSteps:
					err = fmt.Errorf("the rewrite takes more than %d steps (--max-steps); it may not terminate", maxSteps)
				case rewrite.ErrDepth:
					err = fmt.Errorf("the rewrite nests more than %d terms deep, the recursive rewriter's limit; it may not terminate (--max-steps bounds the steps)", rewrite.DefaultMaxDepth)
				}
				return r, elapsed, err
			}
			r, elapsed, err := normalize(sys)
			if err != nil {
				return err
			}
			if (deeper == "") != (extrapolate == 0) {
				return fmt.Errorf("--deeper and --extrapolate go together")
			}
			if deeper != "" {
				sys1, err := loadTRS(args[0], deeper)
				if err != nil {
					return err
				}
				r1, _, err := normalize(sys1)
				if err != nil {
					return fmt.Errorf("--deeper: %v", err)
				}
				sum, steps, err := trs.Extrapolate(r, r.Root(), r.Steps, r1, r1.Root(), r1.Steps, extrapolate)
				if err != nil {
					return fmt.Errorf("--extrapolate: %v", err)
				}
				fmt.Fprintln(stdout, sum)
				if stats {
					fmt.Fprintf(cmd.ErrOrStderr(), "rewrites: %d\n", steps)
				}
				return nil
			}
			if print == trs.PrintTerm {
				fmt.Fprintln(stdout, sys.FormatNode(r, r.Root()))
			} else {
				fmt.Fprintln(stdout, trs.Summarize(r, r.Root()))
			}
			stderr := cmd.ErrOrStderr()
			secs := elapsed.Seconds()
			switch {
			case stats && asJSON:
				fmt.Fprintf(stderr, "{\"rewrites\": %d, \"live_terms\": %d, \"critical_path\": %d}\n", r.Steps, r.Live(), r.Span)
			case stats:
				fmt.Fprintf(stderr, "rewrites: %d\nlive terms: %d\ncritical path: %d\n", r.Steps, r.Live(), r.Span)
			}
			switch {
			case timing && asJSON:
				fmt.Fprintf(stderr, "{\"gpuc\": \"rewrite\", \"rewrites\": %d, \"ms\": %.3f, \"live_terms\": %d}\n", r.Steps, secs*1e3, r.Live())
			case timing:
				fmt.Fprintf(stderr, "gpuc rewrite: %d rewrites in %.3f ms, %.4g rewrites/s, %d live terms\n",
					r.Steps, secs*1e3, float64(r.Steps)/secs, r.Live())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&input, "input", "", "the input term (for WST files, unless FILE.input holds it)")
	cmd.Flags().Var(&print, "print", "print the normal form (term) or its size and hash (summary)")
	cmd.Flags().BoolVar(&stats, "stats", false, "print the number of rewrites, of live terms and the critical path on standard error")
	cmd.Flags().BoolVar(&timing, "time", false, "report the rewriting time on standard error")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print --stats and --time as JSON, one object a line (docs/TOOLKIT.md)")
	cmd.Flags().IntVar(&capacity, "capacity", 0, "the most live terms (0: no limit)")
	cmd.Flags().Int64Var(&maxSteps, "max-steps", 0, "the most rewrite steps (0: no limit)")
	cmd.Flags().StringVar(&deeper, "deeper", "", "the input one level deeper, for --extrapolate")
	cmd.Flags().IntVar(&extrapolate, "extrapolate", 0, "print the summary and rewrites (--stats) this many levels deeper than --deeper, fitted")
	return cmd
}

// loadTRS loads a term rewrite system with its input term: input if
// given, else the file's own or, for a WST file, FILE.input beside it.
func loadTRS(path, input string) (*trs.System, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	opts := trs.Options{Input: input}
	if input == "" {
		if opts.Input, opts.InputName, err = trs.InputBeside(path); err != nil {
			return nil, err
		}
	}
	return trs.Load(path, src, opts)
}
