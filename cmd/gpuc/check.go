package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"gpuc/analysis/fromir"
	"gpuc/analysis/fromllvm"
	"gpuc/analysis/its"
	"gpuc/analysis/smt"
	"gpuc/analysis/termination"
	"gpuc/internal/driver"
	"gpuc/internal/enum"
	"gpuc/ir/interp"
	"gpuc/passes"
)

func newCheck(stdout io.Writer) *cobra.Command {
	var termFlag, asJSON, dumpITS, traceSMT bool
	var budget time.Duration
	var semantics, failOn, solver, verifyCert, replay, kernel string
	var limit int64
	var workQ int
	var in *driver.Inputs
	cmd := &cobra.Command{
		Use:   "check --termination FILE... [NAME=VALUE ...]",
		Short: "Prove or disprove termination of every kernel and device function",
		Example: `  gpuc check --termination examples/fork/prefix.fork
  gpuc check --termination kernel.cl N=4096 --json > cert.json
  gpuc check --verify-cert cert.json`,
		Long: `check --termination analyses one arbitrary thread of each kernel and device
function (thread-modular: loads from memory other threads may write give any
value; shared stores and barriers do nothing) and prints one line per kernel:

  FILE: KERNEL: TRUE|FALSE|UNKNOWN (reason)
  FILE: KERNEL: TRUE if N <= 1073741824      (a proof that needs a bound)

FILE is a gpuc input (.kir .fork .chr .trs .rec), analysed after the default
pipeline, or an external kernel: LLVM IR (.ll), OpenCL (.cl) or CUDA (.cu),
compiled with clang-16. Integer arithmetic wraps at its width (bit-precise);
--semantics=c assumes that C's signed overflow does not happen (nsw) and says
where. Parameters are unknown unless NAME=VALUE fixes them.

TRUE comes with a certificate (invariants, lexicographic ranking functions,
and the SMT obligations the solver proved), FALSE with a witness (a launch and
a recurrent set that holds whatever loads return), UNKNOWN with a reason.
--json prints them; --verify-cert F.json re-checks them with the solver alone;
--replay F.json runs each FALSE witness of a gpuc input in the interpreter
with a loop-iteration limit.

Exit status: 0 when the analysis ran, whatever the verdicts; 1 on bad input;
3 with --fail-on=false when a kernel is FALSE, or --fail-on=unknown when one
is FALSE or UNKNOWN. See docs/TERMINATION.md.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case verifyCert != "":
				return verifyCertificate(stdout, verifyCert, solver)
			case replay != "":
				return replayWitness(stdout, replay, limit, in)
			}
			if !termFlag {
				return fmt.Errorf("check: name an analysis: --termination")
			}
			var files []string
			fixed := map[string]*big.Int{}
			for _, a := range args {
				if name, val, ok := strings.Cut(a, "="); ok && !strings.ContainsAny(name, "/.") {
					v, good := new(big.Int).SetString(val, 0)
					if !good || name == "" {
						return fmt.Errorf("argument %q: want NAME=VALUE with an integer VALUE", a)
					}
					fixed[name] = v
					continue
				}
				files = append(files, a)
			}
			if len(files) == 0 {
				return fmt.Errorf("check: no FILE")
			}
			switch semantics {
			case "wrap", "c":
			default:
				return fmt.Errorf("--semantics=%s: want wrap or c", semantics)
			}
			switch failOn {
			case "", "false", "unknown":
			default:
				return fmt.Errorf("--fail-on=%s: want false or unknown", failOn)
			}
			var systems []*its.System
			for _, f := range files {
				ss, err := loadSystems(f, semantics, in)
				if err != nil {
					return err
				}
				systems = append(systems, ss...)
			}
			cfg := termination.Config{Solver: solver, Fixed: fixed, Work: workQ, Budget: budget}
			if traceSMT {
				cfg.Trace = cmd.ErrOrStderr()
			}
			eng, err := termination.NewEngine(cfg)
			if err != nil {
				if errors.Is(err, smt.ErrNoSolver) {
					return fmt.Errorf("check --termination needs the SMT solver %s on PATH (apt-get install z3 cvc5)", solver)
				}
				return err
			}
			defer eng.Close()
			var results []*termination.Result
			fail := false
			for _, s := range systems {
				if kernel != "" && s.Name != kernel {
					continue
				}
				if dumpITS {
					fmt.Fprint(stdout, s.String())
				}
				r := eng.Analyze(s)
				results = append(results, r)
				if r.Verdict == termination.False || (failOn == "unknown" && r.Verdict == termination.Unknown) {
					fail = fail || failOn != ""
				}
				if !asJSON {
					fmt.Fprintln(stdout, r.Line())
					for _, w := range r.Warnings {
						fmt.Fprintf(stdout, "%s: %s: warning: %s\n", r.File, r.Kernel, w)
					}
				}
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(results); err != nil {
					return err
				}
			}
			if fail {
				return &exitStatus{3}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&termFlag, "termination", false, "prove or disprove termination of every kernel and device function")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print verdicts, reasons, times, certificates and witnesses as JSON")
	cmd.Flags().StringVar(&semantics, "semantics", "wrap", "integer semantics: wrap (bit-precise, the GPU's) or c (no signed overflow, where LLVM says nsw)")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "exit with status 3 when a kernel is FALSE (false) or FALSE or UNKNOWN (unknown)")
	cmd.Flags().StringVar(&solver, "solver", "z3", "SMT solver: z3 or cvc5")
	cmd.Flags().StringVar(&verifyCert, "verify-cert", "", "re-check the certificates and witnesses of a --json output with the solver alone")
	cmd.Flags().StringVar(&replay, "replay", "", "run the FALSE witnesses of a --json output in the interpreter and confirm that the loop passes the limit")
	cmd.Flags().BoolVar(&dumpITS, "dump-its", false, "print each integer transition system before its verdict (its text form)")
	cmd.Flags().StringVar(&kernel, "kernel", "", "analyse only the kernel or device function of this name")
	cmd.Flags().BoolVar(&traceSMT, "trace-smt", false, "print the solver queries that take longer than 50ms to standard error")
	cmd.Flags().IntVar(&workQ, "work", termination.DefaultWork, "solver queries allowed per kernel; past them the verdict is UNKNOWN (the same on any machine)")
	cmd.Flags().DurationVar(&budget, "budget", 0, "also a time limit per kernel (0: none); verdicts then depend on the machine's load")
	cmd.Flags().Int64Var(&limit, "limit", 100000, "--replay: the loop-iteration limit per thread")
	in = driver.AddInputFlags(cmd.Flags(), false)
	return cmd
}

// loadSystems translates one file into transition systems.
func loadSystems(path, semantics string, in *driver.Inputs) ([]*its.System, error) {
	switch filepath.Ext(path) {
	case ".ll", ".cl", ".cu":
		return fromllvm.Systems(path, fromllvm.Options{Semantics: semantics})
	}
	var exts []string
	for _, fe := range driver.Frontends() {
		exts = append(exts, fe.Exts...)
	}
	if !slices.Contains(exts, filepath.Ext(path)) {
		// The analysis reads external kernels too: say so, where the driver would not.
		return nil, fmt.Errorf("%s: unknown file type %q (want %s)", path, filepath.Ext(path), enum.List(append(exts, ".ll", ".cl", ".cu")...))
	}
	m, _, err := in.Load(path)
	if err != nil {
		return nil, err
	}
	if err := driver.Lower(m, []string{"default"}, &passes.Config{}); err != nil {
		return nil, err
	}
	return fromir.Systems(m, path)
}

func readResults(path string) ([]*termination.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rs []*termination.Result
	if err := json.Unmarshal(b, &rs); err != nil {
		return nil, fmt.Errorf("%s: not a gpuc check --json output: %v", path, err)
	}
	return rs, nil
}

// verifyCertificate re-runs every obligation of every TRUE certificate and FALSE witness in
// one fresh solver process each; all must be unsat.
func verifyCertificate(stdout io.Writer, path, solver string) error {
	rs, err := readResults(path)
	if err != nil {
		return err
	}
	bad := 0
	for _, r := range rs {
		var obl []termination.Obligation
		switch r.Verdict {
		case termination.True:
			obl = r.Certificate
		case termination.False:
			if r.Witness == nil {
				fmt.Fprintf(stdout, "%s: %s: FALSE without a witness\n", r.File, r.Kernel)
				bad++
				continue
			}
			obl = r.Witness.Proof
		default:
			continue
		}
		if r.Verdict == termination.True && len(r.Loops) > 0 && len(obl) == 0 {
			fmt.Fprintf(stdout, "%s: %s: TRUE without a certificate\n", r.File, r.Kernel)
			bad++
			continue
		}
		var script strings.Builder
		for _, o := range obl {
			script.WriteString("(push 1)\n" + o.Script + "(check-sat)\n(pop 1)\n")
		}
		res, err := smt.Run(solver, script.String(), 60*time.Second)
		if err != nil {
			return err
		}
		failed := ""
		for i, o := range obl {
			if i >= len(res) || res[i] != smt.Unsat {
				failed = o.What
				break
			}
		}
		if failed != "" {
			fmt.Fprintf(stdout, "%s: %s: certificate does not hold: %s\n", r.File, r.Kernel, failed)
			bad++
			continue
		}
		fmt.Fprintf(stdout, "%s: %s: %s certificate holds (%d obligations, %s)\n", r.File, r.Kernel, r.Verdict, len(obl), solver)
	}
	if bad > 0 {
		return fmt.Errorf("%s: %d certificates do not hold", path, bad)
	}
	return nil
}

// replayWitness runs each witness of a gpuc input (FALSE, or the other side of a TRUE under a
// condition) with its parameters and a loop limit.
func replayWitness(stdout io.Writer, path string, limit int64, in *driver.Inputs) error {
	rs, err := readResults(path)
	if err != nil {
		return err
	}
	bad := 0
	for _, r := range rs {
		if r.Witness == nil {
			continue // FALSE, and TRUE under a condition whose witness shows the other side
		}
		switch filepath.Ext(r.File) {
		case ".ll", ".cl", ".cu":
			fmt.Fprintf(stdout, "%s: %s: not replayed (an external kernel; the interpreter runs gpuc inputs)\n", r.File, r.Kernel)
			continue
		}
		m, _, err := in.Load(r.File)
		if err != nil {
			return err
		}
		if err := driver.Lower(m, []string{"default"}, &passes.Config{}); err != nil {
			return err
		}
		params := map[string]int64{}
		for name, val := range r.Witness.Launch {
			if m.Param(name) == nil {
				continue
			}
			v, ok := new(big.Int).SetString(val, 10)
			if !ok || !v.IsInt64() {
				return fmt.Errorf("%s: witness value %s=%s", path, name, val)
			}
			params[name] = v.Int64()
		}
		err = interp.Run(m, interp.Config{Params: params, LoopLimit: limit})
		var ll *interp.LoopLimitError
		switch {
		case errors.As(err, &ll) && r.Witness.Pos != "" && ll.Pos.String() != r.Witness.Pos:
			fmt.Fprintf(stdout, "%s: %s: witness not confirmed: another loop passed the limit: %s\n", r.File, r.Kernel, ll.Error())
			bad++
		case errors.As(err, &ll):
			fmt.Fprintf(stdout, "%s: %s: witness confirmed: %s\n", r.File, r.Kernel, ll.Error())
		case err != nil:
			fmt.Fprintf(stdout, "%s: %s: witness not confirmed: the run failed: %v\n", r.File, r.Kernel, err)
			bad++
		default:
			fmt.Fprintf(stdout, "%s: %s: witness not confirmed: the run ended within %d iterations per loop\n", r.File, r.Kernel, limit)
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("%s: %d witnesses not confirmed", path, bad)
	}
	return nil
}
