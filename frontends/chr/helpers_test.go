package chr_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gpuc/frontends/chr"
	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
)

// mustParse lowers a CHR program and checks that the result verifies at
// the SPMD level and that its printed form parses back unchanged.
func mustParse(t *testing.T, file, src string, opts chr.Options) *ir.Module {
	t.Helper()
	m, err := chr.Parse(file, []byte(src), opts)
	if err != nil {
		t.Fatalf("%s:\n%v", file, err)
	}
	irtest.CheckLowered(t, file, m)
	return m
}

// run runs m in the interpreter, after lowering it with the default
// pipeline if lowered is set, and returns its output and error.
func run(t *testing.T, m *ir.Module, params map[string]int64, race, lowered bool) (string, error) {
	t.Helper()
	if lowered {
		irtest.RunPasses(t, m, nil, "default")
	}
	var out bytes.Buffer
	err := interp.Run(m, interp.Config{Stdout: &out, Params: params, Race: race})
	return out.String(), err
}

func mustRun(t *testing.T, m *ir.Module, params map[string]int64, race, lowered bool) string {
	t.Helper()
	out, err := run(t, m, params, race, lowered)
	if err != nil {
		t.Fatalf("run %s %v (race %v, lowered %v): %v\noutput so far:\n%s", m.Name, params, race, lowered, err, out)
	}
	return out
}

// swipl runs a CHR program in SWI-Prolog and returns its final store as
// gpuc prints it (testdata/chr_dump.pl). SWI-Prolog compiles CHR rules at
// the end of a file, so the program's `?-` query is cut out and run as a
// goal after loading. It skips the test where swipl is missing, except
// in CI, which installs it.
func swipl(t *testing.T, src string) string {
	t.Helper()
	if _, err := exec.LookPath("swipl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("swipl is missing in CI; .ci/run installs swi-prolog-nox")
		}
		t.Skip("swipl is not installed: the SWI-Prolog oracle is skipped")
	}
	rules, query := splitQuery(src)
	dir := t.TempDir()
	file := filepath.Join(dir, "prog.pl")
	if err := os.WriteFile(file, []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	dump, err := filepath.Abs("testdata/chr_dump.pl")
	if err != nil {
		t.Fatal(err)
	}
	module := "user"
	if m := moduleDecl.FindStringSubmatch(rules); m != nil {
		module = m[1]
	}
	goal := "consult('" + dump + "'), consult('" + file + "'), (" + query + "), chr_dump(" + module + "), halt"
	cmd := exec.Command("swipl", "-q", "-g", goal, "-t", "halt(1)")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("swipl: %v\n%s", err, errOut.String())
	}
	return out.String()
}

// moduleDecl is a module file's declaration, whose store chr_dump reads
// in that module.
var moduleDecl = regexp.MustCompile(`(?m)^:-\s*module\(\s*([a-z]\w*)`)

// splitQuery cuts the `?-` clause (from a line starting with ?- to the
// line ending with a full stop) out of a program and returns the rest
// and the query's goals.
func splitQuery(src string) (rules, query string) {
	var keep, q []string
	in := false
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(line, "?-") {
			in = true
			line = strings.TrimPrefix(line, "?-")
		}
		if !in {
			keep = append(keep, line)
			continue
		}
		trimmed := strings.TrimRight(line, " \t")
		if strings.HasSuffix(trimmed, ".") {
			in = false
			trimmed = strings.TrimSuffix(trimmed, ".")
		}
		q = append(q, trimmed)
	}
	query = strings.TrimSpace(strings.Join(q, " "))
	if query == "" {
		query = "true"
	}
	return strings.Join(keep, "\n"), query
}
