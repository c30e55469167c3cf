// Package enum checks the values of small string enumerations, the kind
// that command-line flags take (--grid-sync=auto, --print=summary), so
// that a bad value is refused as the flag is parsed.
package enum

import (
	"fmt"
	"slices"
	"strings"
)

// Check returns nil if s is one of names, and otherwise an error that
// lists them: "want auto, always or never".
func Check(s string, names ...string) error {
	if slices.Contains(names, s) {
		return nil
	}
	return fmt.Errorf("want %s", List(names...))
}

// List joins names as prose: "a, b or c".
func List(names ...string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Set sets *p to s, the way a flag's Set method does, if s is one of
// names, and otherwise returns Check's error.
func Set[T ~string](p *T, s string, names ...T) error {
	if !slices.Contains(names, T(s)) {
		all := make([]string, len(names))
		for i, n := range names {
			all[i] = string(n)
		}
		return Check(s, all...)
	}
	*p = T(s)
	return nil
}
