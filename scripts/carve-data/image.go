package main

import (
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"sync"
)

// match is a header found at an offset.
type match struct {
	offset int64
	id     int
}

// makeImage returns n random bytes with header p % len(sigs) planted at
// a random offset in [p*gap, (p+1)*gap) for every p that fits, and the
// planted matches. The offsets are random so that the processors of
// carve.fork, which take every PROCS-th position, share the matches.
func makeImage(sigs [][]int, n, gap int64, seed uint64) ([]byte, []match, error) {
	longest := 0
	for _, s := range sigs {
		longest = max(longest, len(s))
	}
	if gap <= int64(longest) {
		return nil, nil, fmt.Errorf("image: -gap %d is not more than the longest header, %d bytes", gap, longest)
	}
	data := make([]byte, n)
	parallel(n, func(lo, hi int64) {
		for i := lo &^ 7; i < hi; i += 8 {
			w := splitmix(seed ^ uint64(i/8)*0x9e3779b97f4a7c15)
			for j := int64(0); j < 8; j++ {
				if i+j >= lo && i+j < hi {
					data[i+j] = byte(w >> (8 * j))
				}
			}
		}
	})
	var planted []match
	for p := int64(0); ; p++ {
		id := int(p % int64(len(sigs)))
		at := p*gap + int64(splitmix(^seed^uint64(p))%uint64(gap-int64(longest)))
		if at+int64(len(sigs[id])) > n {
			return data, planted, nil
		}
		for j, b := range sigs[id] {
			if b != anyByte {
				data[at+int64(j)] = byte(b)
			}
		}
		planted = append(planted, match{at, id})
	}
}

// splitmix is the SplitMix64 finaliser, a good hash of a 64-bit word.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// scan finds every match of every header in data, sorted by offset and
// then id. Each header is looked for where data holds its first fixed
// byte, so that headers starting with any byte cost no more than others.
func scan(data []byte, sigs [][]int) []match {
	type cand struct{ id, off int }
	var byFirst [256][]cand
	for id, s := range sigs {
		for off, b := range s {
			if b != anyByte {
				byFirst[b] = append(byFirst[b], cand{id, off})
				break
			}
		}
	}
	var out []match
	var mu sync.Mutex
	parallel(int64(len(data)), func(lo, hi int64) {
		var found []match
		for i := lo; i < hi; i++ {
			for _, c := range byFirst[data[i]] {
				if at := i - int64(c.off); at >= 0 && matches(data, at, sigs[c.id]) {
					found = append(found, match{at, c.id})
				}
			}
		}
		mu.Lock()
		out = append(out, found...)
		mu.Unlock()
	})
	sort.Slice(out, func(i, j int) bool {
		return out[i].offset < out[j].offset || out[i].offset == out[j].offset && out[i].id < out[j].id
	})
	return out
}

func matches(data []byte, i int64, sig []int) bool {
	if i+int64(len(sig)) > int64(len(data)) {
		return false
	}
	for j, b := range sig {
		if b != anyByte && int(data[i+int64(j)]) != b {
			return false
		}
	}
	return true
}

// checkPlanted checks that every planted header is among the matches
// found.
func checkPlanted(planted, found []match) error {
	have := make(map[match]bool, len(found))
	for _, m := range found {
		have[m] = true
	}
	for _, p := range planted {
		if !have[p] {
			return fmt.Errorf("image: header %d planted at %d is not found", p.id, p.offset)
		}
	}
	return nil
}

// formatMatches prints matches as carve.fork does.
func formatMatches(ms []match) []byte {
	var out []byte
	for _, m := range ms {
		out = strconv.AppendInt(out, m.offset, 10)
		out = append(out, ' ')
		out = strconv.AppendInt(out, int64(m.id), 10)
		out = append(out, '\n')
	}
	return out
}

// chunkSize is the share of n that parallel gives each piece of work.
func chunkSize(n int64) int64 { return max(1<<16, (n+255)/256) }

// parallel runs f on consecutive chunks [lo, hi) of 0..n on every core.
func parallel(n int64, f func(lo, hi int64)) {
	size := chunkSize(n)
	work := make(chan int64)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo := range work {
				f(lo, min(lo+size, n))
			}
		}()
	}
	for lo := int64(0); lo < n; lo += size {
		work <- lo
	}
	close(work)
	wg.Wait()
}
