// Package stats summarises samples.
package stats

// Epsilon is how far apart two results may be and still be equal.
var Epsilon = 1e-9

// Mean returns the arithmetic mean of xs, or 0 for no samples.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs)-1)
}
