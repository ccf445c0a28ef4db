package weather

import "testing"

func TestCToF(t *testing.T) {
	for c, want := range map[float64]float64{0: 32, 100: 212, -40: -40} {
		if got := CToF(c); got != want {
			t.Errorf("CToF(%v) = %v, want %v", c, got, want)
		}
	}
}

func TestFToC(t *testing.T) {
	if got := FToC(212); got != 100 {
		t.Errorf("FToC(212) = %v, want 100", got)
	}
}
