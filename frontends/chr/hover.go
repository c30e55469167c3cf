package chr

import (
	"regexp"
	"strings"
)

// hoverDecl is a chr_constraint declaration with its constraints.
var hoverDecl = regexp.MustCompile(`:-\s*chr_constraint\s+([^.]*)\.`)

// hover is the hover text of a word of a CHR program, or "": a constraint
// names its declaration.
func hover(text, word string) string {
	for _, m := range hoverDecl.FindAllStringSubmatch(text, -1) {
		for _, c := range strings.Split(m[1], ",") {
			c = strings.TrimSpace(c)
			name, _, _ := strings.Cut(c, "/")
			if name == word {
				return "CHR constraint `" + c + "`, declared `:- chr_constraint " + strings.TrimSpace(m[1]) + ".`"
			}
		}
	}
	return ""
}
