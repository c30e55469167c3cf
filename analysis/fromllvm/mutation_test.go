package fromllvm

import (
	"testing"

	"gpuc/analysis/its"
	"gpuc/analysis/termination"
)

// mutantSample are corpus kernels, TRUE in corpus-verdicts.txt, whose loops the mutation test
// stops: a counted loop each, of several shapes, all quick to analyse.
var mutantSample = []string{
	"cuda/gpgpu-sim_ispass2009__BFS__UNDERSCORE.cu",
	"cuda/CppAMP__Convolution__convolution_simple.cu",
	"opencl-standalone/rodinia_2.4__kmeans__kmeans.cl",
	"cuda/CppAMP__MatrixMultiplication__mxm_amp_simple.cu",
	"gpuverify-testsuite/induction_variable.cl",
}

// stopped gives the mutants of sys in which one self-loop stops moving: a transition from a loop
// head back to itself that steps a counter by a constant (k := k + c) keeps k instead. The mutant
// is made only where the transition then changes nothing its guard reads and the guard reads no
// memory: once the loop takes that transition it takes it forever, so for the launches that
// enter it (a counted loop's first iteration) the mutant does not terminate.
func stopped(sys *its.System) []*its.System {
	var out []*its.System
	for ti, t := range sys.Trans {
		if t.From != t.To || len(t.Havoc) > 0 {
			continue
		}
		read := map[string]bool{}
		memory := false
		for _, g := range t.Guard {
			memory = memory || its.HasNondet(g)
			for v := range its.FreeVars(g) {
				read[v] = true
			}
		}
		if memory {
			continue
		}
		for _, k := range its.SortedUpdates(t) {
			b, ok := t.Update[k].(*its.Binary)
			if !ok || (b.Op != its.Add && b.Op != its.Sub) || !read[k] {
				continue
			}
			if r, ok := b.X.(*its.Ref); !ok || r.Var.Name != k {
				continue
			}
			if _, ok := b.Y.(*its.Const); !ok {
				continue
			}
			others := false
			for k2 := range t.Update {
				others = others || (k2 != k && read[k2])
			}
			if others {
				continue
			}
			m := *sys
			m.Trans = append([]its.Transition(nil), sys.Trans...)
			nt := t
			nt.Update = map[string]its.Expr{}
			for k2, e := range t.Update {
				if k2 != k {
					nt.Update[k2] = e
				}
			}
			m.Trans[ti] = nt
			out = append(out, &m)
		}
	}
	return out
}

// TestCorpusMutants stops one counted loop at a time in corpus kernels that are TRUE (their
// translated systems): no mutant may stay TRUE, with or without a condition on the parameters.
func TestCorpusMutants(t *testing.T) {
	var files []string
	for _, f := range corpusKernels(t) {
		for _, s := range mutantSample {
			if corpusName(f) == s {
				files = append(files, f)
			}
		}
	}
	if len(files) != len(mutantSample) {
		t.Fatalf("%d of the %d mutant sample kernels are in the corpus", len(files), len(mutantSample))
	}
	eng, err := termination.NewEngine(termination.Config{})
	if err != nil {
		t.Skipf("no solver: %v", err)
	}
	defer eng.Close()
	total := 0
	for f, tr := range translateAll(files) {
		if tr.err != nil {
			t.Fatal(tr.err)
		}
		for _, sys := range tr.systems {
			for _, m := range stopped(sys) {
				total++
				if r := eng.Analyze(m); r.Verdict == termination.True {
					t.Errorf("%s: a stopped loop is still %s:\n%s", corpusName(f), r.Line(), m)
				} else {
					t.Logf("%s: mutant %s", corpusName(f), r.Line())
				}
			}
		}
	}
	if total < len(files) {
		t.Errorf("%d mutants of %d kernels: the mutation finds too few loops", total, len(files))
	}
}
