package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"gpuc/internal/irtest"
)

func TestMain(m *testing.M) {
	os.Exit(testscript.RunMain(m, map[string]func() int{
		"gpuc": func() int { return run(os.Args[1:], os.Stdout, os.Stderr) },
	}))
}

// TestScripts runs testdata/script/*.txtar: the real CLI, in process.
// Scripts reach the repository's examples through $EXAMPLES and the shared
// corpus, when it is present, through $CORPUS.
func TestScripts(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(root, "testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *irtest.Update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", filepath.Join(root, "examples"))
			env.Setenv("CORPUS", filepath.Join(root, "..", "shared", "corpus"))
			return nil
		},
	})
}
