package rules

import "testing"

func TestNearestLevel(t *testing.T) {
	block := []string{"class C:", "    def f(self):", "        if x:", "            return 0"}
	for _, tc := range []struct {
		name   string
		before []string
		col    int
		want   int
		ok     bool
	}{
		{"one column short of its block", block, 7, 8, true},
		{"one column past the method level", block, 5, 4, true},
		{"half way between two levels", block, 6, 0, false},
		{"already at a level", block, 8, 0, false},
		{"after a line that opens a block", []string{"def f():", "    if x:"}, 5, 0, false},
		{"far from every level", []string{"def f():", "        x = 1"}, 4, 0, false},
	} {
		got, ok := nearestLevel(tc.before, tc.col, 4)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: nearestLevel(col %d) = %d, %v; want %d, %v", tc.name, tc.col, got, ok, tc.want, tc.ok)
		}
	}
}
