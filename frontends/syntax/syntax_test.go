package syntax

import "testing"

// TestExpectedWords checks that ANTLR's expected sets read as words.
func TestExpectedWords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{'(', '{', '@', '$', '-', INT, FLOAT, STRING, IDENT}", "an expression"},
		{"{'(', VAR, NAME, INT}", "an expression"},
		{"';'", "';'"},
		{"{';', IDENT}", "';' or a name"},
		{"{'a', 'b', 'c', 'd', 'e', 'f'}", "'a', 'b', 'c', 'd', 'e' or another token"},
		{"end of file", "the end of the file"},
	} {
		if got := expectedWords(tc.in); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := cleanMessage("mismatched input ';' expecting {'(', INT, IDENT}", nil); got != "mismatched input ';', expected an expression" {
		t.Errorf("cleanMessage: %q", got)
	}
}
