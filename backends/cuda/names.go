package cuda

import (
	"regexp"
	"strings"

	"gpuc/ir"
)

// ctype is the C++ spelling of a scalar type.
func ctype(t ir.Type) string {
	switch t {
	case ir.Bool:
		return "bool"
	case ir.I8:
		return "signed char"
	case ir.U8:
		return "unsigned char"
	case ir.I32:
		return "int"
	case ir.U32:
		return "unsigned"
	case ir.I64:
		return "long long"
	case ir.U64:
		return "unsigned long long"
	case ir.F32:
		return "float"
	case ir.F64:
		return "double"
	}
	return "void"
}

// typeTag is the runtime's gpuc_type constant for t.
func typeTag(t ir.Type) string { return "GPUC_" + strings.ToUpper(t.String()) }

// namer maps IR names to C++ identifiers. An IR name stays as it is unless
// it is a C++ keyword or a name that the C library, CUDA or the runtime
// owns; then it gets a suffix "_" (repeated until it is unique), and names
// that begin with "gpuc" also get the prefix "x", so that no IR name can
// meet a name the backend makes up (those all begin with "gpuc_").
type namer struct {
	taken map[string]bool // every IR name in the module
	names map[string]string
}

func newNamer(m *ir.Module) *namer {
	n := &namer{taken: map[string]bool{}, names: map[string]string{}}
	for _, name := range irNames(m) {
		n.taken[name] = true
	}
	return n
}

// c returns the C++ identifier for the IR name.
func (n *namer) c(name string) string {
	if c, ok := n.names[name]; ok {
		return c
	}
	c := name
	if strings.HasPrefix(strings.ToLower(c), "gpuc") {
		c = "x" + c
	}
	if c != name || reserved(c) {
		c += "_"
		for n.taken[c] {
			c += "_"
		}
	}
	n.names[name] = c
	return c
}

// irNames lists every name the module declares: module-level names,
// function parameters and locals.
func irNames(m *ir.Module) []string {
	var out []string
	for _, p := range m.Params {
		out = append(out, p.Name)
	}
	for _, b := range m.Buffers {
		out = append(out, b.Name)
	}
	for _, a := range m.Arrays {
		out = append(out, a.Name)
	}
	for _, f := range m.Funcs {
		out = append(out, f.Name)
		for _, p := range f.Params {
			out = append(out, p.Name)
		}
		ir.WalkStmts(f.Body, func(s ir.Stmt) bool {
			if f, ok := s.(*ir.For); ok {
				s = f.Init
			}
			if d, ok := s.(*ir.Decl); ok {
				out = append(out, d.Name)
			}
			return true
		})
	}
	return out
}

// reservedPattern matches names that headers may define as macros or
// types: errno values (EINTR), limits (INT_MAX), POSIX types (size_t),
// CUDA's vector types (uint4) and their constructors, and names reserved
// to the implementation.
var reservedPattern = regexp.MustCompile(`^(_.*|.*__.*|E[A-Z0-9].*|[A-Z0-9_]*_(MAX|MIN|C)|.*_t|` +
	`(make_)?u?(char|short|int|long|longlong|float|double)[1-4]|cuda.*|cu[A-Z].*|atomic.*)$`)

// reserved reports whether an IR name must not be used as it is in C++.
func reserved(name string) bool { return reservedWords[name] || reservedPattern.MatchString(name) }

// reservedWords are C++ keywords and the names of the C library, math
// library and CUDA that the generated program sees at global scope or as
// macros.
var reservedWords = func() map[string]bool {
	words := `alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
	char16_t char32_t class compl concept const consteval constexpr constinit const_cast continue
	co_await co_return co_yield decltype default delete do double dynamic_cast else enum explicit
	export extern false float for friend goto if inline int long mutable namespace new noexcept not
	not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires
	return short signed sizeof static static_assert static_cast struct switch template this
	thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
	wchar_t while xor xor_eq final override restrict std main
	NULL EOF BUFSIZ FILE errno stdin stdout stderr assert offsetof va_list va_start va_end va_arg
	NAN INFINITY HUGE_VAL HUGE_VALF isnan isinf isfinite signbit fpclassify
	printf fprintf sprintf snprintf vprintf vfprintf puts fputs fputc putchar getchar fopen fclose
	fread fwrite fflush perror scanf sscanf fscanf remove rename exit abort atexit malloc calloc
	realloc free memcpy memmove memset memcmp strlen strcmp strncmp strcpy strncpy strcat strchr
	strrchr strstr strtok strtol strtoll strtoul strtoull strtod strtof strerror strcspn strspn
	atoi atol atof abs labs llabs div ldiv lldiv rand srand qsort bsearch getenv system time clock
	index rindex bcopy bzero select read write open close stat fstat signal raise sleep clock_gettime timespec
	sqrt sqrtf cbrt cbrtf exp expf exp2 exp2f exp10 exp10f expm1 log logf log2 log2f log10 log10f
	log1p pow powf sin sinf cos cosf tan tanf asin acos atan atan2 sinh cosh tanh asinh acosh atanh
	sincos sincosf sinpi cospi floor floorf ceil ceilf round roundf trunc truncf rint lrint llrint
	nearbyint fabs fabsf fmod fmodf remainder remquo fmin fminf fmax fmaxf fdim fma fmaf frexp
	ldexp modf scalbn ilogb logb hypot rhypot norm rnorm erf erfc erfinv lgamma tgamma nan nanf
	copysign nextafter j0 j1 jn y0 y1 yn gamma min max rsqrt rsqrtf rcbrt saturate
	threadIdx blockIdx blockDim gridDim warpSize dim3 clock64 uint4 uint3`
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}()

// cstring writes s as a C string literal. Bytes outside printable ASCII
// become three-digit octal escapes, which never swallow a following digit,
// and "??" is broken up so that it cannot start a trigraph.
func cstring(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '?' && i > 0 && s[i-1] == '?':
			b.WriteString(`\?`)
		case c < 0x20 || c >= 0x7f:
			b.WriteByte('\\')
			b.WriteByte('0' + c>>6)
			b.WriteByte('0' + c>>3&7)
			b.WriteByte('0' + c&7)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
