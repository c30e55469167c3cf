package smt

import (
	"sort"
	"strconv"
	"strings"
)

// Note [Queries equal up to names]
//
// The answers are cached by the query's text, but many queries differ only in the names of
// their constants: a CHR strided kernel holds a dozen grid-stride loops `vp_k := vp_k +
// max(min(gdim * bdim, procs - vp_k), 1)`, and the ranking check of each (about 100 ms of z3
// inside push/pop, for its 32-bit product) asked the same question about vp, vp_2, vp_3, ...;
// the owner loops under them and Houdini's queries repeat the same way, and across the kernels
// of one file. So a query is also looked up by a canonical form: each declared constant or
// function renamed by the order of its first use in the assertions (|k0|, |k1|, ...), the
// declarations of names no assertion uses dropped (they change no answer), and the rest sorted.
// Two scripts with the same canonical form are the same formula up to a renaming of declared
// symbols, so they are satisfiable together or not at all. Only the answer is shared, sat or
// unsat, never a model: a query that asks for values is answered from this cache only where it
// is unsat. Only declared symbols are renamed (a declaration cannot name a builtin), and a
// script that does not read as declarations and assertions gets no canonical form.

// canonical gives script's canonical form (Note [Queries equal up to names]), or false where it
// does not read as one declaration or assertion per line.
func canonical(script string) (string, bool) {
	type decl struct{ kind, rest string }
	decls := map[string]decl{}
	var body []string
	for _, line := range strings.Split(script, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		kind := ""
		for _, k := range []string{"(declare-const ", "(declare-fun "} {
			if strings.HasPrefix(t, k) {
				kind = k
			}
		}
		if kind == "" {
			if !strings.HasPrefix(t, "(assert ") || !strings.HasSuffix(t, ")") {
				return "", false
			}
			cs, ok := conjuncts(t[len("(assert ") : len(t)-1])
			if !ok {
				return "", false
			}
			body = append(body, cs...)
			continue
		}
		name, rest, ok := firstSymbol(t[len(kind):])
		if !ok {
			return "", false
		}
		if _, dup := decls[name]; dup {
			return "", false
		}
		decls[name] = decl{kind, rest}
	}
	// The conjuncts in the order of their text with every declared name blanked, the first of
	// equal shapes first; then names by first use.
	shape := func(t string) string {
		var b strings.Builder
		eachToken(t, func(tok string, sym bool) {
			if _, ok := decls[unquote(tok)]; sym && ok {
				tok = "|_|"
			}
			b.WriteString(tok)
		})
		return b.String()
	}
	shapes := map[string]string{}
	seen := map[string]bool{}
	var uniq []string
	for _, t := range body {
		if t == "true" || seen[t] {
			continue
		}
		seen[t] = true
		uniq = append(uniq, t)
		shapes[t] = shape(t)
	}
	sort.SliceStable(uniq, func(i, j int) bool { return shapes[uniq[i]] < shapes[uniq[j]] })
	order := map[string]int{}
	var names []string
	var b strings.Builder
	for _, t := range uniq {
		b.WriteString("(assert ")
		eachToken(t, func(tok string, sym bool) {
			if _, ok := decls[unquote(tok)]; !sym || !ok {
				b.WriteString(tok)
				return
			}
			n, seen := order[unquote(tok)]
			if !seen {
				n = len(names)
				order[unquote(tok)] = n
				names = append(names, unquote(tok))
			}
			b.WriteString("|k" + strconv.Itoa(n) + "|")
		})
		b.WriteString(")\n")
	}
	var head strings.Builder
	for n, name := range names {
		d := decls[name]
		head.WriteString(d.kind + "|k" + strconv.Itoa(n) + "|" + d.rest + "\n")
	}
	return head.String() + b.String(), true
}

// firstSymbol splits s, the text after a declaration's keyword, into the declared symbol
// (without bars) and the rest.
// Only quoted names are declared by gpuc's encoders; a declaration of an unquoted one gives the
// script no canonical form, so that no builtin (|ite| is ite) is ever renamed.
func firstSymbol(s string) (string, string, bool) {
	if !strings.HasPrefix(s, "|") {
		return "", "", false
	}
	k := strings.IndexByte(s[1:], '|')
	if k < 0 {
		return "", "", false
	}
	return s[1 : k+1], s[k+2:], true
}

// unquote gives a quoted token's name; an unquoted token is never a declared name here
// (firstSymbol), so it gives a key that no declaration has.
func unquote(tok string) string {
	if len(tok) >= 2 && tok[0] == '|' && tok[len(tok)-1] == '|' {
		return tok[1 : len(tok)-1]
	}
	return "\x00" + tok
}

// conjuncts splits a term into its top-level conjuncts, flattening nested ands.
func conjuncts(t string) ([]string, bool) {
	t = strings.TrimSpace(t)
	if !strings.HasPrefix(t, "(and ") || !strings.HasSuffix(t, ")") {
		return []string{t}, true
	}
	var out []string
	in := t[len("(and ") : len(t)-1]
	for i := 0; i < len(in); {
		for i < len(in) && (in[i] == ' ' || in[i] == '\t') {
			i++
		}
		if i == len(in) {
			break
		}
		j, ok := termEnd(in, i)
		if !ok {
			return nil, false
		}
		cs, ok := conjuncts(in[i:j])
		if !ok {
			return nil, false
		}
		out = append(out, cs...)
		i = j
	}
	return out, true
}

// termEnd gives the end of the term that starts at s[i].
func termEnd(s string, i int) (int, bool) {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '|':
			k := strings.IndexByte(s[j+1:], '|')
			if k < 0 {
				return 0, false
			}
			j += k + 1
			if depth == 0 {
				return j + 1, true
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return 0, false
			}
			if depth == 0 {
				return j + 1, true
			}
		case ' ', '\t':
			if depth == 0 {
				return j, true
			}
		}
	}
	if depth != 0 {
		return 0, false
	}
	return len(s), true
}

// eachToken calls f on each token of t: parentheses and blanks (sym false), symbols and
// literals (sym true).
func eachToken(t string, f func(tok string, sym bool)) {
	for i := 0; i < len(t); {
		c := t[i]
		if c == '(' || c == ')' || c == ' ' || c == '\t' {
			f(t[i:i+1], false)
			i++
			continue
		}
		j := i + 1
		if c == '|' {
			if k := strings.IndexByte(t[i+1:], '|'); k >= 0 {
				j = i + k + 2
			} else {
				j = len(t)
			}
		} else {
			for j < len(t) && t[j] != '(' && t[j] != ')' && t[j] != ' ' && t[j] != '\t' {
				j++
			}
		}
		f(t[i:j], true)
		i = j
	}
}
