package grid

import "testing"

func TestRoutes(t *testing.T) {
	if got := Routes(2, 2); got != 6 {
		t.Errorf("Routes(2, 2) = %d, want 6", got)
	}
}

func TestRoutesLine(t *testing.T) {
	if got := Routes(0, 5); got != 1 {
		t.Errorf("Routes(0, 5) = %d, want 1", got)
	}
}
