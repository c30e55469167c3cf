package cuda

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gpuc/backends/runtime"
)

// fakeCUDA runs the CUDA prelude's host side without a GPU: device
// memory is host memory and copies are immediate, so a copy into a
// page-locked chunk that is still to be written would show in the
// output. main allocates a ring for the most bytes of its first argument,
// writes a device buffer of each size on the rest of its command line and
// prints the number of copies to standard error.
const fakeCUDA = `
const char *cudaGetErrorString(cudaError_t) { return "fake"; }
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int) { *p = malloc(n); return *p ? cudaSuccess : (cudaError_t)2; }
cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = nullptr; return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
static long long copies = 0;
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind, cudaStream_t) {
  memcpy(dst, src, n);
  copies++;
  return cudaSuccess;
}
static void gpuc_check_device_error(void) {}
int main(int argc, char **argv) {
  gpuc_write_init((size_t)atoll(argv[1]));
  for (int a = 2; a < argc; a++) {
    const long long n = atoll(argv[a]);
    gpuc_dev<unsigned char> text = {(unsigned char *)malloc(n + 1), n, "text"};
    for (long long i = 0; i < n; i++) text.ptr[i] = (unsigned char)('a' + (i / 7 + i % 5) % 26);
    copies = 0;
    gpuc_write(text, n, "t.kir:1:1");
    fprintf(stderr, "%lld\n", copies);
    free(text.ptr);
  }
  return 0;
}
`

// TestWriteDevice checks the CUDA runtime's write of a device buffer
// (Note [Writing from the device] in gpuc_device.h) on a fake device:
// the bytes, in order, for sizes around the chunk of page-locked memory
// and past the ring, each chunk copied once, for a ring of two chunks and
// one of the most (Note [A ring as deep as the text]).
func TestWriteDevice(t *testing.T) {
	gxx, stub := gxxStub(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "write.cpp")
	if err := os.WriteFile(src, []byte(runtime.Header+"\n"+prelude+"\n"+runtime.Device+"\n"+fakeCUDA), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "write")
	if out, err := exec.Command(gxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-x", "c++", "-include", stub, src, "-o", bin).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	const chunk = 1 << 21 // gpuc_write_chunk
	sizes := []int{0, 1, chunk - 1, chunk, chunk + 1, 2 * chunk, 3*chunk + 3, 9*chunk + 5}
	for _, most := range []int{0, 3 * chunk, 64 * chunk} {
		args := []string{strconv.Itoa(most)}
		var want bytes.Buffer
		var copies []string
		for _, n := range sizes {
			args = append(args, strconv.Itoa(n))
			for i := 0; i < n; i++ {
				want.WriteByte(byte('a' + (i/7+i%5)%26))
			}
			copies = append(copies, strconv.Itoa((n+chunk-1)/chunk))
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("ring for %d bytes: %v\n%s", most, err, stderr.String())
		}
		if !bytes.Equal(stdout.Bytes(), want.Bytes()) {
			t.Errorf("ring for %d bytes: wrote %d bytes, want %d, or different bytes", most, stdout.Len(), want.Len())
		}
		if got, want := strings.Fields(stderr.String()), copies; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("ring for %d bytes: copies for sizes %v: %v, want %v", most, sizes, got, want)
		}
	}
}

// TestStagesBeforeClock checks that a program allocates the page-locked
// buffers of its read-backs and of its writes of device buffers before
// the clock starts, and only where its host program has them.
func TestStagesBeforeClock(t *testing.T) {
	cu, _ := emit(t, "testdata/write.kir")
	checkFact(t, cu, fact{`(?s)gpuc_write_init\(\(size_t\)\(long long\)text\.bytes\(\)\);\n.*cudaEventRecord\(gpuc_start\)`, 1})
	checkFact(t, cu, fact{`gpuc_write\(text, gpuc_add\(N, 1\), "[^"]*write.kir:21:3"\);`, 1})
	minimal, _ := emit(t, "testdata/minimal.kir")
	checkFact(t, minimal, fact{`gpuc_write_init\(|gpuc_read_init\(\);`, 0})
	checkFact(t, cu, fact{`gpuc_read_init\(\);`, 0})
	host, _ := emit(t, "testdata/host.kir")
	checkFact(t, host, fact{`(?s)gpuc_read_init\(\);\n.*cudaEventRecord\(gpuc_start\)`, 1})
	checkFact(t, host, fact{`gpuc_write_init\(`, 0})
}
