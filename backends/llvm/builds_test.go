package llvm_test

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"gpuc/ir"
)

// Note [One build per program]
// Building a program for the host (clang-16 on the module, clang++ on the
// host program) costs a second or more of processor time, and several
// tests run the same program: TestHostTarget every one, TestHostPool and
// TestHostFit some of them again, TestHybridDrivers and TestDetachedExit
// the same hybrid program. They share one build per program and kind,
// made by whichever test asks first, in a folder that TestMain removes.
// A build that fails fails the test that made it, and every other test
// that asks for it says so.

// shared holds the builds that the tests share.
var shared struct {
	sync.Mutex
	dir    string
	builds map[string]*sharedBuild
}

type sharedBuild struct {
	once    sync.Once
	path    string // "" when the build failed or skipped
	skipped bool
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// sharedPath returns the build of key, made by build with a path that
// it is given (a base name in the shared folder) the first time it is
// asked for.
func sharedPath(t *testing.T, key string, build func(t *testing.T, base string) string) string {
	t.Helper()
	shared.Lock()
	if shared.builds == nil {
		dir, err := os.MkdirTemp("", "gpuc-llvm-test")
		if err != nil {
			shared.Unlock()
			t.Fatal(err)
		}
		shared.dir, shared.builds = dir, map[string]*sharedBuild{}
	}
	b := shared.builds[key]
	if b == nil {
		b = &sharedBuild{}
		shared.builds[key] = b
	}
	base := filepath.Join(shared.dir, strconv.Itoa(len(shared.builds)))
	shared.Unlock()
	b.once.Do(func() {
		defer func() { b.skipped = t.Skipped() }()
		b.path = build(t, base)
	})
	if b.skipped {
		t.Skipf("the build of %s skipped in another test", key)
	}
	if b.path == "" {
		t.Fatalf("the build of %s failed in another test", key)
	}
	return b.path
}

// hostBuild is buildHost of the program at path lowered as load lowers
// it (m, where the caller has it already), shared among the tests.
func hostBuild(t *testing.T, clang, cxx, path string, m *ir.Module) string {
	t.Helper()
	return sharedPath(t, "host "+path, func(t *testing.T, base string) string {
		if m == nil {
			m = load(t, path)
		}
		return buildHost(t, clang, cxx, base, m)
	})
}

// hybridBuild is buildHybrid of the program at path, shared among the
// tests.
func hybridBuild(t *testing.T, clang, cxx, path string) string {
	t.Helper()
	return sharedPath(t, "hybrid "+path, func(t *testing.T, base string) string {
		return buildHybrid(t, clang, cxx, base, load(t, path))
	})
}

// sharedDrivers is fakeDrivers, built once for the tests.
func sharedDrivers(t *testing.T, cxx string) (nocuda, fake string) {
	t.Helper()
	d := sharedPath(t, "drivers", func(t *testing.T, base string) string {
		if err := os.Mkdir(base, 0o755); err != nil {
			t.Fatal(err)
		}
		fakeDrivers(t, cxx, base)
		return base
	})
	return "LD_LIBRARY_PATH=" + filepath.Join(d, "nocuda"), "LD_LIBRARY_PATH=" + filepath.Join(d, "fakecuda")
}
