// Package clamp bounds numbers.
package clamp

// Int returns v bounded to [lo, hi].
func Int(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
