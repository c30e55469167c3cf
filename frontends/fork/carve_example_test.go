package fork_test

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// carveSigs is the header table of examples/fork/carve.fork, read from its
// initializer: each header's length, then its bytes (256: any byte),
// ended by 0.
var carveSigs = func() [][]int {
	src, err := os.ReadFile("../../examples/fork/carve.fork")
	if err != nil {
		panic(err)
	}
	init := regexp.MustCompile(`(?s)sigs\[\] = \{(.*?)\};`).FindSubmatch(src)
	if init == nil {
		panic("carve.fork: no sigs initializer")
	}
	var vals []int
	for _, line := range strings.Split(string(init[1]), "\n") {
		line, _, _ = strings.Cut(line, "//")
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' }) {
			v, err := strconv.ParseInt(f, 0, 32)
			if err != nil {
				panic(err)
			}
			vals = append(vals, int(v))
		}
	}
	var sigs [][]int
	for k := 0; vals[k] != 0; k += vals[k] + 1 {
		sigs = append(sigs, vals[k+1:k+1+vals[k]])
	}
	return sigs
}()

// carveWant makes carve.fork's image, noise with a header planted every
// GAP bytes, and lists the matches of every header, sorted.
func carveWant(p map[string]int64) string {
	n, gap := p["N"], p["GAP"]
	data := make([]byte, n)
	for i := range data {
		x := uint64(i) * 0x9e3779b97f4a7c15
		x ^= x >> 29
		x *= 0xbf58476d1ce4e5b9
		x ^= x >> 32
		data[i] = byte(x)
	}
	for q := int64(0); q*gap+64 <= n; q++ {
		for j, b := range carveSigs[q%int64(len(carveSigs))] {
			if b != 256 {
				data[q*gap+int64(j)] = byte(b)
			}
		}
	}
	var out strings.Builder
	for i := range data {
		for id, sig := range carveSigs {
			if matchAt(data, i, sig) {
				fmt.Fprintf(&out, "%d %d\n", i, id)
			}
		}
	}
	return out.String()
}

func matchAt(data []byte, i int, sig []int) bool {
	if i+len(sig) > len(data) {
		return false
	}
	for j, b := range sig {
		if b != 256 && int(data[i+j]) != b {
			return false
		}
	}
	return true
}
