package llvm_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHybridNoCxxLibrary checks Note [No C++ library at run time] in
// backends/cuda/cpu.h: a hybrid program refers to nothing of libstdc++
// (operator new, guards of local statics, exceptions), so that, linked
// with --as-needed, it loads libc alone.
func TestHybridNoCxxLibrary(t *testing.T) {
	clang, cxx, _ := tool(t, "clang-16"), tool(t, "clang++-16", "g++"), tool(t, "llc-16")
	nm := tool(t, "nm", "llvm-nm-16")
	exe := hybridBuild(t, clang, cxx, "../../examples/trs/treemergesort.trs")
	out, err := exec.Command(nm, "-D", "--undefined-only", exe).CombinedOutput()
	if err != nil {
		t.Fatalf("nm: %v\n%s", err, out)
	}
	libc := map[string]bool{"__cxa_finalize": true, "__cxa_atexit": true, "__cxa_thread_atexit_impl": true}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		sym := f[len(f)-1]
		name, _, _ := strings.Cut(sym, "@")
		if strings.Contains(sym, "GLIBCXX") || strings.Contains(sym, "CXXABI") || strings.HasPrefix(name, "_Z") ||
			strings.HasPrefix(name, "__gxx_") || (strings.HasPrefix(name, "__cxa_") && !libc[name]) {
			t.Errorf("the hybrid program refers to the C++ library: %s", sym)
		}
	}
}
