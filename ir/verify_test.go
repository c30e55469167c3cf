package ir_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"gpuc/frontends/kir"
	"gpuc/internal/diag"
	"gpuc/internal/irtest"
	"gpuc/ir"
)

// TestVerify runs the cases of testdata/verify/*.txtar. A case is a section
// NAME.kir holding a module, with NAME.err (the errors at the launch level)
// and or NAME.spmd.err (at the SPMD level): the expected error lines,
// exactly. An empty .err section says the module verifies.
func TestVerify(t *testing.T) {
	files := irtest.Glob(t, "testdata/verify/*.txtar")
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if runArchive(t, ar) && *irtest.Update {
				if err := os.WriteFile(file, txtar.Format(ar), 0o666); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

var levels = map[string]ir.Level{".err": ir.LaunchLevel, ".spmd.err": ir.SPMDLevel}

// runArchive checks every case of ar, or with -update rewrites its .err
// sections, and reports whether it changed any.
func runArchive(t *testing.T, ar *txtar.Archive) (changed bool) {
	sections := map[string]*txtar.File{}
	for i := range ar.Files {
		sections[ar.Files[i].Name] = &ar.Files[i]
	}
	for name, f := range sections {
		if !strings.HasSuffix(name, ".kir") && sections[caseOf(name)+".kir"] == nil {
			t.Errorf("%s: no module %s.kir for it", name, caseOf(name))
		}
		if !strings.HasSuffix(name, ".kir") {
			continue
		}
		base := strings.TrimSuffix(name, ".kir")
		m, err := kir.Parse(name, f.Data)
		if err != nil {
			t.Errorf("%s does not parse:\n%v", name, err)
			continue
		}
		found := false
		for suffix, level := range levels {
			want := sections[base+suffix]
			if want == nil {
				continue
			}
			found = true
			got := errorLines(ir.Verify(m, level))
			switch {
			case got == string(want.Data):
			case *irtest.Update:
				want.Data, changed = []byte(got), true
			default:
				t.Errorf("%s at the %s level:\ngot:\n%swant:\n%s", name, level, got, want.Data)
			}
		}
		if !found {
			t.Errorf("%s: no %s.err or %s.spmd.err section", name, base, base)
		}
	}
	return changed
}

// caseOf is the case name of a section name.
func caseOf(section string) string {
	for _, suffix := range []string{".spmd.err", ".err", ".kir"} {
		if s, ok := strings.CutSuffix(section, suffix); ok {
			return s
		}
	}
	return section
}

// errorLines renders the errors of Verify one per line, checking that they
// come as a sorted diag.List.
func errorLines(err error) string {
	if err == nil {
		return ""
	}
	var list diag.List
	if !errors.As(err, &list) {
		return fmt.Sprintf("not a diag.List: %v\n", err)
	}
	sorted := append(diag.List(nil), list...)
	sorted.Sort()
	if !reflect.DeepEqual(sorted, list) {
		return fmt.Sprintf("errors not sorted:\n%v\n", err)
	}
	return err.Error() + "\n"
}

// TestVerifyExamples checks that the example modules verify at both levels.
func TestVerifyExamples(t *testing.T) {
	files := irtest.Glob(t, "../examples/kir/*.kir")
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := kir.Parse(filepath.Base(file), src)
		if err != nil {
			t.Fatalf("%s:\n%v", file, err)
		}
		for _, level := range []ir.Level{ir.LaunchLevel, ir.SPMDLevel} {
			if err := ir.Verify(m, level); err != nil {
				t.Errorf("%s at the %s level:\n%v", file, level, err)
			}
		}
	}
}

// TestVerifyNeverPanics breaks every module of the test archives and the
// examples in every way a buggy pass might: each expression, statement and
// declaration slot set to nil or to a typed nil pointer, each enum to an
// unknown value, each name to "". Verify must report, never panic.
func TestVerifyNeverPanics(t *testing.T) {
	for name, m := range testModules(t) {
		for _, slot := range slots(reflect.ValueOf(m)) {
			for _, bad := range badValues(slot) {
				old := reflect.New(slot.Type()).Elem()
				old.Set(slot)
				slot.Set(bad)
				verifySafely(t, fmt.Sprintf("%s with a %s set to %v", name, slot.Type(), bad), m)
				slot.Set(old)
			}
		}
	}
}

func verifySafely(t *testing.T, what string, m *ir.Module) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: Verify panicked: %v\n%s", what, r, debug.Stack())
		}
	}()
	if err := ir.Verify(m, ir.SPMDLevel); err != nil && strings.Contains(err.Error(), "%!") {
		t.Fatalf("%s: Verify printed a value that fmt could not:\n%v", what, err)
	}
}

// testModules parses every .kir section of the test archives and every
// example.
func testModules(t *testing.T) map[string]*ir.Module {
	out := map[string]*ir.Module{}
	archives, _ := filepath.Glob("testdata/verify/*.txtar")
	for _, file := range archives {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if m, err := kir.Parse(f.Name, f.Data); err == nil {
				out[f.Name] = m
			}
		}
	}
	examples, _ := filepath.Glob("../examples/kir/*.kir")
	for _, file := range examples {
		src, _ := os.ReadFile(file)
		if m, err := kir.Parse(file, src); err == nil {
			out[file] = m
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d test modules", len(out))
	}
	return out
}

// slots returns the settable interface, pointer, enum and string fields
// and slice elements reachable from v.
func slots(v reflect.Value) []reflect.Value {
	var out []reflect.Value
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			out = slots(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			out = append(out, slotAndBelow(v.Field(i))...)
		}
	case reflect.Slice:
		for i := range v.Len() {
			out = append(out, slotAndBelow(v.Index(i))...)
		}
	}
	return out
}

func slotAndBelow(v reflect.Value) []reflect.Value {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Uint8, reflect.String:
		return append([]reflect.Value{v}, slots(v)...)
	}
	return slots(v)
}

// badValues are the broken values to try in a slot.
func badValues(slot reflect.Value) []reflect.Value {
	switch slot.Kind() {
	case reflect.Uint8:
		return []reflect.Value{reflect.ValueOf(uint8(250)).Convert(slot.Type())}
	case reflect.String:
		return []reflect.Value{reflect.ValueOf("").Convert(slot.Type())}
	case reflect.Interface:
		out := []reflect.Value{reflect.Zero(slot.Type())}
		if !slot.IsNil() && slot.Elem().Kind() == reflect.Pointer {
			typedNil := reflect.New(slot.Type()).Elem()
			typedNil.Set(reflect.Zero(slot.Elem().Type()))
			out = append(out, typedNil)
		}
		return out
	}
	return []reflect.Value{reflect.Zero(slot.Type())}
}

// TestVerifyNilNodes checks the messages for nil nodes, which no parser
// produces.
func TestVerifyNilNodes(t *testing.T) {
	at := func(line, col int) ir.Pos { return ir.Pos{File: "m.kir", Line: line, Col: col} }
	one := ir.IntConst(ir.I32, 1)
	m := &ir.Module{Pos: at(1, 1), Name: "m", Funcs: []*ir.Func{nil, {
		Pos: at(2, 1), Kind: ir.HostFunc, Name: "main", Result: ir.Void,
		Body: []ir.Stmt{
			&ir.If{Pos: at(3, 3)},
			&ir.Decl{Pos: at(4, 3), Name: "x", T: ir.I32, Init: &ir.Binary{Op: ir.Add, Y: one}},
			nil,
			&ir.Printf{Pos: at(6, 3), Format: "%d\n", Args: []ir.Expr{(*ir.Var)(nil)}},
			&ir.Switch{Pos: at(7, 3), X: one, Cases: []*ir.Case{nil}},
			&ir.CallStmt{Pos: at(8, 3)},
		},
	}}}
	want := `m.kir:1:1: error: nil function 1 in module
m.kir:2:1: error: host main: nil statement
m.kir:3:3: error: host main: nil expression in if condition
m.kir:4:3: error: host main: nil expression in operand of +
m.kir:6:3: error: host main: nil expression in printf argument
m.kir:7:3: error: host main: nil case
m.kir:8:3: error: host main: call statement without a call
`
	if got := errorLines(ir.Verify(m, ir.LaunchLevel)); got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}

// TestVerifyResolution covers errors that the .kir parser rules out, so
// that only a buggy pass makes them: each case parses a module, breaks one
// node and checks the one error Verify reports.
func TestVerifyResolution(t *testing.T) {
	const src = `module r;

param N: i32 = 4;
buffer data: i32[N] global scratch;
buffer tab: u8[2] global static = {1, 2};

func f(x: i32): i32 {
  return x;
}

kernel k(n: i32) {
  var i: i32 = N;
  if i < n {
    var j: i32 = i;
    data[j] = f(j);
  }
  var old: i32;
  old = atomic add data[0], data[i];
}

host main() {
  launch k(1) grid 1 block 1;
}
`
	tests := []struct {
		name   string
		mutate func(m *ir.Module)
		want   string
	}{
		{"param read as variable", func(m *ir.Module) {
			p := find[*ir.ParamRef](m)
			*find[*ir.Decl](m) = ir.Decl{Pos: p.Pos, Name: "i", T: ir.I32, Init: &ir.Var{Pos: p.Pos, Name: "N", T: ir.I32}}
		}, "r.kir:12:16: error: kernel k: parameter N read as a variable"},
		{"variable annotation", func(m *ir.Module) { find[*ir.Var](m).T = ir.I64 },
			"r.kir:8:10: error: func f: variable x is annotated i64, but its declaration says i32"},
		{"variable out of scope", func(m *ir.Module) { find[*ir.Atomic](m).Args[0].(*ir.Load).Index.(*ir.Var).Name = "j" },
			"r.kir:18:34: error: kernel k: undeclared variable j"},
		{"assignment to undeclared", func(m *ir.Module) { find[*ir.Atomic](m).Dst = "y" },
			"r.kir:18:3: error: kernel k: atomic result to undeclared variable y"},
		{"assignment to parameter", func(m *ir.Module) { find[*ir.Atomic](m).Dst = "N" },
			"r.kir:18:3: error: kernel k: atomic result to parameter N; parameters are read-only"},
		{"undeclared parameter", func(m *ir.Module) { find[*ir.ParamRef](m).Name = "Q" },
			"r.kir:12:16: error: kernel k: undeclared parameter Q"},
		{"parameter annotation", func(m *ir.Module) { find[*ir.ParamRef](m).T = ir.U32 },
			"r.kir:12:16: error: kernel k: parameter N is annotated u32, but its declaration says i32"},
		{"load annotation", func(m *ir.Module) { find[*ir.Load](m).T = ir.F32 },
			"r.kir:18:29: error: kernel k: load of data is annotated f32, but its declaration says i32"},
		{"undeclared buffer", func(m *ir.Module) { find[*ir.Store](m).Buf = "nowhere" },
			"r.kir:15:5: error: kernel k: undeclared buffer or array nowhere"},
		{"call annotation", func(m *ir.Module) { find[*ir.Call](m).T = ir.I64 },
			"r.kir:15:15: error: kernel k: call of f is annotated i64, but its declaration says i32"},
		{"undeclared function", func(m *ir.Module) { find[*ir.Call](m).Func = "g" },
			"r.kir:15:15: error: kernel k: call of undeclared function g"},
		{"undeclared kernel", func(m *ir.Module) { find[*ir.Launch](m).Kernel = "q" },
			"r.kir:22:3: error: host main: launch of undeclared kernel q"},
		{"launch of a function", func(m *ir.Module) { find[*ir.Launch](m).Kernel = "f" },
			"r.kir:22:3: error: host main: launch of func f; only kernels are launched"},
		{"name not an identifier", func(m *ir.Module) { m.Buffers[1].Name = "my tab" },
			`r.kir:5:1: error: buffer name "my tab" is not an identifier`},
		{"keyword as a name", func(m *ir.Module) { m.Buffers[1].Name = "while" },
			"r.kir:5:1: error: buffer name while is a keyword"},
		{"float parameter", func(m *ir.Module) { m.Params[0].Type = ir.F32 },
			"r.kir:3:1: error: parameter N has type f32; parameters are integers"},
		{"parameter default", func(m *ir.Module) { m.Params[0].Default = 1 << 40 },
			"r.kir:3:1: error: default 1099511627776 of parameter N is out of range for i32"},
		{"fit not a number", func(m *ir.Module) { m.Params[0].Fit = math.NaN() },
			"r.kir:3:1: error: fit NaN of parameter N is outside (0, 1]"},
		{"constant encoding", func(m *ir.Module) { find[*ir.Const](m).Bits = 1 << 40 },
			"r.kir:18:25: error: kernel k: constant 0x10000000000 is not a canonical i32"},
		{"static encoding", func(m *ir.Module) { m.Buffers[1].Init[1] = 300 },
			"r.kir:5:1: error: value 1 of static buffer tab is not a canonical u8 (0x12c)"},
		{"static contents elsewhere", func(m *ir.Module) { m.Buffers[0].Init = []ir.Bits{1} },
			"r.kir:4:1: error: buffer data has contents but is not static"},
		{"static without contents", func(m *ir.Module) { m.Buffers[1].Init = nil },
			"r.kir:5:1: error: static buffer tab has no contents; give them with --static tab=FILE"},
		{"void local", func(m *ir.Module) { find[*ir.Decl](m).T = ir.Void },
			"r.kir:12:3: error: kernel k: local i has type void, want a scalar type"},
		{"for post declaration", func(m *ir.Module) {
			find[*ir.If](m).Then = []ir.Stmt{&ir.For{Pos: find[*ir.If](m).Pos, Cond: ir.BoolConst(false), Post: &ir.Decl{Name: "z", T: ir.I32}}}
		}, "r.kir:13:3: error: kernel k: for post statement must be an assignment"},
		{"unknown operator", func(m *ir.Module) { find[*ir.Binary](m).Op = 99 },
			"r.kir:13:8: error: kernel k: unknown binary operator 99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := kir.Parse("r.kir", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if err := ir.Verify(m, ir.LaunchLevel); err != nil {
				t.Fatalf("the module verifies before it is broken:\n%v", err)
			}
			tt.mutate(m)
			if got := errorLines(ir.Verify(m, ir.LaunchLevel)); got != tt.want+"\n" {
				t.Errorf("got:\n%swant:\n%s", got, tt.want)
			}
		})
	}
}

// find returns the first statement or expression of type T in m's
// functions, in source order.
func find[T any](m *ir.Module) T {
	var out []T
	for _, f := range m.Funcs {
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if x, ok := s.(T); ok {
				out = append(out, x)
			}
			return true
		})
		ir.WalkAllExprs(f.Body, func(e ir.Expr) bool {
			if x, ok := e.(T); ok {
				out = append(out, x)
			}
			return true
		})
	}
	if len(out) == 0 {
		panic(fmt.Sprintf("no %T in the module", *new(T)))
	}
	return out[0]
}
