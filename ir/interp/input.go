package interp

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"gpuc/internal/diag"
	"gpuc/ir"
)

// readInputs fills every input buffer from the file Config.Inputs names.
func (x *machine) readInputs() error {
	for _, name := range slices.Sorted(maps.Keys(x.cfg.Inputs)) {
		if b := x.mod.Buffer(name); b == nil || b.Role != ir.Input {
			return fmt.Errorf("an input file is given for %s, which is not an input buffer", name)
		}
	}
	for _, b := range x.mod.Buffers {
		if b.Role != ir.Input {
			continue
		}
		path, ok := x.cfg.Inputs[b.Name]
		if !ok {
			return diag.Errorf(b.Pos, "no input file given for input buffer %s", b.Name)
		}
		m := x.mems[b.Name]
		if raw, ok := strings.CutPrefix(path, "@"); ok {
			if err := readRaw(raw, m); err != nil {
				return err
			}
		} else if err := readText(path, m); err != nil {
			return err
		}
	}
	return nil
}

// readText reads whitespace-separated values, exactly one per element.
func readText(path string, m *memory) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("input buffer %s: %w", m.name, err)
	}
	n := 0
	err = eachToken(path, src, func(tok string, pos diag.Pos) error {
		if n == len(m.data) {
			return diag.Errorf(pos, "more than %d values for buffer %s of length %d", n, m.name, n)
		}
		v, err := parseValue(tok, m.elem)
		if err != nil {
			return diag.Errorf(pos, "%v in input for buffer %s", err, m.name)
		}
		m.data[n] = v
		n++
		return nil
	})
	if err != nil {
		return err
	}
	if n < len(m.data) {
		return diag.Errorf(diag.Pos{File: path}, "%d values for buffer %s of length %d", n, m.name, len(m.data))
	}
	return nil
}

// eachToken calls f on each whitespace-separated token of src with its
// position, stopping at the first error.
func eachToken(path string, src []byte, f func(tok string, pos diag.Pos) error) error {
	line, col := 1, 1
	for i := 0; i < len(src); {
		switch src[i] {
		case '\n':
			line, col = line+1, 1
			i++
			continue
		case ' ', '\t', '\r', '\v', '\f':
			col++
			i++
			continue
		}
		j := i
		for j < len(src) && !strings.ContainsRune(" \t\r\v\f\n", rune(src[j])) {
			j++
		}
		if err := f(string(src[i:j]), diag.Pos{File: path, Line: line, Col: col}); err != nil {
			return err
		}
		col += j - i
		i = j
	}
	return nil
}

// ReadValues reads all the values of type t in a file, in the formats of
// input files (Config.Inputs): "@PATH" holds raw little-endian binary,
// any other path whitespace-separated text values. Static buffers given
// on the command line are read with it.
func ReadValues(path string, t ir.Type) ([]ir.Bits, error) {
	raw, binary := strings.CutPrefix(path, "@")
	src, err := os.ReadFile(raw)
	if err != nil {
		return nil, err
	}
	if binary {
		size := t.Size()
		if size == 0 || len(src)%size != 0 {
			return nil, diag.Errorf(diag.Pos{File: raw}, "%d bytes are not a whole number of %s values", len(src), t)
		}
		if len(src)/size > maxElements {
			return nil, diag.Errorf(diag.Pos{File: raw}, "%d values are more than the interpreter's limit of %d elements", len(src)/size, maxElements)
		}
		m := &memory{name: raw, elem: t, data: make([]ir.Bits, len(src)/size)}
		return m.data, decodeRaw(raw, src, m)
	}
	var out []ir.Bits
	err = eachToken(path, src, func(tok string, pos diag.Pos) error {
		v, err := parseValue(tok, t)
		if err != nil {
			return diag.Errorf(pos, "%v", err)
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// parseValue reads one text value of type t: an integer in decimal or 0x
// hex, a float as strconv reads it, or true or false.
func parseValue(tok string, t ir.Type) (ir.Bits, error) {
	switch {
	case t == ir.Bool:
		switch tok {
		case "true":
			return 1, nil
		case "false":
			return 0, nil
		}
	case t.IsFloat():
		f, err := strconv.ParseFloat(tok, t.Size()*8)
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("value %s out of range for %s", tok, t)
		}
		if err == nil {
			return ir.FloatBits(t, f), nil
		}
	case t.IsInt():
		digits, neg := strings.CutPrefix(tok, "-")
		base := 10
		if hex, ok := strings.CutPrefix(strings.ToLower(digits), "0x"); ok {
			digits, base = hex, 16
		}
		u, err := strconv.ParseUint(digits, base, 64)
		if err == nil || errors.Is(err, strconv.ErrRange) {
			if b, ok := intValue(t, neg, u); ok && err == nil {
				return b, nil
			}
			return 0, fmt.Errorf("value %s out of range for %s", tok, t)
		}
	}
	return 0, fmt.Errorf("bad %s value %q", t, tok)
}

// intValue encodes the integer with magnitude u as a value of type t, and
// reports whether it is in t's range.
func intValue(t ir.Type, neg bool, u uint64) (ir.Bits, bool) {
	if !t.IsSigned() {
		return u, (!neg || u == 0) && (t == ir.U64 || ir.Normalize(t, u) == u)
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		v := int64(-u)
		return ir.IntBits(t, v), fitsInt(t, v)
	}
	return ir.IntBits(t, int64(u)), u <= math.MaxInt64 && fitsInt(t, int64(u))
}

// readRaw reads little-endian binary values, exactly one per element.
func readRaw(path string, m *memory) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("input buffer %s: %w", m.name, err)
	}
	size := m.elem.Size()
	if size == 0 || len(src) != len(m.data)*size {
		return diag.Errorf(diag.Pos{File: path}, "%d bytes for buffer %s of %d %s values (%d bytes)",
			len(src), m.name, len(m.data), m.elem, len(m.data)*size)
	}
	return decodeRaw(path, src, m)
}

// decodeRaw decodes little-endian values, as many as m holds, from src.
func decodeRaw(path string, src []byte, m *memory) error {
	size := m.elem.Size()
	for i := range m.data {
		var u uint64
		for k := size - 1; k >= 0; k-- {
			u = u<<8 | uint64(src[i*size+k])
		}
		if m.elem == ir.Bool && u > 1 {
			return diag.Errorf(diag.Pos{File: path}, "byte %d: bool value %d is not 0 or 1", i, u)
		}
		m.data[i] = ir.Normalize(m.elem, u)
	}
	return nil
}
