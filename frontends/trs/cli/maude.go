package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"gpuc/frontends/trs"
	"gpuc/frontends/trs/maude"
)

func maudeCommand(stdout io.Writer) *cobra.Command {
	var input, result string
	print := trs.PrintTerm
	var timing bool
	cmd := &cobra.Command{
		Use:   "maude FILE.trs [--input TERM]",
		Short: "Print a term rewrite system as a Maude module",
		Long: `maude prints the Maude functional module that gpuc's tests check a term
rewrite system against (frontends/trs/maude), with a reduce of its input
term: run it with maude -batch. Symbols, sorts and variables are renamed
(s3, S0, R2V1); rules keep gpuc's order, first match first, through
matchers, for the symbols whose rules overlap; conditional REC rules are
conditional equations, and a symbol whose conditional rules overlap later
ones tries its rules in sequence, reducing each condition once. --timing asks Maude to report the reduce's time,
which scripts/bench-rec.sh compares with gpuc's.

With --result FILE, it reads instead what maude printed for that module
(FILE) and prints the normal form as gpuc run does: the term, or with
--print=summary its size and hash.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sys, err := loadTRS(args[0], input)
			if err != nil {
				return err
			}
			if result != "" {
				out, err := os.ReadFile(result)
				if err != nil {
					return err
				}
				nf, err := maude.Result(sys, string(out))
				if err != nil {
					return fmt.Errorf("%s: %v", result, err)
				}
				if print == trs.PrintTerm {
					fmt.Fprintln(stdout, sys.Format(nf))
				} else {
					g := sys.Graph(nf)
					fmt.Fprintln(stdout, trs.Summarize(g, g.Root()))
				}
				return nil
			}
			text := maude.Module(sys)
			if timing {
				text = maude.WithTiming(text)
			}
			_, err = fmt.Fprint(stdout, text)
			return err
		},
	}
	cmd.Flags().StringVar(&input, "input", "", "the input term (for WST files, unless FILE.input holds it)")
	cmd.Flags().BoolVar(&timing, "timing", false, "have Maude report the time of the reduce")
	cmd.Flags().StringVar(&result, "result", "", "read Maude's output from this file and print the normal form")
	cmd.Flags().Var(&print, "print", "with --result: print the normal form (term) or its size and hash (summary)")
	return cmd
}
