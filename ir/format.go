package ir

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FormatPiece is one part of a printf format: literal text, or one
// conversion. The interpreter and every backend print through these pieces,
// so that all of them write the same bytes.
type FormatPiece struct {
	Lit   string // literal text when Verb is 0
	Verb  byte   // d u x c s f e
	Long  bool   // the l modifier: %ld %lu %lx
	Minus bool   // '-': pad on the right
	Zero  bool   // '0': pad numbers with zeros
	Width int    // -1 if absent
	Prec  int    // -1 if absent; only for f, e and s
}

// ParseFormat splits a printf format into pieces. It accepts %d %u %x %ld
// %lu %lx %c %s %f %e and %%, with the flags - and 0, a width, and for f, e
// and s a precision.
func ParseFormat(f string) ([]FormatPiece, error) {
	var out []FormatPiece
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, FormatPiece{Lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			lit.WriteByte(f[i])
			continue
		}
		start := i
		i++
		if i < len(f) && f[i] == '%' {
			lit.WriteByte('%')
			continue
		}
		p := FormatPiece{Width: -1, Prec: -1}
		for ; i < len(f) && (f[i] == '-' || f[i] == '0'); i++ {
			if f[i] == '-' {
				p.Minus = true
			} else {
				p.Zero = true
			}
		}
		if n, w := digits(f[i:]); n > 0 {
			p.Width, i = w, i+n
		}
		if i < len(f) && f[i] == '.' {
			n, prec := digits(f[i+1:])
			p.Prec, i = prec, i+1+n
		}
		if i < len(f) && f[i] == 'l' {
			p.Long = true
			i++
		}
		if i >= len(f) {
			return nil, fmt.Errorf("format %q: unfinished conversion %s", f, f[start:])
		}
		p.Verb = f[i]
		switch {
		case !strings.ContainsRune("duxcsfe", rune(p.Verb)):
			return nil, fmt.Errorf("format %q: unsupported conversion %s", f, f[start:i+1])
		case p.Long && !strings.ContainsRune("dux", rune(p.Verb)):
			return nil, fmt.Errorf("format %q: l applies only to d, u and x, not in %s", f, f[start:i+1])
		case p.Prec >= 0 && !strings.ContainsRune("fes", rune(p.Verb)):
			return nil, fmt.Errorf("format %q: precision applies only to f, e and s, not in %s", f, f[start:i+1])
		}
		flush()
		out = append(out, p)
	}
	flush()
	return out, nil
}

func digits(s string) (n, v int) {
	for n < len(s) && s[n] >= '0' && s[n] <= '9' && n < 6 {
		v = v*10 + int(s[n]-'0')
		n++
	}
	return n, v
}

// Accepts reports whether a value of type t may be printed by p. The rules
// match the C types that the backends pass: %d takes i32 and narrower (bool,
// i8, u8), %u and %x take u32, %ld takes i64, %lu and %lx take u64, %c takes
// i8, u8 and i32, %f and %e take f32 and f64, %s takes a string literal.
func (p FormatPiece) Accepts(t Type) bool {
	switch p.Verb {
	case 'd':
		if p.Long {
			return t == I64
		}
		return t == I32 || t == I8 || t == U8 || t == Bool
	case 'u', 'x':
		if p.Long {
			return t == U64
		}
		return t == U32
	case 'c':
		return t == I8 || t == U8 || t == I32
	case 'f', 'e':
		return t.IsFloat()
	case 's':
		return t == String
	}
	return false
}

// Want describes the types p accepts, for diagnostics.
func (p FormatPiece) Want() string {
	switch p.Verb {
	case 'd':
		if p.Long {
			return "i64"
		}
		return "i32, i8, u8 or bool"
	case 'u', 'x':
		if p.Long {
			return "u64"
		}
		return "u32"
	case 'c':
		return "i8, u8 or i32"
	case 'f', 'e':
		return "f32 or f64"
	}
	return "a string literal"
}

// Spec is p written back as a C conversion specification.
func (p FormatPiece) Spec() string {
	if p.Verb == 0 {
		return strings.ReplaceAll(p.Lit, "%", "%%")
	}
	var b strings.Builder
	b.WriteByte('%')
	if p.Minus {
		b.WriteByte('-')
	}
	if p.Zero {
		b.WriteByte('0')
	}
	if p.Width >= 0 {
		b.WriteString(strconv.Itoa(p.Width))
	}
	if p.Prec >= 0 {
		b.WriteByte('.')
		b.WriteString(strconv.Itoa(p.Prec))
	}
	if p.Long {
		b.WriteByte('l')
	}
	b.WriteByte(p.Verb)
	return b.String()
}

// FormatC prints one value as C's printf prints it under p. For %s, s is
// the string; otherwise b is the value of type t in canonical encoding.
func (p FormatPiece) FormatC(t Type, b Bits, s string) string {
	var body string
	numeric := true
	switch p.Verb {
	case 'd':
		body = strconv.FormatInt(int64(b), 10)
		if t == U8 || t == Bool {
			body = strconv.FormatUint(b, 10)
		}
	case 'u':
		body = strconv.FormatUint(b, 10)
	case 'x':
		body = strconv.FormatUint(b, 16)
		if !p.Long {
			body = strconv.FormatUint(uint64(uint32(b)), 16)
		}
	case 'c':
		body, numeric = string([]byte{byte(b)}), false
	case 's':
		body, numeric = s, false
		if p.Prec >= 0 && p.Prec < len(body) {
			body = body[:p.Prec]
		}
	case 'f', 'e':
		f := AsFloat(t, b)
		prec := p.Prec
		if prec < 0 {
			prec = 6
		}
		switch {
		case math.IsNaN(f):
			// NaN's sign depends on where it was made (x86 makes -NaN,
			// a C compiler's folding +NaN): it prints without one
			// everywhere (gpuc_nan_canon in the runtime).
			body, numeric = "nan", false
		case math.IsInf(f, 0):
			body, numeric = "inf", false
			if f < 0 {
				body = "-inf"
			}
		default:
			body = strconv.FormatFloat(f, p.Verb, prec, 64)
		}
	}
	return p.pad(body, numeric)
}

func (p FormatPiece) pad(body string, numeric bool) string {
	n := p.Width - len(body)
	if n <= 0 {
		return body
	}
	switch {
	case p.Minus:
		return body + strings.Repeat(" ", n)
	case p.Zero && numeric:
		sign := ""
		if body[0] == '-' {
			sign, body = "-", body[1:]
		}
		return sign + strings.Repeat("0", n) + body
	}
	return strings.Repeat(" ", n) + body
}
