package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// anyByte is a header byte that matches any byte, as carve.fork writes it.
const anyByte = 256

// fallback is carve.fork's own table, for machines without the corpus.
var fallback = [][]int{
	{0xff, 0xd8, 0xff}, // JPEG
	{0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a},             // PNG
	{0x47, 0x49, 0x46, 0x38, 0x37, 0x61},                         // GIF87a
	{0x47, 0x49, 0x46, 0x38, 0x39, 0x61},                         // GIF89a
	{0x25, 0x50, 0x44, 0x46, 0x2d},                               // PDF
	{0x50, 0x4b, 0x03, 0x04},                                     // ZIP
	{0x1f, 0x8b, 0x08},                                           // GZIP
	{0x7f, 0x45, 0x4c, 0x46},                                     // ELF
	{0x42, 0x4d, anyByte, anyByte, anyByte, anyByte, 0, 0, 0, 0}, // BMP
	{0x49, 0x49, 0x2a, 0x00},                                     // TIFF, little-endian
	{0x4d, 0x4d, 0x00, 0x2a},                                     // TIFF, big-endian
	{0x52, 0x49, 0x46, 0x46, anyByte, anyByte, anyByte, anyByte, 0x57, 0x41, 0x56, 0x45}, // WAV
	{0x52, 0x49, 0x46, 0x46, anyByte, anyByte, anyByte, anyByte, 0x41, 0x56, 0x49, 0x20}, // AVI
	{0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c},                                                 // 7-Zip
	{0x52, 0x61, 0x72, 0x21, 0x1a, 0x07},                                                 // RAR
	{0x42, 0x5a, 0x68},                                                                   // bzip2
	{0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00},                                                 // XZ
	{0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1},                                     // OLE
	{0xca, 0xfe, 0xba, 0xbe},                                                             // Java class
	{0x49, 0x44, 0x33},                                                                   // MP3 with ID3
	{0x4f, 0x67, 0x67, 0x53},                                                             // Ogg
	{0x66, 0x4c, 0x61, 0x43},                                                             // FLAC
	{0x4d, 0x54, 0x68, 0x64},                                                             // MIDI
	{0x25, 0x21, 0x50, 0x53},                                                             // PostScript
	{0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66, 0x6f, 0x72, 0x6d, 0x61, 0x74, 0x20, 0x33, 0x00}, // SQLite
	{0x7b, 0x5c, 0x72, 0x74, 0x66}, // RTF
	{0x3c, 0x3f, 0x78, 0x6d, 0x6c}, // XML
	{0x00, 0x61, 0x73, 0x6d},       // WebAssembly
	{0x1a, 0x45, 0xdf, 0xa3},       // Matroska
	{0x04, 0x22, 0x4d, 0x18},       // LZ4
	{0x28, 0xb5, 0x2f, 0xfd},       // Zstandard
	{0x38, 0x42, 0x50, 0x53},       // Photoshop
	{0xcf, 0xfa, 0xed, 0xfe},       // Mach-O, 64-bit
	{0x00, 0x00, 0x01, 0xba},       // MPEG program stream
	{0xd4, 0xc3, 0xb2, 0xa1},       // pcap
	{0x77, 0x4f, 0x46, 0x46},       // WOFF
}

// minFixed is the fewest bytes a header must fix: shorter ones match
// random data every few thousand bytes.
const minFixed = 3

// readTSV takes the headers of signatures.tsv (shared/corpus/carving,
// derived from Scalpel's and Foremost's rule tables), active rules and
// disabled ones alike, in table order, once each. It leaves out what is
// not a plain header: the tables' documentation examples (extensions
// XXX and NONE), regular expressions, case-insensitive rules, the
// malformed ones (a stray backslash, or escapes written without one) and
// headers that fix fewer than minFixed bytes.
func readTSV(path string) ([][]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var sigs [][]int
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		cols := strings.Split(sc.Text(), "\t")
		if strings.HasPrefix(cols[0], "#") || cols[0] == "source" || len(cols) < 7 {
			continue
		}
		ext, caseSensitive, header := cols[3], cols[4], cols[6]
		if ext == "XXX" || ext == "NONE" || caseSensitive != "y" {
			continue
		}
		sig, ok := parseHeader(header)
		if !ok || fixed(sig) < minFixed || seen[fmt.Sprint(sig)] {
			continue
		}
		seen[fmt.Sprint(sig)] = true
		sigs = append(sigs, sig)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(sigs) == 0 || len(sigs) > 255 {
		return nil, fmt.Errorf("%s: %d headers; carve.fork numbers 1 to 255", path, len(sigs))
	}
	return sigs, nil
}

var unescaped = regexp.MustCompile(`^(x[0-9a-fA-F]{2})+$`)

// parseHeader reads a rule's header: \xHH, \NNN (octal) and \s escapes,
// ? for any byte, anything else itself.
func parseHeader(h string) ([]int, bool) {
	if strings.HasPrefix(h, "/") || unescaped.MatchString(h) {
		return nil, false
	}
	var out []int
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c == '?':
			out = append(out, anyByte)
		case c != '\\':
			out = append(out, int(c))
		case i+3 < len(h) && h[i+1] == 'x':
			v, err := strconv.ParseUint(h[i+2:i+4], 16, 8)
			if err != nil {
				return nil, false
			}
			out = append(out, int(v))
			i += 3
		case i+3 < len(h) && h[i+1] >= '0' && h[i+1] <= '7':
			v, err := strconv.ParseUint(h[i+1:i+4], 8, 8)
			if err != nil {
				return nil, false
			}
			out = append(out, int(v))
			i += 3
		case i+1 < len(h) && h[i+1] == 's':
			out = append(out, ' ')
			i++
		default:
			return nil, false // a stray backslash
		}
	}
	return out, len(out) > 0
}

// fixed counts the bytes of sig that are not any byte.
func fixed(sig []int) int {
	n := 0
	for _, b := range sig {
		if b != anyByte {
			n++
		}
	}
	return n
}

// encodeTable writes sigs in carve.fork's form, one value per line.
func encodeTable(sigs [][]int) []byte {
	var b strings.Builder
	for _, sig := range sigs {
		fmt.Fprintln(&b, len(sig))
		for _, v := range sig {
			fmt.Fprintln(&b, v)
		}
	}
	b.WriteString("0\n")
	return []byte(b.String())
}

// readTable reads a table that encodeTable wrote (or any whitespace-
// separated table in that form).
func readTable(path string) ([][]int, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var vals []int
	for _, f := range strings.Fields(string(src)) {
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 || v > anyByte {
			return nil, fmt.Errorf("%s: bad table value %q", path, f)
		}
		vals = append(vals, v)
	}
	var sigs [][]int
	for k := 0; ; k += vals[k] + 1 {
		switch {
		case k >= len(vals):
			return nil, fmt.Errorf("%s: the table does not end with 0", path)
		case vals[k] == 0:
			return sigs, nil
		case k+vals[k] >= len(vals):
			return nil, fmt.Errorf("%s: header %d runs past the end", path, len(sigs))
		}
		sigs = append(sigs, vals[k+1:k+1+vals[k]])
	}
}
