package fromllvm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
