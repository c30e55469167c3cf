package fromllvm

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"gpuc/analysis/its"
)

// corpusDir is ../shared/corpus/kernels from the repository root.
const corpusDir = "../../../shared/corpus/kernels"

// corpusKernels lists the corpus kernels, or skips the test where the corpus or clang-16 and
// opt-16 are absent.
func corpusKernels(t *testing.T) []string {
	t.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skipf("corpus absent (%s): %v", corpusDir, err)
	}
	for _, tool := range []string{"clang-16", "opt-16"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	var files []string
	for _, pat := range []string{"*/*.cl", "*/*.cu"} {
		m, _ := filepath.Glob(filepath.Join(corpusDir, pat))
		files = append(files, m...)
	}
	sort.Strings(files)
	return files
}

// corpusName is a kernel's path inside the corpus ("cuda/x.cu").
func corpusName(path string) string {
	rel, _ := filepath.Rel(corpusDir, path)
	return filepath.ToSlash(rel)
}

type translated struct {
	systems []*its.System
	err     error
}

// twoAtATime runs work in two goroutines (CI has two cores), which take
// the files from the channel until it closes.
func twoAtATime(files []string, work func(files <-chan string)) {
	var wg sync.WaitGroup
	ch := make(chan string)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(ch)
		}()
	}
	for _, f := range files {
		ch <- f
	}
	close(ch)
	wg.Wait()
}

// translateAll translates every file, two at a time.
func translateAll(files []string) map[string]translated {
	out := make(map[string]translated, len(files))
	var mu sync.Mutex
	twoAtATime(files, func(work <-chan string) {
		for f := range work {
			ss, err := TranslateFile(f, Options{})
			mu.Lock()
			out[f] = translated{ss, err}
			mu.Unlock()
		}
	})
	return out
}

func loopHeads(s *its.System) int {
	n := 0
	for _, l := range s.Locs {
		if l.LoopHead {
			n++
		}
	}
	return n
}

// TestCorpusTranslates: every corpus kernel compiles, parses and gives well-formed systems;
// the kernels with loops are the 115 that ../shared/TERMINATION.md counts.
func TestCorpusTranslates(t *testing.T) {
	files := corpusKernels(t)
	if len(files) != 148 {
		t.Errorf("corpus has %d kernels, want 148", len(files))
	}
	res := translateAll(files)
	withLoops, loops := 0, 0
	for _, f := range files {
		r := res[f]
		if r.err != nil {
			t.Errorf("%s: %v", corpusName(f), r.err)
			continue
		}
		kernels, heads := 0, 0
		for _, s := range r.systems {
			for _, err := range s.Validate() {
				t.Errorf("%s: %v", corpusName(f), err)
			}
			kernels++
			heads += loopHeads(s)
		}
		if kernels == 0 {
			t.Errorf("%s: no kernel found", corpusName(f))
		}
		if heads > 0 {
			withLoops++
		}
		loops += heads
		if testing.Verbose() {
			t.Logf("%s: %d systems, %d loop heads", corpusName(f), kernels, heads)
		}
	}
	t.Logf("%d kernels, %d with loops, %d loop heads", len(files), withLoops, loops)
	if withLoops != 115 {
		t.Errorf("%d kernels with loops, want 115", withLoops)
	}
	_ = strings.TrimSpace
}
