package fork

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gpuc/ir"
)

// C's scalar types are IR types: int is i32, unsigned u32, long i64,
// unsigned long u64, float f32, double f64, char i8, unsigned char u8 and
// bool bool. Comparisons and ! yield bool here, where C says int; bool
// promotes to int wherever C would use that int, so values agree.

// typeNames spells IR types as C types, for messages.
var typeNames = map[ir.Type]string{
	ir.Void: "void", ir.Bool: "bool", ir.I8: "char", ir.U8: "unsigned char",
	ir.I32: "int", ir.U32: "unsigned", ir.I64: "long", ir.U64: "unsigned long",
	ir.F32: "float", ir.F64: "double", ir.String: "string",
}

// cName spells t as a C type.
func cName(t ir.Type) string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return t.String()
}

// isIntegral reports whether t is an integer type or bool.
func isIntegral(t ir.Type) bool { return t.IsInt() || t == ir.Bool }

// promote applies C's integer promotions.
func promote(t ir.Type) ir.Type {
	switch t {
	case ir.Bool, ir.I8, ir.U8:
		return ir.I32
	}
	return t
}

// usual applies C's usual arithmetic conversions to two operand types.
func usual(a, b ir.Type) ir.Type {
	switch {
	case a == ir.F64 || b == ir.F64:
		return ir.F64
	case a == ir.F32 || b == ir.F32:
		return ir.F32
	}
	a, b = promote(a), promote(b)
	switch {
	case a == b:
		return a
	case a.IsSigned() == b.IsSigned():
		if a.Size() >= b.Size() {
			return a
		}
		return b
	}
	u, s := a, b
	if a.IsSigned() {
		u, s = b, a
	}
	if u.Size() >= s.Size() {
		return u
	}
	return s
}

// intLiteral reads a C integer literal and gives it C's type: the first of
// int, long (and for octal and hex, unsigned and unsigned long) that holds
// it, narrowed by the suffixes u and l.
func intLiteral(text string) (ir.Type, ir.Bits, error) {
	digits := strings.TrimRight(text, "uUlL")
	suffix := strings.ToLower(text[len(digits):])
	unsigned := strings.Contains(suffix, "u")
	long := strings.Contains(suffix, "l")
	base := 10
	switch {
	case strings.HasPrefix(digits, "0x") || strings.HasPrefix(digits, "0X"):
		base, digits = 16, digits[2:]
	case len(digits) > 1 && digits[0] == '0':
		base, digits = 8, digits[1:]
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		if base == 8 {
			return ir.Invalid, 0, fmt.Errorf("invalid octal literal %s", text)
		}
		return ir.Invalid, 0, fmt.Errorf("integer literal %s is too large", text)
	}
	var candidates []ir.Type
	switch {
	case unsigned && long:
		candidates = []ir.Type{ir.U64}
	case unsigned:
		candidates = []ir.Type{ir.U32, ir.U64}
	case long && base == 10:
		candidates = []ir.Type{ir.I64}
	case long:
		candidates = []ir.Type{ir.I64, ir.U64}
	case base == 10:
		candidates = []ir.Type{ir.I32, ir.I64}
	default:
		candidates = []ir.Type{ir.I32, ir.U32, ir.I64, ir.U64}
	}
	for _, t := range candidates {
		if fitsUnsigned(t, v) {
			return t, ir.Normalize(t, v), nil
		}
	}
	return ir.Invalid, 0, fmt.Errorf("integer literal %s is too large", text)
}

// fitsUnsigned reports whether the non-negative value v is a value of t.
func fitsUnsigned(t ir.Type, v uint64) bool {
	switch t {
	case ir.I32:
		return v <= math.MaxInt32
	case ir.U32:
		return v <= math.MaxUint32
	case ir.I64:
		return v <= math.MaxInt64
	}
	return true
}

// floatLiteral reads a C floating literal: double, or float with an f
// suffix (long double is double).
func floatLiteral(text string) (ir.Type, ir.Bits, error) {
	t := ir.F64
	body := text
	switch text[len(text)-1] {
	case 'f', 'F':
		t, body = ir.F32, text[:len(text)-1]
	case 'l', 'L':
		body = text[:len(text)-1]
	}
	f, err := strconv.ParseFloat(body, 64)
	if err != nil {
		return ir.Invalid, 0, fmt.Errorf("floating literal %s is out of range", text)
	}
	return t, ir.FloatBits(t, f), nil
}

// charLiteral reads a C character literal as a char (i8) value.
func charLiteral(text string) (ir.Bits, error) {
	s, err := unescape(text[1 : len(text)-1])
	if err != nil {
		return 0, err
	}
	if len(s) != 1 {
		return 0, fmt.Errorf("character literal %s holds %d bytes, want 1", text, len(s))
	}
	return ir.Normalize(ir.I8, uint64(s[0])), nil
}

// stringLiteral reads a C string literal.
func stringLiteral(text string) (string, error) { return unescape(text[1 : len(text)-1]) }

var simpleEscapes = map[byte]byte{
	'n': '\n', 't': '\t', 'r': '\r', 'a': '\a', 'b': '\b', 'f': '\f', 'v': '\v',
	'\\': '\\', '\'': '\'', '"': '"', '?': '?',
}

// unescape resolves C's escape sequences.
func unescape(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		start := i
		i++
		c := s[i]
		if r, ok := simpleEscapes[c]; ok {
			b.WriteByte(r)
			continue
		}
		base, j := 8, i
		if c == 'x' {
			base, i, j = 16, i+1, i+1
		}
		for j < len(s) && isDigit(s[j], base) && (base == 16 || j < i+3) {
			j++
		}
		v, err := strconv.ParseUint(s[i:j], base, 64)
		if err != nil || v > 255 {
			return "", fmt.Errorf("invalid escape sequence %s", s[start:max(j, i+1)])
		}
		b.WriteByte(byte(v))
		i = j - 1
	}
	return b.String(), nil
}

func isDigit(c byte, base int) bool {
	if base == 8 {
		return c >= '0' && c <= '7'
	}
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
