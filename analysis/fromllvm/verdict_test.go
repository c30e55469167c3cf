package fromllvm

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"gpuc/analysis/termination"
)

var (
	updateVerdicts = flag.Bool("update-verdicts", false, "rewrite testdata/corpus-verdicts.txt from this run")
	corpusAll      = flag.Bool("corpus-all", false, "check every corpus kernel's verdict, not only the sample")
)

// verdictSample are the kernels whose verdicts plain `go test` checks (the whole corpus takes
// minutes: scripts/bench-termination.sh and -corpus-all run it): one of each translation
// feature and of each verdict.
var verdictSample = map[string]string{
	"cuda/gpgpu-sim_ispass2009__BFS__UNDERSCORE.cu":            "bound read from a buffer the kernel never writes",
	"opencl-standalone/AMD_SDK__Reduction.cl":                  "lshr counter from the block size",
	"cuda/CppAMP__Convolution__convolution_simple.cu":          "signed counter from -radius",
	"cuda/CUDA50__0_Simple__simpleMultiGPU__simpleMultiGPU.cu": "grid-stride step blockDim*gridDim wraps to 0",
	"gpuverify-testsuite/nonterminating.cl":                    "while(true)",
	"cuda/gpgpu-sim_ispass2009__NQU___nqueen.cu":               "exit depends on shared memory",
	"opencl-standalone/rodinia_2.4__kmeans__kmeans.cl":         "nested loops",
}

const verdictFile = "testdata/corpus-verdicts.txt"

// kernelVerdict is a file's verdict: FALSE if a system is FALSE, else UNKNOWN if one is, else TRUE.
type kernelVerdict struct {
	verdict termination.Verdict
	reason  string
	ms      float64
	lines   []string
}

func analyzeCorpus(t *testing.T, files []string) map[string]kernelVerdict {
	tr := translateAll(files)
	out := map[string]kernelVerdict{}
	var mu sync.Mutex
	twoAtATime(files, func(work <-chan string) {
		eng, err := termination.NewEngine(termination.Config{})
		if err != nil {
			t.Error(err)
			for range work {
			}
			return
		}
		defer eng.Close()
		for f := range work {
			kv := kernelVerdict{verdict: termination.True}
			r := tr[f]
			if r.err != nil {
				kv = kernelVerdict{verdict: "ERROR", reason: r.err.Error()}
			}
			for _, s := range r.systems {
				start := time.Now()
				res := eng.Analyze(s)
				kv.ms += float64(time.Since(start).Microseconds()) / 1000
				kv.lines = append(kv.lines, res.Line())
				switch {
				case res.Verdict == termination.False:
					kv.verdict, kv.reason = res.Verdict, res.Kernel+": "+res.Reason
				case res.Verdict == termination.Unknown && kv.verdict == termination.True:
					kv.verdict, kv.reason = res.Verdict, res.Kernel+": "+res.Reason
				case res.Verdict == termination.True && res.Condition != "" && kv.verdict == termination.True:
					kv.reason = res.Kernel + ": if " + res.Condition
				}
			}
			mu.Lock()
			out[corpusName(f)] = kv
			mu.Unlock()
		}
	})
	return out
}

// readVerdicts reads "NAME VERDICT  # reason" lines.
func readVerdicts(t *testing.T) map[string]string {
	b, err := os.ReadFile(verdictFile)
	if err != nil {
		t.Fatalf("%v (run with -update-verdicts to create it)", err)
	}
	want := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			t.Fatalf("%s:%d: want NAME VERDICT", verdictFile, i+1)
		}
		if f[1] != "TRUE" && !strings.Contains(line, "#") {
			t.Errorf("%s:%d: %s is %s with no reason", verdictFile, i+1, f[0], f[1])
		}
		want[f[0]] = f[1]
	}
	return want
}

// TestCorpusVerdicts runs the whole corpus through the analysis and compares every kernel's
// verdict with testdata/corpus-verdicts.txt, where each non-TRUE verdict has its reason: in
// short mode the sample, unless -corpus-all (Note [Short mode] in internal/irtest; the
// verdicts do not depend on the machine: Note [Solver work in resource units]).
func TestCorpusVerdicts(t *testing.T) {
	files := corpusKernels(t)
	if testing.Short() && !*corpusAll && !*updateVerdicts {
		var sample []string
		for _, f := range files {
			if _, ok := verdictSample[corpusName(f)]; ok {
				sample = append(sample, f)
			}
		}
		if len(sample) != len(verdictSample) {
			t.Errorf("%d of the %d sample kernels are in the corpus", len(sample), len(verdictSample))
		}
		files = sample
	}
	if _, err := termination.NewEngine(termination.Config{}); err != nil {
		t.Skipf("no solver: %v", err)
	}
	got := analyzeCorpus(t, files)
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	if *updateVerdicts {
		var b strings.Builder
		b.WriteString("# Expected termination verdicts of ../shared/corpus/kernels (gpuc check --termination,\n")
		b.WriteString("# launch facts only, wrap semantics). NAME VERDICT  # reason (every non-TRUE one).\n")
		for _, n := range names {
			kv := got[n]
			fmt.Fprintf(&b, "%s %s", n, kv.verdict)
			if kv.reason != "" {
				fmt.Fprintf(&b, "  # %s", kv.reason)
			}
			b.WriteString("\n")
		}
		if err := os.WriteFile(verdictFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readVerdicts(t)
	for _, n := range names {
		kv := got[n]
		if testing.Verbose() {
			for _, l := range kv.lines {
				t.Logf("%.0f ms %s", kv.ms, l)
			}
		}
		if w, ok := want[n]; !ok {
			t.Errorf("%s: no expected verdict (got %s)", n, kv.verdict)
		} else if w != string(kv.verdict) {
			t.Errorf("%s: got %s (%s), want %s", n, kv.verdict, kv.reason, w)
		}
	}
	if *corpusAll {
		for n := range want {
			if _, ok := got[n]; !ok {
				t.Errorf("%s: expected but not in the corpus", n)
			}
		}
	}
}
