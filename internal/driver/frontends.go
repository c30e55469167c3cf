package driver

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"gpuc/frontends/chr"
	"gpuc/frontends/fork"
	"gpuc/frontends/frontend"
	"gpuc/frontends/kir"
	trscli "gpuc/frontends/trs/cli"
	"gpuc/internal/enum"
)

// frontends lists the frontends, one line each. Their flags' help joins
// their usage strings in this order.
var frontends = []*frontend.Frontend{
	kir.Frontend,
	fork.Frontend,
	chr.Frontend,
	trscli.Frontend,
}

// Frontends returns the registered frontends.
func Frontends() []*frontend.Frontend { return frontends }

// FrontendCommands returns the subcommands that frontends bring.
func FrontendCommands(stdout io.Writer) []*cobra.Command {
	var cmds []*cobra.Command
	for _, fe := range frontends {
		if fe.Commands != nil {
			cmds = append(cmds, fe.Commands(stdout)...)
		}
	}
	return cmds
}

// frontendFor returns the frontend that reads path.
func frontendFor(path string) (*frontend.Frontend, error) {
	ext := filepath.Ext(path)
	var all []string
	for _, fe := range frontends {
		for _, e := range fe.Exts {
			if e == ext {
				return fe, nil
			}
			all = append(all, e)
		}
	}
	return nil, fmt.Errorf("%s: unknown file type %q (want %s)", path, ext, enum.List(all...))
}

// Beside lists the files that exist beside the source path and that its
// frontend reads in place of a flag (frontend.Frontend.Beside).
func Beside(path string) []string {
	fe, err := frontendFor(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, ext := range fe.Beside {
		p := strings.TrimSuffix(path, filepath.Ext(path)) + ext
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// Hover is the hover text of a word of the source text of path, from its
// frontend (frontend.Frontend.Hover), or "".
func Hover(path, text, word string) string {
	fe, err := frontendFor(path)
	if err != nil || fe.Hover == nil {
		return ""
	}
	return fe.Hover(text, word)
}

// extsOf lists the extensions of the frontends that define a flag, as
// prose: ".trs and .rec".
func extsOf(fes []*frontend.Frontend) string {
	var exts []string
	for _, fe := range fes {
		if fe != nil { // nil: the buffer roles, which every input takes
			exts = append(exts, fe.Exts...)
		}
	}
	if len(exts) < 2 {
		return strings.Join(exts, "")
	}
	return strings.Join(exts[:len(exts)-1], ", ") + " and " + exts[len(exts)-1]
}
