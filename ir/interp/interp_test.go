package interp_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/frontends/kir"
	"gpuc/internal/diag"
	"gpuc/ir"
	"gpuc/ir/interp"
)

// parse parses .kir text, failing the test on a syntax error.
func parse(t testing.TB, name, src string) *ir.Module {
	t.Helper()
	m, err := kir.Parse(name, []byte(src))
	if err != nil {
		t.Fatalf("parse %s:\n%v", name, err)
	}
	return m
}

// run runs .kir text and returns what it printed and its error.
func run(t testing.TB, name, src string, cfg interp.Config) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cfg.Stdout = &out
	err := interp.Run(parse(t, name, src), cfg)
	return out.String(), err
}

// mustRun runs .kir text that must succeed and returns its output.
func mustRun(t testing.TB, name, src string, cfg interp.Config) string {
	t.Helper()
	out, err := run(t, name, src, cfg)
	if err != nil {
		t.Fatalf("run %s: %v\noutput so far:\n%s", name, err, out)
	}
	return out
}

// wantBothRaces runs .kir text with and without the race checker; each
// run must print want.
func wantBothRaces(t testing.TB, name, src, want string) {
	t.Helper()
	for _, race := range []bool{false, true} {
		if got := mustRun(t, name, src, interp.Config{Race: race}); got != want {
			t.Errorf("race=%v: got\n%s\nwant\n%s", race, got, want)
		}
	}
}

// mustFail runs .kir text that must fail with a positioned error whose
// text contains want, and returns the output printed before it.
func mustFail(t testing.TB, name, src string, cfg interp.Config, want string) string {
	t.Helper()
	out, err := run(t, name, src, cfg)
	var d *diag.Error
	var l diag.List
	switch {
	case err == nil:
		t.Fatalf("run %s succeeded, want an error containing %q; output:\n%s", name, want, out)
	case !errors.As(err, &d) && !errors.As(err, &l):
		t.Fatalf("run %s: error %v (%T) is not a positioned diagnostic", name, err, err)
	case !strings.Contains(err.Error(), want):
		t.Fatalf("run %s: error\n\t%v\nwant it to contain\n\t%s", name, err, want)
	}
	return out
}

// readFile reads a test input: an example or a file in testdata.
func readFile(t testing.TB, path string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// position returns "name:line:col" of the first occurrence of the marker
// in src, plus offset columns.
func position(t testing.TB, name, src, marker string, offset int) string {
	t.Helper()
	i := strings.Index(src, marker)
	if i < 0 {
		t.Fatalf("%s does not contain %q", name, marker)
	}
	line := strings.Count(src[:i], "\n") + 1
	col := i - strings.LastIndex(src[:i], "\n") + offset
	return diag.Pos{File: name, Line: line, Col: col}.String()
}

func TestNoModule(t *testing.T) {
	if err := interp.Run(nil, interp.Config{}); err == nil {
		t.Fatal("Run(nil) succeeded")
	}
}

// Malformed modules, which the verifier would reject, give errors rather
// than panics.
func TestMalformedModules(t *testing.T) {
	main := func(body ...ir.Stmt) []*ir.Func {
		return []*ir.Func{{Kind: ir.HostFunc, Name: "main", Body: body}}
	}
	for i, m := range []*ir.Module{
		{},
		{Funcs: []*ir.Func{nil}},
		{Funcs: main(nil, &ir.Printf{Format: "%d\n"}, &ir.Store{Buf: "x"}, &ir.Launch{Kernel: "k"})},
		{Funcs: main(&ir.Assign{Name: "q", Value: &ir.Binary{Op: ir.Add}})},
		{Buffers: []*ir.Buffer{{Name: "b", Elem: ir.I32}}, Funcs: main()},
		{Funcs: main(&ir.Region{Procs: ir.IntConst(ir.I32, 4), Body: []ir.Stmt{&ir.Fork{Body: []ir.Stmt{&ir.Barrier{Grid: true}}}}})},
	} {
		if err := interp.Run(m, interp.Config{}); err == nil {
			t.Errorf("module %d: no error", i)
		}
	}
}
