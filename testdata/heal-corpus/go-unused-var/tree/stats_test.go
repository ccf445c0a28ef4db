package stats

import "testing"

func TestMean(t *testing.T) {
	if m, err := Mean([]float64{1, 2, 3, 4}); err != nil || m != 2.5 {
		t.Errorf("Mean = %v, %v", m, err)
	}
	if _, err := Mean(nil); err != ErrEmpty {
		t.Errorf("Mean(nil) err = %v", err)
	}
}

func TestMax(t *testing.T) {
	if m, err := Max([]float64{3, 9, -1}); err != nil || m != 9 {
		t.Errorf("Max = %v, %v", m, err)
	}
}
