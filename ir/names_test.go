package ir

import "testing"

func TestModuleName(t *testing.T) {
	for file, want := range map[string]string{
		"a/b/merge-sort.trs": "merge_sort",
		"AG01__h3.1.trs":     "AG01__h3_1",
		"x.trs":              "x",
		"9x.trs":             "_9x",
		"kernel.fork":        "kernel_",
		"min.chr":            "min",
		".trs":               "_",
	} {
		if got := ModuleName(file); got != want {
			t.Errorf("ModuleName(%q) = %q, want %q", file, got, want)
		}
	}
}

func TestFreshName(t *testing.T) {
	taken := map[string]bool{"x": true, "x_1": true}
	free := func(s string) bool { return taken[s] }
	for _, c := range []struct {
		base string
		from int
		want string
	}{
		{"y", 1, "y"}, {"x", 1, "x_2"}, {"x", 2, "x_2"}, {"if", 1, "if_1"}, {"max", 2, "max_2"}, {"i32", 1, "i32_1"},
	} {
		if got := FreshName(c.base, c.from, free); got != c.want {
			t.Errorf("FreshName(%q, %d) = %q, want %q", c.base, c.from, got, c.want)
		}
	}
}

func TestIsReserved(t *testing.T) {
	for name, want := range map[string]bool{"while": true, "tid": true, "f64": true, "nan": true, "x": false, "string": false, "global": false} {
		if got := IsReserved(name); got != want {
			t.Errorf("IsReserved(%q) = %v, want %v", name, got, want)
		}
	}
	if IsKeyword("tid") || !IsKeyword("launch") {
		t.Error("IsKeyword: tid is a builtin, launch a keyword")
	}
}
