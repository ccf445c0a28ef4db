package pager

import "testing"

func TestBounds(t *testing.T) {
	for _, tc := range []struct {
		p        Page
		from, to int
	}{
		{Page{Number: 1, Size: 10, Total: 25}, 0, 10},
		{Page{Number: 3, Size: 10, Total: 25}, 20, 25},
		{Page{Number: 4, Size: 10, Total: 25}, 25, 25},
	} {
		if from, to := tc.p.Bounds(); from != tc.from || to != tc.to {
			t.Errorf("%+v.Bounds() = %d, %d; want %d, %d", tc.p, from, to, tc.from, tc.to)
		}
	}
	if n := Pages(25, 10); n != 3 {
		t.Errorf("Pages(25, 10) = %d, want 3", n)
	}
}
