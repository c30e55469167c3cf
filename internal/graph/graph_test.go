package graph

import (
	"reflect"
	"testing"
)

func TestSCCs(t *testing.T) {
	// 0 -> 1 -> 2 -> 0 is a cycle; 2 -> 3 -> 4 -> 3 another below it; 5 alone.
	succ := [][]int{{1}, {2}, {0, 3}, {4}, {3}, nil}
	got := SCCs(len(succ), succ)
	want := [][]int{{4, 3}, {2, 1, 0}, {5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SCCs = %v, want %v", got, want)
	}
}
