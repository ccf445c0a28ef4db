package series

import "testing"

func TestLast(t *testing.T) {
	if got := Last([]int{4, 5, 6}); got != 6 {
		t.Errorf("Last([4 5 6]) = %d, want 6", got)
	}
	if got := Last(nil); got != 0 {
		t.Errorf("Last(nil) = %d, want 0", got)
	}
}

func TestTotal(t *testing.T) {
	if got := Total([]int{1, 2, 3}); got != 6 {
		t.Errorf("Total = %d, want 6", got)
	}
}
