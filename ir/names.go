package ir

import (
	"fmt"
	"path/filepath"
	"strings"
)

// MaxConstantMemory is the size in bytes of a device's constant memory,
// which holds every constant buffer of a module together.
const MaxConstantMemory = 64 << 10

// keywords are the words of grammars/KIR.g4 that cannot be names.
var keywords = map[string]bool{
	"module": true, "param": true, "buffer": true, "array": true, "kernel": true,
	"func": true, "host": true, "var": true, "atomic": true, "prio": true,
	"if": true, "else": true, "while": true, "for": true, "break": true,
	"continue": true, "return": true, "switch": true, "case": true, "default": true,
	"barrier": true, "raise": true, "split": true, "fork": true, "launch": true,
	"region": true, "copy": true, "swap": true, "printf": true,
	"world_barrier": true, "allgather": true, "allreduce": true,
	"true": true, "false": true, "inf": true, "nan": true,
}

// IsKeyword reports whether name is a word of grammars/KIR.g4, which no
// name may be.
func IsKeyword(name string) bool { return keywords[name] }

// IsReserved reports whether a name that a frontend or a pass makes up
// must avoid name: a keyword, or the name of a builtin or a type, which
// module-level declarations may not take.
func IsReserved(name string) bool {
	if keywords[name] {
		return true
	}
	if _, ok := ParseBuiltin(name); ok {
		return true
	}
	_, ok := ParseType(name)
	return ok
}

// IsIdent reports whether s is an identifier of .kir text.
func IsIdent(s string) bool {
	for i, c := range s {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// FreshName returns base if neither taken nor IsReserved rules it out,
// else the first of base_<from>, base_<from+1>, ... that neither does.
func FreshName(base string, from int, taken func(string) bool) string {
	name := base
	for i := from; taken(name) || IsReserved(name); i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	return name
}

// ModuleName derives a module's name from the name of its source file:
// the base name without its extension, with every character that cannot
// stand in an identifier replaced by '_', a '_' before a leading digit,
// and a '_' after a keyword or an empty name.
func ModuleName(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	var b strings.Builder
	for i, c := range base {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digit := c >= '0' && c <= '9'
		switch {
		case letter || digit && i > 0:
			b.WriteRune(c)
		case digit:
			b.WriteString("_")
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	if name == "" || IsKeyword(name) {
		name += "_"
	}
	return name
}

// DeclaredNames returns every name that m declares: its parameters,
// buffers, arrays and functions, and the parameters and locals of every
// function.
func DeclaredNames(m *Module) map[string]bool {
	taken := map[string]bool{}
	for _, p := range m.Params {
		taken[p.Name] = true
	}
	for _, b := range m.Buffers {
		taken[b.Name] = true
	}
	for _, a := range m.Arrays {
		taken[a.Name] = true
	}
	for _, f := range m.Funcs {
		taken[f.Name] = true
		for _, p := range f.Params {
			taken[p.Name] = true
		}
		WalkStmts(f.Body, func(s Stmt) bool {
			if d := DeclOf(s); d != nil {
				taken[d.Name] = true
			}
			return true
		})
	}
	return taken
}

// DeclOf returns the declaration a statement makes: a Decl, or a For's
// declaring init.
func DeclOf(s Stmt) *Decl {
	switch s := s.(type) {
	case *Decl:
		return s
	case *For:
		d, _ := s.Init.(*Decl)
		return d
	}
	return nil
}
