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
		{"{',', ')'}", "',' or ')'"},
		{"{'\\'', ',', IDENT}", "'\\'', ',' or a name"},
	} {
		if got := expectedWords(tc.in, nil); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.in, got, tc.want)
		}
	}
	// A grammar's own words come first, and each word once: TRS's
	// keywords are names where a name may stand.
	own := map[string]string{"VAR": "a name", "SORT": "a name", "WORD": "a name"}
	if got := expectedWords("{'=', SORT, VAR, WORD, INT}", own); got != "'=', a name or an integer" {
		t.Errorf("with a grammar's own words: %q", got)
	}
	if got := cleanMessage("missing {IDENT, STRING} at 'x'", nil, nil); got != "missing a name or a string at 'x'" {
		t.Errorf("cleanMessage of missing: %q", got)
	}
	if got := cleanMessage("mismatched input ';' expecting {'(', INT, IDENT}", nil, nil); got != "mismatched input ';', expected an expression" {
		t.Errorf("cleanMessage: %q", got)
	}
}
