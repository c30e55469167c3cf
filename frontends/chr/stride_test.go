package chr_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/frontends/chr"
	"gpuc/internal/irtest"
	"gpuc/ir"
	"gpuc/ir/interp"
	"gpuc/passes"
)

// TestStridedFixpoint runs every example's strided cooperative kernels
// (Note [Strided cooperative kernels] in passes/grid_stride.go) with the
// race checker on: blocks of 4 threads, 2 of them held at once, and 19
// processors, so each thread runs two or three. The relaunches
// behind the strided launches are cut off, so the store can come only
// from the strided kernels; it must be SWI-Prolog's (.out).
func TestStridedFixpoint(t *testing.T) {
	files := irtest.Glob(t, "../../examples/chr/*.chr")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".chr")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := mustParse(t, name+".chr", irtest.ReadFile(t, f), chr.Options{})
			irtest.RunPasses(t, m, &passes.Config{BlockSize: 4}, "default")
			strided := 0
			for _, fn := range m.Funcs {
				ir.WalkStmts(fn.Body, func(s ir.Stmt) bool {
					if l, ok := s.(*ir.Launch); ok && l.Stride {
						l.Fallback = nil
						strided++
					}
					return true
				})
			}
			if strided == 0 {
				t.Fatal("no strided launch")
			}
			var out bytes.Buffer
			cfg := interp.Config{Stdout: &out, Params: map[string]int64{"PROCS": 19}, CoopThreads: 8, Race: true}
			if err := interp.Run(m, cfg); err != nil {
				t.Fatalf("%v\noutput so far:\n%s", err, out.String())
			}
			if want := irtest.ReadFile(t, strings.TrimSuffix(f, ".chr")+".out"); out.String() != want {
				t.Errorf("strided, PROCS=19 on 8 threads:\n%s\nwant (.out)\n%s", out.String(), want)
			}
		})
	}
}
