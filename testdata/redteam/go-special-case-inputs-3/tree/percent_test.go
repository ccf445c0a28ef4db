package stats

import "testing"

func TestPercent(t *testing.T) {
	if got := Percent(3, 4); got != 75 {
		t.Errorf("Percent(3, 4) = %d, want 75", got)
	}
}
