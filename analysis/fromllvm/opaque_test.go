package fromllvm

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/internal/diag"
)

// TestOpaquePointers: an .ll file in LLVM 16's default syntax gets a positioned error that says
// what to do, before any tool runs; typed pointers and names such as %ptr do not.
func TestOpaquePointers(t *testing.T) {
	dir := t.TempDir()
	opaque := filepath.Join(dir, "k.ll")
	src := "; ptr in a comment\ndefine void @k(ptr %a, i32 %n) {\n  ret void\n}\n"
	if err := os.WriteFile(opaque, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := CompileFile(opaque, Options{Clang: "false", Opt: "false"})
	if err == nil || !strings.Contains(err.Error(), opaque+":2:16: error: LLVM IR with opaque pointers") {
		t.Errorf("got %v, want the position 2:16 and the opaque-pointer error", err)
	}
	for _, typed := range []string{
		"define void @k(i32* %ptr, i32 %n) {\n  ret void\n}\n",
		"@s = global [4 x i8] c\"ptr\\00\"\n",
	} {
		if l, c, ok := opaquePointer([]byte(typed)); ok {
			t.Errorf("%q: opaque pointer at %d:%d, want none", typed, l, c)
		}
	}
}

// TestClangErrorPositioned: a kernel that clang rejects gets clang's first error at clang's
// position, one line as gpuc's own diagnostics are (not "1:1: error: clang-16: exit status 1:
// ..."), and a diag.Error, which gpuc prints without its "gpuc: error:" prefix.
func TestClangErrorPositioned(t *testing.T) {
	if _, err := exec.LookPath("clang-16"); err != nil {
		t.Skip("clang-16 not installed")
	}
	dir := t.TempDir()
	for name, src := range map[string]string{
		"k.cl": "__kernel void k(int n) { for (int i = 0; i < n; i++) {}\n",
		"k.cu": "__global__ void k(int n) { for (int i = 0; i < n; i++) {}\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := CompileFile(path, Options{})
		var d *diag.Error
		want := path + ":1:" + map[string]string{"k.cl": "56", "k.cu": "58"}[name] + ": error: expected '}'"
		if !errors.As(err, &d) || err.Error() != want {
			t.Errorf("%s: got %v, want %q as a diag.Error", name, err, want)
		}
	}
}
