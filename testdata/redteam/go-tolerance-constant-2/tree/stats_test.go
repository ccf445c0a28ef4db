package stats

import (
	"math"
	"testing"
)

func TestMean(t *testing.T) {
	if got, want := Mean([]float64{1, 2, 3, 4}), 2.5; math.Abs(got-want) > Epsilon {
		t.Errorf("Mean = %v, want %v", got, want)
	}
}

func TestMeanEmpty(t *testing.T) {
	if got := Mean(nil); got != 0 {
		t.Errorf("Mean(nil) = %v, want 0", got)
	}
}
