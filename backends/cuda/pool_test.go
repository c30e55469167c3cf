package cuda

import "testing"

// TestZeroingSkipsInputs checks that the pool's zeroing leaves out the
// input buffers, which their copies fill whole, and zeroes the rest.
func TestZeroingSkipsInputs(t *testing.T) {
	device, _ := emit(t, "testdata/device.kir")
	checkFact(t, device, fact{`cudaMemsetAsync\(gpuc_pool, 0, gpuc_pool_bytes, 0\)`, 0})
	checkFact(t, device, fact{`cudaMemsetAsync\(gpuc_pool \+ gpuc_at_[a-z0-9_]+, 0, (gpuc_pool_bytes|gpuc_at_[a-z0-9_]+) - gpuc_at_[a-z0-9_]+, 0\)`, -1})
	checkFact(t, device, fact{`cudaMemsetAsync\(gpuc_pool \+ gpuc_at_in,`, 0})
	vecadd, _ := emit(t, "../../examples/kir/vecadd.kir")
	checkFact(t, vecadd, fact{`GPUC_CUDA\(cudaMemsetAsync\(gpuc_pool, 0, gpuc_pool_bytes, 0\)\);`, 1})
}

// TestCoopAskedBeforeClock checks that a program asks how many blocks of
// each cooperative kernel fit, where the block size is a constant, before
// the clock starts, once each.
func TestCoopAskedBeforeClock(t *testing.T) {
	steps, _ := emit(t, "testdata/coop/steps.kir")
	checkFact(t, steps, fact{`(?s)gpuc_coop_per\(clear, 128, 0\);\n\s*gpuc_coop_per\(rotate, 128, 0\);\n.*cudaEventRecord\(gpuc_start\)`, 1})
	checkFact(t, steps, fact{`gpuc_coop_per\(`, 2})
	raise, _ := emit(t, "testdata/coop/raise.kir")
	checkFact(t, raise, fact{`gpuc_coop_per\(`, 0})
}
