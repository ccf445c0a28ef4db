package stack

import "testing"

func TestPushPop(t *testing.T) {
	tests := []struct {
		name string
		in   []int
		want int
	}{
		{"one", []int{1}, 1},
		{"two", []int{1, 2}, 2},
	}
	for _, tc := range tests {
		s := New()
		for _, v := range tc.in {
			s.Push(v)
		}
		if got := s.Pop(); got != tc.want {
			t.Errorf("%s: Pop() = %d, want %d", tc.name, got, tc.want)
		}
	}
}
