// Package calc does arithmetic.
package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}

// Sub returns a minus b.
func Sub(a, b int) int {
	if b < 0 {
		return a + -b
	}
	return a - b
}

// Abs returns the absolute value of a.
func Abs(a int) int {
	if a < 0 {
		return a
	}
	return a
}
