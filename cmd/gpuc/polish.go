package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"gpuc/passes"
)

// flagValues are the values that shell completion offers for a flag of
// any command that has it.
var flagValues = map[string]func() []string{
	"emit":         fixed("cuda", "llvm", "ptx", "llvm-host", "llvm-hybrid", "ir", "nvrtc"),
	"target":       fixed("nvptx", "host"),
	"crcw":         fixed("priority", "arbitrary"),
	"grid-sync":    fixed("auto", "always", "never"),
	"pe-placement": fixed("auto", "code", "constant", "global"),
	"print":        fixed("term", "summary"),
	"passes":       passNames,
	"dump-after":   func() []string { return append(passNames(), "all") },
}

func fixed(vs ...string) func() []string { return func() []string { return vs } }

// passNames lists the passes and pipelines, which --passes takes.
func passNames() []string {
	var out []string
	for _, p := range passes.All() {
		out = append(out, p.Name)
	}
	for _, p := range passes.Pipelines() {
		out = append(out, p.Name)
	}
	return out
}

// examples are the Examples sections of the commands that do not set
// their own.
var examples = map[string]string{
	"compile": `  gpuc compile examples/fork/sieve.fork -o sieve.cu && nvcc -O3 -arch=sm_90 -o sieve sieve.cu
  gpuc compile prog.kir --emit=llvm --target=host -o k.ll
  gpuc compile prog.fork N=4096 -o prog.cu --report
  gpuc compile prog.kir --checks=off -o prog.cu`,
	"run": `  gpuc run examples/fork/sieve.fork N=1000
  gpuc run prog.kir N=4096 data=in.txt --race
  gpuc run examples/chr/gcd.chr --query q.pl --stats
  gpuc run examples/trs/fib.trs --print=summary --stats --json`,
	"opt": `  gpuc opt --passes=simplify prog.kir
  gpuc opt --passes=default --verify-each --dump-after=split-barriers prog.kir`,
	"completion": `  gpuc completion bash > ~/.local/share/bash-completion/completions/gpuc
  source <(gpuc completion zsh)
  gpuc completion fish > ~/.config/fish/completions/gpuc.fish`,
	"bash":       `  gpuc completion bash > ~/.local/share/bash-completion/completions/gpuc`,
	"zsh":        `  source <(gpuc completion zsh)`,
	"fish":       `  gpuc completion fish > ~/.config/fish/completions/gpuc.fish`,
	"powershell": `  gpuc completion powershell | Out-String | Invoke-Expression`,
	"passes":     `  gpuc passes`,
	"version":    `  gpuc version`,
	"rewrite":    `  gpuc rewrite examples/trs/mergesort.trs --stats --time`,
	"maude":      `  gpuc maude examples/trs/mergesort.trs > mergesort.maude`,
	"plot":       `  gpuc run x.trs --trace trace.csv && gpuc plot trace.csv -o fig.svg`,
}

// sourceCommands take source files as arguments.
var sourceCommands = map[string]bool{"compile": true, "run": true, "opt": true, "build": true, "exec": true, "test": true, "bench": true}

// completeSources completes a source file by its extension; after the
// file of compile, run, build and exec, NAME=VALUE arguments follow, of
// which the shell knows nothing.
func completeSources(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 && c.Name() != "test" && c.Name() != "bench" {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return []string{"fork", "chr", "trs", "rec", "kir"}, cobra.ShellCompDirectiveFilterFileExt
}

// polish gives every command under root the completions of flagValues
// and of source files and, where it has none, its Examples section.
func polish(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name, values := range flagValues {
			if c.Flags().Lookup(name) == nil {
				continue
			}
			values := values
			_ = c.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return values(), cobra.ShellCompDirectiveNoFileComp
			})
		}
		if c.Example == "" {
			c.Example = examples[c.Name()]
		}
		if sourceCommands[c.Name()] && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = completeSources
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// newMan writes the man pages (make man).
func newMan() *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write gpuc's man pages into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return err
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true
			hdr := &doc.GenManHeader{Title: strings.ToUpper(root.Name()), Section: "1", Source: "gpuc"}
			if err := doc.GenManTree(root, hdr, args[0]); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			return nil
		},
	}
}
