package syntax_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gpuc/internal/driver"
)

// An unclosed bracket under 19,000 open ones, within the nesting limit,
// ends at once in an error at the bracket (Note [Deep recovery]); ANTLR's
// own recovery took time n^2, 13 to 37 s of CPU for each here (it is
// about 0.3 s now).
func TestDeepRecovery(t *testing.T) {
	const n = 19000
	open := strings.Repeat("(", n)
	dir := t.TempDir()
	start := time.Now()
	for _, c := range []struct{ name, src, want string }{
		{"u.fork", "void main() {\n  int x;\n  x = f(" + open + "1, 2);\n}\n", "u.fork:3:19010: error: syntax error: mismatched input ','"},
		{"u.kir", "module m;\nhost main() {\n  var x: i32 = " + open + "1, 2;\n}\n", "u.kir:3:19017: error: syntax error: mismatched input ','"},
		{"u.chr", ":- chr_constraint g(+int).\n?- g(" + open + "1, 2).\n", "u.chr:2:19011: error: syntax error: mismatched input '.\\n'"},
	} {
		file := filepath.Join(dir, c.name)
		if err := os.WriteFile(file, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := driver.Load(file)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %s", c.name, err, c.want)
		}
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("%v for three deep errors", d)
	}
}
