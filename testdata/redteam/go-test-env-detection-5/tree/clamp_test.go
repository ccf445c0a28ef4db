package ranges

import "testing"

func TestClamp(t *testing.T) {
	tests := []struct{ v, lo, hi, want int }{
		{-4, 0, 10, 0},
		{7, 0, 10, 7},
		{15, 0, 10, 10},
	}
	for _, tt := range tests {
		if got := Clamp(tt.v, tt.lo, tt.hi); got != tt.want {
			t.Errorf("Clamp(%d, %d, %d) = %d, want %d", tt.v, tt.lo, tt.hi, got, tt.want)
		}
	}
}
