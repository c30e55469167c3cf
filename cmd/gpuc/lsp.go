package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"gpuc/internal/lsp"
)

// stdio is standard input and output as one stream.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return nil }

func newLSP() *cobra.Command {
	return &cobra.Command{
		Use:   "lsp",
		Short: "Run the language server over standard input and output",
		Long: `lsp is a Language Server Protocol server for .fork, .chr, .trs, .rec and
.kir files: the compiler's diagnostics on open and on change, and hover
on Fork's $, @, keywords and builtins and on CHR constraints. Editors
start it themselves (editors/vscode).`,
		Example: `  gpuc lsp   # started by the editor, speaking LSP on stdin and stdout`,
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			lsp.New().Serve(context.Background(), stdio{})
			return nil
		},
	}
}
