package paginate

import "testing"

func TestPages(t *testing.T) {
	for _, tc := range []struct{ n, per, want int }{
		{0, 10, 0}, {10, 10, 1}, {11, 10, 2}, {25, 10, 3}, {1, 10, 1},
	} {
		if got := Pages(tc.n, tc.per); got != tc.want {
			t.Errorf("Pages(%d, %d) = %d, want %d", tc.n, tc.per, got, tc.want)
		}
	}
}

func TestSlice(t *testing.T) {
	xs := []int{1, 2, 3, 4, 5}
	if got := Slice(xs, 3, 2); len(got) != 1 || got[0] != 5 {
		t.Errorf("Slice page 3 = %v", got)
	}
}
