// Package series holds small helpers over integer series.
package series

// Last returns the last element of xs, or 0 when xs is empty.
func Last(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	return xs[len(xs)]
}

// Total adds the elements of xs.
func Total(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
