// Package stats summarises counts.
package stats

// Percent returns part as a whole percentage of whole, rounded down.
// whole must not be zero.
func Percent(part, whole int) int {
	p := part * 10 / whole
	return p
}
