package termination

import "testing"

func TestJoinConditions(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"CAP <= 1073741824 && PROCS <= 1073741824", "CAP <= 1073741824"}, "CAP <= 1073741824 && PROCS <= 1073741824"},
		{[]string{"CAP <= 1073741824", "1 <= CAP <= 1024 && procs >= 1"}, "1 <= CAP <= 1024 && procs >= 1"},
		{[]string{"n >= 1", "n <= 1024"}, "1 <= n <= 1024"},
		{[]string{"1 <= a[0] <= 1024", "a[0] <= 65536"}, "1 <= a[0] <= 1024"},
	} {
		if got := joinConditions(c.in); got != c.want {
			t.Errorf("joinConditions(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWithin(t *testing.T) {
	if !within([]int{1, 2}, [][]int{{0, 1, 2}}) || within([]int{1, 3}, [][]int{{0, 1, 2}, {3}}) || within([]int{1}, nil) {
		t.Error("within: wrong answer")
	}
}
