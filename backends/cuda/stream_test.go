package cuda

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gpuc/backends/runtime"
)

// fakeStream runs gpuc_stream_input (Note [Streamed input] in prelude.cuh)
// on a fake device: device memory is host memory, and a copy is made only
// when an event recorded after it is waited for or the stream is
// synchronized, so a slot read into again before its copy was waited for
// would show in the bytes. main streams each TYPE:N:FILE argument into a
// fresh block (after gpuc_check_input, with CHECK set), writes the block
// to standard output and the number of copies to standard error, then
// the slots left after gpuc_stage_free, and --time's line of the inputs.
const fakeStream = `
struct CUevent_st { long long upto; };
const char *cudaGetErrorString(cudaError_t) { return "fake"; }
struct fake_copy { void *dst; const void *src; size_t n; };
static std::mutex fake_mu;
static std::vector<fake_copy> fake_queue;
static long long fake_done = 0, copies = 0, slots = 0;
static void fake_run(long long upto) { // makes the copies queued before upto
  for (; fake_done < upto; fake_done++) {
    const fake_copy &c = fake_queue[(size_t)fake_done];
    memcpy(c.dst, c.src, c.n);
  }
}
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int) {
  std::lock_guard<std::mutex> l(fake_mu);
  *p = malloc(n);
  memset(*p, 0x5a, n);
  slots++;
  return *p ? cudaSuccess : (cudaError_t)2;
}
cudaError_t cudaFreeHost(void *p) { std::lock_guard<std::mutex> l(fake_mu); free(p); slots--; return cudaSuccess; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int) { *e = new CUevent_st{0}; return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  std::lock_guard<std::mutex> l(fake_mu);
  e->upto = (long long)fake_queue.size();
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) { std::lock_guard<std::mutex> l(fake_mu); fake_run(e->upto); return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) {
  std::lock_guard<std::mutex> l(fake_mu);
  fake_run((long long)fake_queue.size());
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
cudaError_t cudaSetDevice(int) { return cudaSuccess; }
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind, cudaStream_t) {
  std::lock_guard<std::mutex> l(fake_mu);
  fake_queue.push_back({dst, src, n});
  copies++;
  return cudaSuccess;
}
static void gpuc_check_device_error(void) {}
int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    char *spec = argv[a], *c1 = strchr(spec, ':'), *c2 = strchr(c1 + 1, ':');
    *c1 = *c2 = '\0';
    const gpuc_type t = strcmp(spec, "i64") == 0 ? GPUC_I64 : strcmp(spec, "bool") == 0 ? GPUC_BOOL : GPUC_I32;
    const long long n = atoll(c1 + 1);
    gpuc_buffer_arg b = {"buf", true, c2 + 1};
    const size_t bytes = (size_t)n * gpuc_type_size(t);
    unsigned char *dev = (unsigned char *)malloc(bytes + 1);
    if (getenv("CHECK") != nullptr) gpuc_check_input(&b, t, n);
    gpuc_stream_input(&b, t, n, dev);
    fwrite(dev, 1, bytes, stdout);
    fprintf(stderr, "%lld\n", copies);
    copies = 0;
    free(dev);
  }
  gpuc_stage_free();
  fprintf(stderr, "slots left %lld\n", slots);
  gpuc_report_inputs();
  return 0;
}
`

// TestStreamInput checks the streamed read of input files into the device
// on a fake device: every byte in its place for binary files around the
// chunk's size and over several readers, a pipe, text, and the errors of
// gpuc_read_input for files of the wrong size and bad bool bytes.
func TestStreamInput(t *testing.T) {
	gxx, stub := gxxStub(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "stream.cpp")
	if err := os.WriteFile(src, []byte("#include <mutex>\n#include <vector>\n"+runtime.Header+"\n"+prelude+"\n"+runtime.Device+"\n"+fakeStream), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "stream")
	if out, err := exec.Command(gxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-pthread", "-x", "c++", "-include", stub, src, "-o", bin).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	const chunk = 2 << 20 // gpuc_stage_chunk
	check := false
	run := func(stdin []byte, args ...string) (string, string, error) {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		if check {
			cmd.Env = append(os.Environ(), "CHECK=1")
		}
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	// Binary files of i64 values: sizes around a chunk, and more chunks
	// than readers (4), so that each reader reuses its two slots.
	var args []string
	var want bytes.Buffer
	var copies []string
	for k, n := range []int{0, 1, chunk/8 - 1, chunk / 8, chunk/8 + 1, 9*chunk/8 + 5} {
		data := make([]byte, 8*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint64(data[8*i:], uint64(i*2654435761+k))
		}
		path := filepath.Join(dir, fmt.Sprintf("v%d.bin", k))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, fmt.Sprintf("i64:%d:@%s", n, path))
		want.Write(data)
		copies = append(copies, fmt.Sprint((8*n+chunk-1)/chunk))
	}
	// Text, and the same file through a pipe.
	if err := os.WriteFile(filepath.Join(dir, "t.txt"), []byte("3 -1\n4 1\n5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args = append(args, "i32:5:"+filepath.Join(dir, "t.txt"), "i64:2:@/dev/stdin")
	for _, v := range []int32{3, -1, 4, 1, 5} {
		binary.Write(&want, binary.LittleEndian, v)
	}
	pipe := make([]byte, 16)
	binary.LittleEndian.PutUint64(pipe, 7)
	binary.LittleEndian.PutUint64(pipe[8:], 1<<40)
	want.Write(pipe)
	copies = append(copies, "1", "1", "slots", "left", "0")
	// Streamed, and streamed after gpuc_check_input, which must not read
	// the pipe.
	for _, check = range []bool{false, true} {
		stdout, stderr, err := run(pipe, args...)
		if err != nil {
			t.Fatalf("check %v: %v\n%s", check, err, stderr)
		}
		if stdout != want.String() {
			t.Errorf("check %v: streamed %d bytes, want %d, or different bytes", check, len(stdout), want.Len())
		}
		counts, report, _ := strings.Cut(stderr, "gpuc: input files: ")
		if got := strings.Fields(counts); fmt.Sprint(got) != fmt.Sprint(copies) {
			t.Errorf("check %v: copies: %v, want %v", check, got, copies)
		}
		// Every byte went to the device as it was read.
		if line := fmt.Sprintf("(%.1f MB of it copied to the device as it was read)", float64(want.Len())/1e6); !strings.Contains(report, line) {
			t.Errorf("check %v: the inputs' line %q lacks %q", check, report, line)
		}
	}
	// Errors, as gpuc_read_input gives them, from gpuc_check_input too
	// (but for a pipe's size and bad bools, which only reading finds).
	short := filepath.Join(dir, "short.bin")
	if err := os.WriteFile(short, make([]byte, 12), 0o644); err != nil {
		t.Fatal(err)
	}
	bools := filepath.Join(dir, "bools.bin")
	if err := os.WriteFile(bools, []byte{0, 1, 1, 2, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		stdin []byte
		arg   string
		msg   string
	}{
		{nil, "i64:2:@" + short, short + ": error: 12 bytes for buffer buf of 2 i64 values (16 bytes)"},
		{nil, "bool:5:@" + bools, bools + ": error: byte 3: bool value 2 is not 0 or 1"},
		{make([]byte, 12), "i64:2:@/dev/stdin", "/dev/stdin: error: 12 bytes for buffer buf of 2 i64 values (16 bytes)"},
		{make([]byte, 20), "i64:2:@/dev/stdin", "/dev/stdin: error: 20 bytes for buffer buf of 2 i64 values (16 bytes)"},
		{nil, "i32:4:" + filepath.Join(dir, "t.txt"), "more than 4 values for buffer buf of length 4"},
		{nil, "i64:2:@" + filepath.Join(dir, "none.bin"), "input buffer buf: open " + filepath.Join(dir, "none.bin") + ": No such file or directory"},
	} {
		for _, check = range []bool{false, true} {
			_, stderr, err := run(c.stdin, c.arg)
			if err == nil || !strings.Contains(stderr, c.msg) {
				t.Errorf("%s (check %v): err %v, stderr %q, want %q", c.arg, check, err, stderr, c.msg)
			}
		}
	}
}
