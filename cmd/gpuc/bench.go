package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"gpuc/internal/toolkit"
)

func newBench(stdout io.Writer) *cobra.Command {
	var bf buildFlags
	var backends, sets []string
	var runs, warmup int
	var asJSON bool
	var metric string
	cmd := &cobra.Command{
		Use:   "bench FILES...",
		Short: "Time programs: warm-up, repeated runs, median, extremes and a confidence interval",
		Long: `bench runs each program --warmup times untimed and then --runs times on
each backend (--backend: interp, the reference interpreter; host, the
CPU build; nvcc, the CUDA program; hybrid, a TRS's CPU and GPU
program; native, as gpuc build chooses) and with each parameter set (--set "N=100 M=2", repeatable),
side by side, and prints the median, minimum and maximum wall time and a
95% confidence interval of the median, with each row's speed relative to
the program's first. Every run must succeed and print the same as the
first. --json prints the measurements as JSON (docs/TOOLKIT.md).`,
		Example: `  gpuc bench examples/fork/sieve.fork --backend=interp,host --set N=100000
  gpuc bench prog.kir --set "N=1024" --set "N=4096" --runs=20 --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, self, err := bf.selfOptions(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if metric != "wall" && metric != "device" {
				return fmt.Errorf("--metric=%s: want wall or device", metric)
			}
			var ps [][]string
			for _, s := range sets {
				ps = append(ps, strings.Fields(s))
			}
			ms, err := toolkit.Bench(args, toolkit.BenchOptions{Build: o, Backends: backends, Sets: ps, Runs: runs, Warmup: warmup, Gpuc: self, Device: metric == "device"})
			if err != nil {
				return err
			}
			if asJSON {
				return toolkit.WriteBenchJSON(stdout, ms)
			}
			toolkit.WriteBench(stdout, ms)
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&backends, "backend", []string{"native"}, "backends to compare: interp, host, nvcc, hybrid, native")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "a parameter set, NAME=VALUE ... in one argument (repeatable)")
	cmd.Flags().IntVar(&runs, "runs", 10, "timed runs per measurement")
	cmd.Flags().IntVar(&warmup, "warmup", 1, "untimed runs first")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the measurements as JSON")
	cmd.Flags().StringVar(&metric, "metric", "wall", "what to time: wall (the whole process) or device (the device time native programs report with --time)")
	_ = cmd.RegisterFlagCompletionFunc("metric", cobra.FixedCompletions([]string{"wall", "device"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("backend", cobra.FixedCompletions([]string{"interp", "host", "nvcc", "hybrid", "native"}, cobra.ShellCompDirectiveNoFileComp))
	bf.add(cmd)
	return cmd
}
