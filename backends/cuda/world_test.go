package cuda

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gpuc/backends/runtime"
	"gpuc/frontends/kir"
	"gpuc/internal/irtest"
)

// worldPrograms are the world programs (Note [World on NVSHMEM]) that
// must compile: testdata/world and the .kir frontend's world test.
func worldPrograms(t *testing.T) []string {
	t.Helper()
	return append(irtest.Glob(t, "testdata/world/*.kir"), "../../frontends/kir/testdata/world.kir")
}

// TestWorldCompilesAsCPlusPlus checks the world programs with g++ against
// the stubs of CUDA's and NVSHMEM's declarations, on both sides of the
// __host__ __device__ helpers, as TestCompilesAsCPlusPlus does.
func TestWorldCompilesAsCPlusPlus(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not found")
	}
	cudaStub, _ := filepath.Abs("testdata/cuda_stub.h")
	shmemStub, _ := filepath.Abs("testdata/nvshmem_stub.h")
	dir := t.TempDir()
	for _, path := range worldPrograms(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".kir")
		_, whole := emit(t, path)
		cu := irtest.WriteFile(t, dir, name+".cu", whole)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, side := range []string{"-U__CUDA_ARCH__", "-D__CUDA_ARCH__=900"} {
				cmd := exec.Command(gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
					side, "-x", "c++", "-include", cudaStub, "-include", shmemStub, cu)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("g++ %s %s: %v\n%s", side, cu, err, out)
				}
			}
		})
	}
}

// TestWorldFacts checks how the world's constructs are lowered.
func TestWorldFacts(t *testing.T) {
	module, whole := emitUnchecked(t, "testdata/world/spread.kir")
	for _, f := range []fact{
		// The build line names NVSHMEM; the runtime is pasted in.
		// Built whole, in one nvcc run (Note [A world built whole]); no
		// device code calls NVSHMEM.
		{`(?m)^//        nvcc -O3 -arch=sm_90 -o spread spread\.cu -I\$NV/include -L\$NV/lib -l:libnvshmem_host\.so\.3 -lnvshmem_device -Xlinker -rpath,\$NV/lib$`, 1},
		{`(?m)^// nvcc world flags: -I\$NV/include -L\$NV/lib -l:libnvshmem_host\.so\.3 -lnvshmem_device -Xlinker -rpath,\$NV/lib$`, 1},
		{`-rdc|nvshmemx_collective_launch|nvshmem_barrier_all\(\);\n\s*gpuc_world_wait`, 0},
		// The world barrier in a kernel is gpuc's own (Note [The world
		// barrier in a kernel]), its words after the pool's buffers.
		{`atomicAdd_system\(gpuc_peer\(words, 0\) \+ GPUC_WORLD_ARRIVED, 1ULL\)`, 1},
		{`pool = \(unsigned char \*\)nvshmem_malloc\(sync_at \+ GPUC_WORLD_SYNC_BYTES\);`, 1},
		{`struct gpuc_world_shared`, 1},
		// One process per device, after the command line is read, and
		// DEVICES read after it sets it (Note [DEVICES after the command
		// line]): never an argument beside the call that parses it.
		{`const bool gpuc_args = gpuc_parse_args\(argc, argv, gpuc_params, 3, gpuc_buffers, 6, "spread"\);\n\s*const bool gpuc_time = gpuc_world_start\(gpuc_args, \(long long\)DEVICES\);`, 1},
		{`gpuc_world_start\(gpuc_parse_args`, 0},
		// Fitted parameters take the least free memory of any device.
		{`free_bytes = gpuc_world_free_memory\(\);`, 1},
		{`gpuc_free_memory\(\)`, 0},
		// A distributed buffer takes its block in the pool and in the fit.
		{`gpuc_blk_in = gpuc_world_block\(in\.len\);`, 1},
		{`gpuc_pool_bytes = gpuc_pool_add\(gpuc_pool_bytes, \(size_t\)gpuc_blk_in \* sizeof\(int\)\);`, 1},
		{`n = gpuc_add_bytes\(n, gpuc_world_block\(\(long long\)N\), sizeof\(int\)\);`, 1},
		// NVSHMEM starts before the clock with the pool's size; the pool
		// is on the symmetric heap, allocated before the clock and
		// zeroed inside it, as today's program's.
		{`(?s)gpuc_world_init\(gpuc_pool_bytes\);\n.*unsigned char \*gpuc_pool = gpuc_world_pool\(gpuc_pool_bytes\);\n.*cudaEventRecord\(gpuc_start\).*gpuc_world_pool_zero\(gpuc_pool, gpuc_pool_bytes\);`, 1},
		{`cudaMalloc\(|cudaFree\(gpuc_pool\)`, 0},
		{`GPUC_CUDA\(cudaMemcpyToSymbol\(gpuc_dblk_in, &gpuc_blk_in, sizeof gpuc_blk_in\)\);\n.*gpuc_world_local32\(gpuc_blk_in, in\.len\).*\n.*gpuc_dlen_in.*\n\s*gpuc_dist_fill\(in, gpuc_blk_in, gpuc_in_in\);`, 1},
		{`gpuc_dist_fill\(weights, gpuc_blk_weights, gpuc_init_weights\);`, 1},
		// Device code indexes distributed buffers globally, remote
		// atomics included.
		{`gpuc_atomic_add_agg<unsigned, true>\(\(unsigned \*\)&gpuc_dist32\(hist, \(int\)\(x % 16\), gpuc_dlim_hist, gpuc_dblk_hist\), \(unsigned\)1u\);`, 1},
		{`gpuc_dist32\(in, \(int\)i, gpuc_dlim_in, gpuc_dblk_in\) = gpuc_add\(gpuc_dist32\(in, \(int\)i, gpuc_dlim_in, gpuc_dblk_in\), 1\);`, 1},
		{`part\[i\] = `, 1},
		// A world launch runs this device's blocks, with bid() global;
		// its grid barriers are world barriers.
		{`count\(int n, int \*in, const int \*__restrict__ weights, unsigned \*hist, long long \*part, \[\[maybe_unused\]\] int gpuc_b0, \[\[maybe_unused\]\] int gpuc_gdim\)`, 2},
		{`int i = \(int\)\(\(blockIdx\.x \+ gpuc_b0\) \* blockDim\.x \+ threadIdx\.x\);`, 1},
		{`const long long gpuc_b0 = gpuc_world_blocks\(gpuc_grid_all\), gpuc_grid = gpuc_world_grid\(gpuc_grid_all, true\);`, 1},
		{`gpuc_launch_coop\(count, gpuc_grid, gpuc_block, 0, N, in\.ptr, weights\.ptr, hist\.ptr, part\.ptr, \(int\)gpuc_b0, \(int\)gpuc_grid_all\);`, 1},
		{`gpuc_world_sync\(\);`, 2},
		{`gpuc_grid_sync\(\);`, 0},
		// A launch that is not world runs whole, with the kernel's own
		// geometry and no more arguments.
		{`GPUC_LAUNCH\(local, gpuc_grid, gpuc_block, 0\)\(seen\.ptr\);`, 1},
		{`seen\[0\] = gpuc_num_devs;`, 1},
		// Host collectives.
		// world_barrier, unless a collective follows; one after the
		// buffers are filled; a world launch starts and ends with one,
		// and device 0 fetches the outputs after one.
		{`gpuc_world_barrier\(\);`, 5},
		{`// world_barrier: the collective that follows holds one\n\s*gpuc_world_allgather\(part\);`, 1},
		{`gpuc_world_barrier\(\);\n\s*gpuc_dist_copy\(in, gpuc_blk_in, 0, back, 0, 1, 2, `, 1},
		{`gpuc_world_barrier\(\); // every device's buffers are filled\n\n\s*main_\(\);`, 1},
		{`gpuc_world_barrier\(\); // a world launch starts with a world barrier\n\s*\{\n\s*const long long gpuc_grid_all`, 1},
		// A cooperative world launch ends with one in its cooperative
		// branch (Note [World barriers that repeat]).
		{`gpuc_world_barrier\(\); // and ends with one\n\s*\} else \{\n\s*gpuc_fail\("cooperative launch`, 1},
		{`gpuc_world_allgather\(part\);`, 1},
		// A value read back has drained the stream; a comparison of
		// one has not (Note [A reduction after a read-back]).
		{`total = gpuc_world_allreduce<long long>\(GPUC_WORLD_ADD, part\.get\([^;]*\), true\);`, 1},
		{`most = gpuc_world_allreduce<unsigned>\(GPUC_WORLD_MAX, gpuc_dist_get\(hist, gpuc_blk_hist, 3, "[^"]*"\), true\);`, 1},
		{`any = gpuc_world_allreduce<bool>\(GPUC_WORLD_OR, `, 1},
		{`any = gpuc_world_allreduce<bool>\(GPUC_WORLD_OR, .*, true\);`, 0},
		// Host accesses and copies of distributed buffers.
		{`gpuc_dist_copy\(back, 0, 0, in, gpuc_blk_in, 0, N, "[^"]*"\);`, 1},
		{`gpuc_dist_copy\(in, gpuc_blk_in, 0, back, 0, 1, 2, "[^"]*"\);`, 1},
		{`gpuc_dist_set\(in, gpuc_blk_in, gpuc_sub\(N, 1\), \(int\)gpuc_add\(back\.at\(0, "[^"]*"\), 1000\), "[^"]*"\);`, 1},
		// Outputs: every device's work is done before device 0 fetches.
		{`gpuc_world_barrier\(\);\n\s*GPUC_CUDA\(cudaDeviceSynchronize\(\)\);\n\s*unsigned \*const gpuc_out_hist = gpuc_dist_fetch\(hist, gpuc_blk_hist\);\n\s*long long \*const gpuc_out_part = gpuc_fetch\(part\);`, 1},
		{`gpuc_world_end\(\);`, 1},
	} {
		text := module
		if strings.Contains(f.re, "rdc") || strings.Contains(f.re, "gpuc_world_shared") || strings.Contains(f.re, "NV") || strings.Contains(f.re, "GPUC_WORLD") {
			text = whole
		}
		checkFact(t, text, f)
	}
}

// TestWorldOnlyWithDevices checks that only modules with DEVICES get the
// world's program: the others, world constructs or not, are today's
// programs, with no NVSHMEM in them, and their world constructs take
// their one-device meaning.
func TestWorldOnlyWithDevices(t *testing.T) {
	for _, path := range programs(t) {
		_, whole := emit(t, path)
		checkFact(t, whole, fact{`nvshmem|gpuc_world|-rdc`, 0})
	}
	module, whole := emitUnchecked(t, "testdata/world/one.kir")
	checkFact(t, whole, fact{`nvshmem|gpuc_world|gpuc_dist|-rdc`, 0})
	for _, f := range []fact{
		{`cells\[i\] = gpuc_add\(table\[0\], gpuc_mul\(0, 1\)\);`, 1},
		{`(?m)^__global__ void __launch_bounds__\(256\) fill\(int n, long long \*part, int \*cells, const int \*__restrict__ table\) \{$`, 1},
		{`gpuc_grid_sync\(\);`, 1},
		{`total = part\.get\(`, 1},
		{`allgather|world_barrier`, 0},
	} {
		checkFact(t, module, f)
	}
}

// TestWorldGolden keeps the host side of a world program whole.
func TestWorldGolden(t *testing.T) {
	module, _ := emitUnchecked(t, "testdata/world/spread.kir")
	i := strings.Index(module, "\nvoid main_() {")
	if i < 0 {
		t.Fatal("no main_ in the program")
	}
	irtest.GoldenFile(t, "testdata/world/spread.golden", module[i+1:])
}

// TestWorldRejects checks the world programs that the backend refuses:
// the LLVM backend's host programs run on one device, as its kernels do
// (abi.WorldConstructs), but for the CPU's, whose devices are its worker
// threads and share one memory (abi.ThreadWorldConstructs).
func TestWorldRejects(t *testing.T) {
	m, err := kir.Parse("w.kir", []byte("module w;\nparam DEVICES: i32 = 2;\nhost main() { }\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Emit(m, Options{Device: DriverAPI, PTX: []byte(fakePTX)})
	if err == nil || !strings.Contains(err.Error(), "w.kir:2:1: error: llvm: parameter DEVICES belongs to a world of several devices") {
		t.Errorf("driver API: got %v", err)
	}
	if _, err := Emit(m, Options{Device: CPU}); err != nil {
		t.Errorf("CPU: %v", err)
	}
	shared, err := kir.Parse("s.kir", []byte(`module s;
param DEVICES: i32 = 2;
buffer x: i32[512] symmetric scratch;
buffer g: i32[512] global scratch;
kernel k() { g[gid()] = device_id(); }
host main() {
  launch k() grid 2 block 256 world;
  allgather x;
  var v: i32 = 0;
  v = allreduce(add, 1);
}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Emit(shared, Options{Device: CPU})
	for _, want := range []string{
		"s.kir:3:1: error: cuda: symmetric buffer x on the host's threads",
		"s.kir:4:1: error: cuda: global buffer g, which device code writes",
		"s.kir:8:3: error: cuda: allgather on the host's threads",
		"s.kir:10:3: error: cuda: allreduce on the host's threads",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CPU: got %v, want %q", err, want)
		}
	}
	if _, err := Emit(m, Options{Respec: &Respec{}}); err == nil || !strings.Contains(err.Error(), "run-time specialization") {
		t.Errorf("respec: got %v", err)
	}
}

// TestWorldHost runs world.h's host side on the CPU (testdata/world/
// host.cpp): the fork, output from device 0 only, allreduce in device
// order, the least free memory, and errors ending the world with the
// failing device's status and message, once.
func TestWorldHost(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not found")
	}
	stub, _ := filepath.Abs("testdata/cuda_stub.h")
	shmem, _ := filepath.Abs("testdata/nvshmem_stub.h")
	dir := t.TempDir()
	src := runtime.Header + "\n" + prelude + "\n" + runtime.Device + "\n" + worldRuntimeText() + "\n" + irtest.ReadFile(t, "testdata/world/host.cpp")
	file := irtest.WriteFile(t, dir, "host.cpp", src)
	exe := filepath.Join(dir, "host")
	if out, err := exec.Command(gxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function",
		"-include", stub, "-include", shmem, "-o", exe, file).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	tests := []struct {
		k, what        string
		stdout, stderr string
		status         int
	}{
		// sum over i < 1000 of (0+i) + (1+i) + (2+i) = 3*499500 + 3000;
		// 100*3 wraps to 44 in a signed char; 0.1+0.2+0.3 in device order.
		{"3", "ok", "device 0 of 3: 1501500 20 5 1 44 0.60000000000000009 1 GiB, blocks 0-4, part 512\n", "", 0},
		{"1", "ok", "device 0 of 1: 499500 0 7 0 100 0.10000000000000001 1 GiB, blocks 0-10, part 1000\n", "", 0},
		// 2 blocks on 3 devices: the third runs an idle block 2 in a
		// cooperative launch, none otherwise.
		{"3", "coop", "coop: 3 blocks, the last from 2; plain: 2 blocks\n", "", 0},
		// gpuc_dist's owner without a division (Note [World accesses]).
		{"1", "dist", "dist: 5 accesses\n", "", 0},
		{"4", "dist", "dist: 80 accesses\n", "", 0},
		// --time on a world: device 0 prints every device's kernel time
		// and its own host's counts; a world of one prints nothing.
		{"3", "profile", "", "gpuc: world: kernels by device 0.000 ms, 0.000 ms, 0.000 ms; a device's host: 2 stream barriers, 5 read-backs\n", 0},
		{"1", "profile", "", "", 0},
		{"3", "fail1", "device 0 before\n", "error: device 1 failed alone\n", 1},
		{"2", "fail0", "device 0 before\n", "error: device 0 failed alone\n", 1},
		{"4", "all", "device 0 before\n", "error: every device raised\n", 1},
		{"2", "exit3", "device 0 before\n", "", 3},
		// Each device's process sees its GPU alone (gpuc_only_gpu), where
		// the user leaves CUDA_VISIBLE_DEVICES unset: one the machine
		// lacks fails, and the others are stopped after the grace period.
		{"3", "few", "device 0 before\n", "error: DEVICES=3: this machine has no GPU 2\n", 1},
		{"3", "fewseen", "", "error: DEVICES=3: this machine has 2 GPUs\n", 1},
		{"3", "gpus", "gpus: 3 alone, 0 in the user's list, of 3\n", "", 0},
		{"3", "gpusseen", "gpus: 0 alone, 3 in the user's list, of 3\n", "", 0},
		// The parent ends as every device reports its exit status, not
		// when the process ends (Note [A world's start and exit]).
		{"2", "linger", "", "", 0},
		// With --time the parent says when each process reached each
		// point of its start and exit (Note [A world's start and exit]).
		{"2", "startup", "", `re:gpuc: start \(the parent\), ms after the process started: libraries loaded -?\d+\.\d, constructors -?\d+\.\d, main -?\d+\.\d, fork -?\d+\.\d
gpuc: device 0, ms after the process started: fork -?\d+\.\d, CUDA -?\d+\.\d, context -?\d+\.\d, reported -?\d+\.\d, ended -?\d+\.\d
gpuc: device 1, ms after the process started: fork -?\d+\.\d, CUDA -?\d+\.\d, context -?\d+\.\d, reported -?\d+\.\d, ended -?\d+\.\d
`, 0},
		{"0", "ok", "", "error: DEVICES=0: want 1 to 64 devices\n", 1},
		// Which program a world program that carries the one-device
		// program runs (Note [A world of one runs the one-device
		// program]), DEVICES=1 taken out for the one-device program.
		{"1", "ofone", "1 p N=3;1 p N=3;0 p DEVICES=2;0 p DEVICES=1x;0 p --help;1 p N=3 WX=1;\n", "", 0},
		{"2", "ofone", "0 p N=3;1 p N=3;0 p DEVICES=2;0 p DEVICES=1x;0 p --help;0 p W=2 N=3 WX=1;\n", "", 0},
		{"1", "ofworld", "0 p N=3;0 p DEVICES=1 N=3;0 p DEVICES=2;0 p DEVICES=1x;0 p --help;0 p W=2 N=3 WX=1;\n", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.k+"-"+tt.what, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(exe, tt.k, tt.what)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			if tt.what == "linger" && time.Since(start) > 2*time.Second {
				t.Errorf("./host %s linger: %v; the parent waited for the processes' ends", tt.k, time.Since(start))
			}
			status := 0
			if ee, ok := err.(*exec.ExitError); ok {
				status = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			stderrOK := stderr.String() == tt.stderr
			if re, ok := strings.CutPrefix(tt.stderr, "re:"); ok {
				stderrOK = regexp.MustCompile(`\A` + re + `\z`).MatchString(stderr.String())
			}
			if status != tt.status || stdout.String() != tt.stdout || !stderrOK {
				t.Errorf("./host %s %s: status %d, stdout %q, stderr %q; want %d, %q, %q",
					tt.k, tt.what, status, stdout.String(), stderr.String(), tt.status, tt.stdout, tt.stderr)
			}
		})
	}
}

// TestWorldBarriersRepeat checks that no world barrier follows another
// with nothing between them that touches a device (Note [World barriers
// that repeat]): the fallback of a cooperative world launch starts after
// the launch's barrier, through a declaration that reads no memory, and
// ends with its last world launch's; the cooperative branch ends with one.
func TestWorldBarriersRepeat(t *testing.T) {
	module, _ := emitUnchecked(t, "testdata/world/trs.kir")
	for _, f := range []fact{
		{`\} else \{\n\s*long long procs_15 = \(long long\)gpuc_mul\(gpuc_world\.size, w\);\n\s*\{\n\s*const long long gpuc_grid_all`, 1},
		{`gpuc_world_barrier\(\);[^\n]*\n\s*(\}\n\s*)*gpuc_world_barrier\(\);`, 0},
		{`gpuc_launch_coop\(main_coop3, [^\n]*\n(\s*[^\n]*\n){4}\s*gpuc_world_barrier\(\); // and ends with one\n\s*\} else \{`, 1},
		// Each world launch of the fallback ends with one, and the loop
		// comes back to host reads, after which a launch needs its own.
		{`GPUC_LAUNCH\(main_r1_k[123], [^\n]*\n(\s*[^\n]*\n){6}\s*gpuc_world_barrier\(\); // and ends with one`, 3},
		{`int w = [^\n]*\n\s*gpuc_world_barrier\(\); // a world launch starts with a world barrier`, 1},
	} {
		checkFact(t, module, f)
	}
	module, _ = emitUnchecked(t, "testdata/world/repeat.kir")
	for _, f := range []fact{
		{`// world_barrier: the one before still holds`, 1},
		{`gpuc_world_barrier\(\); // a world launch starts with a world barrier`, 2},
		{`int r = gpuc_dist_get\(a, [^\n]*\n\s*gpuc_world_barrier\(\); // a world launch starts`, 1},
		{`gpuc_world_barrier\(\); // and ends with one`, 3},
	} {
		checkFact(t, module, f)
	}
	// A loop of world launches entered and left after one: the first
	// launch starts with a barrier, the first loop's and the launch after
	// it do not; the second loop, whose body ends in a read, starts its
	// launch with one, and the launch after it too.
	module, _ = emitUnchecked(t, "testdata/world/repeatloop.kir")
	for _, f := range []fact{
		{`gpuc_world_barrier\(\); // a world launch starts with a world barrier`, 3},
		{`for \(int j = 0; j < S; j = gpuc_add\(j, 1\)\) \{\n\s*\{`, 1},
		{`for \(int j = 0; j < S; j = gpuc_add\(j, 1\)\) \{\n\s*gpuc_world_barrier\(\); // a world launch starts`, 1},
		{`int r = gpuc_dist_get\(a, [^\n]*\n(\s*[^\n]*\n){0,2}\s*\}\n\s*gpuc_world_barrier\(\); // a world launch starts`, 1},
		{`gpuc_world_barrier\(\); // and ends with one`, 6},
	} {
		checkFact(t, module, f)
	}
}

// TestWorldBlockConstants checks that distributed buffers of one length
// share a block constant on the device, each keeping its own on the host
// (Note [One block constant a length]).
func TestWorldBlockConstants(t *testing.T) {
	module, _ := emitUnchecked(t, "testdata/world/blocks.kir")
	for _, f := range []fact{
		{`__constant__ long long gpuc_dblk_`, 2},
		{`(?m)^__constant__ long long gpuc_dblk_a;$`, 1},
		{`(?m)^__constant__ long long gpuc_dblk_c;$`, 1},
		{`(?m)^static long long gpuc_blk_b; // distributed b: elements per device$`, 1},
		{`gpuc_dblk_b`, 0},
		{`(?m)^__constant__ unsigned gpuc_dlim_a;$`, 1},
		{`gpuc_dlim_b`, 0},
		// 32-bit indices take gpuc_dist32 (Note [A world's hot path in 32 bits]).
		{`gpuc_dist32\(b, \(int\)i, gpuc_dlim_a, gpuc_dblk_a\) = gpuc_mul\(gpuc_dist32\(a, \(int\)i, gpuc_dlim_a, gpuc_dblk_a\), 2\);`, 1},
		{`gpuc_dist32\(c, \(int\)\(i / 4\), gpuc_dlim_c, gpuc_dblk_c\)`, 1},
		{`gpuc_dist\(`, 0},
		{`GPUC_CUDA\(cudaMemcpyToSymbol\(gpuc_dlim_a, &gpuc_lim, sizeof gpuc_lim\)\);`, 2},
		{`(?m)^__constant__ long long gpuc_dlen_a;$`, 1},
		{`GPUC_CUDA\(cudaMemcpyToSymbol\(gpuc_dblk_a, &gpuc_blk_b, sizeof gpuc_blk_b\)\);`, 1},
		{`gpuc_blk_b = gpuc_world_block\(b\.len\);`, 1},
	} {
		checkFact(t, module, f)
	}
}

// TestWorldChecksOnTheRemotePath checks that a checked access with a
// 32-bit index checks it on gpuc_dist32c's remote path only, against the
// length in constant memory (Note [A world's hot path in 32 bits]), and
// that the program compiles with the checks.
func TestWorldChecksOnTheRemotePath(t *testing.T) {
	module, _ := emit(t, "testdata/world/blocks.kir")
	for _, f := range []fact{
		// c's index i / 4 is checked (a's and b's are not: i < n < 16;
		// i % 4 would not be, Note [Derived range facts] in backends/abi).
		{`gpuc_dist32c\(c, \(int\)\(i / 4\), gpuc_dlim_c, gpuc_dblk_c, gpuc_dlen_c, [0-9]+\)`, 1},
		{`gpuc_dist32\(b, \(int\)i, gpuc_dlim_a, gpuc_dblk_a\) = `, 1},
		// gpuc_idx's definition and its two calls in gpuc_dist32c, none
		// in the kernel.
		{`gpuc_idx\(`, 3},
		{`gpuc_dist_remote\(p, gpuc_idx\(i, len, id\), block\)`, 1},
		{`GPUC_CUDA\(cudaMemcpyToSymbol\(gpuc_dlen_a, &b\.len, sizeof b\.len\)\);`, 1},
	} {
		checkFact(t, module, f)
	}
}
